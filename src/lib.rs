//! warpalign: exact batch engines for minimap2's ksw2 extension and chaining DP and LASTZ's y-drop
//! extension. Each engine has a CPU path (a Rust twin of the upstream function) and a GPU path; both must
//! produce the bytes upstream produces. Upstream's own functions (the oracle, `ffi/`) are only for tests.

pub mod chain;
pub mod dump;
pub mod engine;
pub mod env;
pub mod error;
pub mod gpu;
pub mod ksw;
pub mod seed;
pub mod memory;
pub mod search;
pub mod varint;
pub mod ydrop;

pub use engine::{Backend, BackendChoice, Engine};
pub use error::{Error, Result};

/// The library's version, as the patched tools print it.
pub const VERSION: &str = env!("CARGO_PKG_VERSION");
