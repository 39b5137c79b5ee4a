//! The fill of `mg_lchain_dp` (lchain.c:169-207) and `comput_sc` (lchain.c:113) with `mg_log2` (mmpriv.h:139).
//!
//! Integer arithmetic wraps where C's would overflow (what the gcc build does in practice); `(int)` of a float
//! is `cvttss2si` (truncation, `INT32_MIN` when out of range or NaN); float expressions are evaluated in
//! upstream's order in IEEE single precision, without contraction, as SSE does. With AVX2, [`fill_anchors`]
//! scores eight predecessors per step in vector lanes (the same operations, branches as masks) and runs
//! upstream's sequential scan over those scores.

use crate::chain::{Anchor, ChainDpJob};
use crate::memory::{try_zeroed, OutOfMemory};

const SEG_SHIFT: u32 = 48;

/// The arguments of one `mg_lchain_dp` call after its own clamping (lchain.c:160-163).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    /// The job as submitted: the arguments clamping leaves alone (its anchors are not read from here).
    pub job: ChainDpJob,
    /// `job.max_dist_x`, at least `bw`.
    pub max_dist_x: i32,
    /// `job.max_dist_y`, at least `bw` unless cDNA.
    pub max_dist_y: i32,
    pub is_cdna: bool,
    pub max_drop: i32,
}

impl Params {
    pub fn from_job(j: &ChainDpJob) -> Params {
        let is_cdna = j.is_cdna != 0;
        let max_dist_x = if j.max_dist_x < j.bw { j.bw } else { j.max_dist_x };
        let max_dist_y = if j.max_dist_y < j.bw && !is_cdna { j.bw } else { j.max_dist_y };
        Params { job: *j, max_dist_x, max_dist_y, is_cdna, max_drop: if is_cdna { i32::MAX } else { j.bw } }
    }
}

/// minimap2's `mg_log2`: exponent plus a quadratic in the mantissa, bit for bit (meaningful for `x >= 2`).
#[inline(always)]
pub fn mg_log2(x: f32) -> f32 {
    let mut zi = x.to_bits();
    // `((z.i >> 23) & 255) - 128` is uint32_t arithmetic in C, converted to float afterwards.
    let mut log_2 = ((zi >> 23) & 255).wrapping_sub(128) as f32;
    zi &= !(255u32 << 23);
    zi = zi.wrapping_add(127 << 23);
    let z = f32::from_bits(zi);
    log_2 += (-0.34484843f32 * z + 2.02466578f32) * z - 0.67487759f32;
    log_2
}

/// C's `(int)f` on x86-64 (`cvttss2si`): truncation toward zero, `INT32_MIN` for NaN and out-of-range values.
#[inline(always)]
pub(super) fn cvtt(x: f32) -> i32 {
    if x >= -2147483648.0f32 && x < 2147483648.0f32 {
        x as i32
    } else {
        i32::MIN
    }
}

/// `comput_sc(ai, aj, ...)`: the score of chaining `aj` before `ai`, `i32::MIN` when not allowed.
#[inline(always)]
pub fn comput_sc(ai: &Anchor, aj: &Anchor, pr: &Params) -> i32 {
    let dq = (ai.y as i32).wrapping_sub(aj.y as i32);
    if dq <= 0 || dq > pr.max_dist_x {
        return i32::MIN;
    }
    let same_seg = (ai.y >> SEG_SHIFT) as u8 == (aj.y >> SEG_SHIFT) as u8;
    let dr = ai.x.wrapping_sub(aj.x) as i32;
    if same_seg && (dr == 0 || dq > pr.max_dist_y) {
        return i32::MIN;
    }
    let dd = if dr > dq { dr.wrapping_sub(dq) } else { dq.wrapping_sub(dr) };
    if same_seg && dd > pr.job.bw {
        return i32::MIN;
    }
    if pr.job.n_seg > 1 && !pr.is_cdna && same_seg && dr > pr.max_dist_y {
        return i32::MIN;
    }
    let dg = if dr < dq { dr } else { dq };
    let q_span = (aj.y >> 32 & 0xff) as i32;
    let mut sc = if q_span < dg { q_span } else { dg };
    if dd != 0 || dg > q_span {
        let lin_pen = pr.job.chn_pen_gap * dd as f32 + pr.job.chn_pen_skip * dg as f32;
        let log_pen = if dd >= 1 { mg_log2(dd.wrapping_add(1) as f32) } else { 0.0f32 };
        if pr.is_cdna || !same_seg {
            if !same_seg && dr == 0 {
                sc = sc.wrapping_add(1);
            } else if dr > dq || !same_seg {
                sc = sc.wrapping_sub(cvtt(if lin_pen < log_pen { lin_pen } else { log_pen }));
            } else {
                sc = sc.wrapping_sub(cvtt(lin_pen + 0.5f32 * log_pen));
            }
        } else {
            sc = sc.wrapping_sub(cvtt(lin_pen + 0.5f32 * log_pen));
        }
    }
    sc
}

/// The fill's arrays as `mg_lchain_dp` leaves them before `mg_chain_backtrack`, plus counters of the paths taken.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Fill {
    /// best score of a chain ending at anchor i
    pub f: Vec<i32>,
    /// its predecessor, -1 for none
    pub p: Vec<i64>,
    /// the peak score along that chain
    pub v: Vec<i32>,
    /// the skip marks: the last i that visited a successor of j
    pub t: Vec<i32>,
    /// pairs scored in the main scan (comput_sc calls, the rescue's excluded)
    pub n_visited: u64,
    /// scans stopped by `n_skip > max_skip`
    pub n_breaks: u64,
    /// anchors whose f came from the max_ii rescue
    pub n_rescued: u64,
}

impl Fill {
    /// The arrays for `n` anchors, zeroed (upstream's kmalloc'ed arrays: every entry is written before it is read).
    fn zeroed(n: usize) -> Result<Fill, OutOfMemory> {
        Ok(Fill { f: try_zeroed(n)?, p: try_zeroed(n)?, v: try_zeroed(n)?, t: try_zeroed(n)?, ..Fill::default() })
    }
}

/// The fill of a job's anchors; an error when its arrays cannot be allocated.
pub fn fill(job: &ChainDpJob) -> Result<Fill, OutOfMemory> {
    fill_anchors(&Params::from_job(job), super::job_anchors(job))
}

/// The fill (lchain.c:169-207) over `a` (sorted by `x`, as minimap2 passes them) with clamped parameters:
/// with AVX2, eight predecessors are scored at once; else one by one ([`fill_anchors_scalar`]).
pub fn fill_anchors(pr: &Params, a: &[Anchor]) -> Result<Fill, OutOfMemory> {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { avx2::fill(pr, a) };
    }
    fill_anchors_scalar(pr, a)
}

/// The fill with one [`comput_sc`] call per pair, as upstream does: the fallback, and the reference of the
/// vector path.
pub fn fill_anchors_scalar(pr: &Params, a: &[Anchor]) -> Result<Fill, OutOfMemory> {
    fill_with(pr, a, &OneByOne(pr))
}

/// `comput_sc(ai, aj[k], pr)` for k in 0..8, computed as [`fill_anchors`] does (on the AVX2 path where the
/// CPU has it).
pub fn comput_sc_x8(ai: &Anchor, aj: &[Anchor; 8], pr: &Params) -> [i32; 8] {
    #[cfg(target_arch = "x86_64")]
    if std::arch::is_x86_feature_detected!("avx2") {
        // SAFETY: the CPU has AVX2.
        return unsafe { avx2::comput_sc_x8(ai, aj, pr) };
    }
    aj.map(|aj| comput_sc(ai, &aj, pr))
}

/// The set bits of a lane mask, highest first.
struct HighFirst(u32);

impl Iterator for HighFirst {
    type Item = usize;

    #[inline(always)]
    fn next(&mut self) -> Option<usize> {
        if self.0 == 0 {
            return None;
        }
        let k = 31 - self.0.leading_zeros();
        self.0 ^= 1 << k;
        Some(k as usize)
    }
}

/// Scores the predecessors `a[lo..lo + N]` of one anchor together, ahead of the scan that uses them.
trait Scorer<const N: usize> {
    /// Lane k: `comput_sc(ai, a[lo + k]) + f[lo + k]` (wrapping), and bit k of the mask set where that
    /// comput_sc is not `i32::MIN` (upstream's test). Lanes before `a[0]` (`lo < 0`) are left unset.
    /// `lo + N <= a.len()`.
    fn scores(&self, ai: &Anchor, a: &[Anchor], f: &[i32], lo: i64) -> ([i32; N], u32);
}

/// The scalar scorer: one comput_sc call per step.
struct OneByOne<'a>(&'a Params);

impl Scorer<1> for OneByOne<'_> {
    #[inline(always)]
    fn scores(&self, ai: &Anchor, a: &[Anchor], f: &[i32], lo: i64) -> ([i32; 1], u32) {
        let j = lo as usize;
        let sc = comput_sc(ai, &a[j], self.0);
        ([sc.wrapping_add(f[j])], (sc != i32::MIN) as u32)
    }
}

/// The fill, its predecessors scored `N` at a time by `scorer`; inlined into each caller, so that the AVX2
/// caller compiles it (and the scorer) with AVX2.
#[inline(always)]
fn fill_with<const N: usize, S: Scorer<N>>(pr: &Params, a: &[Anchor], scorer: &S) -> Result<Fill, OutOfMemory> {
    let n = a.len();
    let Fill { mut f, mut p, mut v, mut t, .. } = Fill::zeroed(n)?;
    let (mut n_visited, mut n_breaks, mut n_rescued) = (0u64, 0u64, 0u64);
    // the u64 image of C's int64 max_dist_x in the unsigned comparisons
    let mdx = pr.max_dist_x as i64 as u64;
    let mut st: i64 = 0;
    let mut max_ii: i64 = -1;
    for i in 0..n {
        let ai = a[i];
        let ii = i as i64;
        let mut max_j: i64 = -1;
        let mut max_f = (ai.y >> 32 & 0xff) as i32;
        let mut n_skip: i32 = 0;
        while st < ii && {
            let s = &a[st as usize];
            ai.x >> 32 != s.x >> 32 || ai.x > s.x.wrapping_add(mdx)
        } {
            st += 1;
        }
        if ii - st > pr.job.max_iter as i64 {
            st = ii - pr.job.max_iter as i64;
        }
        // one pair of upstream's j loop (given comput_sc + f[j], where allowed): true at the max_chain_skip break
        let mut visit = |j: i64, sc: i32| -> bool {
            let ju = j as usize;
            if sc > max_f {
                max_f = sc;
                max_j = j;
                if n_skip > 0 {
                    n_skip -= 1;
                }
            } else if t[ju] == i as i32 {
                n_skip += 1;
                if n_skip > pr.job.max_skip {
                    return true;
                }
            }
            if p[ju] >= 0 {
                t[p[ju] as usize] = i as i32;
            }
            false
        };
        // the loop from j = i - 1 down to st, over blocks a[lo..=hi] scored ahead; pairs past a break are scored
        // but not used, and pairs comput_sc rejects change nothing but n_visited
        let mut end_j = st - 1;
        let mut hi = ii - 1;
        while hi >= st {
            let lo = hi + 1 - N as i64;
            let (sc, mut live) = scorer.scores(&ai, a, &f, lo);
            if lo < st {
                live &= !0u32 << (st - lo);
            }
            // all lanes allowed (as along chains) in a straight run, else over the allowed ones
            let stop = if live == (1 << N) - 1 {
                (0..N).rev().find(|&k| visit(lo + k as i64, sc[k]))
            } else {
                HighFirst(live).find(|&k| visit(lo + k as i64, sc[k]))
            };
            if let Some(k) = stop {
                end_j = lo + k as i64;
                n_visited += (hi - end_j + 1) as u64;
                n_breaks += 1;
                break;
            }
            n_visited += (hi - lo.max(st) + 1) as u64;
            hi = lo - 1;
        }
        if max_ii < 0 || ai.x.wrapping_sub(a[max_ii as usize].x) > mdx {
            let mut max = i32::MIN;
            max_ii = -1;
            let mut j = ii - 1;
            while j >= st {
                if max < f[j as usize] {
                    max = f[j as usize];
                    max_ii = j;
                }
                j -= 1;
            }
        }
        if max_ii >= 0 && max_ii < end_j {
            let m = max_ii as usize;
            let tmp = comput_sc(&ai, &a[m], pr);
            if tmp != i32::MIN && max_f < tmp.wrapping_add(f[m]) {
                max_f = tmp.wrapping_add(f[m]);
                max_j = max_ii;
                n_rescued += 1;
            }
        }
        f[i] = max_f;
        p[i] = max_j;
        v[i] = if max_j >= 0 && v[max_j as usize] > max_f { v[max_j as usize] } else { max_f };
        if max_ii < 0 || (ai.x.wrapping_sub(a[max_ii as usize].x) <= mdx && f[max_ii as usize] < f[i]) {
            max_ii = ii;
        }
    }
    Ok(Fill { f, p, v, t, n_visited, n_breaks, n_rescued })
}

/// `comput_sc` on eight predecessors in the lanes of AVX2 registers: every branch of the scalar code is
/// computed in all lanes and selected by masks, with the same wrapping integer and single-precision operations.
#[cfg(target_arch = "x86_64")]
mod avx2 {
    use super::{fill_with, Fill, OneByOne, Params, Scorer, SEG_SHIFT};
    use crate::chain::Anchor;
    use crate::memory::OutOfMemory;
    use std::arch::x86_64::*;

    /// The parameters in all lanes.
    pub(super) struct Avx2<'a> {
        pr: &'a Params,
        max_dist_x: __m256i,
        max_dist_y: __m256i,
        bw: __m256i,
        gap: __m256,
        skip: __m256,
        /// all ones where `is_cdna`
        cdna: __m256i,
        /// all ones where `n_seg > 1 && !is_cdna`
        multi_seg: __m256i,
    }

    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn fill(pr: &Params, a: &[Anchor]) -> Result<Fill, OutOfMemory> {
        fill_with(pr, a, &Avx2::new(pr))
    }

    /// # Safety
    /// The CPU must have AVX2.
    #[target_feature(enable = "avx2")]
    pub(super) unsafe fn comput_sc_x8(ai: &Anchor, aj: &[Anchor; 8], pr: &Params) -> [i32; 8] {
        let mut out = [0i32; 8];
        _mm256_storeu_si256(out.as_mut_ptr().cast(), Avx2::new(pr).comput_sc(ai, aj.as_ptr()));
        out
    }

    impl<'a> Avx2<'a> {
        /// # Safety
        /// The CPU must have AVX2.
        #[target_feature(enable = "avx2")]
        unsafe fn new(pr: &'a Params) -> Self {
            Avx2 {
                pr,
                max_dist_x: _mm256_set1_epi32(pr.max_dist_x),
                max_dist_y: _mm256_set1_epi32(pr.max_dist_y),
                bw: _mm256_set1_epi32(pr.job.bw),
                gap: _mm256_set1_ps(pr.job.chn_pen_gap),
                skip: _mm256_set1_ps(pr.job.chn_pen_skip),
                cdna: _mm256_set1_epi32(-(pr.is_cdna as i32)),
                multi_seg: _mm256_set1_epi32(-((pr.job.n_seg > 1 && !pr.is_cdna) as i32)),
            }
        }

        /// `comput_sc(ai, aj[k])` in lane k, for the eight anchors at `aj`.
        ///
        /// # Safety
        /// The CPU must have AVX2; eight anchors must be readable at `aj`.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn comput_sc(&self, ai: &Anchor, aj: *const Anchor) -> __m256i {
            let ones = _mm256_set1_epi32(-1);
            let one = _mm256_set1_epi32(1);
            let zero = _mm256_setzero_si256();
            let byte = _mm256_set1_epi32(0xff);
            // The 32-bit words x_lo, x_hi, y_lo, y_hi of two anchors per load, sorted into x_lo, y_lo and y_hi
            // of all eight; the shuffles stay within 128-bit halves, so lanes hold anchors 0 2 4 6 1 3 5 7.
            let p = aj.cast::<f32>();
            let v0 = _mm256_loadu_ps(p);
            let v1 = _mm256_loadu_ps(p.add(8));
            let v2 = _mm256_loadu_ps(p.add(16));
            let v3 = _mm256_loadu_ps(p.add(24));
            let lo01 = _mm256_shuffle_ps::<0b10_00_10_00>(v0, v1);
            let lo23 = _mm256_shuffle_ps::<0b10_00_10_00>(v2, v3);
            let hi01 = _mm256_shuffle_ps::<0b11_01_11_01>(v0, v1);
            let hi23 = _mm256_shuffle_ps::<0b11_01_11_01>(v2, v3);
            let xj = _mm256_castps_si256(_mm256_shuffle_ps::<0b10_00_10_00>(lo01, lo23));
            let yj = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(lo01, lo23));
            let yhj = _mm256_castps_si256(_mm256_shuffle_ps::<0b11_01_11_01>(hi01, hi23));

            let dq = _mm256_sub_epi32(_mm256_set1_epi32(ai.y as i32), yj);
            let dr = _mm256_sub_epi32(_mm256_set1_epi32(ai.x as i32), xj);
            let seg_i = _mm256_set1_epi32((ai.y >> SEG_SHIFT) as u8 as i32);
            let same_seg = _mm256_cmpeq_epi32(_mm256_and_si256(_mm256_srli_epi32::<16>(yhj), byte), seg_i);
            let other_seg = _mm256_xor_si256(same_seg, ones);
            let q_span = _mm256_and_si256(yhj, byte);
            let dr_zero = _mm256_cmpeq_epi32(dr, zero);
            let dr_gt_dq = _mm256_cmpgt_epi32(dr, dq);
            let dd = _mm256_blendv_epi8(_mm256_sub_epi32(dq, dr), _mm256_sub_epi32(dr, dq), dr_gt_dq);
            let dg = _mm256_min_epi32(dr, dq);

            // the pairs comput_sc rejects
            let far = _mm256_or_si256(_mm256_cmpgt_epi32(one, dq), _mm256_cmpgt_epi32(dq, self.max_dist_x));
            // scattered anchors: often the whole block is out of reach
            if _mm256_movemask_ps(_mm256_castsi256_ps(far)) == 0xff {
                return _mm256_set1_epi32(i32::MIN);
            }
            let mut same_far = _mm256_or_si256(dr_zero, _mm256_cmpgt_epi32(dq, self.max_dist_y));
            same_far = _mm256_or_si256(same_far, _mm256_cmpgt_epi32(dd, self.bw));
            same_far =
                _mm256_or_si256(same_far, _mm256_and_si256(self.multi_seg, _mm256_cmpgt_epi32(dr, self.max_dist_y)));
            let rejected = _mm256_or_si256(far, _mm256_and_si256(same_seg, same_far));

            let sc = _mm256_min_epi32(q_span, dg);
            let no_pen = _mm256_andnot_si256(_mm256_cmpgt_epi32(dg, q_span), _mm256_cmpeq_epi32(dd, zero));
            let lin_pen = _mm256_add_ps(
                _mm256_mul_ps(self.gap, _mm256_cvtepi32_ps(dd)),
                _mm256_mul_ps(self.skip, _mm256_cvtepi32_ps(dg)),
            );
            // mg_log2(dd + 1). Upstream converts the exponent difference as uint32; wherever log_pen is used,
            // dd + 1 >= 2 (or -2^31 after wrapping), so it is non-negative and the signed conversion agrees.
            let zi = _mm256_castps_si256(_mm256_cvtepi32_ps(_mm256_add_epi32(dd, one)));
            let exp = _mm256_sub_epi32(_mm256_and_si256(_mm256_srli_epi32::<23>(zi), byte), _mm256_set1_epi32(128));
            let mant = _mm256_add_epi32(
                _mm256_and_si256(zi, _mm256_set1_epi32(!(255 << 23))),
                _mm256_set1_epi32(127 << 23),
            );
            let z = _mm256_castsi256_ps(mant);
            let poly = _mm256_sub_ps(
                _mm256_mul_ps(_mm256_add_ps(_mm256_mul_ps(_mm256_set1_ps(-0.34484843), z), _mm256_set1_ps(2.02466578)), z),
                _mm256_set1_ps(0.67487759),
            );
            let log2 = _mm256_add_ps(_mm256_cvtepi32_ps(exp), poly);
            let log_pen = _mm256_and_ps(_mm256_castsi256_ps(_mm256_cmpgt_epi32(dd, zero)), log2);

            // (int)(lin + .5 * log), or on cDNA deletions and across segments (int)min(lin, log) (minps is
            // `lin < log ? lin : log`), or +1 across segments at dr == 0
            let pen_sum = _mm256_cvttps_epi32(_mm256_add_ps(lin_pen, _mm256_mul_ps(_mm256_set1_ps(0.5), log_pen)));
            let pen_min = _mm256_cvttps_epi32(_mm256_min_ps(lin_pen, log_pen));
            let plus_one = _mm256_and_si256(other_seg, dr_zero);
            let use_min = _mm256_andnot_si256(
                plus_one,
                _mm256_and_si256(_mm256_or_si256(self.cdna, other_seg), _mm256_or_si256(dr_gt_dq, other_seg)),
            );
            let mut sc_pen = _mm256_sub_epi32(sc, _mm256_blendv_epi8(pen_sum, pen_min, use_min));
            sc_pen = _mm256_blendv_epi8(sc_pen, _mm256_add_epi32(sc, one), plus_one);
            let sc = _mm256_blendv_epi8(sc_pen, sc, no_pen);
            let sc = _mm256_blendv_epi8(sc, _mm256_set1_epi32(i32::MIN), rejected);
            // back to anchor order
            _mm256_permutevar8x32_epi32(sc, _mm256_setr_epi32(0, 4, 1, 5, 2, 6, 3, 7))
        }

        /// [`Scorer::scores`] on eight lanes.
        ///
        /// # Safety
        /// The CPU must have AVX2; `0 <= lo` and `lo + 8 <= a.len()`, `f.len()`.
        #[target_feature(enable = "avx2")]
        #[inline]
        unsafe fn scores_x8(&self, ai: &Anchor, a: &[Anchor], f: &[i32], lo: usize) -> ([i32; 8], u32) {
            let sc = self.comput_sc(ai, a.as_ptr().add(lo));
            let rejected = _mm256_cmpeq_epi32(sc, _mm256_set1_epi32(i32::MIN));
            let live = !_mm256_movemask_ps(_mm256_castsi256_ps(rejected)) as u32 & 0xff;
            let sum = _mm256_add_epi32(sc, _mm256_loadu_si256(f.as_ptr().add(lo).cast()));
            let mut out = [0i32; 8];
            _mm256_storeu_si256(out.as_mut_ptr().cast(), sum);
            (out, live)
        }
    }

    impl Scorer<8> for Avx2<'_> {
        #[inline(always)]
        fn scores(&self, ai: &Anchor, a: &[Anchor], f: &[i32], lo: i64) -> ([i32; 8], u32) {
            if lo < 0 {
                // a block reaching before a[0]: its existing lanes one by one
                let (mut out, mut live) = ([0i32; 8], 0u32);
                for (k, o) in out.iter_mut().enumerate().skip(-lo as usize) {
                    let (sc, l) = OneByOne(self.pr).scores(ai, a, f, lo + k as i64);
                    *o = sc[0];
                    live |= l << k;
                }
                return (out, live);
            }
            assert!(lo as usize + 8 <= a.len().min(f.len()));
            // SAFETY: an Avx2 is only made where the CPU has AVX2; the block lies within a and f (checked above).
            unsafe { self.scores_x8(ai, a, f, lo as usize) }
        }
    }
}
