//! The fill of `mg_lchain_rmq` (lchain.c:275-357) with `comput_sc_simple` (lchain.c:232): each anchor's best
//! predecessor is the element of least priority `-(f[j] + 0.5 * gap * (x_j + y_j))` among the earlier anchors
//! within `max_dist` on the query (a [`Tree`]), then, unless that pair is exact, the anchors within
//! `max_dist_inner` scanned backwards in a second tree with the `max_chain_skip` exit of the DP.
//!
//! Traps kept: the priority is a double (`0.5 * (double)gap * (double)(int)(x_j + y_j)`, the int sum
//! wrapping); `krmq_size > cap_rmq_size` compares as unsigned (a negative cap never evicts); an anchor enters
//! the trees only once an anchor of another `x` comes (so equal `x` never chain); the query interval is
//! `[(y_i - max_dist, INT32_MAX), (y_i, 0)]`, so anchor 0 is the one anchor at `y_i` itself in range;
//! comput_sc_simple tests `dq > q_span` (comput_sc tests `dg`); upstream's two `assert`s stay assertions.

use super::dp::{cvtt, mg_log2, Fill};
use super::krmq::{Key, Tree, NIL};
use crate::chain::{Anchor, ChainRmqJob};
use crate::memory::{try_zeroed, OutOfMemory};

/// The arguments of one `mg_lchain_rmq` call after its own clamping (lchain.c:265-267).
#[derive(Debug, Clone, Copy)]
pub struct RmqParams {
    pub job: ChainRmqJob,
    /// `job.max_dist`, at least `bw`.
    pub max_dist: i32,
    /// `job.max_dist_inner`, at least 0, then at most `max_dist`; no inner tree unless positive.
    pub max_dist_inner: i32,
}

impl RmqParams {
    pub fn from_job(j: &ChainRmqJob) -> RmqParams {
        let max_dist = if j.max_dist < j.bw { j.bw } else { j.max_dist };
        let mut max_dist_inner = if j.max_dist_inner < 0 { 0 } else { j.max_dist_inner };
        if max_dist_inner > max_dist {
            max_dist_inner = max_dist;
        }
        RmqParams { job: *j, max_dist, max_dist_inner }
    }
}

/// `comput_sc_simple(ai, aj, ...)`: the score of chaining `aj` before `ai`, whether the pair is exact (same
/// diagonal, no gap beyond the span), and the diagonal difference `width`.
#[inline(always)]
pub fn comput_sc_simple(ai: &Anchor, aj: &Anchor, gap: f32, skip: f32) -> (i32, bool, i32) {
    let dq = (ai.y as i32).wrapping_sub(aj.y as i32);
    let dr = ai.x.wrapping_sub(aj.x) as i32;
    let dd = if dr > dq { dr.wrapping_sub(dq) } else { dq.wrapping_sub(dr) };
    let dg = if dr < dq { dr } else { dq };
    let q_span = (aj.y >> 32 & 0xff) as i32;
    let mut sc = if q_span < dg { q_span } else { dg };
    let exact = dd == 0 && dg <= q_span;
    if dd != 0 || dq > q_span {
        let lin_pen = gap * dd as f32 + skip * dg as f32;
        let log_pen = if dd >= 1 { mg_log2(dd.wrapping_add(1) as f32) } else { 0.0f32 };
        sc = sc.wrapping_sub(cvtt(lin_pen + 0.5f32 * log_pen));
    }
    (sc, exact, dd)
}

/// The fill's arrays, plus counters of the paths taken (`n_visited`: pairs scored, the RMQ's and the inner
/// scan's; `n_breaks`: inner scans stopped by `max_chain_skip`; `n_rescued` stays 0).
pub fn fill_rmq(pr: &RmqParams, a: &[Anchor]) -> Result<Fill, OutOfMemory> {
    let n = a.len();
    // t[] holds anchor indices as int32, as upstream's does
    assert!(n < i32::MAX as usize, "mg_lchain_rmq: {n} anchors");
    let (mut f, mut p, mut v, mut t) = (try_zeroed::<i32>(n)?, try_zeroed::<i64>(n)?, try_zeroed::<i32>(n)?, try_zeroed::<i32>(n)?);
    let mut root = Tree::new(n)?;
    let mut inner = if pr.max_dist_inner > 0 { Some(Tree::new(n)?) } else { None };
    let (gap, skip, bw) = (pr.job.chn_pen_gap, pr.job.chn_pen_skip, pr.job.bw);
    let cap = pr.job.cap_rmq_size as u32;
    let md = pr.max_dist as i64 as u64;
    let mdi = pr.max_dist_inner as i64 as u64;
    let (mut n_visited, mut n_breaks) = (0u64, 0u64);
    let (mut i0, mut st, mut st_inner) = (0usize, 0usize, 0usize);
    for i in 0..n {
        let ai = a[i];
        let yi = ai.y as i32;
        let mut max_j: i64 = -1;
        let mut max_f = (ai.y >> 32 & 0xff) as i32;
        if i0 < i && a[i0].x != ai.x {
            for (j, aj) in a.iter().enumerate().take(i).skip(i0) {
                let pri = -(f[j] as f64 + 0.5 * gap as f64 * (aj.x as i32).wrapping_add(aj.y as i32) as f64);
                root.insert(j as u32, aj.y as i32, pri);
                if let Some(inner) = inner.as_mut() {
                    inner.insert(j as u32, aj.y as i32, pri);
                }
            }
            i0 = i;
        }
        while st < i && (ai.x >> 32 != a[st].x >> 32 || ai.x > a[st].x.wrapping_add(md) || root.size() > cap) {
            if root.contains(st as u32) {
                root.erase(st as u32);
            }
            st += 1;
        }
        if let Some(inner) = inner.as_mut() {
            while st_inner < i
                && (ai.x >> 32 != a[st_inner].x >> 32 || ai.x > a[st_inner].x.wrapping_add(mdi) || inner.size() > cap)
            {
                if inner.contains(st_inner as u32) {
                    inner.erase(st_inner as u32);
                }
                st_inner += 1;
            }
        }
        let lo = Key { y: yi.wrapping_sub(pr.max_dist), i: i32::MAX as i64 };
        let hi = Key { y: yi, i: 0 };
        if let Some(q) = root.rmq(lo, hi) {
            let qy = root.y(q);
            assert!(qy >= lo.y && qy <= hi.y, "mg_lchain_rmq: q->y >= lo.y && q->y <= hi.y");
            let j = q as usize;
            let (sc0, exact, width) = comput_sc_simple(&ai, &a[j], gap, skip);
            n_visited += 1;
            let sc = f[j].wrapping_add(sc0);
            if width <= bw && sc > max_f {
                max_f = sc;
                max_j = j as i64;
            }
            if let Some(inner) = inner.as_ref().filter(|t| !exact && t.root() != NIL && yi > 0) {
                let mut itr = inner.itr_lower(Key { y: yi - 1, i: n as i64 });
                let mut n_skip = 0i32;
                let min_y = yi.wrapping_sub(pr.max_dist_inner);
                while let Some(q) = itr.at() {
                    if inner.y(q) < min_y {
                        break;
                    }
                    let j = q as usize;
                    let (sc0, _, width) = comput_sc_simple(&ai, &a[j], gap, skip);
                    n_visited += 1;
                    let sc = f[j].wrapping_add(sc0);
                    if width <= bw {
                        if sc > max_f {
                            max_f = sc;
                            max_j = j as i64;
                            if n_skip > 0 {
                                n_skip -= 1;
                            }
                        } else if t[j] == i as i32 {
                            n_skip += 1;
                            if n_skip > pr.job.max_chn_skip {
                                n_breaks += 1;
                                break;
                            }
                        }
                        if p[j] >= 0 {
                            t[p[j] as usize] = i as i32;
                        }
                    }
                    if !inner.itr_prev(&mut itr) {
                        break;
                    }
                }
            }
        }
        assert!(
            max_j < 0 || (a[max_j as usize].x < ai.x && (a[max_j as usize].y as i32) < yi),
            "mg_lchain_rmq: max_j < 0 || (a[max_j].x < a[i].x && (int32_t)a[max_j].y < (int32_t)a[i].y)"
        );
        f[i] = max_f;
        p[i] = max_j;
        v[i] = if max_j >= 0 && v[max_j as usize] > max_f { v[max_j as usize] } else { max_f };
    }
    Ok(Fill { f, p, v, t, n_visited, n_breaks, n_rescued: 0 })
}
