//! The ksw engine (minimap2's `ksw_extd2_sse`, `ksw_exts2_sse`, `ksw_extz2_sse`): the Rust twins against
//! upstream's C (the oracle), the GPU kernels against the twins, the engine's batch path and speculation
//! cache, and the replay of real minimap2 workloads. Each module's header lists its knobs.

#[path = "../common/mod.rs"]
mod common;

mod cache;
mod check;
mod dumps;
mod engine;
mod gpu;
mod lanes;
mod twin_extd2;
mod twin_exts2;
mod twin_extz2;
