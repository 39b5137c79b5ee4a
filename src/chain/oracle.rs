//! The CPU path through upstream's `mg_lchain_dp` (the oracle), until the Rust twin replaces it.

use super::{Anchor, ChainDpJob, ChainDpResult};
use warpalign_ffi::mm2 as c;

pub(super) fn lchain_dp(j: &ChainDpJob, out: &mut ChainDpResult) {
    let n = j.n_anchors as usize;
    // mg_lchain_dp frees its input: hand it a malloc'ed copy (km = NULL means malloc/free).
    let a = if n == 0 {
        std::ptr::null_mut()
    } else {
        // SAFETY: n > 0 anchors are readable at j.anchors; the copy is freed by mg_lchain_dp.
        unsafe {
            let a = libc::malloc(n * std::mem::size_of::<Anchor>()) as *mut Anchor;
            assert!(!a.is_null(), "out of memory copying {n} anchors");
            std::ptr::copy_nonoverlapping(j.anchors, a, n);
            a
        }
    };
    let mut n_u: i32 = 0;
    let mut u: *mut u64 = std::ptr::null_mut();
    // SAFETY: arguments mirror minimap2's call; Anchor has mm128_t's layout.
    let b = unsafe {
        c::warpalign_oracle_mg_lchain_dp(
            j.max_dist_x, j.max_dist_y, j.bw, j.max_skip, j.max_iter, j.min_cnt, j.min_sc, j.chn_pen_gap,
            j.chn_pen_skip, j.is_cdna, j.n_seg, j.n_anchors, a.cast(), &mut n_u, &mut u, std::ptr::null_mut(),
        )
    };
    let chains = if u.is_null() { &[][..] } else { unsafe { std::slice::from_raw_parts(u, n_u as usize) } };
    let n_a: i64 = chains.iter().map(|&c| (c as u32) as i64).sum();
    *out = ChainDpResult { n_chains: n_u, chains: u, n_anchors: if b.is_null() { 0 } else { n_a }, anchors: b.cast() };
}
