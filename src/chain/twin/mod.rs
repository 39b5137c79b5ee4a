//! The Rust twin of minimap2 2.31's `mg_lchain_dp` (lchain.c): the chaining fill, `mg_chain_backtrack` and
//! `compact_a`, bit-exact with the x86-64 `gcc -O2` build (SSE float math, no FMA contraction).
//!
//! The GPU kernel computes only the fill ([`fill`]: `f`, `p`, `v`, `t`); [`backtrack`] and [`compact`] run on
//! the CPU after it. [`lchain_dp`] chains the three and returns the arrays as upstream does (`malloc`ed).
//!
//! [`lchain_rmq`] is `mg_lchain_rmq` (the asm presets, `--rmq`, the long-join re-chain): its own fill
//! ([`fill_rmq`], over krmq.h's tree, [`krmq`]) and the same backtrack and compaction; it fills by
//! [`fill_rmq_ranked`] (no trees) and by the trees only where that one gives up.

// The port keeps upstream's spelling (its float literals, its copy loops and swaps) so it reads against lchain.c.
#![allow(
    clippy::excessive_precision,
    clippy::manual_memcpy,
    clippy::manual_swap,
    clippy::implicit_saturating_sub,
    clippy::manual_range_contains
)]

mod backtrack;
mod dp;
pub mod krmq;
mod rmq;
mod rmq_ranked;

pub use backtrack::{backtrack, compact, radix_sort_128x};
pub use dp::{comput_sc, comput_sc_x8, fill, fill_anchors, fill_anchors_scalar, mg_log2, Fill, Params};
pub use rmq::{comput_sc_simple, fill_rmq, RmqParams};
pub use rmq_ranked::{fill_rmq_ranked, fill_rmq_ranked_with, RmqWay};

use super::{Anchor, ChainDpJob, ChainDpResult, ChainRmqJob};
use crate::memory::{malloc_copy, OutOfMemory};

/// The anchors of a job as a slice (empty when there are none).
pub fn job_anchors(job: &ChainDpJob) -> &[Anchor] {
    if job.n_anchors <= 0 || job.anchors.is_null() {
        &[]
    } else {
        // SAFETY: the job's contract: n_anchors readable anchors at `anchors`, alive for the call.
        unsafe { std::slice::from_raw_parts(job.anchors, job.n_anchors as usize) }
    }
}

/// `mg_lchain_dp(..., km = NULL)`: chains (`score<<32 | n_anchors`) and their anchors, both `malloc`ed as the
/// oracle path returns them; `ChainDpResult::EMPTY` when no chain is kept, and when the job's memory cannot be
/// allocated (an error).
pub fn lchain_dp(job: &ChainDpJob, out: &mut ChainDpResult) -> Result<(), OutOfMemory> {
    *out = ChainDpResult::EMPTY;
    if job_anchors(job).is_empty() {
        return Ok(());
    }
    finish(job, fill(job)?, out)
}

/// The rest of `mg_lchain_dp` after the fill (computed here by [`fill`] or elsewhere, e.g. on the GPU, with
/// the same `f`, `p` and `v`; `t` is scratch): `mg_chain_backtrack`, then `compact_a`, into `out` as
/// [`lchain_dp`] returns it.
pub fn finish(job: &ChainDpJob, fill: Fill, out: &mut ChainDpResult) -> Result<(), OutOfMemory> {
    let Fill { f, p, mut v, mut t, .. } = fill;
    finish_with(job, &f, &p, &mut v, &mut t, out)
}

/// [`finish`] from the fill's `f` and `p` (int64 or int32) alone: `v` and `t` are scratch of the anchors' length.
pub fn finish_with<P: Copy + Into<i64>>(
    job: &ChainDpJob,
    f: &[i32],
    p: &[P],
    v: &mut [i32],
    t: &mut [i32],
    out: &mut ChainDpResult,
) -> Result<(), OutOfMemory> {
    let pr = Params::from_job(job);
    finish_arrays(job_anchors(job), f, p, v, t, pr.job.min_cnt, pr.job.min_sc, pr.max_drop, out)
}

/// `mg_lchain_rmq(..., km = NULL)`, as [`lchain_dp`] returns `mg_lchain_dp`'s.
pub fn lchain_rmq(job: &ChainRmqJob, out: &mut ChainDpResult) -> Result<(), OutOfMemory> {
    *out = ChainDpResult::EMPTY;
    let a = job.anchors();
    if a.is_empty() {
        return Ok(());
    }
    let pr = RmqParams::from_job(job);
    let fill = match fill_rmq_ranked(&pr, a)? {
        Some(fill) => fill,
        None => fill_rmq(&pr, a)?,
    };
    let Fill { f, p, mut v, mut t, .. } = fill;
    // max_drop is bw (no cDNA case here)
    finish_arrays(a, &f, &p, &mut v, &mut t, job.min_cnt, job.min_sc, job.bw, out)
}

/// The backtrack and compaction shared by both chainers, from the fill's `f` and `p` over anchors `a`.
#[allow(clippy::too_many_arguments)]
fn finish_arrays<P: Copy + Into<i64>>(
    a: &[Anchor],
    f: &[i32],
    p: &[P],
    v: &mut [i32],
    t: &mut [i32],
    min_cnt: i32,
    min_sc: i32,
    max_drop: i32,
    out: &mut ChainDpResult,
) -> Result<(), OutOfMemory> {
    *out = ChainDpResult::EMPTY;
    if a.is_empty() {
        return Ok(());
    }
    assert!(f.len() == a.len() && p.len() == a.len() && v.len() == a.len() && t.len() == a.len());
    let (mut u, n_v) = backtrack(f, p, v, t, min_cnt, min_sc, max_drop)?;
    if u.is_empty() {
        return Ok(());
    }
    let b = compact(&mut u, &v[..n_v], a)?;
    let chains = malloc_copy(&u)?;
    let anchors = malloc_copy(&b).inspect_err(|_| {
        // SAFETY: malloc'ed just above, not handed out.
        unsafe { libc::free(chains.cast()) }
    })?;
    *out = ChainDpResult { n_chains: u.len() as i32, chains, n_anchors: b.len() as i64, anchors };
    Ok(())
}
