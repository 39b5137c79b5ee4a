//! The Rust twin of `mg_lchain_rmq` (`warpalign::chain::twin::lchain_rmq`, over `twin::krmq`) against
//! upstream's C function, and krmq.h's tree operations against upstream's own (`krmq_*_lc_elem` of lchain.c,
//! called directly): chains `u[]`, compacted anchors, and after every tree operation its result and the
//! whole tree (links, balance factors, sizes, cached minima) must be equal.
//!
//! Anchor sets: the asm presets' arguments (and their long-join re-chain's `bw_long`), `--rmq` on map-ont and
//! map-hifi, lr:hqae, the long-join re-chain of map-ont/map-pb/map-hifi (input: upstream's `mg_lchain_dp`
//! output re-sorted with `radix_sort_128x`, as map.c does) and wild arguments (inner distance 0, negative or
//! beyond max_dist; caps down to 0 and negative; `max_chain_skip` 0 to infinity; gap cost 0, where every
//! anchor of equal f ties in the RMQ). `WARPALIGN_CHAIN_RMQ_CASES=N` sets the number of random sets (default
//! 3000), `WARPALIGN_CHAIN_RMQ_SEED=S` their seed; `CHAIN_RMQ_ONLY=i` replays set i alone.
//!
//! Upstream asserts that a chosen predecessor lies before the anchor on both sequences. The RMQ's interval
//! admits anchor 0 at the anchor's own query position, which with a longer span than the anchor's breaks
//! that (minimap2 aborts; real anchors at one query position share their span): the generator gives anchor
//! 0 the least span of those at its position.
//!
//! The twin fills by ranks (`fill_rmq_ranked`) and by the trees where that gives up: every set also compares
//! the two fills field by field, and the lines count the sets given up.

use crate::common::chain_cases::{anchor, pen, random_anchors, set_size, Cfg};
use crate::common::{env_u64, Rng};
use crate::{take, Out};
use rayon::prelude::*;
use std::collections::BTreeMap;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;
use warpalign::chain::twin::krmq::{Key, Links, Tree, NIL};
use warpalign::chain::twin::{self, fill_rmq, fill_rmq_ranked, fill_rmq_ranked_with, RmqParams, RmqWay};
use warpalign::chain::{self, Anchor, ChainDpResult, ChainRmqJob};
use warpalign::Engine;
use warpalign_ffi::mm2 as c;

// ---------------------------------------------------------------------------------------------------------
// Arguments and anchors

#[derive(Debug, Clone, Copy)]
struct RmqCfg {
    max_dist: i32,
    max_dist_inner: i32,
    bw: i32,
    max_chn_skip: i32,
    cap_rmq_size: i32,
    min_cnt: i32,
    min_sc: i32,
    chn_pen_gap: f32,
    chn_pen_skip: f32,
}

impl RmqCfg {
    fn job(&self, a: &[Anchor]) -> ChainRmqJob {
        ChainRmqJob {
            max_dist: self.max_dist,
            max_dist_inner: self.max_dist_inner,
            bw: self.bw,
            max_chn_skip: self.max_chn_skip,
            cap_rmq_size: self.cap_rmq_size,
            min_cnt: self.min_cnt,
            min_sc: self.min_sc,
            chn_pen_gap: self.chn_pen_gap,
            chn_pen_skip: self.chn_pen_skip,
            n_anchors: a.len() as i64,
            anchors: a.as_ptr(),
        }
    }
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum RPreset {
    /// asm5/asm10/asm20: k 19, max_gap 10000, rmq_inner_dist 1000, bw 1000
    Asm,
    /// their long-join re-chain: bw_long 100000
    AsmLong,
    /// `-x map-ont --rmq`: k 15, max_gap 5000, bw 500
    RmqOnt,
    /// `-x map-hifi --rmq`: k 19, max_gap 10000
    RmqHifi,
    /// lr:hqae: k 25, rmq_inner_dist 5000, chain_gap_scale 5
    Hqae,
    /// the long-join re-chain of map-ont, map-pb (HPC spans), map-hifi (bw_long 20000) on mg_lchain_dp's output
    LongJoinOnt,
    LongJoinPb,
    LongJoinHifi,
    Wild,
}

const RPRESETS: [RPreset; 9] = [
    RPreset::Asm,
    RPreset::AsmLong,
    RPreset::RmqOnt,
    RPreset::RmqHifi,
    RPreset::Hqae,
    RPreset::LongJoinOnt,
    RPreset::LongJoinPb,
    RPreset::LongJoinHifi,
    RPreset::Wild,
];

/// k, the arguments as map.c passes them for the preset, the query length and the segments.
fn rmq_cfg(p: RPreset, rng: &mut Rng) -> (i32, RmqCfg, i64, i32) {
    let base = |k: i32, max_gap: i32, inner: i32, bw: i32, scale: f32| RmqCfg {
        max_dist: max_gap,
        max_dist_inner: inner,
        bw,
        max_chn_skip: 25,
        cap_rmq_size: 100_000,
        min_cnt: 3,
        min_sc: 40,
        chn_pen_gap: pen(scale, k),
        chn_pen_skip: 0.0,
    };
    let (k, mut cfg, qlen, n_seg) = match p {
        RPreset::Asm => (19, base(19, 10_000, 1000, 1000, 0.8), rng.range(1000, 2_000_000), 1),
        RPreset::AsmLong => (19, base(19, 10_000, 1000, 100_000, 0.8), rng.range(1000, 2_000_000), 1),
        RPreset::RmqOnt => (15, base(15, 5000, 1000, 500, 0.8), rng.range(500, 100_000), 1),
        RPreset::RmqHifi => (19, base(19, 10_000, 1000, 500, 0.8), rng.range(500, 40_000), 1),
        RPreset::Hqae => {
            let bw = if rng.chance(0.5) { 500 } else { 20_000 };
            (25, base(25, 5000, 5000, bw, 5.0), rng.range(1000, 2_000_000), 1)
        }
        RPreset::LongJoinOnt => (15, base(15, 5000, 1000, 20_000, 0.8), rng.range(500, 100_000), 1),
        RPreset::LongJoinPb => (19, base(19, 5000, 1000, 20_000, 0.8), rng.range(500, 60_000), 1),
        RPreset::LongJoinHifi => (19, base(19, 10_000, 1000, 20_000, 0.8), rng.range(500, 40_000), 1),
        RPreset::Wild => {
            let k = rng.range(5, 28) as i32;
            let max_dist = [0, 10, 100, 500, 5000, 10_000, 200_000][rng.below(7) as usize];
            let cfg = RmqCfg {
                max_dist,
                max_dist_inner: [-5, 0, 1, 10, 100, 1000, 5000, max_dist, max_dist + 1, 1 << 30][rng.below(10) as usize],
                bw: [0, 1, 5, 50, 500, 2000, 20_000, 200_000][rng.below(8) as usize],
                max_chn_skip: 25,
                cap_rmq_size: [100_000, 100_000, 0, 1, 2, 5, 50, 500, -1][rng.below(9) as usize],
                min_cnt: rng.range(0, 5) as i32,
                min_sc: [-20, 0, 1, 15, 25, 40, 100, 300][rng.below(8) as usize],
                chn_pen_gap: pen([0.0f32, 0.1, 0.8, 1.0, 2.5, 5.0, 20.0][rng.below(7) as usize], k),
                chn_pen_skip: pen([0.0f32, 0.0, 0.05, 0.3, 1.0][rng.below(5) as usize], k),
            };
            (k, cfg, rng.range(50, 50_000), [1, 1, 2, 3][rng.below(4) as usize])
        }
    };
    if rng.chance(0.3) {
        cfg.max_chn_skip = [0, 1, 2, 3, 5, 10, 1000, i32::MAX][rng.below(8) as usize];
    }
    // no gap cost: every element of equal f has the same priority
    if rng.chance(0.15) {
        cfg.chn_pen_gap = 0.0;
    }
    (k, cfg, qlen, n_seg)
}

/// The long-join re-chain's input: upstream's `mg_lchain_dp` chains of `a` (map.c's arguments for the preset:
/// `bw`, `max_gap` both ways), their anchors re-sorted by `radix_sort_128x`.
fn long_join_input(a: &[Anchor], k: i32, max_gap: i32) -> Vec<Anchor> {
    let dp = Cfg {
        max_dist_x: max_gap,
        max_dist_y: max_gap,
        bw: 500,
        max_skip: 25,
        max_iter: 5000,
        min_cnt: 3,
        min_sc: 40,
        chn_pen_gap: pen(0.8, k),
        chn_pen_skip: 0.0,
        is_cdna: 0,
        n_seg: 1,
    };
    let (_, b) = crate::oracle(&dp.job(a));
    let mut w: Vec<c::mm128_t> = b.iter().map(|e| c::mm128_t { x: e.x, y: e.y }).collect();
    // SAFETY: a valid [beg, end) range.
    unsafe { c::warpalign_oracle_radix_sort_128x(w.as_mut_ptr(), w.as_mut_ptr().add(w.len())) };
    w.iter().map(|e| Anchor { x: e.x, y: e.y }).collect()
}

/// Anchor 0 gets the least span of the anchors at its query position (see the header).
fn guard_anchor0(a: &mut [Anchor]) {
    if let Some(&a0) = a.first() {
        let span = a.iter().filter(|e| e.y as u32 == a0.y as u32).map(|e| e.y >> 32 & 0xff).min().unwrap();
        a[0].y = a0.y & !(0xff << 32) | span << 32;
    }
}

/// Case `idx` of seed base `seed`: preset, arguments and anchors.
fn random_case(seed: u64, idx: u64) -> (RPreset, RmqCfg, Vec<Anchor>) {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_033) ^ idx.wrapping_mul(0x9E37_79B9) ^ 0x7a9);
    let p = RPRESETS[rng.below(RPRESETS.len() as u64) as usize];
    let (k, cfg, qlen, n_seg) = rmq_cfg(p, &mut rng);
    let n = set_size(&mut rng);
    let shape = Cfg {
        max_dist_x: cfg.max_dist,
        max_dist_y: cfg.max_dist,
        bw: cfg.bw.min(cfg.max_dist.max(500)),
        max_skip: 25,
        max_iter: 5000,
        min_cnt: 3,
        min_sc: 40,
        chn_pen_gap: 0.0,
        chn_pen_skip: 0.0,
        is_cdna: 0,
        n_seg,
    };
    let mut a = random_anchors(&mut rng, k, &shape, qlen, n);
    if matches!(p, RPreset::LongJoinOnt | RPreset::LongJoinPb | RPreset::LongJoinHifi | RPreset::AsmLong) {
        a = long_join_input(&a, k, cfg.max_dist);
    }
    guard_anchor0(&mut a);
    (p, cfg, a)
}

// ---------------------------------------------------------------------------------------------------------
// Twin and oracle

/// Upstream's `mg_lchain_rmq` in the kalloc arena `km` (NULL: malloc/free).
fn oracle_rmq_in(j: &ChainRmqJob, km: *mut std::os::raw::c_void) -> Out {
    let a = j.anchors();
    let n = a.len();
    // SAFETY: upstream frees its input, so it gets a copy from km; the outputs are read by their counts (u's
    // low halves sum to the compacted anchors' count), then freed into km.
    unsafe {
        let p = if n == 0 { std::ptr::null_mut() } else { c::warpalign_oracle_kmalloc(km, n * 16) as *mut Anchor };
        assert!(n == 0 || !p.is_null());
        if n > 0 {
            std::ptr::copy_nonoverlapping(a.as_ptr(), p, n);
        }
        let (mut n_u, mut u) = (0i32, std::ptr::null_mut::<u64>());
        let b = c::warpalign_oracle_mg_lchain_rmq(
            j.max_dist, j.max_dist_inner, j.bw, j.max_chn_skip, j.cap_rmq_size, j.min_cnt, j.min_sc, j.chn_pen_gap,
            j.chn_pen_skip, n as i64, p.cast(), &mut n_u, &mut u, km,
        ) as *mut Anchor;
        let uu = if u.is_null() || n_u == 0 { vec![] } else { std::slice::from_raw_parts(u, n_u as usize).to_vec() };
        let n_b: usize = uu.iter().map(|&x| x as u32 as usize).sum();
        let bb = if b.is_null() { vec![] } else { std::slice::from_raw_parts(b, n_b).to_vec() };
        c::warpalign_oracle_kfree(km, u.cast());
        c::warpalign_oracle_kfree(km, b.cast());
        (uu, bb)
    }
}

fn oracle_rmq(j: &ChainRmqJob) -> Out {
    oracle_rmq_in(j, std::ptr::null_mut())
}

fn twin_rmq(j: &ChainRmqJob) -> Out {
    let mut r = ChainDpResult::EMPTY;
    twin::lchain_rmq(j, &mut r).unwrap();
    assert_eq!(r.chains.is_null(), r.n_chains == 0);
    assert_eq!(r.anchors.is_null(), r.n_chains == 0);
    take(&mut r)
}

#[derive(Default)]
struct Stats {
    cases: AtomicU64,
    chained: AtomicU64,
    chains: AtomicU64,
    anchors: AtomicU64,
    scored: AtomicU64,
    breaks: AtomicU64,
    break_cases: AtomicU64,
    ranked_gave_up: AtomicU64,
}

impl Stats {
    /// Counts the set; a difference between the fill by ranks and the fill by the trees, if any.
    fn add(&self, j: &ChainRmqJob, out: &Out) -> Option<String> {
        let pr = RmqParams::from_job(j);
        let fl = fill_rmq(&pr, j.anchors()).unwrap();
        self.ranked_gave_up.fetch_add(fill_rmq_ranked(&pr, j.anchors()).unwrap().is_none() as u64, Relaxed);
        // the deque alone, the tree alone, and the deque handing over to the tree early
        let ways = [RmqWay::Deque { budget: u64::MAX }, RmqWay::Tree, RmqWay::Deque { budget: 1 }];
        let differs = ways.into_iter().filter_map(|way| fill_rmq_ranked_with(&pr, j.anchors(), way).unwrap()).find(|r| {
            (&r.f, &r.p, &r.v, &r.t, r.n_visited, r.n_breaks) != (&fl.f, &fl.p, &fl.v, &fl.t, fl.n_visited, fl.n_breaks)
        });
        self.cases.fetch_add(1, Relaxed);
        self.chained.fetch_add((!out.0.is_empty()) as u64, Relaxed);
        self.chains.fetch_add(out.0.len() as u64, Relaxed);
        self.anchors.fetch_add(j.n_anchors as u64, Relaxed);
        self.scored.fetch_add(fl.n_visited, Relaxed);
        self.breaks.fetch_add(fl.n_breaks, Relaxed);
        self.break_cases.fetch_add((fl.n_breaks > 0) as u64, Relaxed);
        differs.map(|r| {
            let k = (0..fl.f.len()).find(|&k| (r.f[k], r.p[k], r.v[k], r.t[k]) != (fl.f[k], fl.p[k], fl.v[k], fl.t[k]));
            format!("the fill by ranks differs from the trees' at anchor {k:?} (counters {} {} vs {} {})", r.n_visited, r.n_breaks, fl.n_visited, fl.n_breaks)
        })
    }

    fn line(&self) -> String {
        let g = |x: &AtomicU64| x.load(Relaxed);
        format!(
            "{} sets ({} with chains, {} chains), {} anchors, {} pairs scored, {} skip breaks in {} sets, {} filled by the trees (a tie)",
            g(&self.cases), g(&self.chained), g(&self.chains), g(&self.anchors), g(&self.scored), g(&self.breaks),
            g(&self.break_cases), g(&self.ranked_gave_up)
        )
    }
}

/// The first difference between two outputs.
fn diff(want: &Out, got: &Out) -> String {
    if want.0 != got.0 {
        let i = want.0.iter().zip(&got.0).position(|(a, b)| a != b).unwrap_or(want.0.len().min(got.0.len()));
        return format!("chains differ: oracle {} twin {}; first at {i}: {:x?} vs {:x?}", want.0.len(), got.0.len(), want.0.get(i), got.0.get(i));
    }
    let i = want.1.iter().zip(&got.1).position(|(a, b)| a != b).unwrap_or(want.1.len().min(got.1.len()));
    format!("anchors differ: oracle {} twin {}; first at {i}: {:x?} vs {:x?}", want.1.len(), got.1.len(), want.1.get(i), got.1.get(i))
}

/// Runs every (label, cfg, anchors) through both; the mismatches, sorted.
fn compare_all<I>(cases: I, stats: &Stats) -> Vec<String>
where
    I: ParallelIterator<Item = (String, RmqCfg, Vec<Anchor>)>,
{
    let bad = Mutex::new(Vec::new());
    cases.for_each(|(label, cfg, a)| {
        let j = cfg.job(&a);
        let want = oracle_rmq(&j);
        let got = twin_rmq(&j);
        if want != got {
            bad.lock().unwrap().push(format!("{label} ({} anchors, {cfg:?}): {}", a.len(), diff(&want, &got)));
        }
        if let Some(d) = stats.add(&j, &want) {
            bad.lock().unwrap().push(format!("{label} ({} anchors, {cfg:?}): {d}", a.len()));
        }
    });
    let mut bad = bad.into_inner().unwrap();
    bad.sort();
    bad
}

fn check(name: &str, bad: &[String], stats: &Stats) {
    eprintln!("{name}: {}; {} mismatches", stats.line(), bad.len());
    for b in bad.iter().take(10) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "{name}: {} mismatches between twin and oracle", bad.len());
}

// ---------------------------------------------------------------------------------------------------------
// Chain tests

/// The main differential test: `WARPALIGN_CHAIN_RMQ_CASES` random sets (default 3000) over all presets.
#[test]
fn rmq_random_sets() {
    let n = env_u64("WARPALIGN_CHAIN_RMQ_CASES", 3000);
    let seed = env_u64("WARPALIGN_CHAIN_RMQ_SEED", 1);
    let only = std::env::var("CHAIN_RMQ_ONLY").ok().and_then(|s| s.parse::<u64>().ok());
    let idx: Vec<u64> = match only {
        Some(i) => vec![i],
        None => (0..n).collect(),
    };
    let (stats, t0) = (Stats::default(), Instant::now());
    let mut bad = Vec::new();
    for (c, chunk) in idx.chunks(50_000).enumerate() {
        bad.extend(compare_all(
            chunk.par_iter().map(|&i| {
                let (p, cfg, a) = random_case(seed, i);
                (format!("seed {seed} case {i} {p:?}"), cfg, a)
            }),
            &stats,
        ));
        if n > 100_000 {
            eprintln!("rmq_random_sets: {} sets done, {} mismatches, {:.0} s", (c + 1) * 50_000, bad.len(), t0.elapsed().as_secs_f64());
        }
    }
    eprintln!("rmq_random_sets: seed {seed}, {:.1} s", t0.elapsed().as_secs_f64());
    check("rmq_random_sets", &bad, &stats);
    if only.is_none() && n >= 1000 {
        let g = |x: &AtomicU64| x.load(Relaxed);
        assert!(g(&stats.chained) * 3 > g(&stats.cases), "too few sets with chains: the generator is off");
        assert!(g(&stats.break_cases) > n / 50, "too few sets reach the max_chain_skip exit");
    }
}

/// Large sets (100k anchors): the asm preset, `--rmq`, the long-join re-chain, and with small caps.
#[test]
fn rmq_large_sets() {
    let cases: Vec<(String, RmqCfg, Vec<Anchor>)> = [
        (RPreset::Asm, 100_000usize, None),
        (RPreset::RmqOnt, 100_000, None),
        (RPreset::Hqae, 100_000, None),
        (RPreset::LongJoinOnt, 100_000, None),
        (RPreset::Asm, 100_000, Some(1000)),
        (RPreset::RmqOnt, 60_000, Some(7)),
    ]
    .into_par_iter()
    .enumerate()
    .map(|(i, (p, n, cap))| {
        let mut rng = Rng::new(0xb16 + i as u64);
        let (k, mut cfg, qlen, _) = rmq_cfg(p, &mut rng);
        if let Some(cap) = cap {
            cfg.cap_rmq_size = cap;
        }
        let shape = Cfg {
            max_dist_x: cfg.max_dist,
            max_dist_y: cfg.max_dist,
            bw: cfg.bw.min(cfg.max_dist),
            max_skip: 25,
            max_iter: 5000,
            min_cnt: 3,
            min_sc: 40,
            chn_pen_gap: 0.0,
            chn_pen_skip: 0.0,
            is_cdna: 0,
            n_seg: 1,
        };
        let mut a = random_anchors(&mut rng, k, &shape, qlen.max(200_000), n);
        if p == RPreset::LongJoinOnt {
            a = long_join_input(&a, k, cfg.max_dist);
        }
        guard_anchor0(&mut a);
        (format!("large {i} {p:?} cap {cap:?}"), cfg, a)
    })
    .collect();
    let stats = Stats::default();
    let bad = compare_all(cases.into_par_iter(), &stats);
    check("rmq_large_sets", &bad, &stats);
}

/// Ties on purpose: lattices on anti-diagonals (`x + y` constant: equal priorities whatever the gap cost),
/// duplicated anchors, and grids with gap cost 0, under small caps and inner distances.
#[test]
fn rmq_ties() {
    let cases: Vec<(String, RmqCfg, Vec<Anchor>)> = (0..1500u64)
        .into_par_iter()
        .map(|i| {
            let mut rng = Rng::new(0x7135 ^ i.wrapping_mul(0x9E37_79B9));
            let mut a = Vec::new();
            let (t0, q0) = (rng.range(0, 1 << 20), rng.range(100_000, 1 << 20));
            let sp = [15u64, 19, 1, 255][rng.below(4) as usize];
            for _ in 0..rng.range(1, 6) {
                let (m1, m2, per) = (rng.range(2, 40), rng.range(2, 40), rng.range(1, 30));
                let (dt, dq) = (rng.range(0, 3000), rng.range(-3000, 3000));
                for x in 0..m1 {
                    for y in 0..m2 {
                        let (tx, qy) = match i % 3 {
                            0 => (x * per + y, y * per - x),       // anti-diagonals
                            1 => (x * per, y * per),               // grid
                            _ => (x * per, x * per + rng.range(0, 2) * per), // diagonal with repeats
                        };
                        let e = anchor(0, 0, t0 + dt + tx, 0, 0, sp, q0 + dq + qy);
                        a.push(e);
                        if rng.chance(0.1) {
                            a.push(e);
                        }
                    }
                }
            }
            a.sort_by_key(|e| e.x);
            guard_anchor0(&mut a);
            let cfg = RmqCfg {
                max_dist: [100, 1000, 5000][rng.below(3) as usize],
                max_dist_inner: [0, 10, 100, 1000][rng.below(4) as usize],
                bw: [5, 50, 500][rng.below(3) as usize],
                max_chn_skip: [0, 1, 3, 25][rng.below(4) as usize],
                cap_rmq_size: [100_000, 3, 20][rng.below(3) as usize],
                min_cnt: 2,
                min_sc: 20,
                chn_pen_gap: [0.0, pen(0.8, 15), pen(0.8, 19)][rng.below(3) as usize],
                chn_pen_skip: 0.0,
            };
            (format!("ties {i}"), cfg, a)
        })
        .collect();
    let stats = Stats::default();
    let bad = compare_all(cases.into_par_iter(), &stats);
    check("rmq_ties", &bad, &stats);
}

/// The engine's CPU batch call gives each job the twin's result (a batch mixing empty and large jobs).
#[test]
fn rmq_batch_matches_oracle() {
    let sets: Vec<(RPreset, RmqCfg, Vec<Anchor>)> = (0..200).map(|i| random_case(77, i)).collect();
    let mut jobs: Vec<ChainRmqJob> = sets.iter().map(|(_, cfg, a)| cfg.job(a)).collect();
    jobs.push(ChainRmqJob { n_anchors: 0, anchors: std::ptr::null(), ..jobs[0] });
    let mut res: Vec<ChainDpResult> = (0..jobs.len()).map(|_| ChainDpResult::EMPTY).collect();
    chain::rmq_batch(&Engine::cpu(), &jobs, &mut res).unwrap();
    for (k, (j, r)) in jobs.iter().zip(res.iter_mut()).enumerate() {
        assert_eq!(take(r), oracle_rmq(j), "job {k}");
    }
    let mut short: Vec<ChainDpResult> = vec![ChainDpResult::EMPTY];
    assert!(chain::rmq_batch(&Engine::cpu(), &jobs, &mut short).is_err());
    let bad = [ChainRmqJob { n_anchors: 3, anchors: std::ptr::null(), ..jobs[0] }];
    assert!(chain::rmq_batch(&Engine::cpu(), &bad, &mut short).is_err());
}

/// Upstream's time and the twin's for one call, single-threaded, best of 3 (upstream in this thread's kalloc
/// arena, as minimap2 runs it); checks that they agree.
fn time_call(label: &str, cfg: &RmqCfg, a: &[Anchor]) -> String {
    let j = cfg.job(a);
    let km = c::thread_km();
    let (mut to, mut tt) = (f64::MAX, f64::MAX);
    let (mut want, mut got) = (None, None);
    for _ in 0..3 {
        let t0 = Instant::now();
        want = Some(oracle_rmq_in(&j, km));
        to = to.min(t0.elapsed().as_secs_f64());
        let t0 = Instant::now();
        got = Some(twin_rmq(&j));
        tt = tt.min(t0.elapsed().as_secs_f64());
    }
    assert_eq!(want, got, "{label}");
    let pr = RmqParams::from_job(&j);
    let (mut tr, mut tf) = (f64::MAX, f64::MAX);
    let mut by_ranks = false;
    for _ in 0..3 {
        let t0 = Instant::now();
        by_ranks = fill_rmq_ranked(&pr, a).unwrap().is_some();
        tr = tr.min(t0.elapsed().as_secs_f64());
        let t0 = Instant::now();
        fill_rmq(&pr, a).unwrap();
        tf = tf.min(t0.elapsed().as_secs_f64());
    }
    let by = if by_ranks { "ranks" } else { "the trees (a tie)" };
    format!(
        "{label}, {} anchors: upstream {:.1} ms, twin {:.1} ms (filled by {by}; the fills: by ranks {:.1} ms, by the trees {:.1} ms), upstream/twin {:.2}x",
        a.len(), to * 1e3, tt * 1e3, tr * 1e3, tf * 1e3, to / tt
    )
}

/// Single-thread time of twin and upstream on large random sets and on the real asm calls of H. pylori
/// SJM180 onto G27 (where the data is): printed.
#[test]
fn rmq_timing() {
    let mut lines = Vec::new();
    for (i, (p, n)) in [(RPreset::Asm, 200_000usize), (RPreset::RmqOnt, 200_000), (RPreset::Hqae, 200_000)].into_iter().enumerate() {
        let mut rng = Rng::new(0x7111 + i as u64);
        let (k, cfg, _, _) = rmq_cfg(p, &mut rng);
        let cfg = RmqCfg { max_chn_skip: 25, chn_pen_gap: pen(if p == RPreset::Hqae { 5.0 } else { 0.8 }, k), ..cfg };
        let shape = Cfg {
            max_dist_x: cfg.max_dist,
            max_dist_y: cfg.max_dist,
            bw: cfg.bw.min(cfg.max_dist),
            max_skip: 25,
            max_iter: 5000,
            min_cnt: 3,
            min_sc: 40,
            chn_pen_gap: 0.0,
            chn_pen_skip: 0.0,
            is_cdna: 0,
            n_seg: 1,
        };
        let mut a = random_anchors(&mut rng, k, &shape, 5_000_000, n);
        guard_anchor0(&mut a);
        lines.push(time_call(&format!("random, {p:?}"), &cfg, &a));
    }
    let data = crate::common::tools::data_dir();
    let (g27, sjm) = (read_seqs(&data.join("wga/hpylori_G27.fasta.gz")), read_seqs(&data.join("wga/hpylori_SJM180.fasta.gz")));
    if !g27.is_empty() && !sjm.is_empty() {
        for preset in ["asm5", "asm20"] {
            let (mo, k, sets) = real_anchors(preset, &g27, &sjm);
            let mo = MapOpt(mo);
            for (n, (cfg, a)) in real_calls(&mo, k, true, &sets[0], sjm[0].len() as i32).iter().enumerate() {
                let what = if n == 0 { "chaining" } else { "long-join re-chain" };
                lines.push(time_call(&format!("SJM180 onto G27, {preset}, {what}"), cfg, a));
            }
        }
    }
    for l in lines {
        eprintln!("rmq_timing: {l}");
    }
}

// ---------------------------------------------------------------------------------------------------------
// krmq.h itself

/// lchain.c's `lc_elem_t`.
#[repr(C)]
struct LcElem {
    y: i32,
    i: i64,
    pri: f64,
    p: [*mut LcElem; 2],
    s: *mut LcElem,
    balance: i8,
    size: u32,
}

/// `krmq_itr_t(lc_elem)`.
#[repr(C)]
struct CItr {
    stack: [*const LcElem; 64],
    top: *mut *const LcElem,
}

extern "C" {
    fn warpalign_oracle_krmq_insert_lc_elem(root: *mut *mut LcElem, x: *mut LcElem, cnt: *mut u32) -> *mut LcElem;
    fn warpalign_oracle_krmq_find_lc_elem(root: *const LcElem, x: *const LcElem, cnt: *mut u32) -> *mut LcElem;
    fn warpalign_oracle_krmq_erase_lc_elem(root: *mut *mut LcElem, x: *const LcElem, cnt: *mut u32) -> *mut LcElem;
    fn warpalign_oracle_krmq_rmq_lc_elem(root: *const LcElem, lo: *const LcElem, up: *const LcElem) -> *mut LcElem;
    fn warpalign_oracle_krmq_interval_lc_elem(
        root: *const LcElem,
        x: *const LcElem,
        lower: *mut *mut LcElem,
        upper: *mut *mut LcElem,
    ) -> *mut LcElem;
    fn warpalign_oracle_krmq_itr_find_lc_elem(root: *const LcElem, x: *const LcElem, itr: *mut CItr) -> i32;
    fn warpalign_oracle_krmq_itr_next_bidir_lc_elem(itr: *mut CItr, dir: i32) -> i32;
}

fn probe(k: Key) -> LcElem {
    LcElem { y: k.y, i: k.i, pri: 0.0, p: [std::ptr::null_mut(); 2], s: std::ptr::null_mut(), balance: 0, size: 0 }
}

/// The element index of a C node (NIL for none).
fn idx(p: *const LcElem) -> u32 {
    // SAFETY: null or a node of the case's array.
    if p.is_null() { NIL } else { unsafe { (*p).i as u32 } }
}

/// Every node of the C tree with its links, by element.
fn c_links(root: *const LcElem) -> BTreeMap<u32, Links> {
    let mut out = BTreeMap::new();
    let mut stack = vec![root];
    while let Some(p) = stack.pop() {
        if p.is_null() {
            continue;
        }
        // SAFETY: a node of the tree.
        let q = unsafe { &*p };
        out.insert(idx(p), Links { left: idx(q.p[0]), right: idx(q.p[1]), s: idx(q.s), balance: q.balance, size: q.size });
        stack.extend([q.p[0] as *const LcElem, q.p[1]]);
    }
    out
}

/// `krmq_at` of a C iterator.
fn c_at(itr: &CItr) -> u32 {
    if (itr.top as usize) < (itr.stack.as_ptr() as usize) {
        NIL
    } else {
        // SAFETY: top points into the stack.
        idx(unsafe { *itr.top })
    }
}

/// Random operation sequences on both trees (elements with few distinct `y` and priorities: many equal keys
/// on `y` and many equal minima): insert, find-then-erase, rmq over random closed intervals (lchain.c's
/// bounds and others), the interval's lower bound and a backward walk from it (`krmq_interval`, then
/// `krmq_itr_find` and `krmq_itr_prev` in C; `itr_lower` and `itr_prev` in the twin). After every operation, the
/// result and the whole tree must be equal. Counts the queries whose minimum is shared by several elements.
#[test]
fn krmq_ops_vs_upstream() {
    let (ties, queries) = (AtomicU64::new(0), AtomicU64::new(0));
    let bad: Vec<String> = (0..600u64)
        .into_par_iter()
        .filter_map(|case| (|| -> Result<(), String> {
            let mut rng = Rng::new(0xc0ffee ^ case.wrapping_mul(0x9E37_79B9));
            let n = [1usize, 2, 5, 30, 200, 1000, 3000][case as usize % 7];
            let n_y = [1i64, 3, 20, 1000][rng.below(4) as usize];
            let n_pri = [1u64, 2, 4, 1 << 20][rng.below(4) as usize];
            let mut cn: Vec<LcElem> = (0..n).map(|i| probe(Key { y: 0, i: i as i64 })).collect();
            let mut croot: *mut LcElem = std::ptr::null_mut();
            let mut t = Tree::new(n).unwrap();
            let mut present: Vec<u32> = Vec::new();
            let ops = 4 * n + 50;
            for op in 0..ops {
                let what = rng.below(10);
                let r: Result<(), String> = (|| {
                    if what < 4 && present.len() < n {
                        // insert an absent element
                        let j = loop {
                            let j = rng.below(n as u64) as u32;
                            if !t.contains(j) {
                                break j;
                            }
                        };
                        let (y, pri) = (rng.range(0, n_y - 1) as i32, -(rng.below(n_pri) as f64) * [1.0, 0.5][rng.below(2) as usize]);
                        cn[j as usize].y = y;
                        cn[j as usize].pri = pri;
                        // SAFETY: the node is not in the C tree; the array does not move.
                        let got = unsafe { warpalign_oracle_krmq_insert_lc_elem(&mut croot, &mut cn[j as usize], std::ptr::null_mut()) };
                        if idx(got) != j {
                            return Err(format!("insert {j}: upstream returned {}", idx(got)));
                        }
                        t.insert(j, y, pri);
                        present.push(j);
                    } else if what < 6 && !present.is_empty() {
                        // find by key, then erase (as lchain.c does)
                        let j = present.swap_remove(rng.below(present.len() as u64) as usize);
                        let key = probe(Key { y: cn[j as usize].y, i: j as i64 });
                        // SAFETY: C tree operations on live nodes.
                        unsafe {
                            let q = warpalign_oracle_krmq_find_lc_elem(croot, &key, std::ptr::null_mut());
                            if idx(q) != j {
                                return Err(format!("find {j}: upstream {}", idx(q)));
                            }
                            let q = warpalign_oracle_krmq_erase_lc_elem(&mut croot, q, std::ptr::null_mut());
                            if idx(q) != j {
                                return Err(format!("erase {j}: upstream {}", idx(q)));
                            }
                        }
                        t.erase(j);
                    } else if what < 8 {
                        // rmq over [lo, up]
                        let y0 = rng.range(-1, n_y) as i32;
                        let y1 = y0 + rng.range(-1, n_y) as i32;
                        let bound = |rng: &mut Rng| [i32::MAX as i64, 0, rng.range(0, n as i64), n as i64][rng.below(4) as usize];
                        let (lo, up) = (Key { y: y0, i: if rng.chance(0.7) { i32::MAX as i64 } else { bound(&mut rng) } }, Key {
                            y: y1,
                            i: if rng.chance(0.7) { 0 } else { bound(&mut rng) },
                        });
                        // SAFETY: a C tree query.
                        let want = idx(unsafe { warpalign_oracle_krmq_rmq_lc_elem(croot, &probe(lo), &probe(up)) });
                        let got = t.rmq(lo, up).unwrap_or(NIL);
                        if want != got {
                            return Err(format!("rmq [{lo:?}, {up:?}]: upstream {want}, twin {got}"));
                        }
                        // how many elements of the interval share its least priority
                        let inside = |j: u32| {
                            let k = (cn[j as usize].y, j as i64);
                            k >= (lo.y, lo.i) && k <= (up.y, up.i)
                        };
                        let min = present.iter().filter(|&&j| inside(j)).map(|&j| cn[j as usize].pri).fold(f64::INFINITY, f64::min);
                        let n_min = present.iter().filter(|&&j| inside(j) && cn[j as usize].pri == min).count();
                        if want != NIL {
                            queries.fetch_add(1, Relaxed);
                            ties.fetch_add((n_min > 1) as u64, Relaxed);
                            if cn[want as usize].pri != min {
                                return Err(format!("rmq [{lo:?}, {up:?}]: {want} is not a minimum"));
                            }
                        }
                    } else {
                        // the lower bound of a key, then backwards from it
                        let x = Key { y: rng.range(-1, n_y) as i32, i: [n as i64, 0, rng.range(0, n as i64)][rng.below(3) as usize] };
                        let (mut lo, mut hi) = (std::ptr::null_mut(), std::ptr::null_mut());
                        // SAFETY: C tree queries; the iterator stays in place while used.
                        unsafe {
                            warpalign_oracle_krmq_interval_lc_elem(croot, &probe(x), &mut lo, &mut hi);
                            let mut itr = t.itr_lower(x);
                            let got = itr.at().unwrap_or(NIL);
                            if idx(lo) != got {
                                return Err(format!("lower {x:?}: upstream {}, twin {got}", idx(lo)));
                            }
                            if !lo.is_null() {
                                let mut citr: CItr = std::mem::zeroed();
                                warpalign_oracle_krmq_itr_find_lc_elem(croot, lo, &mut citr);
                                for step in 0..rng.range(1, 40) {
                                    let (w, g) = (c_at(&citr), itr.at().unwrap_or(NIL));
                                    if w != g {
                                        return Err(format!("walk from {got}, step {step}: upstream {w}, twin {g}"));
                                    }
                                    let (wm, gm) = (warpalign_oracle_krmq_itr_next_bidir_lc_elem(&mut citr, 0) != 0, t.itr_prev(&mut itr));
                                    if wm != gm {
                                        return Err(format!("walk from {got}, step {step}: upstream moved {wm}, twin {gm}"));
                                    }
                                    if !wm {
                                        break;
                                    }
                                }
                            }
                        }
                    }
                    Ok(())
                })();
                r.map_err(|e| format!("case {case} (n {n}) op {op}: {e}"))?;
                // SAFETY: the C root, when not null, is a live node.
                let c_size = if croot.is_null() { 0 } else { unsafe { (*croot).size } };
                if t.size() != c_size || t.root() != idx(croot) {
                    return Err(format!("case {case} op {op}: root or size differs"));
                }
                if n <= 200 || op % 64 == 0 || op == ops - 1 {
                    let want = c_links(croot);
                    let got: BTreeMap<u32, Links> = (0..n as u32).filter(|&j| t.contains(j)).map(|j| (j, t.links(j))).collect();
                    if want != got {
                        let k = want.iter().zip(&got).find(|(a, b)| a != b).map(|(a, b)| (*a.0, *a.1, *b.0, *b.1));
                        return Err(format!("case {case} op {op}: trees differ ({} vs {} nodes), first {k:?}", want.len(), got.len()));
                    }
                }
            }
            Ok(())
        })()
        .err())
        .collect();
    let (ties, queries) = (ties.load(Relaxed), queries.load(Relaxed));
    eprintln!("krmq_ops_vs_upstream: 600 sequences, {queries} rmq answers ({ties} among tied minima); {} mismatches", bad.len());
    for b in bad.iter().take(5) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "krmq: {} sequences differ from upstream", bad.len());
    assert!(ties * 4 > queries, "too few tied minima");
}

// ---------------------------------------------------------------------------------------------------------
// Real anchors

/// The sequences of a FASTA/FASTQ file (gzipped or not), by upstream's reader; empty when it is not there.
fn read_seqs(path: &std::path::Path) -> Vec<Vec<u8>> {
    if !path.exists() {
        eprintln!("rmq_real_anchors: skipping {}: not there (set WARPALIGN_DATA)", path.display());
        return vec![];
    }
    let fname = std::ffi::CString::new(path.to_str().unwrap()).unwrap();
    let mut out = vec![];
    // SAFETY: upstream's reader returns malloc'ed records (each string malloc'ed), freed here.
    unsafe {
        let fp = c::warpalign_oracle_mm_bseq_open(fname.as_ptr());
        assert!(!fp.is_null(), "cannot open {}", path.display());
        loop {
            let mut n = 0;
            let recs = c::warpalign_oracle_mm_bseq_read(fp, 1 << 24, 0, &mut n);
            if recs.is_null() {
                break;
            }
            for r in std::slice::from_raw_parts(recs, n as usize) {
                if r.l_seq > 0 {
                    out.push(std::slice::from_raw_parts(r.seq as *const u8, r.l_seq as usize).to_vec());
                }
                for p in [r.name, r.seq, r.qual, r.comment] {
                    libc::free(p.cast());
                }
            }
            libc::free(recs.cast());
        }
        c::warpalign_oracle_mm_bseq_close(fp);
    }
    out
}

/// Upstream's anchors of each query against an index of `refs` under `preset`, as map.c builds them
/// (`collect_minimizers`, `mm_seed_mz_flt`, `collect_seed_hits`: sorted by x), with the preset's options and k.
fn real_anchors(preset: &str, refs: &[Vec<u8>], queries: &[Vec<u8>]) -> (c::mm_mapopt_t, i32, Vec<Vec<Anchor>>) {
    let name = std::ffi::CString::new(preset).unwrap();
    // SAFETY: upstream's option setup, index, and seeding (km = NULL: every array malloc'ed, read by its count,
    // freed); the index is destroyed at the end.
    unsafe {
        let mut io: c::mm_idxopt_t = std::mem::zeroed();
        let mut mo: c::mm_mapopt_t = std::mem::zeroed();
        assert_eq!(c::warpalign_oracle_mm_set_opt(std::ptr::null(), &mut io, &mut mo), 0);
        assert_eq!(c::warpalign_oracle_mm_set_opt(name.as_ptr(), &mut io, &mut mo), 0, "preset {preset}");
        let cs: Vec<std::ffi::CString> = refs.iter().map(|q| std::ffi::CString::new(q.clone()).unwrap()).collect();
        let ptrs: Vec<*const i8> = cs.iter().map(|q| q.as_ptr()).collect();
        let mi = c::warpalign_oracle_mm_idx_str(
            io.w as i32,
            io.k as i32,
            (io.flag as u32 & c::MM_I_HPC != 0) as i32,
            io.bucket_bits as i32,
            ptrs.len() as i32,
            ptrs.as_ptr() as *mut *const i8,
            std::ptr::null_mut(),
        );
        assert!(!mi.is_null());
        c::warpalign_oracle_mm_mapopt_update(&mut mo, mi);
        let sets = queries
            .iter()
            .map(|q| {
                let qlen = q.len() as i32;
                let seqs = [q.as_ptr() as *const i8];
                let mut mv: c::mm128_v = std::mem::zeroed();
                c::warpalign_oracle_collect_minimizers(std::ptr::null_mut(), &mo, mi, 1, &qlen, seqs.as_ptr() as *mut *const i8, &mut mv);
                if mo.q_occ_frac > 0.0 {
                    c::warpalign_oracle_mm_seed_mz_flt(std::ptr::null_mut(), &mut mv, mo.mid_occ, mo.q_occ_frac);
                }
                let (mut n_a, mut rep_len, mut n_mini_pos, mut mini_pos) = (0i64, 0, 0, std::ptr::null_mut());
                let a = c::warpalign_oracle_collect_seed_hits(
                    std::ptr::null_mut(), &mo, mo.mid_occ, mi, std::ptr::null(), &mv, qlen, &mut n_a, &mut rep_len,
                    &mut n_mini_pos, &mut mini_pos,
                );
                let out = if n_a == 0 { vec![] } else { std::slice::from_raw_parts(a as *const Anchor, n_a as usize).to_vec() };
                libc::free(a.cast());
                libc::free(mini_pos.cast());
                libc::free(mv.a.cast());
                out
            })
            .collect();
        c::warpalign_oracle_mm_idx_destroy(mi);
        (mo, io.k as i32, sets)
    }
}

/// A preset's mapping options, only read here.
struct MapOpt(c::mm_mapopt_t);

// SAFETY: read-only while shared (its pointers are not followed here).
unsafe impl Sync for MapOpt {}

/// map.c's chaining of real anchors, every `mg_lchain_rmq` call through twin and oracle: with `rmq` the first
/// chaining is `mg_lchain_rmq` (the asm presets, lr:hqae, `--rmq`), else upstream's `mg_lchain_dp`; then the
/// long-join re-chain when map.c would run it (`bw_long > bw`, several chains, the first one covering too
/// little or too much of the query), on the chains' anchors re-sorted. Returns the calls' arguments and
/// anchors.
fn real_calls(mo: &MapOpt, k: i32, rmq: bool, a: &[Anchor], qlen: i32) -> Vec<(RmqCfg, Vec<Anchor>)> {
    let mo = &mo.0;
    let cfg = RmqCfg {
        max_dist: mo.max_gap,
        max_dist_inner: mo.rmq_inner_dist,
        bw: mo.bw,
        max_chn_skip: mo.max_chain_skip,
        cap_rmq_size: mo.rmq_size_cap,
        min_cnt: mo.min_cnt,
        min_sc: mo.min_chain_score,
        chn_pen_gap: pen(mo.chain_gap_scale, k),
        chn_pen_skip: pen(mo.chain_skip_scale, k),
    };
    let mut calls = Vec::new();
    let (u, b) = if rmq {
        calls.push((cfg, a.to_vec()));
        oracle_rmq(&cfg.job(a))
    } else {
        let dp = Cfg {
            max_dist_x: mo.max_gap,
            max_dist_y: mo.max_gap,
            bw: mo.bw,
            max_skip: mo.max_chain_skip,
            max_iter: mo.max_chain_iter,
            min_cnt: mo.min_cnt,
            min_sc: mo.min_chain_score,
            chn_pen_gap: cfg.chn_pen_gap,
            chn_pen_skip: cfg.chn_pen_skip,
            is_cdna: 0,
            n_seg: 1,
        };
        crate::oracle(&dp.job(a))
    };
    if mo.bw_long > mo.bw && mo.flag & c::MM_F_NO_LJOIN as i64 == 0 && u.len() > 1 {
        let (st, en) = (b[0].y as i32, b[u[0] as u32 as usize - 1].y as i32);
        if qlen - (en - st) > mo.rmq_rescue_size || (en - st) as f32 > qlen as f32 * mo.rmq_rescue_ratio {
            let mut w: Vec<c::mm128_t> = b.iter().map(|e| c::mm128_t { x: e.x, y: e.y }).collect();
            // SAFETY: a valid [beg, end) range.
            unsafe { c::warpalign_oracle_radix_sort_128x(w.as_mut_ptr(), w.as_mut_ptr().add(w.len())) };
            calls.push((RmqCfg { bw: mo.bw_long, ..cfg }, w.iter().map(|e| Anchor { x: e.x, y: e.y }).collect()));
        }
    }
    calls
}

/// One real run: what, preset, whether its first chaining is `mg_lchain_rmq`, references, queries.
type RealRun<'a> = (&'a str, &'a str, bool, &'a [Vec<u8>], &'a [Vec<u8>]);

/// Real anchors (upstream's seeding of the data under `WARPALIGN_DATA`): H. pylori SJM180 onto G27 with asm5,
/// asm20 and lr:hqae; the ONT reads (ultra-long and medaka's) onto E. coli with `-x map-ont --rmq` and with
/// map-ont's long-join re-chain; lambda reads onto lambda likewise. Skips what is missing.
#[test]
fn rmq_real_anchors() {
    let data = crate::common::tools::data_dir();
    let (g27, sjm) = (read_seqs(&data.join("wga/hpylori_G27.fasta.gz")), read_seqs(&data.join("wga/hpylori_SJM180.fasta.gz")));
    let ecoli = read_seqs(&data.join("ref/ecoli_K12_MG1655.fasta.gz"));
    let mut ont = read_seqs(&data.join("ont/ecoli_ultralong_R9_nanotest.fastq.gz"));
    ont.truncate(100);
    ont.extend(read_seqs(&data.join("ont/ecoli_R9_medaka_test_reads.fasta.gz")).into_iter().take(100));
    let (lambda, lreads) =
        (read_seqs(&data.join("lambda/lambda_NC_001416.fasta.gz")), read_seqs(&data.join("lambda/lambda_ont_R7_2D_ERA476754.fastq.gz")));
    let mut runs: Vec<RealRun> = Vec::new();
    if !g27.is_empty() && !sjm.is_empty() {
        runs.push(("SJM180 onto G27", "asm5", true, &g27, &sjm));
        runs.push(("SJM180 onto G27", "asm20", true, &g27, &sjm));
        runs.push(("SJM180 onto G27", "lr:hqae", true, &g27, &sjm));
    }
    if !ecoli.is_empty() && !ont.is_empty() {
        runs.push(("ONT reads onto E. coli", "map-ont", true, &ecoli, &ont));
        runs.push(("ONT reads onto E. coli", "map-ont", false, &ecoli, &ont));
    }
    if !lambda.is_empty() && !lreads.is_empty() {
        runs.push(("lambda reads onto lambda", "map-ont", true, &lambda, &lreads));
        runs.push(("lambda reads onto lambda", "map-ont", false, &lambda, &lreads));
    }
    let mut total_bad = 0;
    for (what, preset, rmq, refs, queries) in runs {
        let t0 = Instant::now();
        let (mo, k, sets) = real_anchors(preset, refs, queries);
        let mo = MapOpt(mo);
        let calls: Vec<(RmqCfg, Vec<Anchor>)> = sets
            .par_iter()
            .zip(queries.par_iter())
            .flat_map_iter(|(a, q)| real_calls(&mo, k, rmq, a, q.len() as i32))
            .collect();
        let stats = Stats::default();
        let bad = compare_all(calls.into_par_iter().enumerate().map(|(i, (cfg, a))| (format!("call {i}"), cfg, a)), &stats);
        let name = format!("rmq_real_anchors: {what}, {preset}{}", if rmq { " (rmq)" } else { " (dp, then the long-join re-chain)" });
        eprintln!("{name}: {:.1} s", t0.elapsed().as_secs_f64());
        check(&name, &bad, &stats);
        total_bad += bad.len();
    }
    assert_eq!(total_bad, 0);
}

/// With `CHAIN_RMQ_DUMP=<a chain dump>` (`WARPALIGN_CHAIN_DUMP` of a map-ont run): map-ont's long-join
/// re-chain of each dumped `mg_lchain_dp` call with two chains or more (upstream's chains re-sorted, as map.c
/// does; the query-coverage condition left out), through upstream, the trees and the fill by ranks, one
/// thread: every output compared, times printed.
#[test]
fn rmq_of_a_dump() {
    let Ok(path) = std::env::var("CHAIN_RMQ_DUMP") else {
        println!("skipped: CHAIN_RMQ_DUMP not set");
        return;
    };
    let jobs = warpalign::chain::dump::read_dump(&path).expect("reading the dump");
    let calls: Vec<(RmqCfg, Vec<Anchor>)> = jobs
        .par_iter()
        .filter_map(|d| {
            let j = d.job();
            let (u, b) = crate::oracle(&j);
            if u.len() < 2 {
                return None;
            }
            let mut w: Vec<c::mm128_t> = b.iter().map(|e| c::mm128_t { x: e.x, y: e.y }).collect();
            // SAFETY: a valid [beg, end) range.
            unsafe { c::warpalign_oracle_radix_sort_128x(w.as_mut_ptr(), w.as_mut_ptr().add(w.len())) };
            let cfg = RmqCfg {
                max_dist: j.max_dist_x,
                max_dist_inner: 1000,
                bw: 20_000,
                max_chn_skip: j.max_skip,
                cap_rmq_size: 100_000,
                min_cnt: j.min_cnt,
                min_sc: j.min_sc,
                chn_pen_gap: j.chn_pen_gap,
                chn_pen_skip: j.chn_pen_skip,
            };
            Some((cfg, w.iter().map(|e| Anchor { x: e.x, y: e.y }).collect()))
        })
        .collect();
    let km = c::thread_km();
    let (mut t_up, mut t_trees, mut t_ranked, mut gave_up, mut anchors) = (0f64, 0f64, 0f64, 0, 0);
    let (mut scored, mut breaks) = (0u64, 0u64);
    for (cfg, a) in &calls {
        let j = cfg.job(a);
        let pr = RmqParams::from_job(&j);
        let t0 = Instant::now();
        let want = oracle_rmq_in(&j, km);
        t_up += t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let trees = fill_rmq(&pr, a).unwrap();
        t_trees += t0.elapsed().as_secs_f64();
        let t0 = Instant::now();
        let ranked = fill_rmq_ranked(&pr, a).unwrap();
        t_ranked += t0.elapsed().as_secs_f64();
        anchors += a.len();
        (scored, breaks) = (scored + trees.n_visited, breaks + trees.n_breaks);
        match ranked {
            Some(r) => assert!((&r.f, &r.p, &r.v, &r.t) == (&trees.f, &trees.p, &trees.v, &trees.t), "the fills differ"),
            None => gave_up += 1,
        }
        assert_eq!(twin_rmq(&j), want);
    }
    println!(
        "rmq_of_a_dump: {} re-chains of {} dumped calls, {anchors} anchors, {scored} pairs scored, {breaks} skip breaks, {gave_up} \
         given up to the trees; upstream {:.1} ms, the trees' fill {:.1} ms, the fill by ranks {:.1} ms",
        calls.len(), jobs.len(), t_up * 1e3, t_trees * 1e3, t_ranked * 1e3
    );
}
