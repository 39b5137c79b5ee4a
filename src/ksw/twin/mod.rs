//! Rust twins of ksw2's SSE functions: scalar models of the vector code, bit-exact with the SSE4.1 build
//! (same int8 wrap-around, same 16-lane padded band, same stale score lanes, same tie-breaks).

mod common;
mod exts2;
mod extd2;
mod extz2;

pub(crate) use common::Gaps;
pub use exts2::exts2;
pub(crate) use exts2::{exts2_gaps, splice_signals};
pub use extd2::extd2;
pub(crate) use extd2::extd2_gaps;
pub use extz2::extz2;
