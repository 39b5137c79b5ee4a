//! The oracle: upstream C functions, built unmodified, that warpalign's engines must match bit for bit.
//! Symbols carry a `warpalign_oracle_` prefix so they can share a binary with the tools' own copies.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]

pub mod mm2 {
    include!(concat!(env!("OUT_DIR"), "/mm2_bindings.rs"));
}

pub mod lastz {
    include!(concat!(env!("OUT_DIR"), "/lastz_bindings.rs"));
}
