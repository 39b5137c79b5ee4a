//! chain engine: minimap2's `mg_lchain_dp` (chaining DP, backtrack and anchor compaction) as a batch call,
//! and `mg_lchain_rmq` (the chaining of the asm presets, `--rmq` and the long-join re-chain) on the CPU.
//!
//! Anchors use minimap2's encoding (`mm128_t`): `x = rev<<63 | tid<<32 | tpos`,
//! `y = flags<<40 | q_span<<32 | q_pos`. Output arrays are `malloc`ed and owned by the caller.

pub mod dump;
pub mod pack;
pub mod gpu;
pub mod twin;

use crate::gpu::GPU_MIN_JOBS;
use crate::engine::BatchResult;
use crate::{Engine, Error, Result};

/// One anchor, minimap2's `mm128_t`.
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Anchor {
    pub x: u64,
    pub y: u64,
}

/// One `mg_lchain_dp` call: its scalar arguments and the sorted anchors (not modified).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainDpJob {
    pub max_dist_x: i32,
    pub max_dist_y: i32,
    pub bw: i32,
    pub max_skip: i32,
    pub max_iter: i32,
    pub min_cnt: i32,
    pub min_sc: i32,
    pub chn_pen_gap: f32,
    pub chn_pen_skip: f32,
    pub is_cdna: i32,
    pub n_seg: i32,
    pub n_anchors: i64,
    pub anchors: *const Anchor,
}

/// One `mg_lchain_rmq` call: its scalar arguments and the sorted anchors (not modified).
#[repr(C)]
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ChainRmqJob {
    pub max_dist: i32,
    pub max_dist_inner: i32,
    pub bw: i32,
    pub max_chn_skip: i32,
    pub cap_rmq_size: i32,
    pub min_cnt: i32,
    pub min_sc: i32,
    pub chn_pen_gap: f32,
    pub chn_pen_skip: f32,
    pub n_anchors: i64,
    pub anchors: *const Anchor,
}

impl ChainRmqJob {
    /// The anchors as a slice (empty when there are none).
    pub fn anchors(&self) -> &[Anchor] {
        if self.n_anchors <= 0 || self.anchors.is_null() {
            &[]
        } else {
            // SAFETY: the job's contract: n_anchors readable anchors at `anchors`, alive for the call.
            unsafe { std::slice::from_raw_parts(self.anchors, self.n_anchors as usize) }
        }
    }
}

/// What `mg_lchain_dp` (and `mg_lchain_rmq`) returns: the chains `u[]` (`score<<32 | n_anchors`) and the anchors they use, compacted.
#[repr(C)]
#[derive(Debug)]
pub struct ChainDpResult {
    pub n_chains: i32,
    /// `malloc`ed; null when `n_chains == 0`.
    pub chains: *mut u64,
    pub n_anchors: i64,
    /// `malloc`ed; null when `n_chains == 0`.
    pub anchors: *mut Anchor,
}

impl ChainDpResult {
    pub const EMPTY: ChainDpResult =
        ChainDpResult { n_chains: 0, chains: std::ptr::null_mut(), n_anchors: 0, anchors: std::ptr::null_mut() };

    pub fn chains(&self) -> &[u64] {
        if self.chains.is_null() {
            &[]
        } else {
            // SAFETY: chains holds n_chains elements.
            unsafe { std::slice::from_raw_parts(self.chains, self.n_chains as usize) }
        }
    }

    pub fn anchors(&self) -> &[Anchor] {
        if self.anchors.is_null() {
            &[]
        } else {
            // SAFETY: anchors holds n_anchors elements.
            unsafe { std::slice::from_raw_parts(self.anchors, self.n_anchors as usize) }
        }
    }

    pub fn release(&mut self) {
        // SAFETY: engines allocate both arrays with malloc.
        unsafe {
            libc::free(self.chains.cast());
            libc::free(self.anchors.cast());
        }
        *self = ChainDpResult::EMPTY;
    }
}

impl BatchResult for ChainDpResult {
    const EMPTY: ChainDpResult = ChainDpResult::EMPTY;
    fn release(&mut self) {
        ChainDpResult::release(self)
    }
}

// SAFETY: a job only reads its anchors, which the caller keeps alive and unchanged for the call.
unsafe impl Send for ChainDpJob {}
unsafe impl Sync for ChainDpJob {}
unsafe impl Send for ChainRmqJob {}
unsafe impl Sync for ChainRmqJob {}
// SAFETY: a result exclusively owns its arrays.
unsafe impl Send for ChainDpResult {}

/// Runs `mg_lchain_dp` jobs: `results[i]` is overwritten (not freed) with job i's result. A job whose memory
/// cannot be allocated fails the batch with [`Error::OutOfMemory`], every result left empty (nothing to free).
pub fn dp_batch(engine: &Engine, jobs: &[ChainDpJob], results: &mut [ChainDpResult]) -> Result<()> {
    if jobs.len() != results.len() {
        return Err(Error::InvalidArgument(format!("{} jobs but {} results", jobs.len(), results.len())));
    }
    for (i, j) in jobs.iter().enumerate() {
        if j.n_anchors < 0 || (j.n_anchors > 0 && j.anchors.is_null()) {
            return Err(Error::InvalidArgument(format!("chain job {i}: bad anchor array")));
        }
    }
    dump::dump(jobs)?;
    if let Some(rt) = (jobs.len() >= GPU_MIN_JOBS).then(|| engine.gpu()).flatten() {
        match gpu::dp_batch_gpu(&rt, jobs, results) {
            Ok(()) => return Ok(()),
            Err(e) => crate::engine::gpu_failed_notice(&e),
        }
    }
    crate::engine::try_par_zip("chain", jobs, results, twin::lchain_dp)
}

/// Runs `mg_lchain_rmq` jobs on the CPU twin, in parallel: `results[i]` is overwritten (not freed) with job
/// i's result. A job whose memory cannot be allocated fails the batch with [`Error::OutOfMemory`], every
/// result left empty (nothing to free).
pub fn rmq_batch(_engine: &Engine, jobs: &[ChainRmqJob], results: &mut [ChainDpResult]) -> Result<()> {
    if jobs.len() != results.len() {
        return Err(Error::InvalidArgument(format!("{} jobs but {} results", jobs.len(), results.len())));
    }
    for (i, j) in jobs.iter().enumerate() {
        if j.n_anchors < 0 || (j.n_anchors > 0 && j.anchors.is_null()) || j.n_anchors >= i32::MAX as i64 {
            return Err(Error::InvalidArgument(format!("chain rmq job {i}: bad anchor array")));
        }
    }
    crate::engine::try_par_zip("chain rmq", jobs, results, twin::lchain_rmq)
}
