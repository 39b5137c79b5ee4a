//! The fill of `mg_lchain_dp` (lchain.c:169-207) and `comput_sc` (lchain.c:113) with `mg_log2` (mmpriv.h:139).
//!
//! Integer arithmetic wraps where C's would overflow (what the gcc build does in practice); `(int)` of a float
//! is `cvttss2si` (truncation, `INT32_MIN` when out of range or NaN); float expressions are evaluated in
//! upstream's order in IEEE single precision, without contraction, as SSE does.

use crate::chain::{Anchor, ChainDpJob};

const SEG_SHIFT: u32 = 48;

/// The arguments of one `mg_lchain_dp` call after its own clamping (lchain.c:160-163).
#[derive(Debug, Clone, Copy)]
pub struct Params {
    pub max_dist_x: i32,
    pub max_dist_y: i32,
    pub bw: i32,
    pub max_skip: i32,
    pub max_iter: i32,
    pub min_cnt: i32,
    pub min_sc: i32,
    pub chn_pen_gap: f32,
    pub chn_pen_skip: f32,
    pub is_cdna: bool,
    pub n_seg: i32,
    pub max_drop: i32,
}

impl Params {
    pub fn from_job(j: &ChainDpJob) -> Params {
        let is_cdna = j.is_cdna != 0;
        let max_dist_x = if j.max_dist_x < j.bw { j.bw } else { j.max_dist_x };
        let max_dist_y = if j.max_dist_y < j.bw && !is_cdna { j.bw } else { j.max_dist_y };
        Params {
            max_dist_x,
            max_dist_y,
            bw: j.bw,
            max_skip: j.max_skip,
            max_iter: j.max_iter,
            min_cnt: j.min_cnt,
            min_sc: j.min_sc,
            chn_pen_gap: j.chn_pen_gap,
            chn_pen_skip: j.chn_pen_skip,
            is_cdna,
            n_seg: j.n_seg,
            max_drop: if is_cdna { i32::MAX } else { j.bw },
        }
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
fn cvtt(x: f32) -> i32 {
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
    if same_seg && dd > pr.bw {
        return i32::MIN;
    }
    if pr.n_seg > 1 && !pr.is_cdna && same_seg && dr > pr.max_dist_y {
        return i32::MIN;
    }
    let dg = if dr < dq { dr } else { dq };
    let q_span = (aj.y >> 32 & 0xff) as i32;
    let mut sc = if q_span < dg { q_span } else { dg };
    if dd != 0 || dg > q_span {
        let lin_pen = pr.chn_pen_gap * dd as f32 + pr.chn_pen_skip * dg as f32;
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

/// The fill of a job's anchors.
pub fn fill(job: &ChainDpJob) -> Fill {
    fill_anchors(&Params::from_job(job), super::job_anchors(job))
}

/// The fill (lchain.c:169-207) over `a` (sorted by `x`, as minimap2 passes them) with clamped parameters.
pub fn fill_anchors(pr: &Params, a: &[Anchor]) -> Fill {
    let n = a.len();
    let mut f = vec![0i32; n];
    let mut p = vec![0i64; n];
    let mut v = vec![0i32; n];
    let mut t = vec![0i32; n];
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
        if ii - st > pr.max_iter as i64 {
            st = ii - pr.max_iter as i64;
        }
        let mut j = ii - 1;
        while j >= st {
            let ju = j as usize;
            let sc = comput_sc(&ai, &a[ju], pr);
            n_visited += 1;
            if sc != i32::MIN {
                let sc = sc.wrapping_add(f[ju]);
                if sc > max_f {
                    max_f = sc;
                    max_j = j;
                    if n_skip > 0 {
                        n_skip -= 1;
                    }
                } else if t[ju] == i as i32 {
                    n_skip += 1;
                    if n_skip > pr.max_skip {
                        n_breaks += 1;
                        break;
                    }
                }
                if p[ju] >= 0 {
                    t[p[ju] as usize] = i as i32;
                }
            }
            j -= 1;
        }
        let end_j = j;
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
    Fill { f, p, v, t, n_visited, n_breaks, n_rescued }
}
