//! The Rust twin of LASTZ's HSP search, file by file: [`seed`] (seeds.c: parsing a strict seed, packing a
//! word), [`pos_table`] (pos_table.c: `build_seed_position_table`), [`scoring`] (dna_utilities.c: the
//! masked HOXD70 set the hit processor scores with, and `entropy`), [`hits`] (seed_search.c and
//! diag_hash.c: `seed_hit_search`, `process_for_simple_hit`, `xdrop_extend_seed_hit`).

pub mod hits;
pub mod pos_table;
pub mod scoring;
pub mod seed;

pub use hits::search;
