//! The GPU kernels of `ksw_extd2_sse` and `ksw_exts2_sse` (warpalign::ksw::gpu) against the verified Rust
//! twins (warpalign::ksw::twin), field by field and CIGAR by CIGAR: extd2 on the fixed-seed random jobs and
//! the trap families of its twin test; exts2 on the random jobs of its twin test
//! (tests/common/ksw_exts2_cases.rs), minimap2's call shapes, jobs wide enough for the global-memory window;
//! both on the degenerate ones. Without a GPU the comparisons print "skipped: no GPU" and pass; the kernels
//! are still compiled for sm_90 wherever NVRTC is found.
//!
//! extd2: `KSW_GPU_CASES=N` scales the random test (default 30,000), `KSW_GPU_TRAP_CASES=N` each trap family
//! (default 3,000), `KSW_GPU_SEED=S` the seed. exts2: `KSW_GPU_EXTS2_CASES=N` the random test (default
//! 20,000), `KSW_GPU_EXTS2_CALL_CASES=N` the minimap2 call shapes (default 5,000), `KSW_GPU_EXTS2_WIDE_CASES=N`
//! the wide jobs (default 12; 0 under racecheck, which takes minutes on them), `KSW_GPU_EXTS2_SEED=S` the seed.
//! `cargo test --release --test ksw -- --ignored --nocapture gpu::bench` prints GCUPS of the GPU path vs the
//! twin (`KSW_GPU_BENCH_JOBS`, `KSW_GPU_BENCH_MODE=cigar|score-only|cigar+approx`, `KSW_GPU_BENCH_TWIN=0`).

use crate::check::{check_many_gpu, gpu_run, out_of, twin_run, Extd2, Exts2, GpuKernel, Out};
use crate::common::gpu::{nvrtc_found, ptx_for_sm90, start_gpu};
use crate::common::{env_u64, ksw_cases, ksw_exts2_cases, mm2_matrix, Rng};
use rayon::prelude::*;
use std::time::Instant;
use warpalign::gpu::GpuRuntime;
use warpalign::ksw::{flag, KswExtd2Job, KswResult};
use warpalign::{Backend, BackendChoice, Engine};

#[test]
fn ksw_kernels_compile_for_sm90() {
    if !nvrtc_found() {
        return;
    }
    let ptx = ptx_for_sm90("ksw");
    let dp = ["ksw_extd2_dp", "ksw_extd2_dp_g", "ksw_exts2_dp", "ksw_exts2_dp_g"];
    let warp = ["ksw_extd2_dpw1", "ksw_extd2_dpw2", "ksw_extd2_dpw4", "ksw_exts2_dpw1", "ksw_exts2_dpw2", "ksw_exts2_dpw4"];
    for f in dp.into_iter().chain(warp).chain(["ksw_bt", "ksw_cigar_offsets", "ksw_pack"]) {
        assert!(ptx.contains(f), "PTX lacks {f}");
    }
}

/// Each family on the GPU and the twin, then the degenerate cases in one batch; what differs.
fn failures<K: GpuKernel>(rt: &GpuRuntime, seed: u64, families: &[(&str, fn(&mut Rng) -> K::Case, u64)], degenerate: &[K::Case]) -> Vec<String> {
    let mut failed = Vec::new();
    for &(what, gen, count) in families {
        let bad = check_many_gpu::<K>(rt, what, seed + what.len() as u64, count, gen);
        if !bad.is_empty() {
            failed.push(format!("{what}: {} of {count} differ, first {:?}", bad.len(), &bad[..bad.len().min(10)]));
        }
    }
    let jobs: Vec<K::Job> = degenerate.iter().map(K::job).collect();
    for (i, (g, j)) in gpu_run::<K>(rt, &jobs).iter().zip(&jobs).enumerate() {
        if *g != twin_run::<K>(j) {
            failed.push(format!("degenerate case {i} differs"));
        }
    }
    failed
}

#[test]
fn gpu_equals_twin() {
    use ksw_cases::*;
    let Some(rt) = start_gpu() else { return };
    eprintln!("device: {} ({})", rt.device_name(), rt.arch());
    let (n, nt) = (env_u64("KSW_GPU_CASES", 30_000), env_u64("KSW_GPU_TRAP_CASES", 3_000));
    let families: [(&str, fn(&mut Rng) -> Case, u64); 6] = [
        ("random", random_case, n),
        ("stale lanes", trap_stale_lanes, nt),
        ("tie-break", trap_tie_break, nt),
        ("approx max", trap_approx, nt),
        ("band exhaustion", trap_band_exhaustion, nt),
        ("zdrop e2", trap_zdrop, nt),
    ];
    let failed = failures::<Extd2>(&rt, env_u64("KSW_GPU_SEED", 1), &families, &degenerate_cases());
    assert!(failed.is_empty(), "{failed:#?}");
}

/// Long spliced pairs: bands wider than the shared-memory window (the `_g` kernel) and long traceback.
fn wide_case(rng: &mut Rng) -> ksw_exts2_cases::Case {
    use ksw_exts2_cases::*;
    let mut c = minimap2_call(rng);
    let len = rng.range(12_000, 20_000) as usize;
    let q = ksw_cases::seq(rng, len, 0.001, 4);
    let mut t = rng.mutate(&q, 0.05);
    let at = rng.below(t.len() as u64) as usize;
    let il = rng.range(50, 3000) as usize;
    let intron: Vec<u8> = [vec![2, 3], ksw_cases::seq(rng, il, 0.0, 4), vec![0, 2]].concat();
    t.splice(at..at, intron);
    c.junc = c.junc.map(|_| random_junc(rng, t.len(), c.flag & flag::SPLICE_SCORE != 0));
    c.q = q;
    c.t = t;
    c
}

#[test]
fn gpu_equals_twin_exts2() {
    use ksw_exts2_cases::*;
    let Some(rt) = start_gpu() else { return };
    eprintln!("device: {} ({})", rt.device_name(), rt.arch());
    let families: [(&str, fn(&mut Rng) -> Case, u64); 3] = [
        ("random", random_case, env_u64("KSW_GPU_EXTS2_CASES", 20_000)),
        ("minimap2 calls", minimap2_call, env_u64("KSW_GPU_EXTS2_CALL_CASES", 5_000)),
        ("wide", wide_case, env_u64("KSW_GPU_EXTS2_WIDE_CASES", 12)),
    ];
    let failed = failures::<Exts2>(&rt, env_u64("KSW_GPU_EXTS2_SEED", 1), &families, &degenerate_cases());
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The block form's threads a job follow each launch's size (4 to 16 window cells a thread by default) and
/// `WARPALIGN_KSW_GPU_CELLS` sets any power of two from 4 to 64: every block size gives the twin's results.
#[test]
fn every_block_size_equals_twin() {
    let Some(rt) = start_gpu() else { return };
    let n = env_u64("KSW_GPU_BLOCK_CASES", 4_000) as usize;
    let mut failed = Vec::new();
    for cells in [4, 8, 16, 32, 64] {
        let mut rng = Rng::new(100 + cells as u64);
        let cases: Vec<ksw_cases::Case> = (0..n)
            .map(|i| match i % 4 {
                0 => ksw_cases::trap_stale_lanes(&mut rng),
                1 => ksw_cases::trap_band_exhaustion(&mut rng),
                _ => ksw_cases::random_case(&mut rng),
            })
            .collect();
        let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| c.job()).collect();
        let mut res: Vec<KswResult> = (0..n).map(|_| KswResult::EMPTY).collect();
        Extd2::gpu_at(&rt, &jobs, &mut res, cells).unwrap_or_else(|e| panic!("GPU batch: {e}"));
        let bad = res.iter_mut().zip(&jobs).map(|(r, j)| out_of(r) != twin_run::<Extd2>(j)).filter(|&d| d).count();
        if bad > 0 {
            failed.push(format!("extd2, {cells} cells a thread: {bad} of {n} differ"));
        }
        let mut rng = Rng::new(200 + cells as u64);
        let cases: Vec<ksw_exts2_cases::Case> = (0..n / 2)
            .map(|i| if i % 2 == 0 { ksw_exts2_cases::random_case(&mut rng) } else { ksw_exts2_cases::minimap2_call(&mut rng) })
            .collect();
        let jobs: Vec<_> = cases.iter().map(|c| c.job()).collect();
        let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
        Exts2::gpu_at(&rt, &jobs, &mut res, cells).unwrap_or_else(|e| panic!("GPU batch: {e}"));
        let bad = res.iter_mut().zip(&jobs).map(|(r, j)| out_of(r) != twin_run::<Exts2>(j)).filter(|&d| d).count();
        if bad > 0 {
            failed.push(format!("exts2, {cells} cells a thread: {bad} of {} differ", jobs.len()));
        }
        eprintln!("{cells} cells a thread: {n} extd2 and {} exts2 jobs compared", jobs.len());
    }
    assert!(failed.is_empty(), "{failed:#?}");
}

/// The engine's batch entry sends large batches to the GPU when the engine has one; same results as the twin.
#[test]
fn engine_batch_on_gpu_equals_twin() {
    let engine = Engine::new(BackendChoice::Auto);
    if engine.backend() != Backend::Gpu {
        println!("skipped: no GPU");
        return;
    }
    let mut rng = Rng::new(11);
    let cases: Vec<ksw_cases::Case> = (0..500).map(|_| ksw_cases::random_case(&mut rng)).collect();
    let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| c.job()).collect();
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    warpalign::ksw::extd2_batch(&engine, &jobs, &mut res).unwrap();
    for (i, (r, j)) in res.iter_mut().zip(&jobs).enumerate() {
        assert_eq!(out_of(r), twin_run::<Extd2>(j), "case {i}");
    }
}

/// The engine's batch entry sends large exts2 batches to the GPU when the engine has one.
#[test]
fn engine_exts2_batch_on_gpu_equals_twin() {
    use ksw_exts2_cases::*;
    let engine = Engine::new(BackendChoice::Auto);
    if engine.backend() != Backend::Gpu {
        println!("skipped: no GPU");
        return;
    }
    let mut rng = Rng::new(12);
    let cases: Vec<Case> = (0..500).map(|_| if rng.chance(0.5) { random_case(&mut rng) } else { minimap2_call(&mut rng) }).collect();
    let jobs: Vec<_> = cases.iter().map(|c| c.job()).collect();
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    warpalign::ksw::exts2_batch(&engine, &jobs, &mut res).unwrap();
    for (i, (r, j)) in res.iter_mut().zip(&jobs).enumerate() {
        assert_eq!(out_of(r), twin_run::<Exts2>(j), "case {i}");
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
        let q = ksw_cases::seq(&mut rng, len, 0.001, 4);
        let t = rng.mutate(&q, 0.03);
        cases.push(ksw_cases::Case { q, t, m: 5, mat: mat.clone(), gap: (4, 2, 24, 1), w: 500, zdrop: 400, end_bonus: -1, flag: 0 });
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
        let _ = gpu_run::<Extd2>(&rt, &jobs[..n.min(16)]); // module load, warm-up
        let t0 = Instant::now();
        let g = gpu_run::<Extd2>(&rt, &jobs);
        let tg = t0.elapsed().as_secs_f64();
        if !with_twin {
            eprintln!("bench {label}: {n} jobs 1-10 kb w=500, {:.2e} cells: GPU {tg:.3}s = {:.1} GCUPS", cells, cells / tg / 1e9);
            continue;
        }
        let t1 = Instant::now();
        let t: Vec<Out> = pool16.install(|| jobs.par_iter().map(twin_run::<Extd2>).collect());
        let t16 = t1.elapsed().as_secs_f64();
        let t2 = Instant::now();
        let t1r: Vec<Out> = jobs[..n1].iter().map(twin_run::<Extd2>).collect();
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
