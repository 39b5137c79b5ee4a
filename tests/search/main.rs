//! The search engine (LASTZ's HSP search: position table, seed hits, diagonal hash, x-drop extension,
//! entropy, threshold): the Rust twin against LASTZ's own pos_table.c/seed_search.c/diag_hash.c/seeds.c
//! (the oracle, through ffi/csrc/lastz_search_shim.c), HSP by HSP, every field, in order.

#[path = "../common/mod.rs"]
mod common;

mod engine;
mod gpu;
mod oracle;
mod real;
