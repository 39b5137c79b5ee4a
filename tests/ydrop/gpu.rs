//! The GPU kernel of `ydrop_one_sided_align` (warpalign::ydrop::gpu::one_sided_batch_gpu) against the verified
//! Rust twin (warpalign::ydrop::twin::one_sided): score, end, truncation and edit script of every job, on
//! fixed-seed random jobs (tests/common/ydrop_cases.rs, the generator of the twin's test and ydrop_fuzz),
//! batches mixing the jobs the twin takes (constrained, negative gap open, degenerate), and the calls dumped
//! from real LASTZ runs, as made and with their bounds removed (so that the kernel runs them). Each batch also
//! runs with envelopes (`one_sided_batch_gpu_recorded`), which must equal `twin::shadow::run_recorded`'s.
//!
//! Without a GPU the GPU comparisons print "skipped: no GPU" and pass; the kernel is still compiled for sm_90
//! wherever NVRTC is found, and its CPU model (tests/common/ydrop_kernel_model.rs) is checked against the twin.
//!
//! `YDROP_GPU_CASES=N` sets the random jobs (default 100,000), `YDROP_GPU_MODEL_CASES=N` the model's
//! (default 3,000), `YDROP_GPU_SEED=S` the seed. The real calls (tests/ydrop/lastz.rs) need the patched lastz and the data;
//! without them those tests print "skipped: ...".

use crate::common::gpu::{nvrtc_found, ptx_for_sm90, start_gpu};
use crate::common::ydrop_cases::*;
use crate::common::ydrop_kernel_model;
use crate::common::{env_u64, Rng};
use crate::lastz::{runs, Run};
use rayon::prelude::*;
use std::time::Instant;
use warpalign::gpu::GpuRuntime;
use warpalign::ydrop::dump::DumpedJob;
use warpalign::ydrop::gpu::{one_sided_batch_gpu, one_sided_batch_gpu_capped, one_sided_batch_gpu_recorded, plan, Plan};
use warpalign::ydrop::twin::shadow::{run_recorded, Envelope};
use warpalign::ydrop::{YdropJob, YdropResult};
use warpalign::Engine;

fn gpu_run(rt: &GpuRuntime, jobs: &[YdropJob]) -> Vec<Outcome> {
    let mut res: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
    one_sided_batch_gpu(rt, jobs, &mut res).unwrap_or_else(|e| panic!("one_sided_batch_gpu: {e}"));
    res.iter_mut().map(checked_outcome).collect()
}

/// The GPU's results with the envelopes of their sweeps.
fn gpu_run_recorded(rt: &GpuRuntime, jobs: &[YdropJob]) -> Vec<(Outcome, Envelope)> {
    let mut res: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
    let mut envs = vec![Envelope::default(); jobs.len()];
    one_sided_batch_gpu_recorded(rt, jobs, &mut res, &mut envs).unwrap_or_else(|e| panic!("one_sided_batch_gpu_recorded: {e}"));
    res.iter_mut().map(checked_outcome).zip(envs).collect()
}

fn twin_recorded(j: &YdropJob) -> (Outcome, Envelope) {
    let (mut r, mut e) = (YdropResult::EMPTY, Envelope::default());
    run_recorded(j, &mut r, &mut e).unwrap();
    (checked_outcome(&mut r), e)
}

/// GPU and twin on `jobs` (labelled by `describe`), the GPU's results alone and with the envelopes of its
/// sweeps (against `run_recorded`'s); returns the mismatches (printing the first few) and how many jobs the
/// kernel was planned for.
fn compare(rt: &GpuRuntime, what: &str, jobs: &[YdropJob], describe: &(dyn Fn(usize) -> String + Sync)) -> (usize, usize) {
    let g = gpu_run(rt, jobs);
    let gr = gpu_run_recorded(rt, jobs);
    let on_gpu = jobs.par_iter().filter(|j| plan(j).is_some()).count();
    let bad: Vec<usize> =
        (0..jobs.len()).into_par_iter().filter(|&k| twin(&jobs[k]) != g[k] || twin_recorded(&jobs[k]) != gr[k]).collect();
    for &k in bad.iter().take(3) {
        let (t, (o, e)) = (twin_recorded(&jobs[k]), &gr[k]);
        eprintln!(
            "{what}: MISMATCH job {k}\n  twin {:?}\n  gpu  {:?}\n  recorded: result {}, envelope {} ({} rows vs the twin's {})\n  {}",
            t.0, g[k], if *o == t.0 { "same" } else { "differs" }, if *e == t.1 { "same" } else { "differs" }, e.rows(), t.1.rows(), describe(k)
        );
    }
    (bad.len(), on_gpu)
}

/// `n` cases `gen(rng of seed, i)` in GPU batches of 20,000, against the twin.
fn check_many(rt: &GpuRuntime, what: &str, seed: u64, n: u64, gen: &(dyn Fn(&mut Rng) -> Case + Sync)) {
    let t0 = Instant::now();
    let (mut bad, mut on_gpu) = (0, 0);
    for lo in (0..n).step_by(20_000) {
        let cases: Vec<Case> = (lo..(lo + 20_000).min(n)).into_par_iter().map(|i| gen(&mut Rng::for_case(seed, i))).collect();
        let jobs: Vec<YdropJob> = cases.iter().map(Case::job).collect();
        let (b, g) = compare(rt, what, &jobs, &|k| format!("case {} (seed {seed}): {}", lo + k as u64, cases[k].describe()));
        bad += b;
        on_gpu += g;
    }
    eprintln!("{what}: {n} cases ({on_gpu} on the kernel), {bad} mismatches, {:.1}s", t0.elapsed().as_secs_f64());
    assert_eq!(bad, 0, "{what}: GPU differs from the twin");
}

#[test]
fn ydrop_kernel_compiles_for_sm90() {
    if nvrtc_found() {
        assert!(ptx_for_sm90("ydrop_one_sided").contains("ydrop_one_sided"), "PTX lacks the kernel");
    }
}

/// The kernel's algorithm, run by its CPU model, equals the twin (result and envelope) wherever the kernel does
/// not give up: with the host's plan, with the smallest ring (rows wrap around it or give up) and with short
/// uploaded prefixes.
#[test]
fn kernel_model_equals_twin() {
    let seed = env_u64("YDROP_GPU_SEED", 5);
    let n = env_u64("YDROP_GPU_MODEL_CASES", 3_000);
    let pool = matrix_pool(seed, 6);
    let counts: Vec<[u32; 4]> = (0..n)
        .into_par_iter()
        .map(|i| {
            let case = random_case(&mut Rng::for_case(seed, i), &pool, 2000);
            let j = case.job();
            let Some(p) = plan(&j) else { return [0, 0, 0, 0] };
            let want = twin_recorded(&j);
            let variants = [p, Plan { ring: 64, ..p }, Plan { a_len: p.a_len.min(40), b_len: p.b_len.min(40), ..p }];
            let mut ran = [1, 0, 0, 0];
            // pass 1 without a pool, with one that runs out (pass 2 then, or not when the end comes first), or,
            // mostly, with one that holds every row; claims after other jobs' or not
            let (tb_pool, tb_start) = [(0, 0), (3 << 14, 0), (1 << 22, 1 << 15), (1 << 22, 0)][i as usize % 4];
            for (k, v) in variants.iter().enumerate() {
                if let Some(got) = ydrop_kernel_model::run_recorded_pool(&j, v, tb_pool, tb_start) {
                    assert_eq!(got.0, want.0, "case {i} (seed {seed}), {v:?}: model differs from the twin\n  {}", case.describe());
                    assert_eq!(got.1, want.1, "case {i} (seed {seed}), {v:?}: model's envelope differs\n  {}", case.describe());
                    ran[k + 1] = 1;
                }
            }
            ran
        })
        .collect();
    let sum = |k: usize| counts.iter().map(|c| c[k]).sum::<u32>();
    eprintln!(
        "model: {n} cases, {} planned for the kernel: {} finished with the plan, {} with a 64-cell ring, {} with 40-base prefixes",
        sum(0), sum(1), sum(2), sum(3)
    );
    assert!(sum(1) as f64 >= 0.95 * sum(0) as f64, "the kernel gives up on too many planned jobs");
    assert!(sum(0) as u64 >= n / 2, "too few jobs planned for the kernel");
}

#[test]
fn gpu_equals_twin_random() {
    let Some(rt) = start_gpu() else { return };
    let seed = env_u64("YDROP_GPU_SEED", 5);
    let pool = matrix_pool(seed, 32);
    check_many(&rt, "random", seed, env_u64("YDROP_GPU_CASES", 100_000), &|rng: &mut Rng| random_case(rng, &pool, 3000));
}

/// With a row cap, every job the GPU finishes equals the twin (result and envelope), and every job it leaves
/// to the caller sweeps more rows than the cap on the twin, its result untouched.
#[test]
fn gpu_row_cap_leaves_only_longer_jobs() {
    let Some(rt) = start_gpu() else { return };
    let seed = env_u64("YDROP_GPU_SEED", 5) ^ 0xca9;
    let pool = matrix_pool(seed, 8);
    let cases: Vec<Case> = (0..20_000u64).into_par_iter().map(|i| random_case(&mut Rng::for_case(seed, i), &pool, 3000)).collect();
    let jobs: Vec<YdropJob> = cases.iter().map(Case::job).collect();
    for cap in [1u32, 40, 300] {
        let mut res: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
        let mut envs = vec![Envelope::default(); jobs.len()];
        let left = one_sided_batch_gpu_capped(&rt, &jobs, &mut res, &mut envs, cap).unwrap_or_else(|e| panic!("capped batch: {e}"));
        let mut is_left = vec![false; jobs.len()];
        left.iter().for_each(|&i| is_left[i] = true);
        let got: Vec<(Outcome, bool)> = res.iter_mut().map(|r| (checked_outcome(r), r.ops.is_null())).collect();
        let bad: Vec<usize> = (0..jobs.len())
            .into_par_iter()
            .filter(|&k| {
                let want = twin_recorded(&jobs[k]);
                if is_left[k] {
                    !got[k].1 || want.1.rows() <= cap as usize
                } else {
                    (&got[k].0, &envs[k]) != (&want.0, &want.1)
                }
            })
            .collect();
        for &k in bad.iter().take(3) {
            eprintln!("cap {cap}: MISMATCH job {k} (left: {}): {}", is_left[k], cases[k].describe());
        }
        eprintln!("cap {cap}: {} jobs, {} left to the caller, {} mismatches", jobs.len(), left.len(), bad.len());
        assert!(bad.is_empty(), "cap {cap}: the capped batch differs from the twin");
        assert!(cap > 40 || !left.is_empty(), "cap {cap}: no job left");
    }
}

/// Batches mixing constrained jobs (the twin's) with free ones; and LASTZ's defaults with long similar pairs.
#[test]
fn gpu_equals_twin_mixed_and_long() {
    let Some(rt) = start_gpu() else { return };
    let seed = env_u64("YDROP_GPU_SEED", 5) ^ 0x5eed;
    let pool = matrix_pool(seed, 8);
    check_many(&rt, "mixed", seed, 20_000, &|rng: &mut Rng| {
        if rng.chance(0.5) {
            random_constrained_case(rng, &pool, 1500)
        } else {
            random_case(rng, &pool, 1500)
        }
    });
    let hoxd70 = pool[0].clone();
    check_many(&rt, "long", seed, 300, &|rng: &mut Rng| {
        let (len, rate) = (rng.range(5_000, 30_000) as usize, [0.01, 0.05, 0.15][rng.below(3) as usize]);
        let a = rng.nt4_seq(len, 0.001);
        let b = rng.mutate(&a, rate);
        let text = |s: &[u8]| s.iter().map(|&c| b"ACGTN"[c as usize]).collect::<Vec<u8>>();
        let mut case = Case::new(&text(&a), &text(&b), hoxd70.clone(), 400, 30, 9400);
        case.trim_to_peak = rng.chance(0.8) as i32;
        case
    });
    // paths past the bases the kernel uploads first (64 Ki): it runs them again with longer prefixes
    check_many(&rt, "past the first prefixes", seed, 4, &|rng: &mut Rng| {
        let len = rng.range(70_000, 90_000) as usize;
        let a = rng.nt4_seq(len, 0.0);
        let b = rng.mutate(&a, 0.01);
        let text = |s: &[u8]| s.iter().map(|&c| b"ACGTN"[c as usize]).collect::<Vec<u8>>();
        Case::new(&text(&a), &text(&b), hoxd70.clone(), 400, 30, 9400)
    });
}

/// The engine's batch call routes a large batch to the GPU and returns what the twin returns (a batch below
/// the GPU threshold included).
#[test]
fn engine_batch_equals_twin() {
    let Some(_) = start_gpu() else { return };
    let engine = Engine::new(warpalign::BackendChoice::Gpu);
    let pool = matrix_pool(9, 4);
    for n in [3u64, 2000] {
        let cases: Vec<Case> = (0..n).map(|i| random_case(&mut Rng::for_case(9, i), &pool, 2000)).collect();
        let jobs: Vec<YdropJob> = cases.iter().map(Case::job).collect();
        let mut got: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
        warpalign::ydrop::one_sided_batch(&engine, &jobs, &mut got).expect("one_sided_batch");
        for (k, (j, r)) in jobs.iter().zip(got.iter_mut()).enumerate() {
            assert_eq!(checked_outcome(r), twin(j), "job {k} of {n}: {}", cases[k].describe());
        }
    }
}

/// The calls of real LASTZ runs (without the deeper-block and H. pylori runs of the replay test); Err says
/// why there are none.
fn real_calls() -> Result<Vec<Run>, String> {
    runs(false, false)
}

/// The kernel's CPU model equals the twin on every real call the kernel would run, with its bounds removed.
#[test]
fn kernel_model_equals_twin_real_calls() {
    let runs = match real_calls() {
        Ok(r) => r,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    for Run { name: run, calls, .. } in runs {
        let ran: usize = calls
            .par_iter()
            .map(|c| {
                let seq = c.sequences();
                let j = YdropJob { bounds: std::ptr::null(), ..c.job(&seq) };
                let Some(got) = plan(&j).and_then(|p| ydrop_kernel_model::run(&j, &p)) else { return 0 };
                assert_eq!(got, twin(&j), "{run}: model differs from the twin: M={} N={} O={} E={} Y={}", j.m, j.n, j.gap_open, j.gap_extend, j.y_drop);
                1
            })
            .sum();
        println!("{run}: {} calls, {ran} run by the model (unbounded), 0 mismatches", calls.len());
    }
}

/// Every real call, GPU vs twin, as made and with the bounds removed.
#[test]
fn gpu_equals_twin_real_calls() {
    let Some(rt) = start_gpu() else { return };
    let runs = match real_calls() {
        Ok(r) => r,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let (mut total, mut total_bad) = (0, 0);
    for Run { name: run, calls, .. } in runs {
        let (bad, on_gpu) = compare_calls(&rt, &run, &calls);
        println!("{run}: {} calls, as made and unbounded ({on_gpu} on the kernel), {bad} mismatches", calls.len());
        total += calls.len();
        total_bad += bad;
    }
    println!("real calls: {total}, {total_bad} mismatches");
    assert_eq!(total_bad, 0, "GPU differs from the twin on real calls");
}

/// The calls as made and without their bounds, in batches (each holds its calls' full-length sequences).
fn compare_calls(rt: &GpuRuntime, run: &str, calls: &[DumpedJob]) -> (usize, usize) {
    let (mut bad, mut on_gpu) = (0, 0);
    for batch in calls.chunks(256) {
        let seqs: Vec<_> = batch.iter().map(DumpedJob::sequences).collect();
        let made: Vec<YdropJob> = batch.iter().zip(&seqs).map(|(c, s)| c.job(s)).collect();
        let free: Vec<YdropJob> = made.iter().map(|j| YdropJob { bounds: std::ptr::null(), ..*j }).collect();
        let jobs: Vec<YdropJob> = made.into_iter().chain(free).collect();
        let k_made = batch.len();
        let describe = |k: usize| {
            let c = &batch[k % k_made].job;
            format!(
                "{run} {} call: M={} N={} O={} E={} Y={} trim={} rev={} tb={}",
                if k < k_made { "made" } else { "unbounded" },
                c.m, c.n, c.gap_open, c.gap_extend, c.y_drop, c.trim_to_peak, c.reversed, c.tb_size
            )
        };
        let (b, g) = compare(rt, run, &jobs, &describe);
        bad += b;
        on_gpu += g;
    }
    (bad, on_gpu)
}
