//! Twin of minimap2 2.31 `ksw_extz2_sse` (ksw2_extz2_sse.c, SSE4.1 build), bit-exact.
//!
//! Upstream's prologue and extz2's cells ([`Extz2`]); from the allocations on, the walk shared with extd2 and
//! exts2 (common.rs [`extend`]: padded 16-lane band, stale `s[]` lanes, the 4-lane argmax, band exhaustion
//! reported as a z-drop, the traceback). The differences of extz2 (single affine gap `q, e`):
//! - **biased, unsigned differences.** `u v x y` hold the differences plus `q + e` (so that they are >= 0 in
//!   the intended range); they start at 0 (kcalloc, no fill), the boundary is `x1 = 0, v1 = r ? q : 0` and
//!   `y[r] = 0, u[r] = r ? q : 0`, and `s[t] + 2 (q + e)` enters the max (int8 wrap-around on all of them);
//! - **mixed signed/unsigned max.** Per cell `z = max_epi8(s + qe2, a)` (signed), then `max_epu8(z, b)` and
//!   `min_epu8(z, mat[0] + qe2)` (unsigned), while the traceback's `a > z`, `b > z`, `a > 0`, `b > 0` are
//!   signed compares; `x = max_epi8(a - (z - q), 0)`. Equal only while no byte reaches 128;
//! - **H in `int` from `uint8_t`.** `H += (uint8_t)v - qe` (and `(uint8_t)u - qe`), `H[0] = v[0] - 2 qe` at
//!   r == 0; the approximate max compares `v - qe` with `u - qe` on the same unsigned bytes;
//! - **sign-extended boundary.** extz2 passes `int8_t x1, v1` to `_mm_cvtsi32_si128` without the `(uint8_t)`
//!   cast that extd2/exts2 have: a negative `v1` (`v[st-1] >= 128`, or `q < 0` at st == 0) sign-extends and
//!   ORs 0xff into lanes 1..3 of the first block's shifted `v` (x is never negative: `x >= 0` by the max);
//! - `m <= 0` (not `m <= 1`) returns early, so m == 1 runs, and reads `mat[1]` (`sc_mis`, the first
//!   `min_sc`) past its 1-element matrix as upstream does; early return when `-min_sc > 2 (q + e)`;
//! - `sc_N = -e` when `mat[m*m-1] == 0`; z-drop uses `e`; with APPROX_MAX | APPROX_DROP the z-drop test runs
//!   only for r > 0 (extd2 runs it at r == 0 too), so `max_t/max_q` stay -1 after the first anti-diagonal.

use super::common::{beats, extend, min_sc, reset, slices, take, Cells, Setup};
use crate::ksw::{KswExtz2Job, KswResult};
use crate::memory::OutOfMemory;

/// extz2's cells: the per-call constants of the core loop, as the `__m128i` broadcasts hold them (int8).
struct Extz2 {
    q: i8,
    /// `q + e`, in `int`: the bias of the stored differences
    qe: i32,
    /// `(q + e) * 2`, truncated to int8
    qe2: i8,
    /// `mat[0] + (q + e) * 2`, truncated; compared unsigned
    max_sc: u8,
}

/// Sides: `[v, x]` read at t - 1, `[u, y]` at t.
impl Cells<2, 2, 0> for Extz2 {
    /// The z-drop test of the approximate max sits inside upstream's `if (r > 0)`.
    const APPROX_DROP_AT_0: bool = false;

    /// kcalloc: all four start at 0 (the bias makes 0 mean "difference -(q + e)").
    fn init(&self) -> ([i8; 2], [i8; 2]) {
        ([0; 2], [0; 2])
    }

    fn first(&self, r: i32) -> i8 {
        if r != 0 {
            self.q
        } else {
            0
        }
    }

    /// `(int32_t)((uint8_t*)v)[t] - qe`.
    #[inline(always)]
    fn dh(&self, b: i8) -> i32 {
        b as u8 as i32 - self.qe
    }

    /// `xt1 = slli(x[t], 1) | _mm_cvtsi32_si128(x1)` with x1 an int8_t: negative, it fills lanes 1..3 too.
    #[inline(always)]
    fn first_block(&self, x: &mut [[i8; 16]; 2], edge: [i8; 2]) {
        for (lanes, e) in x.iter_mut().zip(edge) {
            if e < 0 {
                lanes[1..4].fill(-1);
            }
        }
    }

    /// The core loop's cell (SSE4.1 path): signed max with `a`, then unsigned max with `b` and unsigned min.
    #[inline(always)]
    fn cell<const MODE: u8>(&self, s: u8, [vt1, xt1]: [i8; 2], [ut, yt]: [i8; 2], _: [i8; 0]) -> ([i8; 2], [i8; 2], u8) {
        let mut z = (s as i8).wrapping_add(self.qe2);
        let mut a = xt1.wrapping_add(vt1);
        let mut b = yt.wrapping_add(ut);
        let mut d = 0;
        take::<MODE>(&mut z, &mut d, a, 1); // _mm_max_epi8 (signed)
        if MODE != 0 && beats::<MODE>(b, z) {
            d = 2;
        }
        // _mm_max_epu8, _mm_min_epu8 (unsigned)
        z = (z as u8).max(b as u8).min(self.max_sc) as i8;
        let zq = z.wrapping_sub(self.q);
        a = a.wrapping_sub(zq);
        b = b.wrapping_sub(zq);
        if MODE != 0 {
            d |= (beats::<MODE>(a, 0) as u8) << 3 | (beats::<MODE>(b, 0) as u8) << 4;
        }
        ([z.wrapping_sub(ut), a.max(0)], [z.wrapping_sub(vt1), b.max(0)], d)
    }
}

/// Bit-exact twin of `ksw_extz2_sse` (SSE4.1 build). `out` is overwritten (not freed first); its CIGAR,
/// when `n_cigar > 0`, is `malloc`ed in ksw2's `len<<4|op` encoding. Out of memory: as [`super::extd2`].
pub fn extz2(job: &KswExtz2Job, out: &mut KswResult) -> Result<(), OutOfMemory> {
    reset(out);
    let (qlen, tlen, m) = (job.qlen, job.tlen, job.m as i32);
    if m <= 0 || qlen <= 0 || tlen <= 0 {
        return Ok(());
    }
    let (q, e) = (job.q, job.e);
    let qe = q as i32 + e as i32; // int, not wrapped
    // SAFETY: the caller guarantees the job's pointers cover qlen, tlen and m*m elements; `mat[1]` is read
    // as upstream reads it (sc_mis_, min_sc), also when m == 1.
    let ((query, target, mat), mat1) = unsafe { (slices(job.query, qlen, job.target, tlen, job.mat, m), *job.mat.add(1)) };
    let c = Extz2 { q, qe, qe2: (qe * 2) as i8, max_sc: (mat[0] as i32 + qe * 2) as u8 };
    let sc_n: i8 = if mat[(m * m - 1) as usize] == 0 { (-(e as i32)) as i8 } else { mat[(m * m - 1) as usize] };
    if -min_sc(mat1, mat) > 2 * qe {
        return Ok(());
    }
    let setup = Setup {
        query,
        target,
        mat,
        m,
        sc: [mat[0], mat1, sc_n],
        w: Some(job.w),
        flag: job.flag,
        zdrop: job.zdrop,
        zdrop_e: e,
        end_bonus: job.end_bonus,
        qe,
        min_intron_len: 0,
    };
    extend(&c, [], &setup, out)
}
