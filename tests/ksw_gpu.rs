//! The GPU kernel of `ksw_extd2_sse` (warpalign::ksw::gpu::extd2_batch_gpu) against the verified Rust twin
//! (warpalign::ksw::twin::extd2), field by field and CIGAR by CIGAR, on fixed-seed random jobs (the generator
//! of tests/ksw_twin.rs) and on the trap families of that test. Without a GPU the comparisons print
//! "skipped: no GPU" and pass; the kernel is still compiled for sm_90 wherever NVRTC is found.
//!
//! `KSW_GPU_CASES=N` scales the random test (default 30,000), `KSW_GPU_TRAP_CASES=N` each trap family
//! (default 3,000), `KSW_GPU_SEED=S` the seed.
//! `cargo test --release --test ksw_gpu -- --ignored --nocapture bench` prints GCUPS of the GPU path vs the twin
//! (`KSW_GPU_BENCH_JOBS`, `KSW_GPU_BENCH_MODE=cigar|score-only|cigar+approx`, `KSW_GPU_BENCH_TWIN=0`).

mod common;

use common::ksw_cases::*;
use common::{mm2_matrix, Rng};
use rayon::prelude::*;
use std::time::Instant;
use warpalign::gpu::{self, GpuRuntime, KERNELS};
use warpalign::ksw::gpu::extd2_batch_gpu;
use warpalign::ksw::{flag, twin, KswExtd2Job, KswResult};

type Out = (u32, u32, [i32; 8], Vec<u32>);

fn out_of(r: &mut KswResult) -> Out {
    assert!(r.n_cigar > 0 || r.cigar.is_null(), "empty CIGAR must be null");
    let o = (r.max, r.zdropped as u32, [r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end], r.cigar().to_vec());
    r.release();
    o
}

fn twin_run(j: &KswExtd2Job) -> Out {
    let mut r = KswResult::EMPTY;
    twin::extd2(j, &mut r);
    out_of(&mut r)
}

fn gpu_run(rt: &GpuRuntime, jobs: &[KswExtd2Job]) -> Vec<Out> {
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    extd2_batch_gpu(rt, jobs, &mut res).unwrap_or_else(|e| panic!("extd2_batch_gpu: {e}"));
    res.iter_mut().map(out_of).collect()
}

/// Runs `n` cases `gen(seed + i)` as GPU batches (of up to 20,000 jobs) and on the twin; returns the
/// mismatching indices (printing the first few).
fn check_many(rt: &GpuRuntime, what: &str, seed: u64, n: u64, gen: fn(&mut Rng) -> Case) -> Vec<u64> {
    let start = Instant::now();
    let mut bad = Vec::new();
    let mut lo = 0u64;
    while lo < n {
        let hi = (lo + 20_000).min(n);
        let cases: Vec<Case> = (lo..hi).into_par_iter().map(|i| gen(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)))).collect();
        let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| c.job()).collect();
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
    eprintln!("{what}: {n} cases, {} mismatches, {:.1}s", bad.len(), start.elapsed().as_secs_f64());
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

#[test]
fn ksw_kernels_compile_for_sm90() {
    if !gpu::nvrtc_present() {
        println!("skipped: NVRTC not found (pip install nvidia-cuda-nvrtc and put its lib on LD_LIBRARY_PATH)");
        return;
    }
    let src = KERNELS.iter().find(|(n, _)| *n == "ksw").expect("ksw in KERNELS").1;
    let ptx = gpu::compile("ksw", src, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert!(ptx.contains(".target sm_90"));
    for f in ["ksw_extd2_dp", "ksw_extd2_dp_g", "ksw_exts2_dp", "ksw_exts2_dp_g", "ksw_bt", "ksw_pack"] {
        assert!(ptx.contains(f), "PTX lacks {f}");
    }
}

// ---- trap families (as in tests/ksw_twin.rs) -----------------------------------------------------------

fn trap_stale_lanes(rng: &mut Rng) -> Case {
    let len = rng.range(20, 300) as usize;
    let rate = pick(rng, &[0.02, 0.1, 0.3]);
    let (q, t) = similar_pair(rng, len, rate);
    let f = pick(rng, &[0, flag::RIGHT, flag::GENERIC_SC, flag::SCORE_ONLY, flag::EXTZ_ONLY, flag::APPROX_MAX]);
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    let w = rng.range(0, 20) as i32;
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w, zdrop: -1, end_bonus: 0, flag: f }
}

fn trap_tie_break(rng: &mut Rng) -> Case {
    let len = rng.range(10, 400) as usize;
    let alpha = pick(rng, &[1, 2]);
    let q = seq(rng, len, 0.0, alpha);
    let t = if rng.chance(0.5) {
        rng.mutate(&q, 0.05).iter().map(|&b| b % alpha as u8).collect()
    } else {
        let tl = len + rng.range(0, 50) as usize;
        seq(rng, tl, 0.0, alpha)
    };
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    let f = pick(rng, &[0, flag::EXTZ_ONLY, flag::SCORE_ONLY, flag::RIGHT | flag::EXTZ_ONLY]);
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w: pick(rng, &[-1, 5, 33, 100]), zdrop: pick(rng, &[-1, 20, 100]), end_bonus: 0, flag: f }
}

fn trap_approx(rng: &mut Rng) -> Case {
    let len = rng.range(1, 600) as usize;
    let rate = pick(rng, &[0.01, 0.1, 0.4]);
    let (q, t) = similar_pair(rng, len, rate);
    let f = flag::APPROX_MAX | pick(rng, &[0, flag::APPROX_DROP, flag::EXTZ_ONLY, flag::APPROX_DROP | flag::EXTZ_ONLY, flag::SCORE_ONLY]);
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w: pick(rng, &[-1, 10, 50, 500]), zdrop: pick(rng, &[-1, 10, 100]), end_bonus: pick(rng, &[0, 10]), flag: f }
}

fn trap_band_exhaustion(rng: &mut Rng) -> Case {
    let len = rng.range(30, 300) as usize;
    let q = seq(rng, len, 0.0, 4);
    let mut t = rng.mutate(&q, 0.02);
    let extra = rng.range(5, 100) as usize;
    t.extend(seq(rng, extra, 0.0, 4));
    let w = rng.range(0, extra as i64 - 1) as i32;
    let f = pick(rng, &[0, flag::EXTZ_ONLY, flag::RIGHT, flag::APPROX_MAX]);
    let (q, t) = if rng.chance(0.5) { (q, t) } else { (t, q) };
    Case { q, t, m: 5, mat: mm2_matrix(2, 4, 1), gap: (4, 2, 24, 1), w, zdrop: -1, end_bonus: 0, flag: f }
}

fn trap_zdrop(rng: &mut Rng) -> Case {
    let len = rng.range(50, 400) as usize;
    let q = seq(rng, len, 0.0, 4);
    let cut = rng.range(10, len as i64 - 10) as usize;
    let mut t = q[..cut].to_vec();
    let gap = rng.range(0, 60) as usize;
    t.extend(seq(rng, gap, 0.0, 4));
    let rate = pick(rng, &[0.0, 0.05, 0.5]);
    t.extend_from_slice(&rng.mutate(&q[cut..], rate));
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    let gap4 = if rng.chance(0.15) { (go2, ge2, go, ge) } else { (go, ge, go2, ge2) };
    let f = pick(rng, &[0, flag::EXTZ_ONLY, flag::APPROX_MAX | flag::APPROX_DROP, flag::SCORE_ONLY]);
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: gap4, w: -1, zdrop: rng.range(0, 60) as i32, end_bonus: 5, flag: f }
}

fn degenerate_cases() -> Vec<Case> {
    let mat = mm2_matrix(2, 4, 1);
    let q = [0u8, 1, 2, 3];
    let base = Case { q: q.to_vec(), t: q.to_vec(), m: 5, mat: mat.clone(), gap: (4, 2, 24, 1), w: -1, zdrop: -1, end_bonus: 0, flag: 0 };
    let mut cases = vec![];
    for (ql, tl) in [(0, 0), (0, 4), (4, 0), (1, 1), (1, 4), (4, 1)] {
        let mut c = base.clone();
        c.q.truncate(ql);
        c.t.truncate(tl);
        cases.push(c);
    }
    let mut c = base.clone();
    c.m = 1;
    cases.push(c);
    let mut c = base.clone();
    c.mat = mm2_matrix(1, 40, 1);
    cases.push(c);
    cases
}

#[test]
fn gpu_equals_twin() {
    let Some(rt) = start_gpu() else { return };
    eprintln!("device: {} ({})", rt.device_name(), rt.arch());
    let seed = env_u64("KSW_GPU_SEED", 1);
    let n = env_u64("KSW_GPU_CASES", 30_000);
    let nt = env_u64("KSW_GPU_TRAP_CASES", 3_000);
    let mut failed = Vec::new();
    type Gen = fn(&mut Rng) -> Case;
    let families: [(&str, Gen, u64); 6] = [
        ("random", random_case, n),
        ("stale lanes", trap_stale_lanes, nt),
        ("tie-break", trap_tie_break, nt),
        ("approx max", trap_approx, nt),
        ("band exhaustion", trap_band_exhaustion, nt),
        ("zdrop e2", trap_zdrop, nt),
    ];
    for (what, gen, count) in families {
        let bad = check_many(&rt, what, seed + what.len() as u64, count, gen);
        if !bad.is_empty() {
            failed.push(format!("{what}: {} of {count} differ, first {:?}", bad.len(), &bad[..bad.len().min(10)]));
        }
    }
    let deg = degenerate_cases();
    let jobs: Vec<KswExtd2Job> = deg.iter().map(|c| c.job()).collect();
    for (i, (g, j)) in gpu_run(&rt, &jobs).iter().zip(jobs.iter()).enumerate() {
        if *g != twin_run(j) {
            failed.push(format!("degenerate case {i} differs"));
        }
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The engine's batch entry sends large batches to the GPU when the engine has one; same results as the twin.
#[test]
fn engine_batch_on_gpu_equals_twin() {
    let engine = warpalign::Engine::new(warpalign::BackendChoice::Auto);
    if engine.backend() != warpalign::Backend::Gpu {
        println!("skipped: no GPU");
        return;
    }
    let mut rng = Rng::new(11);
    let cases: Vec<Case> = (0..500).map(|_| random_case(&mut rng)).collect();
    let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| c.job()).collect();
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    warpalign::ksw::extd2_batch(&engine, &jobs, &mut res).unwrap();
    for (i, (r, j)) in res.iter_mut().zip(jobs.iter()).enumerate() {
        assert_eq!(out_of(r), twin_run(j), "case {i}");
    }
}

// ---- speed ---------------------------------------------------------------------------------------------

#[test]
#[ignore]
fn bench_gpu_vs_twin() {
    let Some(rt) = start_gpu() else { return };
    let n = env_u64("KSW_GPU_BENCH_JOBS", 2000) as usize;
    let mut rng = Rng::new(99);
    let mat = mm2_matrix(2, 4, 1);
    let mut cases = Vec::with_capacity(n);
    for _ in 0..n {
        let len = rng.range(1000, 10000) as usize;
        let q = seq(&mut rng, len, 0.001, 4);
        let t = rng.mutate(&q, 0.03);
        cases.push(Case { q, t, m: 5, mat: mat.clone(), gap: (4, 2, 24, 1), w: 500, zdrop: 400, end_bonus: -1, flag: 0 });
    }
    let cells: f64 = cases.iter().map(|c| (c.q.len() + c.t.len()) as f64 * 501.0).sum();
    let pool16 = rayon::ThreadPoolBuilder::new().num_threads(16).build().unwrap();
    let n1 = (n / 10).max(1);
    let only = std::env::var("KSW_GPU_BENCH_MODE").unwrap_or_default();
    let with_twin = env_u64("KSW_GPU_BENCH_TWIN", 1) != 0;
    for (label, fl) in [("cigar", 0), ("score-only", flag::SCORE_ONLY), ("cigar+approx", flag::APPROX_MAX)] {
        if !only.is_empty() && only != label {
            continue;
        }
        let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| { let mut j = c.job(); j.flag = fl; j }).collect();
        let _ = gpu_run(&rt, &jobs[..n.min(16)]); // module load, warm-up
        let t0 = Instant::now();
        let g = gpu_run(&rt, &jobs);
        let tg = t0.elapsed().as_secs_f64();
        if !with_twin {
            eprintln!("bench {label}: {n} jobs 1-10 kb w=500, {:.2e} cells: GPU {tg:.3}s = {:.1} GCUPS", cells, cells / tg / 1e9);
            continue;
        }
        let t1 = Instant::now();
        let t: Vec<Out> = pool16.install(|| jobs.par_iter().map(twin_run).collect());
        let t16 = t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let t1r: Vec<Out> = jobs[..n1].iter().map(twin_run).collect();
        let ts = t2.elapsed().as_secs_f64();
        let cells1: f64 = cases[..n1].iter().map(|c| (c.q.len() + c.t.len()) as f64 * 501.0).sum();
        let mism = g.iter().zip(t.iter()).filter(|(a, b)| a != b).count();
        assert_eq!(&t[..n1], &t1r[..]);
        eprintln!(
            "bench {label}: {n} jobs 1-10 kb w=500, {:.2e} cells: GPU {tg:.3}s = {:.1} GCUPS; twin 16 threads {t16:.3}s = {:.2} GCUPS; twin 1 thread ({n1} jobs) {:.2} GCUPS; GPU mismatches {mism}",
            cells, cells / tg / 1e9, cells / t16 / 1e9, cells1 / ts / 1e9
        );
        assert_eq!(mism, 0);
    }
}
