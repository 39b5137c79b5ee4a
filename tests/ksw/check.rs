//! What the ksw tests share: one result as a comparable value, the three functions (oracle, twin, GPU)
//! behind one trait, and the random-case loops on top of them.

use crate::common::{env_u64, failing_cases, ksw_cases, ksw_exts2_cases, ksw_extz2_cases, Rng};
use rayon::prelude::*;
use std::time::Instant;
use warpalign::gpu::GpuRuntime;
use warpalign::ksw::{gpu, twin, KswExtd2Job, KswExts2Job, KswExtz2Job, KswResult};
use warpalign_ffi::mm2 as c;

/// max, zdropped, (max_q, max_t, mqe, mqe_t, mte, mte_q, score, reach_end), CIGAR.
pub type Out = (u32, u32, [i32; 8], Vec<u32>);

/// A result's fields; releases its CIGAR.
pub fn out_of(r: &mut KswResult) -> Out {
    let o = (r.max, r.zdropped as u32, [r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end], r.cigar().to_vec());
    r.release();
    o
}

/// As [`out_of`], for the twin's and the GPU's results, which promise a null CIGAR when it is empty.
fn checked_out_of(r: &mut KswResult) -> Out {
    assert!(r.n_cigar > 0 || r.cigar.is_null(), "empty CIGAR must be null");
    out_of(r)
}

/// What upstream left in `ez`; frees its CIGAR.
fn oracle_out(ez: c::ksw_extz_t) -> Out {
    let cigar = if ez.n_cigar > 0 { unsafe { std::slice::from_raw_parts(ez.cigar, ez.n_cigar as usize) }.to_vec() } else { Vec::new() };
    let o = (ez.max(), ez.zdropped(), [ez.max_q, ez.max_t, ez.mqe, ez.mqe_t, ez.mte, ez.mte_q, ez.score, ez.reach_end], cigar);
    unsafe { libc::free(ez.cigar.cast()) };
    o
}

/// One of the three ksw functions: its job, the owned case that makes one, upstream's C and the twin.
pub trait Kernel {
    type Job: Sync;
    type Case: Sync + Send;
    /// The prefix of its twin test's knobs (`_SEED`, `_ONLY`, `_CASES`).
    const TWIN_KNOBS: &'static str;
    fn job(case: &Self::Case) -> Self::Job;
    fn describe(case: &Self::Case) -> String;
    /// Query length times target length.
    fn cells(case: &Self::Case) -> f64;
    fn oracle(j: &Self::Job) -> Out;
    fn twin(j: &Self::Job, r: &mut KswResult);
}

/// The functions with a GPU kernel.
pub trait GpuKernel: Kernel {
    fn gpu(rt: &GpuRuntime, jobs: &[Self::Job], res: &mut [KswResult]) -> Result<(), String>;
    /// The block form at `cells` window cells a thread in every launch.
    fn gpu_at(rt: &GpuRuntime, jobs: &[Self::Job], res: &mut [KswResult], cells: usize) -> Result<(), String>;
}

/// The case methods, alike for the three case types (common/ksw_*cases.rs).
macro_rules! case_methods {
    () => {
        fn job(case: &Self::Case) -> Self::Job {
            case.job()
        }
        fn describe(case: &Self::Case) -> String {
            case.describe()
        }
        fn cells(case: &Self::Case) -> f64 {
            case.q.len() as f64 * case.t.len() as f64
        }
    };
}

pub struct Extd2;
pub struct Exts2;
pub struct Extz2;

impl Kernel for Extd2 {
    type Job = KswExtd2Job;
    type Case = ksw_cases::Case;
    const TWIN_KNOBS: &'static str = "KSW_TWIN";
    case_methods!();
    fn oracle(j: &KswExtd2Job) -> Out {
        let mut ez: c::ksw_extz_t = unsafe { std::mem::zeroed() };
        // SAFETY: the job points into its case, alive for the call.
        unsafe {
            c::warpalign_oracle_ksw_extd2_sse(
                std::ptr::null_mut(), j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.q2, j.e2, j.w, j.zdrop,
                j.end_bonus, j.flag, &mut ez,
            )
        };
        oracle_out(ez)
    }
    fn twin(j: &KswExtd2Job, r: &mut KswResult) {
        twin::extd2(j, r).unwrap();
    }
}

impl GpuKernel for Extd2 {
    fn gpu(rt: &GpuRuntime, jobs: &[KswExtd2Job], res: &mut [KswResult]) -> Result<(), String> {
        gpu::extd2_batch_gpu(rt, jobs, res)
    }
    fn gpu_at(rt: &GpuRuntime, jobs: &[KswExtd2Job], res: &mut [KswResult], cells: usize) -> Result<(), String> {
        gpu::extd2_batch_gpu_at(rt, jobs, res, cells)
    }
}

impl Kernel for Exts2 {
    type Job = KswExts2Job;
    type Case = ksw_exts2_cases::Case;
    const TWIN_KNOBS: &'static str = "KSW_TWIN_EXTS2";
    case_methods!();
    fn oracle(j: &KswExts2Job) -> Out {
        let mut ez: c::ksw_extz_t = unsafe { std::mem::zeroed() };
        // SAFETY: the job points into its case, alive for the call.
        unsafe {
            c::warpalign_oracle_ksw_exts2_sse(
                std::ptr::null_mut(), j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.q2, j.noncan, j.zdrop,
                j.end_bonus, j.junc_bonus, j.junc_pen, j.flag, j.junc, &mut ez,
            )
        };
        oracle_out(ez)
    }
    fn twin(j: &KswExts2Job, r: &mut KswResult) {
        twin::exts2(j, r).unwrap();
    }
}

impl GpuKernel for Exts2 {
    fn gpu(rt: &GpuRuntime, jobs: &[KswExts2Job], res: &mut [KswResult]) -> Result<(), String> {
        gpu::exts2_batch_gpu(rt, jobs, res)
    }
    fn gpu_at(rt: &GpuRuntime, jobs: &[KswExts2Job], res: &mut [KswResult], cells: usize) -> Result<(), String> {
        gpu::exts2_batch_gpu_at(rt, jobs, res, cells)
    }
}

impl Kernel for Extz2 {
    type Job = KswExtz2Job;
    type Case = ksw_extz2_cases::Case;
    const TWIN_KNOBS: &'static str = "KSW_TWIN_EXTZ2";
    case_methods!();
    fn oracle(j: &KswExtz2Job) -> Out {
        let mut ez: c::ksw_extz_t = unsafe { std::mem::zeroed() };
        // SAFETY: the job points into its case, alive for the call.
        unsafe {
            c::warpalign_oracle_ksw_extz2_sse(
                std::ptr::null_mut(), j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.w, j.zdrop, j.end_bonus,
                j.flag, &mut ez,
            )
        };
        oracle_out(ez)
    }
    fn twin(j: &KswExtz2Job, r: &mut KswResult) {
        twin::extz2(j, r).unwrap();
    }
}

pub fn twin_run<K: Kernel>(j: &K::Job) -> Out {
    let mut r = KswResult::EMPTY;
    K::twin(j, &mut r);
    checked_out_of(&mut r)
}

pub fn gpu_run<K: GpuKernel>(rt: &GpuRuntime, jobs: &[K::Job]) -> Vec<Out> {
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    K::gpu(rt, jobs, &mut res).unwrap_or_else(|e| panic!("GPU batch: {e}"));
    res.iter_mut().map(checked_out_of).collect()
}

/// Twin and oracle agree on `case`; returns the oracle's result.
pub fn same<K: Kernel>(case: &K::Case) -> Out {
    let j = K::job(case);
    let o = K::oracle(&j);
    assert_eq!(twin_run::<K>(&j), o, "twin differs from the oracle on\n{}", K::describe(case));
    o
}

/// Twin against oracle on the `n` cases `gen(Rng::for_case(seed, i))`, on all cores; the mismatching
/// indices (the first few printed with their replay knobs).
pub fn check_many<K: Kernel>(what: &str, seed: u64, n: u64, gen: fn(&mut Rng) -> K::Case) -> Vec<u64> {
    let start = Instant::now();
    let cells = std::sync::Mutex::new(0f64);
    let knobs = K::TWIN_KNOBS;
    let bad = failing_cases(n, |i| {
        let case = gen(&mut Rng::for_case(seed, i));
        *cells.lock().unwrap() += K::cells(&case);
        let j = K::job(&case);
        let (o, t) = (K::oracle(&j), twin_run::<K>(&j));
        (o != t).then(|| {
            format!("{what}: MISMATCH case {i} (seed {seed}; replay with {knobs}_SEED={seed} {knobs}_ONLY={i})\n  oracle {o:?}\n  twin   {t:?}\n  {}", K::describe(&case))
        })
    });
    eprintln!(
        "{what}: {n} cases ({:.2e} cells), {} mismatches, {:.1}s",
        cells.into_inner().unwrap(), bad.len(), start.elapsed().as_secs_f64()
    );
    bad
}

/// The twin's random test: `<knobs>_CASES` cases of `gen` (else `default_n`) from `<knobs>_SEED` (else 1),
/// or case `<knobs>_ONLY` alone.
pub fn random_twin_test<K: Kernel>(default_n: u64, gen: fn(&mut Rng) -> K::Case) {
    let knobs = K::TWIN_KNOBS;
    let seed = env_u64(&format!("{knobs}_SEED"), 1);
    if let Ok(i) = std::env::var(format!("{knobs}_ONLY")) {
        let i: u64 = i.parse().unwrap();
        let case = gen(&mut Rng::for_case(seed, i));
        eprintln!("{}", K::describe(&case));
        same::<K>(&case);
        return;
    }
    let n = env_u64(&format!("{knobs}_CASES"), default_n);
    let bad = check_many::<K>("random", seed, n, gen);
    assert!(bad.is_empty(), "{} of {n} cases differ; first {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

/// GPU against twin on the `n` cases `gen(Rng::for_case(seed, i))`, in GPU batches of up to 20,000 jobs;
/// the mismatching indices (the first few printed).
pub fn check_many_gpu<K: GpuKernel>(rt: &GpuRuntime, what: &str, seed: u64, n: u64, gen: fn(&mut Rng) -> K::Case) -> Vec<u64> {
    let start = Instant::now();
    let (mut bad, mut cells) = (Vec::new(), 0f64);
    for lo in (0..n).step_by(20_000) {
        let cases: Vec<K::Case> = (lo..(lo + 20_000).min(n)).into_par_iter().map(|i| gen(&mut Rng::for_case(seed, i))).collect();
        cells += cases.iter().map(K::cells).sum::<f64>();
        let jobs: Vec<K::Job> = cases.iter().map(K::job).collect();
        let g = gpu_run::<K>(rt, &jobs);
        let t: Vec<Out> = jobs.par_iter().map(twin_run::<K>).collect();
        for (k, (a, b)) in g.iter().zip(&t).enumerate() {
            if a != b {
                let i = lo + k as u64;
                if bad.len() < 3 {
                    eprintln!("{what}: MISMATCH case {i} (seed {seed})\n  twin {b:?}\n  gpu  {a:?}\n  {}", K::describe(&cases[k]));
                }
                bad.push(i);
            }
        }
    }
    eprintln!("{what}: {n} cases ({cells:.2e} cells), {} mismatches, {:.1}s", bad.len(), start.elapsed().as_secs_f64());
    bad
}

/// One thread, the same jobs through oracle and twin, alternating over chunks of 32 so that a busy machine
/// slows both alike; prints both times (no assertion on speed).
pub fn time_twin_vs_oracle<K: Kernel>(label: &str, jobs: &[K::Job], cells: f64) {
    let (mut to, mut tt, mut so, mut st) = (0f64, 0f64, 0i64, 0i64);
    for chunk in jobs.chunks(32) {
        let t0 = Instant::now();
        for j in chunk {
            so += K::oracle(j).2[6] as i64;
        }
        to += t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        for j in chunk {
            st += twin_run::<K>(j).2[6] as i64;
        }
        tt += t1.elapsed().as_secs_f64();
    }
    assert_eq!(so, st);
    eprintln!(
        "bench {label}: {} jobs ({cells:.2e} cells): oracle {to:.3}s ({:.2} GCUPS), twin {tt:.3}s ({:.2} GCUPS), twin/oracle time = {:.2}x",
        jobs.len(), cells / to / 1e9, cells / tt / 1e9, tt / to
    );
}

/// The bench modes (`label`, flag set on every job) that `<knobs>_BENCH_MODE` leaves (unset: all).
pub fn bench_modes(knobs: &str) -> Vec<(&'static str, i32)> {
    use warpalign::ksw::flag;
    let only = std::env::var(format!("{knobs}_BENCH_MODE")).unwrap_or_default();
    [("cigar", 0), ("cigar+approx", flag::APPROX_MAX), ("score-only", flag::SCORE_ONLY)]
        .into_iter()
        .filter(|(label, _)| only.is_empty() || only == *label)
        .collect()
}
