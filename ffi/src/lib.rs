//! The oracle: upstream C functions, built unmodified, that warpalign's engines must match bit for bit.
//! Symbols carry a `warpalign_oracle_` prefix so they can share a binary with the tools' own copies.
#![allow(non_camel_case_types, non_upper_case_globals, non_snake_case, dead_code, clippy::all)]

pub mod mm2 {
    include!(concat!(env!("OUT_DIR"), "/mm2_bindings.rs"));

    /// This thread's kalloc arena, created on first use and kept for the thread's life, as each minimap2
    /// worker keeps one: with `km = NULL` every call's arrays come fresh from malloc, which makes upstream's
    /// functions slower than they are in minimap2 (benchmarks call them in this arena).
    pub fn thread_km() -> *mut ::std::os::raw::c_void {
        thread_local! {
            static KM: *mut ::std::os::raw::c_void = unsafe { warpalign_oracle_km_init() };
        }
        KM.with(|km| *km)
    }
}

pub mod lastz {
    include!(concat!(env!("OUT_DIR"), "/lastz_bindings.rs"));
}
