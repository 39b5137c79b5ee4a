//! The GPU fill of `mg_lchain_dp` (warpalign::chain::gpu) against the verified Rust twin (warpalign::chain::twin):
//! `f`, `p`, `v`, `t` and the path counters of every anchor set must be equal, and so must the chains and
//! compacted anchors that the CPU backtrack makes of them. Cases: the random sets of the twin's test (all
//! presets and wild parameters, max_chain_skip and max_chain_iter varied), long sets of 10k-100k anchors, and
//! the twin's trap families (float rounding and truncation of the penalty, its overflow, the skip exit on
//! tandem grids, the max_ii rescue). Without a GPU the comparisons print "skipped: no GPU" and pass; the
//! kernel is still compiled for sm_90 wherever NVRTC is found.
//!
//! `CHAIN_GPU_CASES=N` sets the number of random sets (default 200,000), `CHAIN_GPU_LONG=N` the long sets
//! (default 300), `CHAIN_GPU_SEED=S` the seed.

use crate::common::chain_cases::*;
use crate::common::gpu::{nvrtc_found, ptx_for_sm90, start_gpu};
use crate::common::{env_u64, Rng};
use rayon::prelude::*;
use std::time::Instant;
use warpalign::chain::gpu::{dp_batch_gpu, fill_batch_gpu};
use warpalign::chain::{twin, Anchor, ChainDpJob, ChainDpResult};
use warpalign::gpu::GpuRuntime;
use warpalign::Engine;

/// The first difference between two fills.
fn fill_diff(want: &twin::Fill, got: &twin::Fill) -> String {
    let first = |name: &str, a: &[i64], b: &[i64]| -> Option<String> {
        let i = a.iter().zip(b).position(|(x, y)| x != y)?;
        Some(format!("{name}[{i}]: twin {} gpu {}", a[i], b[i]))
    };
    let w = |x: &[i32]| x.iter().map(|&v| v as i64).collect::<Vec<_>>();
    first("f", &w(&want.f), &w(&got.f))
        .or_else(|| first("p", &want.p, &got.p))
        .or_else(|| first("v", &w(&want.v), &w(&got.v)))
        .or_else(|| first("t", &w(&want.t), &w(&got.t)))
        .unwrap_or_else(|| {
            format!(
                "lengths {} / {}, counters (visited, breaks, rescued) twin {:?} gpu {:?}",
                want.f.len(), got.f.len(),
                (want.n_visited, want.n_breaks, want.n_rescued), (got.n_visited, got.n_breaks, got.n_rescued)
            )
        })
}

#[derive(Default)]
struct Tally {
    cases: u64,
    anchors: u64,
    pairs: u64,
    break_cases: u64,
    rescue_cases: u64,
    bad: Vec<String>,
}

/// Fills `cases` on the GPU (in batches of about 20M anchors) and on the twin; for every set also compares the
/// twin's backtrack of the GPU fill with the twin's whole `mg_lchain_dp`.
fn check(rt: &GpuRuntime, name: &str, cases: &[(String, Cfg, Vec<Anchor>)]) -> Tally {
    let t0 = Instant::now();
    let mut tally = Tally::default();
    let mut lo = 0;
    while lo < cases.len() {
        let (mut hi, mut n) = (lo, 0usize);
        while hi < cases.len() && (hi == lo || n + cases[hi].2.len() <= 20_000_000) && hi - lo < 200_000 {
            n += cases[hi].2.len();
            hi += 1;
        }
        let jobs: Vec<ChainDpJob> = cases[lo..hi].iter().map(|(_, c, a)| c.job(a)).collect();
        let got = fill_batch_gpu(rt, &jobs).unwrap_or_else(|e| panic!("fill_batch_gpu: {e}"));
        let bad: Vec<String> = (got, jobs.par_iter(), cases[lo..hi].par_iter())
            .into_par_iter()
            .filter_map(|(g, j, (label, cfg, a))| {
                let want = twin::fill(j).unwrap();
                if want != g {
                    return Some(format!("{name} {label} ({} anchors, {cfg:?}): {}", a.len(), fill_diff(&want, &g)));
                }
                let mut r1 = ChainDpResult::EMPTY;
                let mut r2 = ChainDpResult::EMPTY;
                twin::lchain_dp(j, &mut r1).unwrap();
                twin::finish(j, g, &mut r2).unwrap();
                let same = r1.chains() == r2.chains() && r1.anchors() == r2.anchors();
                r1.release();
                r2.release();
                (!same).then(|| format!("{name} {label}: chains differ with equal fills"))
            })
            .collect();
        let fills: Vec<twin::Fill> = jobs.par_iter().map(|j| twin::fill(j).unwrap()).collect();
        for (fl, j) in fills.iter().zip(&jobs) {
            tally.cases += 1;
            tally.anchors += j.n_anchors as u64;
            tally.pairs += fl.n_visited;
            tally.break_cases += (fl.n_breaks > 0) as u64;
            tally.rescue_cases += (fl.n_rescued > 0) as u64;
        }
        tally.bad.extend(bad);
        lo = hi;
    }
    eprintln!(
        "{name}: {} sets, {} anchors, {} pairs scored, {} sets with skip breaks, {} with rescues; {} mismatches, {:.1} s",
        tally.cases, tally.anchors, tally.pairs, tally.break_cases, tally.rescue_cases, tally.bad.len(),
        t0.elapsed().as_secs_f64()
    );
    for b in tally.bad.iter().take(5) {
        eprintln!("  {b}");
    }
    assert!(tally.bad.is_empty(), "{name}: {} mismatches between GPU and twin", tally.bad.len());
    tally
}

#[test]
fn chain_dp_kernel_compiles_for_sm90() {
    if nvrtc_found() {
        assert!(ptx_for_sm90("chain_dp").contains("chain_fill"), "PTX lacks chain_fill");
    }
}

#[test]
fn random_sets() {
    let Some(rt) = start_gpu() else { return };
    let n = env_u64("CHAIN_GPU_CASES", 200_000);
    let seed = env_u64("CHAIN_GPU_SEED", 11);
    let mut total = Tally::default();
    for lo in (0..n).step_by(100_000) {
        let cases: Vec<_> = (lo..(lo + 100_000).min(n))
            .into_par_iter()
            .map(|i| {
                let (p, cfg, a) = random_case(seed, i);
                (format!("seed {seed} case {i} {p:?}"), cfg, a)
            })
            .collect();
        let t = check(&rt, "random_sets", &cases);
        total.cases += t.cases;
        total.break_cases += t.break_cases;
        total.rescue_cases += t.rescue_cases;
    }
    if n >= 1000 {
        assert!(total.break_cases > n / 50, "too few sets reach the max_chain_skip exit");
        assert!(total.rescue_cases > n / 200, "too few sets take the max_ii rescue");
    }
}

/// Long-read-like sets of 10k-100k anchors (ultra-long ONT, HiFi, ava, splice, wild).
#[test]
fn long_sets() {
    let Some(rt) = start_gpu() else { return };
    let n = env_u64("CHAIN_GPU_LONG", 300);
    let seed = env_u64("CHAIN_GPU_SEED", 11);
    let cases: Vec<_> = (0..n)
        .into_par_iter()
        .map(|i| {
            let mut rng = Rng::new(seed ^ 0x10_000 ^ i.wrapping_mul(0x9E37_79B9));
            let p = [Preset::MapOnt, Preset::MapPb, Preset::MapHifi, Preset::AvaOnt, Preset::Splice, Preset::Wild][(i % 6) as usize];
            let (k, cfg, qlen) = preset_cfg(p, &mut rng);
            let len = rng.range(10_000, 100_000) as usize;
            let a = random_anchors(&mut rng, k, &cfg, qlen.max(len as i64 * 4), len);
            (format!("long {i} {p:?}"), cfg, a)
        })
        .collect();
    check(&rt, "long_sets", &cases);
}

#[test]
fn trap_families() {
    let Some(rt) = start_gpu() else { return };
    check(&rt, "float_rounding", &float_rounding_cases());
    check(&rt, "truncation_boundaries", &truncation_cases());
    check(&rt, "penalty_overflow", &penalty_overflow_cases());
    let t = check(&rt, "skip_grid", &skip_grid_cases());
    assert!(t.break_cases > 1000, "the skip exit is not exercised");
    let t = check(&rt, "rescue", &rescue_cases());
    assert!(t.rescue_cases > 300, "the rescue is not exercised");
}

/// The engine's batch call routes a large batch to the GPU and returns what the twin returns; empty sets and
/// a batch below the GPU threshold included.
#[test]
fn engine_batch_equals_twin() {
    let Some(_) = start_gpu() else { return };
    let engine = Engine::new(warpalign::BackendChoice::Gpu);
    for n in [3u64, 5000] {
        let cases: Vec<_> = (0..n).map(|i| random_case(77, i)).collect();
        let jobs: Vec<ChainDpJob> = cases.iter().map(|(_, c, a)| c.job(a)).collect();
        let mut got: Vec<ChainDpResult> = (0..jobs.len()).map(|_| ChainDpResult::EMPTY).collect();
        warpalign::chain::dp_batch(&engine, &jobs, &mut got).expect("dp_batch");
        let mut direct: Vec<ChainDpResult> = (0..jobs.len()).map(|_| ChainDpResult::EMPTY).collect();
        dp_batch_gpu(&engine.gpu().expect("GPU engine"), &jobs, &mut direct).expect("dp_batch_gpu");
        for (k, j) in jobs.iter().enumerate() {
            let mut want = ChainDpResult::EMPTY;
            twin::lchain_dp(j, &mut want).unwrap();
            for r in [&got[k], &direct[k]] {
                assert_eq!((r.chains(), r.anchors()), (want.chains(), want.anchors()), "set {k} of {n}");
                assert_eq!(r.chains.is_null(), r.n_chains == 0);
            }
            want.release();
        }
        got.iter_mut().chain(direct.iter_mut()).for_each(ChainDpResult::release);
    }
}
