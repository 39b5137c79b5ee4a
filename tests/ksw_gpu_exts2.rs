//! The GPU kernel of `ksw_exts2_sse` (warpalign::ksw::gpu::exts2_batch_gpu) against the verified Rust twin
//! (warpalign::ksw::twin::exts2), field by field and CIGAR by CIGAR, on the fixed-seed random jobs of
//! tests/ksw_twin_exts2.rs (tests/common/ksw_exts2_cases.rs), minimap2's call shapes, jobs wide enough for the
//! global-memory window, and the degenerate ones. Without a GPU the comparisons print "skipped: no GPU"
//! and pass (tests/ksw_gpu.rs compiles the kernels wherever NVRTC is found).
//!
//! `KSW_GPU_EXTS2_CASES=N` scales the random test (default 20,000), `KSW_GPU_EXTS2_CALL_CASES=N` the
//! minimap2 call shapes (default 5,000), `KSW_GPU_EXTS2_WIDE_CASES=N` the wide jobs (default 12; 0 under
//! racecheck, which takes minutes on them), `KSW_GPU_EXTS2_SEED=S` the seed.

mod common;

use common::ksw_cases::{env_u64, seq};
use common::ksw_exts2_cases::*;
use common::{mm2_matrix, Rng};
use rayon::prelude::*;
use std::time::Instant;
use warpalign::gpu::GpuRuntime;
use warpalign::ksw::gpu::exts2_batch_gpu;
use warpalign::ksw::{flag, twin, KswExts2Job, KswResult};

type Out = (u32, u32, [i32; 8], Vec<u32>);

fn out_of(r: &mut KswResult) -> Out {
    assert!(r.n_cigar > 0 || r.cigar.is_null(), "empty CIGAR must be null");
    let o = (r.max, r.zdropped as u32, [r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end], r.cigar().to_vec());
    r.release();
    o
}

fn twin_run(j: &KswExts2Job) -> Out {
    let mut r = KswResult::EMPTY;
    twin::exts2(j, &mut r);
    out_of(&mut r)
}

fn gpu_run(rt: &GpuRuntime, jobs: &[KswExts2Job]) -> Vec<Out> {
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    exts2_batch_gpu(rt, jobs, &mut res).unwrap_or_else(|e| panic!("exts2_batch_gpu: {e}"));
    res.iter_mut().map(out_of).collect()
}

/// Runs `n` cases `gen(seed + i)` as GPU batches (of up to 20,000 jobs) and on the twin; returns the
/// mismatching indices (printing the first few).
fn check_many(rt: &GpuRuntime, what: &str, seed: u64, n: u64, gen: fn(&mut Rng) -> Case) -> Vec<u64> {
    let start = Instant::now();
    let mut bad = Vec::new();
    let mut cells = 0f64;
    let mut lo = 0u64;
    while lo < n {
        let hi = (lo + 20_000).min(n);
        let cases: Vec<Case> = (lo..hi).into_par_iter().map(|i| gen(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)))).collect();
        cells += cases.iter().map(|c| c.q.len() as f64 * c.t.len() as f64).sum::<f64>();
        let jobs: Vec<KswExts2Job> = cases.iter().map(|c| c.job()).collect();
        let g = gpu_run(rt, &jobs);
        let t: Vec<Out> = jobs.par_iter().map(twin_run).collect();
        for (k, (a, b)) in g.iter().zip(t.iter()).enumerate() {
            if a != b {
                let i = lo + k as u64;
                if bad.len() < 3 {
                    eprintln!("{what}: MISMATCH case {i} (seed {seed})\n  twin {:?}\n  gpu  {:?}\n  {}", b, a, cases[k].describe());
                }
                bad.push(i);
            }
        }
        lo = hi;
    }
    eprintln!("{what}: {n} cases ({cells:.2e} cells), {} mismatches, {:.1}s", bad.len(), start.elapsed().as_secs_f64());
    bad
}

fn start_gpu() -> Option<GpuRuntime> {
    match GpuRuntime::start() {
        Ok(rt) => Some(rt),
        Err(e) => {
            println!("skipped: no GPU ({e})");
            None
        }
    }
}

/// Long spliced pairs: bands wider than the shared-memory window (the `_g` kernel) and long traceback.
fn wide_case(rng: &mut Rng) -> Case {
    let mut c = minimap2_call(rng);
    let len = rng.range(12_000, 20_000) as usize;
    let q = seq(rng, len, 0.001, 4);
    let mut t = rng.mutate(&q, 0.05);
    let at = rng.below(t.len() as u64) as usize;
    let il = rng.range(50, 3000) as usize;
    let intron: Vec<u8> = [vec![2, 3], seq(rng, il, 0.0, 4), vec![0, 2]].concat();
    t.splice(at..at, intron);
    c.junc = c.junc.map(|_| random_junc(rng, t.len(), c.flag & flag::SPLICE_SCORE != 0));
    c.q = q;
    c.t = t;
    c
}

fn degenerate_cases() -> Vec<Case> {
    let q = [0u8, 1, 2, 3, 2, 3, 0, 2];
    let base = Case {
        q: q.to_vec(), t: q.to_vec(), m: 5, mat: mm2_matrix(1, 2, 1), gap: (2, 1, 32, 9), zdrop: -1, end_bonus: 0, junc_bonus: 9,
        junc_pen: 5, flag: flag::SPLICE_FOR, junc: None,
    };
    let mut cases = vec![];
    for (ql, tl) in [(0, 0), (0, 4), (4, 0), (1, 1), (1, 4), (4, 1), (1, 8), (8, 2), (8, 5)] {
        let mut c = base.clone();
        c.q.truncate(ql);
        c.t.truncate(tl);
        cases.push(c);
    }
    let mut c = base.clone();
    c.m = 1;
    cases.push(c);
    for q2 in [3, 2, 0, -5] {
        let mut c = base.clone();
        c.gap.2 = q2;
        cases.push(c);
    }
    let mut c = base.clone();
    c.mat = mm2_matrix(1, 7, 1);
    cases.push(c);
    cases
}

#[test]
fn gpu_equals_twin_exts2() {
    let Some(rt) = start_gpu() else { return };
    eprintln!("device: {} ({})", rt.device_name(), rt.arch());
    let seed = env_u64("KSW_GPU_EXTS2_SEED", 1);
    let mut failed = Vec::new();
    type Gen = fn(&mut Rng) -> Case;
    let families: [(&str, Gen, u64); 3] = [
        ("random", random_case, env_u64("KSW_GPU_EXTS2_CASES", 20_000)),
        ("minimap2 calls", minimap2_call, env_u64("KSW_GPU_EXTS2_CALL_CASES", 5_000)),
        ("wide", wide_case, env_u64("KSW_GPU_EXTS2_WIDE_CASES", 12)),
    ];
    for (what, gen, count) in families {
        let bad = check_many(&rt, what, seed + what.len() as u64, count, gen);
        if !bad.is_empty() {
            failed.push(format!("{what}: {} of {count} differ, first {:?}", bad.len(), &bad[..bad.len().min(10)]));
        }
    }
    let deg = degenerate_cases();
    let jobs: Vec<KswExts2Job> = deg.iter().map(|c| c.job()).collect();
    for (i, (g, j)) in gpu_run(&rt, &jobs).iter().zip(jobs.iter()).enumerate() {
        if *g != twin_run(j) {
            failed.push(format!("degenerate case {i} differs"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The engine's batch entry sends large exts2 batches to the GPU when the engine has one.
#[test]
fn engine_exts2_batch_on_gpu_equals_twin() {
    let engine = warpalign::Engine::new(warpalign::BackendChoice::Auto);
    if engine.backend() != warpalign::Backend::Gpu {
        println!("skipped: no GPU");
        return;
    }
    let mut rng = Rng::new(12);
    let cases: Vec<Case> = (0..500).map(|_| if rng.chance(0.5) { random_case(&mut rng) } else { minimap2_call(&mut rng) }).collect();
    let jobs: Vec<KswExts2Job> = cases.iter().map(|c| c.job()).collect();
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    warpalign::ksw::exts2_batch(&engine, &jobs, &mut res).unwrap();
    for (i, (r, j)) in res.iter_mut().zip(jobs.iter()).enumerate() {
        assert_eq!(out_of(r), twin_run(j), "case {i}");
    }
}
