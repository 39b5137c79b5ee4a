//! Twin of minimap2 2.31 `ksw_extd2_sse` (ksw2_extd2_sse.c, SSE4.1 build), bit-exact.
//!
//! The model follows the vector code line by line. Here: upstream's prologue and extd2's cells ([`Extd2`]);
//! from the allocations on, the walk shared with exts2 and extz2 (common.rs [`extend`]: the padded 16-lane
//! band, the stale `s[]` lanes, the 4-lane argmax, the backtrack). What is extd2's own:
//! - the six int8 difference arrays `u v x y x2 y2` with wrap-around `add/sub_epi8` and signed
//!   `max/min_epi8`, and the boundary values x1/x21/v1 chosen as the C code does;
//! - `q + e` of the *unswapped* gap costs is used for `H` at r == 0 (`qe` is initialised before the swap);
//! - `min_sc` is taken over `mat[1..]` only; early return when `-min_sc > 2 (q + e)` (after the swap);
//! - band exhaustion (`st0 > en0`) is reported as a z-drop; z-drop uses `e2` (after the swap).

use super::common::{beats, extend, min_sc, reset, slices, take, Cells, Gaps, LongEdge, Setup};
use crate::ksw::{KswExtd2Job, KswResult};
use crate::memory::OutOfMemory;

/// extd2's cells: the per-call constants of the core loop, as the `__m128i` broadcasts hold them (int8), and
/// the boundary of the first row and column.
struct Extd2 {
    q: i8,
    q2: i8,
    qe: i8,
    qe2: i8,
    mch: i8,
    edge: LongEdge,
}

/// Sides: `[v, x, x2]` read at t - 1, `[u, y, y2]` at t.
impl Cells<3, 3, 0> for Extd2 {
    fn init(&self) -> ([i8; 3], [i8; 3]) {
        let (qe, qe2) = (self.qe.wrapping_neg(), self.qe2.wrapping_neg());
        ([qe, qe, qe2], [qe, qe, qe2])
    }

    fn first(&self, r: i32) -> i8 {
        self.edge.at(r)
    }

    /// `__dp_code_block1`, the max with its direction `d` (SSE4.1 path), `__dp_code_block2` and the stores.
    #[inline(always)]
    fn cell<const MODE: u8>(&self, s: u8, [vt1, xt1, x2t1]: [i8; 3], [ut, yt, y2t]: [i8; 3], _: [i8; 0]) -> ([i8; 3], [i8; 3], u8) {
        let mut z = s as i8;
        let mut a = xt1.wrapping_add(vt1);
        let mut b = yt.wrapping_add(ut);
        let mut a2 = x2t1.wrapping_add(vt1);
        let mut b2 = y2t.wrapping_add(ut);
        let mut d = 0;
        take::<MODE>(&mut z, &mut d, a, 1);
        take::<MODE>(&mut z, &mut d, b, 2);
        take::<MODE>(&mut z, &mut d, a2, 3);
        take::<MODE>(&mut z, &mut d, b2, 4);
        z = z.min(self.mch);
        let tq = z.wrapping_sub(self.q);
        a = a.wrapping_sub(tq);
        b = b.wrapping_sub(tq);
        let tq2 = z.wrapping_sub(self.q2);
        a2 = a2.wrapping_sub(tq2);
        b2 = b2.wrapping_sub(tq2);
        if MODE != 0 {
            d |= (beats::<MODE>(a, 0) as u8) << 3 | (beats::<MODE>(b, 0) as u8) << 4 | (beats::<MODE>(a2, 0) as u8) << 5 | (beats::<MODE>(b2, 0) as u8) << 6;
        }
        let x = [z.wrapping_sub(ut), a.max(0).wrapping_sub(self.qe), a2.max(0).wrapping_sub(self.qe2)];
        let y = [z.wrapping_sub(vt1), b.max(0).wrapping_sub(self.qe), b2.max(0).wrapping_sub(self.qe2)];
        (x, y, d)
    }
}

/// extd2's prologue on a job with `m > 1` and positive lengths (`mat`: its `m * m` scores); None where upstream
/// returns at once (`-min_sc > 2 (q + e)`, after the swap).
pub(crate) fn extd2_gaps(job: &KswExtd2Job, mat: &[i8]) -> Option<Gaps> {
    let (mut q, mut e, mut q2, mut e2) = (job.q, job.e, job.q2, job.e2);
    let qe_h = q as i32 + e as i32; // `qe = q + e` is initialised before the swap
    if (q2 as i32 + e2 as i32) < q as i32 + e as i32 {
        std::mem::swap(&mut q, &mut q2);
        std::mem::swap(&mut e, &mut e2);
    }
    let (qi, ei, q2i, e2i) = (q as i32, e as i32, q2 as i32, e2 as i32);
    let last = mat[mat.len() - 1];
    let sc_n: i8 = if last == 0 { (-e2i) as i8 } else { last };
    if -min_sc(mat[1], mat) > 2 * (qi + ei) {
        return None;
    }
    let mut long_thres = if ei != e2i { (q2i - qi) / (ei - e2i) - 1 } else { 0 };
    if q2i + e2i + long_thres * e2i > qi + ei + long_thres * ei {
        long_thres += 1;
    }
    let long_diff = long_thres * (ei - e2i) - (q2i - qi) - e2i;
    Some(Gaps { q, e, q2, e2, qe_h, sc_n, long_thres, long_diff, min_intron_len: 0 })
}

/// Bit-exact twin of `ksw_extd2_sse` (SSE4.1 build). `out` is overwritten (not freed first); its CIGAR,
/// when `n_cigar > 0`, is `malloc`ed in ksw2's `len<<4|op` encoding. A job whose memory cannot be allocated
/// is an error, `out` reset.
pub fn extd2(job: &KswExtd2Job, out: &mut KswResult) -> Result<(), OutOfMemory> {
    reset(out);
    let (qlen, tlen, m) = (job.qlen, job.tlen, job.m as i32);
    if m <= 1 || qlen <= 0 || tlen <= 0 {
        return Ok(());
    }
    // SAFETY: the caller guarantees the job's pointers cover qlen, tlen and m*m elements.
    let (query, target, mat) = unsafe { slices(job.query, qlen, job.target, tlen, job.mat, m) };
    let Some(g) = extd2_gaps(job, mat) else { return Ok(()) };
    let (qi, ei, q2i, e2i) = (g.q as i32, g.e as i32, g.q2 as i32, g.e2 as i32);
    let edge = LongEdge { qe: qi + ei, e: ei, long_thres: g.long_thres, long_diff: g.long_diff, tail: -e2i };
    let c = Extd2 { q: g.q, q2: g.q2, qe: (qi + ei) as i8, qe2: (q2i + e2i) as i8, mch: mat[0], edge };
    let setup = Setup {
        query,
        target,
        mat,
        m,
        sc: [mat[0], mat[1], g.sc_n],
        w: Some(job.w),
        flag: job.flag,
        zdrop: job.zdrop,
        zdrop_e: g.e2,
        end_bonus: job.end_bonus,
        qe: g.qe_h,
        min_intron_len: g.min_intron_len,
    };
    extend(&c, [], &setup, out)
}
