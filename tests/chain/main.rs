//! The chain engine (minimap2's `mg_lchain_dp`, and `mg_lchain_rmq` in rmq.rs): the Rust twins against
//! upstream's C (the oracle), the GPU fill against the twin, the engine's batch path, and the replay of real
//! minimap2 workloads; pieces.rs checks a split of the fill for the GPU to come. Each module's header lists its knobs.

#[path = "../common/mod.rs"]
mod common;

mod dumps;
mod engine;
mod gpu;
mod pieces;
mod rmq;
mod twin;

use warpalign::chain::{Anchor, ChainDpJob, ChainDpResult};
use warpalign_ffi::mm2 as c;

/// Chains `u[]` and compacted anchors.
type Out = (Vec<u64>, Vec<Anchor>);

/// Upstream's `mg_lchain_dp` (km = NULL: malloc/free) on the job.
fn oracle(j: &ChainDpJob) -> Out {
    let a = warpalign::chain::twin::job_anchors(j);
    let n = a.len();
    // SAFETY: upstream frees its input, so it gets a malloc'ed copy; the outputs are read by their counts
    // (u's low halves sum to the compacted anchors' count), then freed.
    unsafe {
        let p = if n == 0 { std::ptr::null_mut() } else { libc::malloc(n * 16) as *mut Anchor };
        assert!(n == 0 || !p.is_null());
        if n > 0 {
            std::ptr::copy_nonoverlapping(a.as_ptr(), p, n);
        }
        let (mut n_u, mut u) = (0i32, std::ptr::null_mut::<u64>());
        let b = c::warpalign_oracle_mg_lchain_dp(
            j.max_dist_x, j.max_dist_y, j.bw, j.max_skip, j.max_iter, j.min_cnt, j.min_sc, j.chn_pen_gap,
            j.chn_pen_skip, j.is_cdna, j.n_seg, n as i64, p.cast(), &mut n_u, &mut u, std::ptr::null_mut(),
        ) as *mut Anchor;
        let uu = if u.is_null() || n_u == 0 { vec![] } else { std::slice::from_raw_parts(u, n_u as usize).to_vec() };
        let n_b: usize = uu.iter().map(|&x| x as u32 as usize).sum();
        let bb = if b.is_null() { vec![] } else { std::slice::from_raw_parts(b, n_b).to_vec() };
        libc::free(u.cast());
        libc::free(b.cast());
        (uu, bb)
    }
}

/// A result's chains and anchors; releases them.
fn take(r: &mut ChainDpResult) -> Out {
    let o = (r.chains().to_vec(), r.anchors().to_vec());
    r.release();
    o
}
