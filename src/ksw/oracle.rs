//! The CPU path through the upstream C functions (the oracle), for the jobs whose Rust twin has not landed.

use super::{KswExtz2Job, KswResult};
use warpalign_ffi::mm2 as c;

fn fresh() -> c::ksw_extz_t {
    // SAFETY: ksw_extz_t is plain data; zero is its empty state (no CIGAR buffer).
    unsafe { std::mem::zeroed() }
}

fn take(ez: c::ksw_extz_t, out: &mut KswResult) {
    *out = KswResult {
        max: ez.max(),
        zdropped: ez.zdropped() as i32,
        max_q: ez.max_q,
        max_t: ez.max_t,
        mqe: ez.mqe,
        mqe_t: ez.mqe_t,
        mte: ez.mte,
        mte_q: ez.mte_q,
        score: ez.score,
        reach_end: ez.reach_end,
        n_cigar: ez.n_cigar,
        cigar: ez.cigar,
    };
    if out.n_cigar == 0 && !out.cigar.is_null() {
        out.release();
    }
}

pub(super) fn extz2(j: &KswExtz2Job, out: &mut KswResult) {
    let mut ez = fresh();
    // SAFETY: the job was checked; km = NULL makes kalloc use malloc, so the CIGAR is ours to hand out.
    unsafe {
        c::warpalign_oracle_ksw_extz2_sse(
            std::ptr::null_mut(), j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.w, j.zdrop,
            j.end_bonus, j.flag, &mut ez,
        )
    };
    take(ez, out)
}
