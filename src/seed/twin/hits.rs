//! From a read's minimizers to its anchors: `collect_minimizers` and `collect_seed_hits` (map.c, static),
//! `collect_seed_hits_heap` (the `MM_F_HEAP_SORT` variant, short-read presets), and the steps of seed.c they call
//! (`mm_seed_mz_flt`, `mm_seed_collect_all`, `mm_seed_select`, `mm_collect_matches`). Index lookups go through
//! [`FlatIndex`], which answers what `mm_idx_get` answers.
//!
//! Integer types follow upstream's where they decide a result (`uint32_t` comparisons of counts with `int`
//! limits, the `float` product of `--q-occ-frac`, the `uint32_t` reverse-strand query coordinate).

use super::{sdust, sketch};
use crate::chain::twin::radix_sort_128x;
use crate::chain::Anchor;
use crate::seed::index::FlatIndex;
use crate::seed::Minimizer;

/// The `mm_mapopt_t::flag` bits the seeding reads (minimap.h).
pub mod flag {
    pub const NO_DIAG: i64 = 0x001;
    pub const NO_DUAL: i64 = 0x002;
    pub const FOR_ONLY: i64 = 0x100000;
    pub const REV_ONLY: i64 = 0x200000;
    pub const HEAP_SORT: i64 = 0x400000;
    pub const QSTRAND: i64 = 0x100000000;
}

/// Anchor `y` flags (mmpriv.h).
pub const SEED_TANDEM: u64 = 1 << 42;
pub const SEED_SELF: u64 = 1 << 43;
pub const SEED_SEG_SHIFT: u32 = 48;

/// `mm_seed_t`: a minimizer of the query found in the index, its positions (`cr`) borrowed from the index.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Seed<'a> {
    pub n: u32,
    pub q_pos: u32,
    /// 31 bits upstream.
    pub q_span: u32,
    pub flt: bool,
    /// 31 bits upstream.
    pub seg_id: u32,
    pub is_tandem: bool,
    pub cr: &'a [u64],
}

/// The `mm_mapopt_t` fields `collect_seed_hits` reads besides its arguments.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct HitOpt {
    pub flag: i64,
    pub max_max_occ: i32,
    pub occ_dist: i32,
}

/// What `collect_seed_hits` returns: the anchors (`n_a` of them), `rep_len` and `mini_pos` (`n_mini_pos`).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SeedHits {
    pub a: Vec<Anchor>,
    pub rep_len: i32,
    pub mini_pos: Vec<u64>,
}

/// `collect_minimizers`: the segments' minimizers in one array, `y` shifted by the lengths of the segments before
/// (`rid` is the segment's index), those mostly in low-complexity regions dropped when `sdust_thres > 0`.
/// Panics, as upstream's `mm_sketch` aborts, on an empty segment.
pub fn collect_minimizers(w: usize, k: usize, is_hpc: bool, sdust_thres: i32, segs: &[&[u8]], mv: &mut Vec<Minimizer>) {
    mv.clear();
    let mut sum = 0i32;
    for (i, s) in segs.iter().enumerate() {
        let n = mv.len();
        sketch(s, w, k, i as u32, is_hpc, mv);
        let add = sum.wrapping_shl(1) as i64 as u64;
        for m in &mut mv[n..] {
            m.y = m.y.wrapping_add(add);
        }
        if sdust_thres > 0 {
            let kept = dust_minier(&mut mv[n..], s, sdust_thres);
            mv.truncate(n + kept);
        }
        sum = sum.wrapping_add(s.len() as i32);
    }
}

/// `mm_dust_minier`: keeps, in place, the minimizers not more than half inside the segment's low-complexity
/// intervals; returns how many. Positions are the minimizers' `y`, already shifted by the segments before (as
/// upstream compares them, with the intervals of this segment alone).
fn dust_minier(a: &mut [Minimizer], seq: &[u8], sdust_thres: i32) -> usize {
    let dreg = sdust(seq, sdust_thres, 64);
    let (mut k, mut u) = (0, 0);
    for j in 0..a.len() {
        let (qpos, span) = (((a[j].y as u32) >> 1) as i32, (a[j].x & 0xff) as i32);
        let s = qpos.wrapping_sub(span - 1);
        let e = s.wrapping_add(span);
        while u < dreg.len() && (dreg[u] as i32) <= s {
            u += 1;
        }
        let keep = if u < dreg.len() && ((dreg[u] >> 32) as i32) < e {
            let mut l = 0i32;
            for &d in dreg[u..].iter().take_while(|&&d| ((d >> 32) as i32) < e) {
                let ss = s.max((d >> 32) as i32);
                let ee = e.min(d as i32);
                l = l.wrapping_add(ee.wrapping_sub(ss));
            }
            l <= span >> 1
        } else {
            true
        };
        if keep {
            a[k] = a[j];
            k += 1;
        }
    }
    k
}

/// `mm_seed_mz_flt`: drops the query minimizers that occur more than `q_occ_max` times and in more than
/// `q_occ_frac` of the query (`--q-occ-frac`).
pub fn seed_mz_flt(mv: &mut Vec<Minimizer>, q_occ_max: i32, q_occ_frac: f32) {
    // `mv->n <= q_occ_max` compares a size_t with the int converted to size_t.
    if mv.len() as u64 <= q_occ_max as i64 as u64 || q_occ_frac <= 0.0 || q_occ_max <= 0 {
        return;
    }
    let mut a: Vec<(u64, usize)> = mv.iter().enumerate().map(|(i, m)| (m.x, i)).collect();
    // Only the groups' sizes matter, not the order inside a group.
    a.sort_unstable_by_key(|&(x, _)| x);
    let n = mv.len();
    let mut st = 0;
    for i in 1..=n {
        if i == n || a[i].0 != a[st].0 {
            let cnt = (i - st) as i32;
            if cnt > q_occ_max && cnt as f32 > n as f32 * q_occ_frac {
                for &(_, j) in &a[st..i] {
                    mv[j].x = 0;
                }
            }
            st = i;
        }
    }
    mv.retain(|m| m.x != 0);
}

/// `mm_seed_collect_all`: the query minimizers found in the index, in query order.
pub fn seed_collect_all<'a>(idx: &'a FlatIndex, mv: &[Minimizer]) -> Vec<Seed<'a>> {
    let mut m = Vec::with_capacity(mv.len());
    for (i, p) in mv.iter().enumerate() {
        let cr = idx.get(p.x >> 8);
        if cr.is_empty() {
            continue;
        }
        let is_tandem = (i > 0 && p.x >> 8 == mv[i - 1].x >> 8) || (i + 1 < mv.len() && p.x >> 8 == mv[i + 1].x >> 8);
        m.push(Seed {
            n: cr.len() as u32,
            q_pos: p.y as u32,
            q_span: (p.x & 0xff) as u32,
            flt: false,
            seg_id: (p.y >> 32) as u32 & 0x7fff_ffff,
            is_tandem,
            cr,
        });
    }
    m
}

/// `MAX_MAX_HIGH_OCC`: at most this many seeds kept per streak of high-occurrence seeds.
const MAX_MAX_HIGH_OCC: i32 = 128;

/// `mm_seed_select`: in each streak of seeds occurring more than `max_occ` times, keeps the
/// `(streak length)/dist` rarest (at most 128), and none occurring more than `max_max_occ` times.
pub fn seed_select(a: &mut [Seed], len: i32, max_occ: i32, max_max_occ: i32, dist: i32) {
    let n = a.len();
    if n <= 1 || !a.iter().any(|s| s.n > max_occ as u32) {
        return;
    }
    let mut last0: i64 = -1;
    for i in 0..=n {
        if i == n || a[i].n <= max_occ as u32 {
            if i as i64 - last0 > 1 {
                let ps = if last0 < 0 { 0 } else { (a[last0 as usize].q_pos >> 1) as i32 };
                let pe = if i == n { len } else { (a[i].q_pos >> 1) as i32 };
                let (st, en) = ((last0 + 1) as usize, i);
                let max_high_occ = (pe.wrapping_sub(ps) as f64 / dist as f64 + 0.499) as i32;
                if max_high_occ > 0 {
                    let max_high_occ = max_high_occ.min(MAX_MAX_HIGH_OCC) as usize;
                    // Upstream's binary max-heap of `n<<32 | j`: the values are distinct, so which ones it keeps
                    // does not depend on the heap's layout.
                    let mut heap: std::collections::BinaryHeap<u64> =
                        (st..en).take(max_high_occ).map(|j| (a[j].n as u64) << 32 | j as u64).collect();
                    for (j, s) in a[..en].iter().enumerate().skip(st + max_high_occ) {
                        let top = *heap.peek().unwrap();
                        if s.n < (top >> 32) as u32 {
                            heap.pop();
                            heap.push((s.n as u64) << 32 | j as u64);
                        }
                    }
                    for b in heap {
                        a[b as u32 as usize].flt = true;
                    }
                }
                for s in &mut a[st..en] {
                    s.flt = !s.flt;
                    if s.n > max_max_occ as u32 {
                        s.flt = true;
                    }
                }
            }
            last0 = i as i64;
        }
    }
}

/// What `mm_collect_matches` returns: the kept seeds, their positions' count `n_a`, `rep_len` and `mini_pos`.
pub struct Matches<'a> {
    pub seeds: Vec<Seed<'a>>,
    pub n_a: i64,
    pub rep_len: i32,
    pub mini_pos: Vec<u64>,
}

/// `mm_collect_matches`: the seeds kept after the occurrence limits, the query length they cover when
/// filtered out (`rep_len`) and the kept seeds' `q_span<<32 | q_pos>>1` (`mini_pos`).
pub fn collect_matches<'a>(
    idx: &'a FlatIndex,
    mv: &[Minimizer],
    qlen: i32,
    max_occ: i32,
    max_max_occ: i32,
    dist: i32,
) -> Matches<'a> {
    let mut m = seed_collect_all(idx, mv);
    if dist > 0 && max_max_occ > max_occ {
        seed_select(&mut m, qlen, max_occ, max_max_occ, dist);
    } else {
        for s in &mut m {
            if s.n > max_occ as u32 {
                s.flt = true;
            }
        }
    }
    let (mut rep_st, mut rep_en, mut rep_len, mut n_a) = (0i32, 0i32, 0i32, 0i64);
    let mut mini_pos = Vec::with_capacity(m.len());
    m.retain(|q| {
        if q.flt {
            let en = ((q.q_pos >> 1) + 1) as i32;
            let st = en.wrapping_sub(q.q_span as i32);
            if st > rep_en {
                rep_len = rep_len.wrapping_add(rep_en - rep_st);
                rep_st = st;
                rep_en = en;
            } else {
                rep_en = en;
            }
            false
        } else {
            n_a += q.n as i64;
            mini_pos.push((q.q_span as u64) << 32 | (q.q_pos >> 1) as u64);
            true
        }
    });
    rep_len = rep_len.wrapping_add(rep_en - rep_st);
    Matches { seeds: m, n_a, rep_len, mini_pos }
}

/// `skip_seed`: whether position `r` of seed `q` is dropped (the diagonal and the dual of all-vs-all mapping,
/// `--for-only`/`--rev-only`), and whether it is a self hit.
fn skip_seed(flag: i64, r: u64, q: &Seed, qname: Option<&[u8]>, qlen: i32, idx: &FlatIndex) -> (bool, bool) {
    let mut is_self = false;
    if let Some(qname) = qname.filter(|_| flag & (flag::NO_DIAG | flag::NO_DUAL) != 0) {
        let rid = (r >> 32) as usize;
        // Upstream's strcmp on a null name would crash; an index without names is not mapped this way.
        let name = idx.seq_name[rid].as_deref().expect("skip_seed: the index has no names");
        let cmp = qname.cmp(name);
        if flag & flag::NO_DIAG != 0 && cmp.is_eq() && idx.seq_len[rid] as i32 == qlen {
            if (r as u32) >> 1 == q.q_pos >> 1 {
                return (true, false);
            }
            if r & 1 == (q.q_pos & 1) as u64 {
                is_self = true;
            }
        }
        if flag & flag::NO_DUAL != 0 && cmp.is_gt() {
            return (true, is_self);
        }
    }
    if flag & (flag::FOR_ONLY | flag::REV_ONLY) != 0 {
        if r & 1 == (q.q_pos & 1) as u64 {
            if flag & flag::REV_ONLY != 0 {
                return (true, is_self);
            }
        } else if flag & flag::FOR_ONLY != 0 {
            return (true, is_self);
        }
    }
    (false, is_self)
}

/// The anchor `y` of a forward hit, and of a reverse one (query coordinates counted from the other end).
fn y_for(q: &Seed) -> u64 {
    (q.q_span as u64) << 32 | (q.q_pos >> 1) as u64
}

fn y_rev(q: &Seed, qlen: i32) -> u64 {
    // `qlen - ((q_pos>>1) + 1 - q_span) - 1` is uint32_t arithmetic upstream.
    (q.q_span as u64) << 32
        | (qlen as u32).wrapping_sub(((q.q_pos >> 1) + 1).wrapping_sub(q.q_span)).wrapping_sub(1) as u64
}

fn y_flags(q: &Seed, is_self: bool) -> u64 {
    let mut y = (q.seg_id as u64) << SEED_SEG_SHIFT;
    if q.is_tandem {
        y |= SEED_TANDEM;
    }
    if is_self {
        y |= SEED_SELF;
    }
    y
}

const HI32: u64 = 0xffff_ffff_0000_0000;

/// `collect_seed_hits(km, opt, max_occ, mi, qname, mv, qlen, ...)`: every position of every kept seed as an
/// anchor, sorted by `radix_sort_128x`.
pub fn collect_seed_hits(
    opt: &HitOpt,
    max_occ: i32,
    idx: &FlatIndex,
    qname: Option<&[u8]>,
    mv: &[Minimizer],
    qlen: i32,
) -> SeedHits {
    let m = collect_matches(idx, mv, qlen, max_occ, opt.max_max_occ, opt.occ_dist);
    let mut a = Vec::with_capacity(m.n_a as usize);
    for q in &m.seeds {
        for &r in q.cr {
            let (skip, is_self) = skip_seed(opt.flag, r, q, qname, qlen, idx);
            if skip {
                continue;
            }
            let rpos = (r as u32) >> 1;
            let mut p = if r & 1 == (q.q_pos & 1) as u64 {
                Anchor { x: r & HI32 | rpos as u64, y: y_for(q) }
            } else if opt.flag & flag::QSTRAND == 0 {
                Anchor { x: 1 << 63 | r & HI32 | rpos as u64, y: y_rev(q, qlen) }
            } else {
                // Query-strand mode: the reference coordinate is flipped instead (int arithmetic, sign-extended).
                let len = idx.seq_len[(r >> 32) as usize] as i32;
                let x = len.wrapping_sub((rpos as i32).wrapping_add(1).wrapping_sub(q.q_span as i32)).wrapping_sub(1);
                Anchor { x: 1 << 63 | r & HI32 | x as i64 as u64, y: y_for(q) }
            };
            p.y |= y_flags(q, is_self);
            a.push(p);
        }
    }
    radix_sort_128x(&mut a);
    SeedHits { a, rep_len: m.rep_len, mini_pos: m.mini_pos }
}

/// ksort's `ks_heapdown` with `heap_lt(a, b) = a.x > b.x` (a min-heap on `x`): equal `x` leave in the order
/// this layout gives, which decides the anchors' order.
fn heapdown(mut i: usize, n: usize, l: &mut [Anchor]) {
    let tmp = l[i];
    let mut k = i;
    loop {
        k = (k << 1) + 1;
        if k >= n {
            break;
        }
        if k != n - 1 && l[k].x > l[k + 1].x {
            k += 1;
        }
        if l[k].x > tmp.x {
            break;
        }
        l[i] = l[k];
        i = k;
    }
    l[i] = tmp;
}

/// `collect_seed_hits_heap`: the same anchors merged from the seeds' sorted positions with a heap, forward
/// hits first, then the reverse ones (not sorted by `radix_sort_128x`; no query-strand mode).
pub fn collect_seed_hits_heap(
    opt: &HitOpt,
    max_occ: i32,
    idx: &FlatIndex,
    qname: Option<&[u8]>,
    mv: &[Minimizer],
    qlen: i32,
) -> SeedHits {
    let m = collect_matches(idx, mv, qlen, max_occ, opt.max_max_occ, opt.occ_dist);
    let mut heap: Vec<Anchor> = (m.seeds.iter().enumerate())
        .filter(|(_, q)| q.n > 0)
        .map(|(i, q)| Anchor { x: q.cr[0], y: (i as u64) << 32 })
        .collect();
    let mut heap_size = heap.len();
    for i in (0..heap_size >> 1).rev() {
        heapdown(i, heap_size, &mut heap);
    }
    let n_a = m.n_a as usize;
    let mut a = vec![Anchor::default(); n_a];
    let (mut n_for, mut n_rev) = (0usize, 0usize);
    while heap_size > 0 {
        let q = &m.seeds[(heap[0].y >> 32) as usize];
        let r = heap[0].x;
        let rpos = (r as u32) >> 1;
        let (skip, is_self) = skip_seed(opt.flag, r, q, qname, qlen, idx);
        if !skip {
            let (slot, mut p) = if r & 1 == (q.q_pos & 1) as u64 {
                n_for += 1;
                (n_for - 1, Anchor { x: r & HI32 | rpos as u64, y: y_for(q) })
            } else {
                n_rev += 1;
                (n_a - n_rev, Anchor { x: 1 << 63 | r & HI32 | rpos as u64, y: y_rev(q, qlen) })
            };
            p.y |= y_flags(q, is_self);
            a[slot] = p;
        }
        if (heap[0].y as u32) < q.n - 1 {
            heap[0].y += 1;
            heap[0].x = m.seeds[(heap[0].y >> 32) as usize].cr[heap[0].y as u32 as usize];
        } else {
            heap[0] = heap[heap_size - 1];
            heap_size -= 1;
        }
        heapdown(0, heap_size, &mut heap);
    }
    // The reverse hits were written from the end in descending order: reverse them, then close the gap.
    for j in 0..n_rev >> 1 {
        a.swap(n_a - 1 - j, n_a - (n_rev - j));
    }
    if n_a > n_for + n_rev {
        a.copy_within(n_a - n_rev.., n_for);
        a.truncate(n_for + n_rev);
    }
    SeedHits { a, rep_len: m.rep_len, mini_pos: m.mini_pos }
}
