//! `ydrop_fuzz`: the Rust twin of LASTZ's `ydrop_one_sided_align` against LASTZ's own function (the oracle)
//! on random jobs (tests/common/ydrop_cases.rs: LASTZ-shaped and random matrices, random gap costs with zero
//! and negative opens, small y-drops, truncating tracebacks; up to 3,000 bases a side), on all cores.
//! With `constrained`, every job also sees random earlier alignments around its anchor (bounds and masks).
//! With `gpu`, the GPU batch (`warpalign::ydrop::gpu`, in batches of 20,000 jobs) is compared with the twin
//! instead; the jobs its kernel does not take run on the twin inside the batch. The batch runs with envelopes
//! (`one_sided_batch_gpu_recorded`), which must also equal the twin's (`twin::shadow::run_recorded`).
//!
//! With `vector`, each vector sweep this CPU has (twin::Sweep::vectors: AVX-512, AVX2) is compared with the
//! spec sweep instead, result and envelope (`run_recorded_by`), on all cores.
//!
//! usage: ydrop_fuzz CASES SEED [constrained] [gpu | vector]
//!
//! Prints `cases N, mismatches M` (and the first mismatching jobs, with their index); exit status 1 on any
//! mismatch, 2 on bad usage or, with `gpu`, no usable GPU. Case i depends only on (SEED, i).

#[path = "../../../tests/common/mod.rs"]
mod common;

use common::ydrop_cases::{matrix_pool, oracle, random_case, random_constrained_case, twin, Case, Matrix, Outcome};
use common::Rng;
use rayon::prelude::*;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};
use warpalign::gpu::GpuRuntime;
use warpalign::ydrop::twin::shadow::{run_recorded, run_recorded_by, Envelope};
use warpalign::ydrop::twin::Sweep;
use warpalign::ydrop::{gpu, YdropJob, YdropResult};

const MAX_LEN: usize = 3000;
const RANDOM_MATRICES: usize = 32;
const GPU_BATCH: u64 = 20_000;

fn case(seed: u64, i: u64, pool: &[Arc<Matrix>], constrained: bool) -> Case {
    let rng = &mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i));
    if constrained {
        random_constrained_case(rng, pool, MAX_LEN)
    } else {
        random_case(rng, pool, MAX_LEN)
    }
}

fn report(i: u64, what: &str, want: &Outcome, got: &Outcome, c: &Case) {
    eprintln!("MISMATCH case {i}\n  twin {want:?}\n  {what} {got:?}\n  {}", c.describe());
}

/// Twin vs oracle on all cores; the mismatching cases.
fn twin_vs_oracle(cases: u64, seed: u64, pool: &[Arc<Matrix>], constrained: bool) -> usize {
    let threads = std::thread::available_parallelism().map(|x| x.get()).unwrap_or(2);
    let next = AtomicU64::new(0);
    let mismatches = Mutex::new(0usize);
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= cases {
                    break;
                }
                let c = case(seed, i, pool, constrained);
                let j = c.job();
                let (o, t) = (oracle(&j), twin(&j));
                if o != t {
                    let mut bad = mismatches.lock().unwrap();
                    if *bad < 5 {
                        report(i, "oracle", &t, &o, &c);
                    }
                    *bad += 1;
                }
            });
        }
    });
    mismatches.into_inner().unwrap()
}

/// Each vector sweep vs the spec sweep, results and envelopes, on all cores; the mismatching cases.
fn vector_vs_spec(cases: u64, seed: u64, pool: &[Arc<Matrix>], constrained: bool) -> usize {
    let sweeps = Sweep::vectors();
    eprintln!("vector sweeps: {sweeps:?}");
    let bad = AtomicU64::new(0);
    (0..cases).into_par_iter().for_each(|i| {
        let c = case(seed, i, pool, constrained);
        let j = c.job();
        let run = |sweep| {
            let (mut r, mut e) = (YdropResult::EMPTY, Envelope::default());
            let extent = run_recorded_by(&j, &mut r, &mut e, sweep).expect("memory for the job");
            let o: Outcome = (r.score, r.end1, r.end2, r.truncated, r.ops().to_vec());
            r.release();
            (o, e, extent)
        };
        let want = run(Sweep::Spec);
        for &s in &sweeps {
            let got = run(s);
            if got != want && bad.fetch_add(1, Ordering::Relaxed) < 5 {
                report(i, &format!("{s:?}"), &want.0, &got.0, &c);
            }
        }
    });
    bad.into_inner() as usize
}

/// GPU batches vs twin; the mismatching cases.
fn gpu_vs_twin(rt: &GpuRuntime, cases: u64, seed: u64, pool: &[Arc<Matrix>], constrained: bool) -> usize {
    let (mut bad, mut on_kernel) = (0usize, 0usize);
    for lo in (0..cases).step_by(GPU_BATCH as usize) {
        let batch: Vec<Case> = (lo..(lo + GPU_BATCH).min(cases)).into_par_iter().map(|i| case(seed, i, pool, constrained)).collect();
        let jobs: Vec<YdropJob> = batch.iter().map(Case::job).collect();
        let mut res: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
        let mut envs = vec![Envelope::default(); jobs.len()];
        if let Err(e) = gpu::one_sided_batch_gpu_recorded(rt, &jobs, &mut res, &mut envs) {
            eprintln!("GPU batch failed: {e}");
            std::process::exit(2);
        }
        on_kernel += jobs.par_iter().filter(|j| gpu::plan(j).is_some()).count();
        let got: Vec<Outcome> = res
            .iter_mut()
            .map(|r| {
                let o = (r.score, r.end1, r.end2, r.truncated, r.ops().to_vec());
                r.release();
                o
            })
            .collect();
        let wrong: Vec<(usize, Outcome)> = (0..jobs.len())
            .into_par_iter()
            .filter_map(|k| {
                let (mut r, mut e) = (YdropResult::EMPTY, Envelope::default());
                run_recorded(&jobs[k], &mut r, &mut e).expect("memory for the job");
                r.release();
                if e != envs[k] {
                    eprintln!("case {}: the GPU's envelope differs from the twin's ({} rows vs {})", lo + k as u64, envs[k].rows(), e.rows());
                }
                Some((k, twin(&jobs[k]))).filter(|(_, t)| *t != got[k] || e != envs[k])
            })
            .collect();
        for (k, want) in wrong.iter().take(5usize.saturating_sub(bad)) {
            report(lo + *k as u64, "gpu ", want, &got[*k], &batch[*k]);
        }
        bad += wrong.len();
    }
    eprintln!("{on_kernel} of {cases} cases planned for the kernel");
    bad
}

fn main() {
    let args: Vec<String> = std::env::args().collect();
    let flags = &args[3.min(args.len())..];
    let constrained = flags.iter().any(|f| f == "constrained");
    let on_gpu = flags.iter().any(|f| f == "gpu");
    let vector = flags.iter().any(|f| f == "vector");
    let known = flags.iter().all(|f| f == "constrained" || f == "gpu" || f == "vector") && !(on_gpu && vector);
    let (cases, seed) = match (args.get(1).and_then(|v| v.parse::<u64>().ok()), args.get(2).and_then(|v| v.parse::<u64>().ok())) {
        (Some(c), Some(s)) if known => (c, s),
        _ => {
            eprintln!("usage: ydrop_fuzz CASES SEED [constrained] [gpu | vector]");
            std::process::exit(2);
        }
    };
    let pool = matrix_pool(seed, RANDOM_MATRICES);
    let start = std::time::Instant::now();
    let bad = if on_gpu {
        let rt = GpuRuntime::start().unwrap_or_else(|e| {
            eprintln!("ydrop_fuzz gpu: {e}");
            std::process::exit(2);
        });
        gpu_vs_twin(&rt, cases, seed, &pool, constrained)
    } else if vector {
        vector_vs_spec(cases, seed, &pool, constrained)
    } else {
        twin_vs_oracle(cases, seed, &pool, constrained)
    };
    eprintln!("{:.1}s", start.elapsed().as_secs_f64());
    println!("cases {cases}, mismatches {bad}");
    std::process::exit((bad > 0) as i32);
}
