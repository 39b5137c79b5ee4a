//! `mg_lchain_rmq`'s fill without krmq's trees, for speed: the same loop as [`fill_rmq`](super::fill_rmq),
//! its trees replaced by what the anchors' order allows.
//!
//! Why this is the same fill: on anchors sorted by `x` (as map.c hands them), the outer tree holds exactly
//! the anchors `st..i0` (a batch enters when a later `x` comes; `st` passes only entered anchors, since the
//! pending batch shares `a[i]`'s `x` and `krmq_size > cap` cannot hold for an empty tree), and the inner one
//! `st_inner..i0`. So the range-minimum query is the least priority among those anchors whose key `(y, i)`
//! lies in `[(y_i - max_dist, INT32_MAX), (y_i, 0)]`, and the inner scan visits those of `st_inner..i0` at
//! `y_i - max_dist_inner <= y <= y_i - 1` in descending key order (krmq's iterator stops at the first below).
//! The inner scan walks a bitset of the present anchors ranked by key. The RMQ takes the front of a monotone
//! deque of the window (its least priority) where that lies in the interval, else scans the window; once a
//! call's scans grow past a budget, a segment tree over the ranks takes over ([`RmqWay`]).
//!
//! What is not the same: which of several elements of equal least priority krmq returns depends on its
//! tree's shape. Every way notices such a tie in a query and gives up (`None`); so do anchors not sorted by
//! `x`. The caller then runs the tree twin.

use super::dp::Fill;
use super::rmq::{comput_sc_simple, RmqParams};
use crate::chain::Anchor;
use crate::memory::{try_vec, try_zeroed, OutOfMemory};

/// A segment tree node: the least priority below it, the rank holding it, whether another rank below holds
/// the same priority.
#[derive(Debug, Clone, Copy)]
struct Node {
    pri: f64,
    rank: u32,
    tie: bool,
}

const ABSENT: Node = Node { pri: f64::INFINITY, rank: u32::MAX, tie: false };

#[inline(always)]
fn join(l: Node, r: Node) -> Node {
    if l.pri < r.pri {
        l
    } else if r.pri < l.pri {
        r
    } else {
        Node { tie: true, ..l }
    }
}

/// Range minimum over ranks with point updates, bottom-up over `n` leaves (the join is commutative wherever
/// it matters: a tie gives up).
struct MinTree {
    nodes: Vec<Node>,
    leaves: usize,
}

impl MinTree {
    fn new(n: usize) -> Result<MinTree, OutOfMemory> {
        let leaves = n.max(1);
        let mut nodes = try_vec(ABSENT, 2 * leaves)?;
        // every inner node the join of its children, as `put` expects
        for k in (1..leaves).rev() {
            nodes[k] = join(nodes[2 * k], nodes[2 * k + 1]);
        }
        Ok(MinTree { nodes, leaves })
    }

    /// Puts `leaf` at `rank`, then joins upwards until a node comes out as it was.
    #[inline]
    fn put(&mut self, rank: usize, leaf: Node) {
        let mut k = self.leaves + rank;
        self.nodes[k] = leaf;
        while k > 1 {
            let joined = join(self.nodes[k & !1], self.nodes[k | 1]);
            k >>= 1;
            let old = self.nodes[k];
            if (old.pri.to_bits(), old.rank, old.tie) == (joined.pri.to_bits(), joined.rank, joined.tie) {
                break;
            }
            self.nodes[k] = joined;
        }
    }

    /// The least priority over ranks `lo..hi` (empty when `lo >= hi`).
    #[inline]
    fn min(&self, lo: usize, hi: usize) -> Node {
        let (mut l, mut r) = (lo + self.leaves, hi + self.leaves);
        let mut acc = ABSENT;
        while l < r {
            if l & 1 == 1 {
                acc = join(acc, self.nodes[l]);
                l += 1;
            }
            if r & 1 == 1 {
                r -= 1;
                acc = join(acc, self.nodes[r]);
            }
            l >>= 1;
            r >>= 1;
        }
        acc
    }
}

/// The present ranks of the inner set.
struct RankSet {
    words: Vec<u64>,
}

impl RankSet {
    fn new(n: usize) -> Result<RankSet, OutOfMemory> {
        Ok(RankSet { words: try_zeroed(n.div_ceil(64).max(1))? })
    }

    #[inline]
    fn insert(&mut self, r: usize) {
        self.words[r >> 6] |= 1 << (r & 63);
    }

    #[inline]
    fn remove(&mut self, r: usize) {
        self.words[r >> 6] &= !(1 << (r & 63));
    }

    /// The largest present rank in `floor..=r`.
    #[inline]
    fn prev(&self, r: usize, floor: usize) -> Option<usize> {
        let mut w = r >> 6;
        let mut bits = self.words[w] & (u64::MAX >> (63 - (r & 63)));
        loop {
            if bits != 0 {
                let k = (w << 6) + 63 - bits.leading_zeros() as usize;
                return (k >= floor).then_some(k);
            }
            if w == 0 || (w << 6) <= floor {
                return None;
            }
            w -= 1;
            bits = self.words[w];
        }
    }
}

/// krmq's key `(y, i)` as one ordered integer (`i < 2^31`).
#[inline(always)]
fn key(y: i32, i: u32) -> u64 {
    ((y as u32 ^ 0x8000_0000) as u64) << 32 | i as u64
}

/// What a range-minimum query finds.
enum Least {
    Nothing,
    One(usize),
    /// two anchors share the least priority: krmq's pick depends on its shape
    Tie,
    /// the segment tree could not be allocated
    OutOfMemory(OutOfMemory),
}

/// How the fill answers the RMQ.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum RmqWay {
    /// the monotone deque, scanning the window where its front is out of the interval, until the anchors
    /// scanned exceed `budget` per anchor of the call: then the segment tree
    Deque { budget: u64 },
    /// the segment tree over the ranks from the start
    Tree,
}

/// The deque's default budget: the windows of long reads' re-chains hold hundreds of anchors.
const SCAN_BUDGET: u64 = 64;

/// Whether anchor `j` (at `y`) lies in the interval `[(lo, INT32_MAX), (y_i, 0)]`: the upper end admits anchor 0 at `y_i`.
#[inline(always)]
fn in_interval(j: usize, y: i32, lo: i32, yi: i32) -> bool {
    y > lo && (y < yi || (j == 0 && y == yi))
}

enum Rmq {
    /// by index: the window's priorities; `queue[head..tail]` the anchors no later anchor undercuts, in index
    /// order, priorities non-decreasing (equal ones kept: the least priority is shared iff the second has it)
    Deque { pri: Vec<f64>, queue: Vec<u32>, head: usize, tail: usize, scanned: u64, budget: u64 },
    Tree(MinTree),
}

/// The anchors ranked by key `(y, i)`, a bitset of the inner tree's, and the RMQ's state.
struct Ranked<'a> {
    a: &'a [Anchor],
    max_dist: i32,
    keys: Vec<u64>,
    rank: Vec<u32>,
    /// per rank: the ranks of the RMQ's interval `lo..hi`; those at `y <= y - 1` (`..inner_hi`) and the first at
    /// `y >= y - max_dist_inner` (`inner_lo`)
    lo: Vec<u32>,
    hi: Vec<u32>,
    inner_lo: Vec<u32>,
    inner_hi: Vec<u32>,
    inner: RankSet,
    rmq: Rmq,
}

impl<'a> Ranked<'a> {
    fn new(pr: &RmqParams, a: &'a [Anchor], way: RmqWay) -> Result<Ranked<'a>, OutOfMemory> {
        let n = a.len();
        let mut keys: Vec<u64> = try_zeroed(n)?;
        for (i, e) in a.iter().enumerate() {
            keys[i] = key(e.y as i32, i as u32);
        }
        keys.sort_unstable();
        let mut rank: Vec<u32> = try_zeroed(n)?;
        for (r, k) in keys.iter().enumerate() {
            rank[*k as u32 as usize] = r as u32;
        }
        let y_at = |r: usize| (keys[r] >> 32) as u32 as i32 ^ i32::MIN;
        // each bound is monotone in y: one sweep upwards
        let (mut lo, mut hi) = (try_zeroed::<u32>(n)?, try_zeroed::<u32>(n)?);
        let (mut inner_lo, mut inner_hi) = (try_zeroed::<u32>(n)?, try_zeroed::<u32>(n)?);
        let (mut at_lo, mut at_inner_lo, mut run) = (0usize, 0usize, 0usize);
        for r in 0..n {
            let y = y_at(r);
            if r > 0 && y_at(r - 1) != y {
                run = r;
            }
            let lo_y = y as i64 - pr.max_dist as i64;
            if lo_y != y.wrapping_sub(pr.max_dist) as i64 {
                // C's int arithmetic wraps this end (out of the sweep's order): the ranks at y <= the wrapped end
                let wrapped = y.wrapping_sub(pr.max_dist);
                lo[r] = keys.partition_point(|&k| (k >> 32) as u32 as i32 ^ i32::MIN <= wrapped) as u32;
            } else {
                while at_lo < n && y_at(at_lo) as i64 <= lo_y {
                    at_lo += 1;
                }
                lo[r] = at_lo as u32;
            }
            // (y, 0) itself is in range: the anchor of index 0 at this y comes first in the run
            hi[r] = (run + (keys[run] as u32 == 0) as usize) as u32;
            inner_hi[r] = run as u32;
            let inner_lo_y = y as i64 - pr.max_dist_inner as i64;
            while at_inner_lo < n && (y_at(at_inner_lo) as i64) < inner_lo_y {
                at_inner_lo += 1;
            }
            inner_lo[r] = at_inner_lo as u32;
        }
        let rmq = match way {
            RmqWay::Deque { budget } => Rmq::Deque {
                pri: try_vec(0.0, n)?,
                queue: try_zeroed(n)?,
                head: 0,
                tail: 0,
                scanned: 0,
                budget: budget.saturating_mul(n as u64),
            },
            RmqWay::Tree => Rmq::Tree(MinTree::new(n)?),
        };
        Ok(Ranked { a, max_dist: pr.max_dist, keys, rank, lo, hi, inner_lo, inner_hi, inner: RankSet::new(n)?, rmq })
    }

    /// Anchor `j` enters both trees (anchors enter in index order).
    #[inline]
    fn insert(&mut self, j: usize, p: f64) {
        let r = self.rank[j];
        match &mut self.rmq {
            Rmq::Deque { pri, queue, head, tail, .. } => {
                pri[j] = p;
                while *tail > *head && pri[queue[*tail - 1] as usize] > p {
                    *tail -= 1;
                }
                queue[*tail] = j as u32;
                *tail += 1;
            }
            Rmq::Tree(t) => t.put(r as usize, Node { pri: p, rank: r, tie: false }),
        }
        self.inner.insert(r as usize);
    }

    /// Anchor `j` leaves the outer tree (anchors leave in index order).
    #[inline]
    fn evict_outer(&mut self, j: usize) {
        match &mut self.rmq {
            Rmq::Deque { queue, head, tail, .. } => {
                if *head < *tail && queue[*head] as usize == j {
                    *head += 1;
                }
            }
            Rmq::Tree(t) => t.put(self.rank[j] as usize, ABSENT),
        }
    }

    #[inline]
    fn evict_inner(&mut self, j: usize) {
        self.inner.remove(self.rank[j] as usize);
    }

    /// The RMQ of anchor `i` over the outer tree, the anchors `st..i0`.
    #[inline]
    fn least(&mut self, i: usize, st: usize, i0: usize) -> Least {
        let ri = self.rank[i] as usize;
        match &mut self.rmq {
            Rmq::Deque { pri, queue, head, tail, scanned, budget } => {
                if *head == *tail {
                    return Least::Nothing;
                }
                let yi = self.a[i].y as i32;
                // (int arithmetic in C: wrapping, so an end wrapped above y_i leaves the interval empty)
                let lo = yi.wrapping_sub(self.max_dist);
                let front = queue[*head] as usize;
                let shared = *tail > *head + 1 && pri[queue[*head + 1] as usize] == pri[front];
                if !shared && in_interval(front, self.a[front].y as i32, lo, yi) {
                    return Least::One(front);
                }
                *scanned += (i0 - st) as u64;
                if *scanned > *budget {
                    // the window's scans cost too much: on with the segment tree, from the window as it is
                    let mut t = match MinTree::new(self.a.len()) {
                        Ok(t) => t,
                        Err(e) => return Least::OutOfMemory(e),
                    };
                    for j in st..i0 {
                        let r = self.rank[j];
                        t.put(r as usize, Node { pri: pri[j], rank: r, tie: false });
                    }
                    self.rmq = Rmq::Tree(t);
                    return self.least(i, st, i0);
                }
                let (mut best, mut at, mut tie) = (f64::INFINITY, usize::MAX, false);
                for j in st..i0 {
                    if in_interval(j, self.a[j].y as i32, lo, yi) {
                        let p = pri[j];
                        if p < best {
                            (best, at, tie) = (p, j, false);
                        } else if p == best {
                            tie = true;
                        }
                    }
                }
                match (at, tie) {
                    (usize::MAX, _) => Least::Nothing,
                    (_, true) => Least::Tie,
                    (j, false) => Least::One(j),
                }
            }
            Rmq::Tree(t) => {
                let q = t.min(self.lo[ri] as usize, self.hi[ri] as usize);
                if q.pri == f64::INFINITY {
                    Least::Nothing
                } else if q.tie {
                    Least::Tie
                } else {
                    Least::One(self.keys[q.rank as usize] as u32 as usize)
                }
            }
        }
    }

    /// Calls `visit` on the inner scan's anchors of `i`, in krmq's order, until it returns false.
    #[inline]
    fn scan_inner(&self, i: usize, mut visit: impl FnMut(usize) -> bool) {
        let ri = self.rank[i] as usize;
        let (start, floor) = (self.inner_hi[ri] as usize, self.inner_lo[ri] as usize);
        let mut at = if start > 0 { self.inner.prev(start - 1, floor) } else { None };
        while let Some(r) = at {
            if !visit(self.keys[r] as u32 as usize) {
                break;
            }
            at = if r > floor { self.inner.prev(r - 1, floor) } else { None };
        }
    }
}

/// The fill of [`fill_rmq`](super::fill_rmq), or `None` where it may differ: a query's least priority held by
/// two anchors, or anchors not sorted by `x`.
pub fn fill_rmq_ranked(pr: &RmqParams, a: &[Anchor]) -> Result<Option<Fill>, OutOfMemory> {
    fill_rmq_ranked_with(pr, a, RmqWay::Deque { budget: SCAN_BUDGET })
}

/// [`fill_rmq_ranked`] with the RMQ's way chosen (for tests).
pub fn fill_rmq_ranked_with(pr: &RmqParams, a: &[Anchor], way: RmqWay) -> Result<Option<Fill>, OutOfMemory> {
    let n = a.len();
    assert!(n < i32::MAX as usize, "mg_lchain_rmq: {n} anchors");
    if a.windows(2).any(|w| w[0].x > w[1].x) {
        return Ok(None);
    }
    let mut w = Ranked::new(pr, a, way)?;
    let (mut f, mut p, mut v, mut t) = (try_zeroed::<i32>(n)?, try_zeroed::<i64>(n)?, try_zeroed::<i32>(n)?, try_zeroed::<i32>(n)?);
    let with_inner = pr.max_dist_inner > 0;
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
                w.insert(j, pri);
            }
            i0 = i;
        }
        while st < i && (ai.x >> 32 != a[st].x >> 32 || ai.x > a[st].x.wrapping_add(md) || i0.saturating_sub(st) as u32 > cap) {
            if st < i0 {
                w.evict_outer(st);
            }
            st += 1;
        }
        if with_inner {
            while st_inner < i
                && (ai.x >> 32 != a[st_inner].x >> 32
                    || ai.x > a[st_inner].x.wrapping_add(mdi)
                    || i0.saturating_sub(st_inner) as u32 > cap)
            {
                if st_inner < i0 {
                    w.evict_inner(st_inner);
                }
                st_inner += 1;
            }
        }
        let j = match w.least(i, st, i0) {
            Least::Nothing => None,
            Least::One(j) => Some(j),
            Least::Tie => return Ok(None),
            Least::OutOfMemory(e) => return Err(e),
        };
        if let Some(j) = j {
            let (sc0, exact, width) = comput_sc_simple(&ai, &a[j], gap, skip);
            n_visited += 1;
            let sc = f[j].wrapping_add(sc0);
            if width <= bw && sc > max_f {
                max_f = sc;
                max_j = j as i64;
            }
            if with_inner && !exact && i0 > st_inner && yi > 0 {
                let mut n_skip = 0i32;
                w.scan_inner(i, |j| {
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
                                return false;
                            }
                        }
                        if p[j] >= 0 {
                            t[p[j] as usize] = i as i32;
                        }
                    }
                    true
                });
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
    Ok(Some(Fill { f, p, v, t, n_visited, n_breaks, n_rescued: 0 }))
}
