//! The ydrop engine (LASTZ's `ydrop_one_sided_align`): the Rust twin against LASTZ's own function (the
//! oracle), the engine's batch path, the speculation of the extensions-ahead pool, the GPU kernel (and its
//! CPU model) against the twin, and the replay of real LASTZ runs. Each module's header lists its knobs.
//! The engine's dump mode has its own executable (tests/ydrop_dump_mode.rs).

#[path = "../common/mod.rs"]
mod common;

mod dumps;
mod gpu;
mod lastz;
mod oracle;
mod shadow;
mod twin;
