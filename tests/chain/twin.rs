//! The Rust twin of `mg_lchain_dp` (`warpalign::chain::twin`) against upstream's C function (the oracle) on
//! fixed-seed random anchor sets shaped like minimap2's presets (map-ont, map-pb, map-hifi, ava-ont, sr,
//! splice, splice:sr) and wilder parameters: chains `u[]` and compacted anchors must be equal.
//!
//! `CHAIN_TWIN_CASES=N` sets the number of random sets (default 5000), `CHAIN_TWIN_SEED=S` their seed base:
//! `CHAIN_TWIN_CASES=1000000 cargo test --release --test chain twin::random_sets -- --nocapture` is the fuzz run.
//! A failing set replays alone with `CHAIN_TWIN_ONLY=<case index>`.
//!
//! Every set also checks the twin's fill itself, arrays and counters, on both of its paths (AVX2 lanes where
//! the CPU has them, and the scalar fallback) against upstream's loop written out plainly here.

use crate::common::chain_cases::*;
use crate::common::{env_u64, Rng};
use crate::{oracle, Out};
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Mutex;
use std::time::Instant;
use warpalign::chain::twin;
use warpalign::chain::{Anchor, ChainDpJob, ChainDpResult};
use warpalign_ffi::mm2 as c;

// ---------------------------------------------------------------------------------------------------------
// Twin and oracle

fn twin_out(cfg: &Cfg, a: &[Anchor]) -> Out {
    let job = cfg.job(a);
    let mut r = ChainDpResult::EMPTY;
    twin::lchain_dp(&job, &mut r).unwrap();
    assert_eq!(r.chains.is_null(), r.n_chains == 0);
    assert_eq!(r.anchors.is_null(), r.n_chains == 0);
    let out = (r.chains().to_vec(), r.anchors().to_vec());
    r.release();
    out
}

/// The fill as lchain.c:169-207 writes it, one comput_sc per pair: the reference of both fill paths.
fn upstream_fill(pr: &twin::Params, a: &[Anchor]) -> twin::Fill {
    let n = a.len();
    let (mut f, mut p, mut v, mut t) = (vec![0i32; n], vec![0i64; n], vec![0i32; n], vec![0i32; n]);
    let (mut n_visited, mut n_breaks, mut n_rescued) = (0u64, 0u64, 0u64);
    let mdx = pr.max_dist_x as i64 as u64;
    let (mut st, mut max_ii) = (0i64, -1i64);
    for i in 0..n {
        let (ai, ii) = (a[i], i as i64);
        let (mut max_j, mut max_f, mut n_skip) = (-1i64, (ai.y >> 32 & 0xff) as i32, 0i32);
        while st < ii && (ai.x >> 32 != a[st as usize].x >> 32 || ai.x > a[st as usize].x.wrapping_add(mdx)) {
            st += 1;
        }
        if ii - st > pr.job.max_iter as i64 {
            st = ii - pr.job.max_iter as i64;
        }
        let mut j = ii - 1;
        while j >= st {
            let ju = j as usize;
            let sc = twin::comput_sc(&ai, &a[ju], pr);
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
                    if n_skip > pr.job.max_skip {
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
            for j in (st..ii).rev() {
                if max < f[j as usize] {
                    max = f[j as usize];
                    max_ii = j;
                }
            }
        }
        if max_ii >= 0 && max_ii < end_j {
            let m = max_ii as usize;
            let tmp = twin::comput_sc(&ai, &a[m], pr);
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
    twin::Fill { f, p, v, t, n_visited, n_breaks, n_rescued }
}

/// The twin's fill (`twin::fill`: AVX2 lanes where the CPU has them) and its scalar path against
/// [`upstream_fill`]; the twin's fill, and where a path differs, the first difference.
fn fill_check(cfg: &Cfg, a: &[Anchor]) -> (twin::Fill, Option<String>) {
    let pr = twin::Params::from_job(&cfg.job(a));
    let want = upstream_fill(&pr, a);
    let got = twin::fill(&cfg.job(a)).unwrap();
    let scalar = twin::fill_anchors_scalar(&pr, a).unwrap();
    let bad = [("fill", &got), ("scalar fill", &scalar)].into_iter().find(|(_, g)| **g != want).map(|(name, g)| {
        let i = (0..a.len()).find(|&i| (want.f[i], want.p[i], want.v[i], want.t[i]) != (g.f[i], g.p[i], g.v[i], g.t[i]));
        format!(
            "{name} differs from upstream's loop: first anchor {i:?}; counters (visited, breaks, rescued) {:?} vs {:?}",
            (want.n_visited, want.n_breaks, want.n_rescued), (g.n_visited, g.n_breaks, g.n_rescued)
        )
    });
    (got, bad)
}

#[derive(Default)]
struct Stats {
    cases: AtomicU64,
    chained: AtomicU64,
    chains: AtomicU64,
    anchors: AtomicU64,
    visited: AtomicU64,
    breaks: AtomicU64,
    rescued: AtomicU64,
    break_cases: AtomicU64,
    rescue_cases: AtomicU64,
}

impl Stats {
    fn add(&self, a: &[Anchor], out: &Out, fl: &twin::Fill) {
        self.cases.fetch_add(1, Relaxed);
        self.chained.fetch_add((!out.0.is_empty()) as u64, Relaxed);
        self.chains.fetch_add(out.0.len() as u64, Relaxed);
        self.anchors.fetch_add(a.len() as u64, Relaxed);
        self.visited.fetch_add(fl.n_visited, Relaxed);
        self.breaks.fetch_add(fl.n_breaks, Relaxed);
        self.rescued.fetch_add(fl.n_rescued, Relaxed);
        self.break_cases.fetch_add((fl.n_breaks > 0) as u64, Relaxed);
        self.rescue_cases.fetch_add((fl.n_rescued > 0) as u64, Relaxed);
    }

    fn line(&self) -> String {
        let g = |x: &AtomicU64| x.load(Relaxed);
        format!(
            "{} sets ({} with chains, {} chains), {} anchors, {} pairs scored, {} skip breaks in {} sets, {} rescues in {} sets",
            g(&self.cases), g(&self.chained), g(&self.chains), g(&self.anchors), g(&self.visited), g(&self.breaks),
            g(&self.break_cases), g(&self.rescued), g(&self.rescue_cases)
        )
    }
}

/// The first difference between two outputs, for the report.
fn diff(want: &Out, got: &Out) -> String {
    if want.0 != got.0 {
        let i = want.0.iter().zip(&got.0).position(|(a, b)| a != b).unwrap_or(want.0.len().min(got.0.len()));
        return format!(
            "chains differ: oracle {} twin {}; first at {i}: oracle {:?} twin {:?}",
            want.0.len(), got.0.len(),
            want.0.get(i).map(|x| (x >> 32, *x as u32)), got.0.get(i).map(|x| (x >> 32, *x as u32))
        );
    }
    let i = want.1.iter().zip(&got.1).position(|(a, b)| a != b).unwrap_or(want.1.len().min(got.1.len()));
    format!("anchors differ: oracle {} twin {}; first at {i}: {:x?} vs {:x?}", want.1.len(), got.1.len(), want.1.get(i), got.1.get(i))
}

/// Runs every (cfg, anchors) of `cases` through both, and the twin's fill paths through [`fill_check`]; returns
/// the mismatches' descriptions.
fn compare_all<I>(name: &str, cases: I, stats: &Stats) -> Vec<String>
where
    I: IndexedParallelIterator<Item = (String, Cfg, Vec<Anchor>)>,
{
    let bad = Mutex::new(Vec::new());
    cases.for_each(|(label, cfg, a)| {
        let want = oracle(&cfg.job(&a));
        let got = twin_out(&cfg, &a);
        let (fl, fill_bad) = fill_check(&cfg, &a);
        if want != got {
            bad.lock().unwrap().push(format!("{name} {label} ({} anchors, {cfg:?}): {}", a.len(), diff(&want, &got)));
        } else if let Some(d) = fill_bad {
            bad.lock().unwrap().push(format!("{name} {label} ({} anchors, {cfg:?}): {d}", a.len()));
        }
        stats.add(&a, &want, &fl);
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
// Tests

/// The main differential test: `CHAIN_TWIN_CASES` random sets (default 5000) over all presets.
#[test]
fn random_sets() {
    let n = env_u64("CHAIN_TWIN_CASES", 5000);
    let seed = env_u64("CHAIN_TWIN_SEED", 1);
    let only = std::env::var("CHAIN_TWIN_ONLY").ok().and_then(|s| s.parse::<u64>().ok());
    let stats = Stats::default();
    let t0 = Instant::now();
    let idx: Vec<u64> = match only {
        Some(i) => vec![i],
        None => (0..n).collect(),
    };
    // in chunks, so that a long fuzz run reports as it goes
    let mut bad = Vec::new();
    for (c, chunk) in idx.chunks(50_000).enumerate() {
        bad.extend(compare_all(
            "random_sets",
            chunk.to_vec().into_par_iter().map(|i| {
                let (p, cfg, a) = random_case(seed, i);
                (format!("seed {seed} case {i} {p:?}"), cfg, a)
            }),
            &stats,
        ));
        if n > 100_000 {
            eprintln!("random_sets: {} sets done, {} mismatches, {:.0} s", (c + 1) * 50_000, bad.len(), t0.elapsed().as_secs_f64());
        }
    }
    eprintln!("random_sets: seed {seed}, {:.1} s", t0.elapsed().as_secs_f64());
    check("random_sets", &bad, &stats);
    if only.is_none() && n >= 1000 {
        let g = |x: &AtomicU64| x.load(Relaxed);
        assert!(g(&stats.chained) * 3 > g(&stats.cases), "too few sets with chains: the generator is off");
        assert!(g(&stats.break_cases) > n / 50, "too few sets reach the max_chain_skip exit");
        assert!(g(&stats.rescue_cases) > n / 200, "too few sets take the max_ii rescue");
    }
}

/// Two anchors of span 255: the second chains to the first with score `min(255, dg) - penalty`, so the chain
/// score shows `comput_sc`'s float penalty (mg_log2, the linear term, the `(int)` truncation) for every
/// `dd = |dr - dq|` in 1..=2^17 and sampled ones up to 2^30, on every branch: standard (dr > dq, dr < dq),
/// cDNA (min of linear and log on deletions), and across segments.
#[test]
fn comput_sc_float_rounding() {
    let cases = float_rounding_cases();
    let stats = Stats::default();
    let bad = compare_all("comput_sc_float_rounding", cases.into_par_iter(), &stats);
    check("comput_sc_float_rounding", &bad, &stats);
    assert!(stats.chained.load(Relaxed) > stats.cases.load(Relaxed) / 2, "the penalty is mostly not observed");
}

/// mg_log2 itself: close to log2 wherever minimap2 calls it (x = dd + 1 >= 2), and exact at powers of two
/// up to the polynomial's own error.
#[test]
fn mg_log2_shape() {
    for x in 2..1_000_000 {
        let l = twin::mg_log2(x as f32);
        assert!((l as f64 - (x as f64).log2()).abs() < 0.01, "mg_log2({x}) = {l}");
    }
    // values below 2: upstream's uint32 exponent arithmetic (a huge number), as C computes it
    assert!(twin::mg_log2(1.5) > 4.0e9);
}

/// `(int)(lin_pen + .5f * log_pen)` right at integer boundaries: for random `dd` and a target penalty N, gap
/// costs within a few ulps of `(N - skip*dg - log/2) / dd`, so that the float sum lands on either side of N and
/// any difference in rounding (operation order, double evaluation, FMA contraction, mg_log2's own rounding)
/// changes the truncated penalty; also the cDNA `(int)min(lin, log)` with lin near an integer.
#[test]
fn comput_sc_truncation_boundaries() {
    let cases = truncation_cases();
    let stats = Stats::default();
    let bad = compare_all("comput_sc_truncation_boundaries", cases.into_par_iter(), &stats);
    check("comput_sc_truncation_boundaries", &bad, &stats);
    assert!(stats.chained.load(Relaxed) * 10 > stats.cases.load(Relaxed) * 9, "the penalty is mostly not observed");
}

/// Extreme penalties: `(int)` of a float beyond INT32_MAX is INT32_MIN on x86-64 (cvttss2si); `sc -=`
/// then wraps. Huge gap costs over huge distances reach it.
#[test]
fn comput_sc_penalty_overflow() {
    let cases = penalty_overflow_cases();
    let stats = Stats::default();
    let bad = compare_all("comput_sc_penalty_overflow", cases.into_par_iter(), &stats);
    check("comput_sc_penalty_overflow", &bad, &stats);
}

/// Tandem-repeat grids (each anchor has many equal-scoring predecessors whose successors were visited): the
/// `n_skip > max_chain_skip` exit and the t[] marks, for max_chain_skip 0, 1, 2, 3, 25 and "infinity".
#[test]
fn max_chain_skip_early_exit() {
    let cases = skip_grid_cases();
    let stats = Stats::default();
    let bad = compare_all("max_chain_skip_early_exit", cases.into_par_iter(), &stats);
    check("max_chain_skip_early_exit", &bad, &stats);
    assert!(stats.break_cases.load(Relaxed) > 1000, "the skip exit is not exercised");
}

/// The max_ii rescue: after a skip break or with a small max_chain_iter (the window is clipped while the best
/// anchor within max_dist_x lies before it), the best earlier anchor is still tried.
#[test]
fn max_ii_rescue() {
    let cases = rescue_cases();
    let stats = Stats::default();
    let bad = compare_all("max_ii_rescue", cases.into_par_iter(), &stats);
    check("max_ii_rescue", &bad, &stats);
    assert!(stats.rescue_cases.load(Relaxed) > 300, "the rescue is not exercised");
}

/// Ties in both radix sorts with more than 64 elements (the in-place, unstable path): many identical chains on
/// the same target positions (equal f in mg_chain_backtrack; equal first x in compact_a).
#[test]
fn radix_sort_ties() {
    let mut cases = Vec::new();
    let mut rng = Rng::new(555);
    for i in 0..400u64 {
        let m = rng.range(20, 400); // chains
        let len = rng.range(3, 12); // anchors per chain
        let mut a = Vec::new();
        for c in 0..m {
            for s in 0..len {
                let x = 1000 + s * 15 + if i % 2 == 1 && rng.chance(0.1) { 1 } else { 0 };
                a.push(anchor(0, c as u64 % 2, x, 0, 0, 15, c * 10_000 + s * 15));
            }
        }
        a.sort_by_key(|e| e.x);
        let cfg = Cfg {
            max_dist_x: 5000,
            max_dist_y: 5000,
            bw: 500,
            max_skip: 25,
            max_iter: 5000,
            min_cnt: 3,
            min_sc: 40,
            chn_pen_gap: pen(0.8, 15),
            chn_pen_skip: 0.0,
            is_cdna: 0,
            n_seg: 1,
        };
        cases.push((format!("case {i} {m} chains of {len}"), cfg, a));
    }
    let stats = Stats::default();
    let bad = compare_all("radix_sort_ties", cases.into_par_iter(), &stats);
    check("radix_sort_ties", &bad, &stats);
}

/// radix_sort_128x sorts by x (the order of ties is checked against upstream through the outputs above).
#[test]
fn radix_sort_sorts() {
    let mut rng = Rng::new(9);
    for n in [0usize, 1, 2, 63, 64, 65, 100, 1000, 70_000] {
        let mut a: Vec<Anchor> = (0..n)
            .map(|i| Anchor { x: [rng.next_u64(), rng.below(5), rng.below(300) << 56][i % 3], y: i as u64 })
            .collect();
        let mut want = a.clone();
        twin::radix_sort_128x(&mut a);
        want.sort_by_key(|e| e.x);
        assert_eq!(a.iter().map(|e| e.x).collect::<Vec<_>>(), want.iter().map(|e| e.x).collect::<Vec<_>>());
        let mut ys: Vec<u64> = a.iter().map(|e| e.y).collect();
        ys.sort();
        assert_eq!(ys, (0..n as u64).collect::<Vec<_>>());
    }
}

/// radix_sort_128x leaves equal keys in upstream's order: the twin's permutation equals the original's on
/// arrays with many ties, keys of few bits (backtrack's scores), keys differing only in high bytes, all-equal
/// keys, and sizes around the insertion-sort cut.
#[test]
fn radix_sort_order_equals_upstream() {
    let mut rng = Rng::new(17);
    for case in 0..3000u64 {
        let n = [0usize, 1, 63, 64, 65, 66, 129, 1000, 5000][case as usize % 9] + rng.below(3) as usize;
        let kind = case / 9 % 5;
        let mut a: Vec<Anchor> = (0..n)
            .map(|i| {
                let x = match kind {
                    0 => rng.below(40),
                    1 => rng.below(1 << 20),
                    2 => rng.below(4) << (8 * rng.below(8)),
                    3 => 7,
                    _ => rng.next_u64() >> rng.below(64),
                };
                Anchor { x, y: i as u64 }
            })
            .collect();
        let mut want: Vec<c::mm128_t> =
            a.iter().map(|e| c::mm128_t { x: e.x, y: e.y }).collect();
        // SAFETY: a valid [beg, end) range of n elements.
        unsafe { c::warpalign_oracle_radix_sort_128x(want.as_mut_ptr(), want.as_mut_ptr().add(n)) };
        twin::radix_sort_128x(&mut a);
        let got: Vec<(u64, u64)> = a.iter().map(|e| (e.x, e.y)).collect();
        let want: Vec<(u64, u64)> = want.iter().map(|e| (e.x, e.y)).collect();
        assert_eq!(got, want, "case {case}: n {n}, kind {kind}");
    }
}

/// The fill alone: the chain scores of the output are differences of f, and v is the running peak.
#[test]
fn fill_is_consistent() {
    for i in 0..300 {
        let (_, cfg, a) = random_case(3, i);
        let fl = twin::fill(&cfg.job(&a)).unwrap();
        for k in 0..a.len() {
            let p = fl.p[k];
            assert!(p < k as i64);
            if p >= 0 {
                let vp = fl.v[p as usize];
                assert_eq!(fl.v[k], if vp > fl.f[k] { vp } else { fl.f[k] });
            } else {
                assert_eq!(fl.v[k], fl.f[k]);
            }
        }
    }
}

/// Parameters for [`comput_sc_x8_lanes`]: the presets' (after mg_lchain_dp's clamping), or wild ones as
/// comput_sc would take them (any int, NaN and infinite gap costs).
fn wild_params(rng: &mut Rng) -> twin::Params {
    if rng.chance(0.5) {
        let (_, cfg, _) = preset_cfg(PRESETS[rng.below(PRESETS.len() as u64) as usize], rng);
        return twin::Params::from_job(&cfg.job(&[]));
    }
    let int = |rng: &mut Rng| -> i32 {
        match rng.below(4) {
            0 => [i32::MIN, -1, 0, 1, 2, 10, 100, 500, 800, 2000, 5000, 10_000, 200_000, 1 << 30, i32::MAX - 1, i32::MAX]
                [rng.below(16) as usize],
            1 => rng.next_u64() as i32,
            _ => {
                let hi = [500, 5000, 200_000][rng.below(3) as usize];
                rng.range(0, hi) as i32
            }
        }
    };
    let pen_of = |rng: &mut Rng| -> f32 {
        match rng.below(6) {
            0 => [0.0f32, -0.0, 1.0, 0.5, 1e6, 3.4e38, f32::INFINITY, -1.0, f32::NAN, f32::MIN_POSITIVE][rng.below(10) as usize],
            1 => f32::from_bits(rng.next_u64() as u32),
            2 => (rng.below(1 << 24) as f32) / (1 << 20) as f32,
            _ => pen([0.0f32, 0.1, 0.8, 1.0, 2.5, 5.0][rng.below(6) as usize], rng.range(5, 28) as i32),
        }
    };
    let (max_dist_x, max_dist_y, bw) = (int(rng), int(rng), int(rng));
    let (chn_pen_gap, chn_pen_skip) = (pen_of(rng), if rng.chance(0.5) { 0.0 } else { pen_of(rng) });
    let is_cdna = rng.chance(0.3);
    let job = ChainDpJob {
        max_dist_x,
        max_dist_y,
        bw,
        max_skip: 25,
        max_iter: 5000,
        min_cnt: 3,
        min_sc: 40,
        chn_pen_gap,
        chn_pen_skip,
        is_cdna: is_cdna as i32,
        n_seg: [1, 1, 2, 3][rng.below(4) as usize],
        n_anchors: 0,
        anchors: std::ptr::null(),
    };
    twin::Params { job, max_dist_x, max_dist_y, is_cdna, max_drop: 500 }
}

/// A predecessor of `ai` for [`comput_sc_x8_lanes`]: random, or at chosen differences `dq` (query) and `dr`
/// (target) near every limit comput_sc tests, with the bits it must ignore set at random.
fn wild_pred(rng: &mut Rng, ai: &Anchor, pr: &twin::Params) -> Anchor {
    if rng.chance(0.1) {
        return Anchor { x: rng.next_u64(), y: rng.next_u64() };
    }
    let near = |rng: &mut Rng, v: i32| v.wrapping_add(rng.range(-2, 2) as i32);
    let extreme = |rng: &mut Rng| [i32::MIN, i32::MAX][rng.below(2) as usize];
    let dq = match rng.below(8) {
        0 => near(rng, pr.max_dist_x),
        1 => near(rng, pr.max_dist_y),
        2 => near(rng, 0),
        3 => {
            let v = extreme(rng);
            near(rng, v)
        }
        4 => rng.next_u64() as i32,
        _ => rng.range(1, pr.max_dist_x.min(pr.max_dist_y).clamp(1, 1 << 24) as i64) as i32,
    };
    let dd = match rng.below(6) {
        0 => near(rng, pr.job.bw),
        1 => near(rng, 0),
        // mg_log2 and the float penalty over the whole int range, powers of two and their neighbours
        2 => {
            let v = 1i32.wrapping_shl(rng.below(32) as u32);
            near(rng, v)
        }
        3 => rng.next_u64() as i32,
        _ => rng.range(0, 2000) as i32,
    };
    let dr = match rng.below(8) {
        0 => 0,
        1 => dq,
        2 => near(rng, pr.max_dist_y),
        3 => {
            let v = extreme(rng);
            near(rng, v)
        }
        4 => rng.next_u64() as i32,
        5 => dq.wrapping_sub(dd),
        _ => dq.wrapping_add(dd),
    };
    let seg = if rng.chance(0.7) { ai.y >> 48 & 0xff } else { rng.below(256) };
    let span = [0, 1, 15, 19, 255, rng.below(256)][rng.below(6) as usize];
    // the high words of x (strand, target) and y's flags and top byte are comput_sc's to ignore
    let x = rng.next_u64() & !0xffff_ffff | (ai.x as u32).wrapping_sub(dr as u32) as u64;
    let y = rng.next_u64() & (0xff << 56 | 0xff << 40) | seg << 48 | span << 32 | (ai.y as u32).wrapping_sub(dq as u32) as u64;
    Anchor { x, y }
}

/// `comput_sc_x8` (the eight AVX2 lanes fill_anchors scores with, where the CPU has AVX2) against comput_sc
/// lane by lane on `CHAIN_X8_BLOCKS` blocks (default 2M): random pairs and adversarial ones (wrapping
/// differences at INT_MIN/INT_MAX, dq at max_dist_x and max_dist_y, dd at bw, dd over the whole int range for
/// mg_log2, penalties beyond INT32_MAX that cvttss2si turns into INT32_MIN, NaN and infinite gap costs, other
/// segments, spans 0 and 255).
#[test]
fn comput_sc_x8_lanes() {
    let n = env_u64("CHAIN_X8_BLOCKS", 2_000_000);
    let avx2 = cfg!(target_arch = "x86_64") && {
        #[cfg(target_arch = "x86_64")]
        let has = std::arch::is_x86_feature_detected!("avx2");
        #[cfg(not(target_arch = "x86_64"))]
        let has = false;
        has
    };
    let (allowed, int_min, bad) = (AtomicU64::new(0), AtomicU64::new(0), Mutex::new(Vec::new()));
    (0..n.div_ceil(1000)).into_par_iter().for_each(|c| {
        let mut rng = Rng::new(0x5c_0e8 ^ c);
        let pr = wild_params(&mut rng);
        for _ in 0..1000 {
            let ai = Anchor { x: rng.next_u64(), y: rng.next_u64() };
            let aj: [Anchor; 8] = std::array::from_fn(|_| wild_pred(&mut rng, &ai, &pr));
            let got = twin::comput_sc_x8(&ai, &aj, &pr);
            for k in 0..8 {
                let want = twin::comput_sc(&ai, &aj[k], &pr);
                if got[k] != want {
                    bad.lock().unwrap().push(format!("ai {ai:x?} aj {:x?} {pr:?}: lane {k}: {} vs {want}", aj[k], got[k]));
                }
                allowed.fetch_add((want != i32::MIN) as u64, Relaxed);
                // a saturated penalty: sc - INT32_MIN wraps to sc + 2^31 (or comput_sc's "not allowed" itself)
                int_min.fetch_add((want != i32::MIN && want as i64 - (aj[k].y >> 32 & 0xff) as i64 > 1 << 30) as u64, Relaxed);
            }
        }
    });
    let bad = bad.into_inner().unwrap();
    let (allowed, int_min) = (allowed.load(Relaxed), int_min.load(Relaxed));
    eprintln!(
        "comput_sc_x8_lanes: {} blocks of 8 ({}), {allowed} pairs allowed, {int_min} with a saturated penalty; {} mismatches",
        n.div_ceil(1000) * 1000, if avx2 { "AVX2 lanes" } else { "no AVX2: the scalar fallback" }, bad.len()
    );
    for b in bad.iter().take(10) {
        eprintln!("  {b}");
    }
    assert!(bad.is_empty(), "comput_sc_x8_lanes: {} lanes differ from comput_sc", bad.len());
    assert!(allowed * 4 > n * 8 && int_min * 1000 > n * 8, "the blocks miss the paths they are for");
}

/// Single-thread time of twin and oracle on a few big sets (printed; no assertion on speed).
#[test]
fn timing_big_sets() {
    let mut rng = Rng::new(2024);
    let mut lines = Vec::new();
    for (p, n) in [(Preset::MapOnt, 20_000usize), (Preset::MapHifi, 20_000), (Preset::Sr, 5000), (Preset::Splice, 20_000), (Preset::MapOnt, 100_000)] {
        let (k, mut cfg, qlen) = preset_cfg(p, &mut rng);
        cfg.max_skip = 25;
        cfg.max_iter = 5000;
        let a = random_anchors(&mut rng, k, &cfg, qlen, n);
        let reps = 3;
        let t0 = Instant::now();
        let mut want = None;
        for _ in 0..reps {
            want = Some(oracle(&cfg.job(&a)));
        }
        let to = t0.elapsed().as_secs_f64() / reps as f64;
        let t0 = Instant::now();
        let mut got = None;
        for _ in 0..reps {
            got = Some(twin_out(&cfg, &a));
        }
        let tt = t0.elapsed().as_secs_f64() / reps as f64;
        assert_eq!(want, got, "{p:?} {n}");
        let fl = twin::fill(&cfg.job(&a)).unwrap();
        lines.push(format!(
            "{p:?} {n} anchors, {} pairs: oracle {:.2} ms, twin {:.2} ms, twin/oracle {:.2}",
            fl.n_visited, to * 1e3, tt * 1e3, tt / to
        ));
    }
    for l in lines {
        eprintln!("timing_big_sets: {l}");
    }
}
