//! `ksw`: times the ksw engines on real jobs dumped by the patched minimap2 (`WARPALIGN_KSW_DUMP=<file>`, see
//! src/ksw/dump.rs), and checks every output against the upstream oracle (a benchmark of wrong output is
//! void: any mismatch is printed and the exit status is 1).
//!
//! usage: ksw [--reps N] [--sample N] DUMP...
//!        ksw --cache THREADS[,THREADS...] [--arenas N] DUMP...
//!
//! `--cache` times the speculation cache (`ksw::cache::KswCache`) on the dump's extd2 jobs instead, for each
//! thread count: every job recorded once (as minimap2's first pass records its calls; the jobs dealt round robin
//! to the threads), one compute on the CPU twin (not timed), then every job looked up again (as the final pass
//! does), each lookup required to hit. It prints microseconds a lookup, per thread, for both. `--arenas N` caps
//! malloc's arenas first, as the rebuilt minimap2 does while speculating (4).
//!
//! extd2 jobs: (a) the oracle (upstream ksw_extd2_sse, SSE4.1 build) over all cores (rayon), (b) the Rust
//! twin over all cores, (c) the twin and the oracle on one thread over a sample, (d) the GPU engine
//! (`ksw::gpu::extd2_batch_gpu`, host-to-device and back included, after one untimed warm-up call that
//! loads the kernels) when a GPU starts. exts2 jobs: the same with `ksw::gpu::exts2_batch_gpu`. Each timing is the best of `--reps`
//! runs (default 3). The single-thread sample (`--sample`, default 3000 jobs) is every k-th job.
//!
//! Cells: the DP cells inside the band, per job, summed: with `w < 0` (and for exts2, which has no band)
//! `qlen * tlen`; else the number of (i, j), `0 <= i < tlen`, `0 <= j < qlen`, with `|i - j| <= w`. It
//! ignores ksw2's 16-lane padding and Z-drop's early end, so it is the work upstream would do with no
//! Z-drop; GCUPS = cells / seconds / 1e9. Speed-ups are time(a) / time(x).

use rayon::prelude::*;
use std::time::Instant;
use warpalign::ksw::dump::{read_dump, DumpKind, DumpedJob};
use warpalign::ksw::{twin, KswExtd2Job, KswExts2Job, KswResult};
use warpalign_ffi::mm2 as c;

type Out = (u32, u32, [i32; 8], Vec<u32>);
type GpuFn<'a, J> = &'a dyn Fn(&[J]) -> Result<Vec<KswResult>, String>;

fn band_cells(qlen: i32, tlen: i32, w: i32) -> u64 {
    if qlen <= 0 || tlen <= 0 {
        return 0;
    }
    let (q, t) = (qlen as i64, tlen as i64);
    if w < 0 || w as i64 >= q.max(t) {
        return (q * t) as u64;
    }
    let w = w as i64;
    (0..t).map(|i| ((i + w).min(q - 1) - (i - w).max(0) + 1).max(0)).sum::<i64>() as u64
}

fn out_of_ez(ez: &mut c::ksw_extz_t) -> Out {
    let cigar = if ez.n_cigar > 0 { unsafe { std::slice::from_raw_parts(ez.cigar, ez.n_cigar as usize) }.to_vec() } else { Vec::new() };
    let o = (ez.max(), ez.zdropped(), [ez.max_q, ez.max_t, ez.mqe, ez.mqe_t, ez.mte, ez.mte_q, ez.score, ez.reach_end], cigar);
    unsafe { libc::free(ez.cigar.cast()) };
    ez.cigar = std::ptr::null_mut();
    o
}

fn out_of(r: &mut KswResult) -> Out {
    let o = (r.max, r.zdropped as u32, [r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end], r.cigar().to_vec());
    r.release();
    o
}

/// Runs an oracle call in this thread's arena; the CIGAR comes back `malloc`ed, as the outputs expect.
fn in_arena(ez: &mut c::ksw_extz_t, call: impl FnOnce(*mut std::os::raw::c_void, &mut c::ksw_extz_t)) {
    let km = c::thread_km();
    call(km, ez);
    if ez.n_cigar > 0 {
        let n = ez.n_cigar as usize;
        let copy = unsafe { libc::malloc(n * 4) }.cast::<u32>();
        assert!(!copy.is_null(), "out of memory");
        unsafe { std::ptr::copy_nonoverlapping(ez.cigar, copy, n) };
        unsafe { c::warpalign_oracle_kfree(km, ez.cigar.cast()) };
        ez.cigar = copy;
        ez.m_cigar = ez.n_cigar;
    } else if !ez.cigar.is_null() {
        unsafe { c::warpalign_oracle_kfree(km, ez.cigar.cast()) };
        ez.cigar = std::ptr::null_mut();
        ez.m_cigar = 0;
    }
}

/// A kind's jobs as the engine sees them.
trait Job: Sync + Send {
    fn oracle(&self, ez: &mut c::ksw_extz_t);
    fn twin(&self, r: &mut KswResult);
}

impl Job for KswExtd2Job {
    fn oracle(&self, ez: &mut c::ksw_extz_t) {
        let j = self;
        in_arena(ez, |km, ez| unsafe {
            c::warpalign_oracle_ksw_extd2_sse(km, j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.q2, j.e2, j.w, j.zdrop, j.end_bonus, j.flag, ez)
        })
    }
    fn twin(&self, r: &mut KswResult) {
        twin::extd2(self, r).expect("memory for the job")
    }
}

impl Job for KswExts2Job {
    fn oracle(&self, ez: &mut c::ksw_extz_t) {
        let j = self;
        in_arena(ez, |km, ez| unsafe {
            c::warpalign_oracle_ksw_exts2_sse(km, j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.q2, j.noncan, j.zdrop, j.end_bonus, j.junc_bonus, j.junc_pen, j.flag, j.junc, ez)
        })
    }
    fn twin(&self, r: &mut KswResult) {
        twin::exts2(self, r).expect("memory for the job")
    }
}

fn fresh_ez() -> c::ksw_extz_t {
    unsafe { std::mem::zeroed() }
}

/// Best of `reps` timed runs of `f`, which fills fresh outputs; returns (seconds, outputs of the last run).
fn best<T>(reps: usize, mut f: impl FnMut() -> T, mut drop_out: impl FnMut(T) -> Vec<Out>) -> (f64, Vec<Out>) {
    let mut best = f64::INFINITY;
    let mut outs = Vec::new();
    for r in 0..reps {
        let t0 = Instant::now();
        let o = f();
        best = best.min(t0.elapsed().as_secs_f64());
        let v = drop_out(o);
        if r + 1 == reps {
            outs = v;
        }
    }
    (best, outs)
}

/// An oracle output, owning its malloc'ed CIGAR.
struct Ez(c::ksw_extz_t);
// SAFETY: the CIGAR buffer is owned by this value alone.
unsafe impl Send for Ez {}

fn run_oracle<J: Job>(jobs: &[J]) -> Vec<Ez> {
    let mut ez: Vec<Ez> = (0..jobs.len()).map(|_| Ez(fresh_ez())).collect();
    jobs.par_iter().zip(ez.par_iter_mut()).with_max_len(1).for_each(|(j, e)| j.oracle(&mut e.0));
    ez
}

fn run_twin<J: Job>(jobs: &[J]) -> Vec<KswResult> {
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    jobs.par_iter().zip(res.par_iter_mut()).with_max_len(1).for_each(|(j, r)| j.twin(r));
    res
}

fn ez_outs(v: Vec<Ez>) -> Vec<Out> {
    v.into_iter().map(|mut e| out_of_ez(&mut e.0)).collect()
}

fn res_outs(v: Vec<KswResult>) -> Vec<Out> {
    v.into_iter().map(|mut r| out_of(&mut r)).collect()
}

fn mismatches(what: &str, got: &[Out], want: &[Out]) -> usize {
    let bad: Vec<usize> = (0..want.len()).filter(|&i| got[i] != want[i]).collect();
    for &i in bad.iter().take(3) {
        eprintln!("{what}: MISMATCH job {i}\n  oracle {:?}\n  got    {:?}", want[i], got[i]);
    }
    bad.len()
}

struct Row {
    name: String,
    secs: f64,
    cells: u64,
    jobs: usize,
}

fn print_rows(rows: &[Row], base: f64) {
    println!("  {:<34} {:>9} {:>15} {:>10} {:>8} {:>9}", "path", "jobs", "cells", "seconds", "GCUPS", "vs (a)");
    for r in rows {
        let gcups = r.cells as f64 / r.secs / 1e9;
        let rel = if r.name.starts_with("(c)") { "-".to_string() } else { format!("{:.2}x", base / r.secs) };
        println!("  {:<34} {:>9} {:>15} {:>10.4} {:>8.3} {:>9}", r.name, r.jobs, r.cells, r.secs, gcups, rel);
    }
}

/// Times one kind; returns the mismatch count.
fn bench_kind<J: Job>(
    kind: &str,
    jobs: &[J],
    cells: &[u64],
    reps: usize,
    sample: usize,
    gpu: Option<GpuFn<'_, J>>,
) -> usize {
    let total: u64 = cells.iter().sum();
    let threads = rayon::current_num_threads();
    println!("{kind}: {} jobs, {} cells (band area), {threads} threads", jobs.len(), total);
    if jobs.is_empty() {
        return 0;
    }
    let mut rows = Vec::new();
    let mut bad = 0;
    let (ta, oracle) = best(reps, || run_oracle(jobs), ez_outs);
    rows.push(Row { name: format!("(a) oracle, {threads} threads"), secs: ta, cells: total, jobs: jobs.len() });
    let (tb, tw) = best(reps, || run_twin(jobs), res_outs);
    bad += mismatches(&format!("{kind} twin"), &tw, &oracle);
    rows.push(Row { name: format!("(b) twin, {threads} threads"), secs: tb, cells: total, jobs: jobs.len() });
    drop(tw);

    // (c): every k-th job, one thread
    let k = jobs.len().div_ceil(sample.max(1)).max(1);
    let idx: Vec<usize> = (0..jobs.len()).step_by(k).collect();
    let s_cells: u64 = idx.iter().map(|&i| cells[i]).sum();
    let (tc, so) = best(
        reps,
        || {
            idx.iter()
                .map(|&i| {
                    let mut r = KswResult::EMPTY;
                    jobs[i].twin(&mut r);
                    r
                })
                .collect::<Vec<_>>()
        },
        res_outs,
    );
    let want: Vec<Out> = idx.iter().map(|&i| oracle[i].clone()).collect();
    bad += mismatches(&format!("{kind} twin 1 thread"), &so, &want);
    let (tc_o, _) = best(
        reps,
        || {
            idx.iter()
                .map(|&i| {
                    let mut e = Ez(fresh_ez());
                    jobs[i].oracle(&mut e.0);
                    e
                })
                .collect::<Vec<_>>()
        },
        ez_outs,
    );
    rows.push(Row { name: "(c) twin, 1 thread (sample)".into(), secs: tc, cells: s_cells, jobs: idx.len() });
    rows.push(Row { name: "(c) oracle, 1 thread (sample)".into(), secs: tc_o, cells: s_cells, jobs: idx.len() });

    if let Some(g) = gpu {
        // warm-up: loads (or compiles) the kernels
        let t0 = Instant::now();
        match g(jobs) {
            Ok(r) => {
                let warm = t0.elapsed().as_secs_f64();
                drop(res_outs(r));
                let (td, go) = best(reps, || g(jobs).unwrap_or_else(|e| panic!("GPU: {e}")), res_outs);
                bad += mismatches(&format!("{kind} GPU"), &go, &oracle);
                rows.push(Row { name: "(d) GPU, incl. transfers".into(), secs: td, cells: total, jobs: jobs.len() });
                println!("  (GPU first call, with kernel load: {warm:.3} s)");
            }
            Err(e) => println!("  (d) GPU: failed: {e}"),
        }
    }
    print_rows(&rows, ta);
    println!("  twin 1 thread vs oracle 1 thread: {:.2}x", tc_o / tc);
    println!("  {kind}: {bad} mismatches against the oracle");
    bad
}

/// `--cache`: recording and answering lookups of `jobs` with each thread count (see the module doc).
fn time_cache(jobs: &[KswExtd2Job], threads: &[usize]) {
    use warpalign::ksw::cache::KswCache;
    let engine = warpalign::Engine::cpu();
    println!("cache: {} extd2 jobs, {:.0} bases a job", jobs.len(), jobs.iter().map(|j| (j.qlen + j.tlen) as f64).sum::<f64>() / jobs.len().max(1) as f64);
    println!("  threads   record us/lookup   answer us/lookup   (per thread: wall x threads / lookups)");
    for &t in threads {
        let cache = KswCache::new();
        // every thread looks its share up at once; returns the wall seconds and how many lookups hit
        let pass = |record: bool| {
            let barrier = std::sync::Barrier::new(t + 1);
            let hits = std::sync::atomic::AtomicUsize::new(0);
            let start = std::thread::scope(|s| {
                for k in 0..t {
                    let (barrier, hits, cache) = (&barrier, &hits, &cache);
                    s.spawn(move || {
                        let mut out = KswResult::EMPTY;
                        barrier.wait();
                        let mut n = 0;
                        for j in jobs.iter().skip(k).step_by(t) {
                            // SAFETY: the job points into the dump, alive for the run.
                            n += unsafe { cache.get_extd2(j, record, &mut out) } as usize;
                        }
                        hits.fetch_add(n, std::sync::atomic::Ordering::Relaxed);
                    });
                }
                barrier.wait();
                Instant::now()
            });
            (start.elapsed().as_secs_f64(), hits.into_inner())
        };
        let (rec, _) = pass(true);
        cache.compute(&engine).expect("cache compute");
        let (ans, hits) = pass(false);
        if hits != jobs.len() {
            eprintln!("ksw --cache: {hits} of {} lookups hit after the compute", jobs.len());
            std::process::exit(1);
        }
        let us = |s: f64| s * 1e6 * t as f64 / jobs.len().max(1) as f64;
        println!("  {t:7}   {:16.3}   {:16.3}", us(rec), us(ans));
    }
}

fn main() {
    let mut reps = 3usize;
    let mut sample = 3000usize;
    let mut cache_threads: Vec<usize> = Vec::new();
    let mut files = Vec::new();
    let mut args = std::env::args().skip(1);
    while let Some(a) = args.next() {
        match a.as_str() {
            "--reps" => reps = args.next().and_then(|v| v.parse().ok()).expect("--reps N"),
            "--sample" => sample = args.next().and_then(|v| v.parse().ok()).expect("--sample N"),
            "--cache" => {
                cache_threads = args.next().map(|v| v.split(',').map(|t| t.parse().expect("--cache THREADS[,THREADS...]")).collect()).expect("--cache THREADS[,THREADS...]");
                assert!(cache_threads.iter().all(|&t| t > 0), "--cache: thread counts above 0");
            }
            "--arenas" => {
                let n: i32 = args.next().and_then(|v| v.parse().ok()).expect("--arenas N");
                // SAFETY: a plain setting, before any other thread runs.
                unsafe { libc::mallopt(libc::M_ARENA_MAX, n) };
            }
            "-h" | "--help" => {
                eprintln!("usage: ksw [--reps N] [--sample N] DUMP...  or  ksw --cache THREADS[,THREADS...] [--arenas N] DUMP...   (dumps from WARPALIGN_KSW_DUMP=<file>)");
                return;
            }
            _ => files.push(a),
        }
    }
    if files.is_empty() {
        eprintln!("usage: ksw [--reps N] [--sample N] DUMP...  or  ksw --cache THREADS[,THREADS...] [--arenas N] DUMP...   (dumps from WARPALIGN_KSW_DUMP=<file>)");
        std::process::exit(2);
    }
    let mut all: Vec<DumpedJob> = Vec::new();
    for f in &files {
        let j = read_dump(f).unwrap_or_else(|e| {
            eprintln!("ksw: {f}: {e}");
            std::process::exit(2)
        });
        println!("{f}: {} jobs", j.len());
        all.extend(j);
    }
    if !cache_threads.is_empty() {
        let jobs: Vec<KswExtd2Job> = all.iter().filter_map(|d| d.extd2_job()).collect();
        time_cache(&jobs, &cache_threads);
        return;
    }
    let count = |k: DumpKind| all.iter().filter(|j| j.kind == k).count();
    println!("jobs: extd2 {}, exts2 {}, extz2 {} (extz2 not timed)", count(DumpKind::Extd2), count(DumpKind::Exts2), count(DumpKind::Extz2));

    let gpu_rt = match warpalign::gpu::GpuRuntime::start() {
        Ok(rt) => {
            println!("GPU: {} ({})", rt.device_name(), rt.arch());
            Some(rt)
        }
        Err(e) => {
            println!("GPU: none ({e})");
            None
        }
    };

    let mut bad = 0;
    let d2: Vec<&DumpedJob> = all.iter().filter(|j| j.kind == DumpKind::Extd2).collect();
    let d2_jobs: Vec<KswExtd2Job> = d2.iter().map(|j| j.extd2_job().unwrap()).collect();
    let d2_cells: Vec<u64> = d2.iter().map(|j| band_cells(j.qlen, j.tlen, j.w)).collect();
    let gpu_fn = |jobs: &[KswExtd2Job]| -> Result<Vec<KswResult>, String> {
        let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
        warpalign::ksw::gpu::extd2_batch_gpu(gpu_rt.as_ref().unwrap(), jobs, &mut res)?;
        Ok(res)
    };
    let gpu_dyn: Option<GpuFn<'_, KswExtd2Job>> = gpu_rt.as_ref().map(|_| &gpu_fn as _);
    bad += bench_kind("extd2", &d2_jobs, &d2_cells, reps, sample, gpu_dyn);

    let s2: Vec<&DumpedJob> = all.iter().filter(|j| j.kind == DumpKind::Exts2).collect();
    let s2_jobs: Vec<KswExts2Job> = s2.iter().map(|j| j.exts2_job().unwrap()).collect();
    let s2_cells: Vec<u64> = s2.iter().map(|j| band_cells(j.qlen, j.tlen, -1)).collect();
    let gpu_fn_s = |jobs: &[KswExts2Job]| -> Result<Vec<KswResult>, String> {
        let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
        warpalign::ksw::gpu::exts2_batch_gpu(gpu_rt.as_ref().unwrap(), jobs, &mut res)?;
        Ok(res)
    };
    let gpu_dyn_s: Option<GpuFn<'_, KswExts2Job>> = gpu_rt.as_ref().map(|_| &gpu_fn_s as _);
    bad += bench_kind("exts2", &s2_jobs, &s2_cells, reps, sample, gpu_dyn_s);

    if bad > 0 {
        eprintln!("ksw: {bad} mismatches against the oracle: these timings are void");
        std::process::exit(1);
    }
    println!("all outputs equal the oracle's");
}
