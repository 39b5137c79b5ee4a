//! The Rust twin of minimap2 2.31's seeding, element by element equal to the x86-64 build of upstream's C:
//! [`sketch`] (sketch.c), [`sdust`] (sdust.c) and the steps from a read's minimizers to its anchors ([`hits`]: seed.c and map.c).

pub mod hits;
mod sdust;
mod sketch;

pub use sdust::sdust;
pub use sketch::{chunk_warm_up, hash64, sketch, sketch_chunk, SEQ_NT4_TABLE};
