//! `chain`: times `mg_lchain_dp` on random long-read-like anchor sets (tests/common/chain_cases.rs with
//! map-ont, map-pb and map-hifi parameters, 500 to 100,000 anchors per read): (a) the oracle (upstream C) over
//! all cores (rayon), (b) the Rust twin over all cores, (c) the GPU engine (`chain::gpu::dp_batch_gpu`: fill on
//! the GPU, backtrack and compaction on all cores; transfers included, after one untimed warm-up call) and
//! (d) its fill alone. Every output is checked against the oracle (a benchmark of wrong output is void: any
//! mismatch is printed and the exit status is 1). Each timing is the best of `--reps` runs (default 3).
//! "pairs" are the comput_sc evaluations of the fill's main scan (upstream's own work, counted by the twin).
//!
//! `--fuzz N` instead compares the GPU fill (f, p, v, t and counters) with the twin's on N random sets of
//! that generator (all presets, wild parameters), seed `--seed S`.
//!
//! `--dump FILE` instead times the same four paths on real anchor sets: the jobs of a chain dump written by the
//! patched minimap2 (`WARPALIGN_CHAIN_DUMP=FILE`, see src/chain/dump.rs), all of them, then those of reads
//! with 50 kb of query or more and the shorter ones apart (the query length of a job: its anchors' largest
//! `q_pos + q_span`). Without a GPU the GPU rows say "skipped: no GPU".
//!
//! usage: chain [--reads N] [--reps N] [--seed S] [--fuzz N] [--dump FILE]

#[path = "../../../tests/common/mod.rs"]
mod common;

use common::chain_cases::*;
use common::Rng;
use rayon::prelude::*;
use std::time::Instant;
use warpalign::chain::gpu::{dp_batch_gpu, fill_batch_gpu};
use warpalign::chain::dump::read_dump;
use warpalign::chain::{twin, Anchor, ChainDpJob, ChainDpResult};
use warpalign::gpu::GpuRuntime;
use warpalign_ffi::mm2 as c;

type Out = (Vec<u64>, Vec<Anchor>);

/// Query length from which a dumped call counts as an ultra-long read's.
const LONG_QUERY: u64 = 50_000;

fn oracle(j: &ChainDpJob) -> Out {
    let a = twin::job_anchors(j);
    let n = a.len();
    let km = c::thread_km();
    // SAFETY: mg_lchain_dp takes a copy of the anchors in this thread's arena and frees it; its outputs, in the
    // same arena, are read by their counts, then freed there.
    unsafe {
        let p = if n == 0 { std::ptr::null_mut() } else { c::warpalign_oracle_kmalloc(km, n * 16) as *mut Anchor };
        assert!(n == 0 || !p.is_null());
        if n > 0 {
            std::ptr::copy_nonoverlapping(a.as_ptr(), p, n);
        }
        let (mut n_u, mut u) = (0i32, std::ptr::null_mut::<u64>());
        let b = c::warpalign_oracle_mg_lchain_dp(
            j.max_dist_x, j.max_dist_y, j.bw, j.max_skip, j.max_iter, j.min_cnt, j.min_sc,
            j.chn_pen_gap, j.chn_pen_skip, j.is_cdna, j.n_seg, n as i64, p.cast(), &mut n_u, &mut u, km,
        ) as *mut Anchor;
        let uu = if u.is_null() || n_u == 0 { vec![] } else { std::slice::from_raw_parts(u, n_u as usize).to_vec() };
        let n_b: usize = uu.iter().map(|&x| x as u32 as usize).sum();
        let bb = if b.is_null() { vec![] } else { std::slice::from_raw_parts(b, n_b).to_vec() };
        c::warpalign_oracle_kfree(km, u.cast());
        c::warpalign_oracle_kfree(km, b.cast());
        (uu, bb)
    }
}

fn take(r: &mut ChainDpResult) -> Out {
    let o = (r.chains().to_vec(), r.anchors().to_vec());
    r.release();
    o
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut out = None;
    for _ in 0..reps {
        let t0 = Instant::now();
        let o = f();
        best = best.min(t0.elapsed().as_secs_f64());
        out = Some(o);
    }
    (best, out.expect("reps >= 1"))
}

/// A long read's anchor count: mostly 500-20,000, now and then up to 100,000 (ultra-long reads).
fn read_size(rng: &mut Rng) -> usize {
    match rng.below(100) {
        0..=4 => rng.range(20_000, 100_000) as usize,
        5..=39 => rng.range(5000, 20_000) as usize,
        _ => rng.range(500, 5000) as usize,
    }
}

fn fuzz(rt: &GpuRuntime, n: u64, seed: u64) -> bool {
    let t0 = Instant::now();
    let (mut bad, mut anchors, mut pairs) = (0u64, 0u64, 0u64);
    for lo in (0..n).step_by(50_000) {
        let cases: Vec<_> = (lo..(lo + 50_000).min(n)).into_par_iter().map(|i| random_case(seed, i)).collect();
        let jobs: Vec<ChainDpJob> = cases.iter().map(|(_, c, a)| c.job(a)).collect();
        let got = fill_batch_gpu(rt, &jobs).unwrap_or_else(|e| panic!("fill_batch_gpu: {e}"));
        let res: Vec<(bool, u64)> = got
            .into_par_iter()
            .zip(jobs.par_iter())
            .enumerate()
            .map(|(k, (g, j))| {
                let want = twin::fill(j).expect("memory for the fill");
                let same = want == g;
                if !same {
                    eprintln!("MISMATCH seed {seed} case {}: {:?}", lo + k as u64, cases[k].1);
                }
                (same, want.n_visited)
            })
            .collect();
        bad += res.iter().filter(|r| !r.0).count() as u64;
        pairs += res.iter().map(|r| r.1).sum::<u64>();
        anchors += jobs.iter().map(|j| j.n_anchors as u64).sum::<u64>();
    }
    println!(
        "fuzz: {n} random sets (seed {seed}), {anchors} anchors, {pairs} pairs: {bad} mismatches in f, p, v, t and counters, {:.1} s",
        t0.elapsed().as_secs_f64()
    );
    bad == 0
}

/// Times (a) to (d) on `jobs` (`pairs` comput_sc evaluations in all), checks (b) and (c) against (a) and prints
/// the table; the number of outputs that differ from the oracle's.
fn time_paths(jobs: &[ChainDpJob], pairs: u64, rt: Option<&GpuRuntime>, reps: usize) -> usize {
    let (t_oracle, want) = best_of(reps, || jobs.par_iter().map(oracle).collect::<Vec<Out>>());
    let (t_twin, twin_out) = best_of(reps, || {
        jobs.par_iter()
            .map(|j| {
                let mut r = ChainDpResult::EMPTY;
                twin::lchain_dp(j, &mut r).expect("memory for the chains");
                take(&mut r)
            })
            .collect::<Vec<Out>>()
    });
    let mut bad = twin_out.iter().zip(&want).filter(|(a, b)| a != b).count();
    let mut rows = vec![("(a) oracle, all cores", Some(t_oracle)), ("(b) twin, all cores", Some(t_twin))];
    if let Some(rt) = rt {
        let run = || {
            let mut res: Vec<ChainDpResult> = (0..jobs.len()).map(|_| ChainDpResult::EMPTY).collect();
            dp_batch_gpu(rt, jobs, &mut res).unwrap_or_else(|e| panic!("dp_batch_gpu: {e}"));
            res.par_iter_mut().map(take).collect::<Vec<Out>>()
        };
        run(); // loads the kernel
        let (t_gpu, gpu_out) = best_of(reps, run);
        bad += gpu_out.iter().zip(&want).filter(|(a, b)| a != b).count();
        let (t_fill, _) = best_of(reps, || fill_batch_gpu(rt, jobs).unwrap_or_else(|e| panic!("fill_batch_gpu: {e}")));
        rows.push(("(c) GPU fill + CPU backtrack", Some(t_gpu)));
        rows.push(("(d) GPU fill alone", Some(t_fill)));
    } else {
        rows.push(("(c) GPU fill + CPU backtrack", None));
        rows.push(("(d) GPU fill alone", None));
    }
    println!("  {:<30} {:>10} {:>14} {:>10} {:>10}", "path", "seconds", "Gpairs/s", "vs (a)", "vs (b)");
    for (name, t) in rows {
        match t {
            Some(t) => println!("  {name:<30} {t:>10.3} {:>14.3} {:>10.2} {:>10.2}", pairs as f64 / t / 1e9, t_oracle / t, t_twin / t),
            None => println!("  {name:<30} skipped: no GPU"),
        }
    }
    bad
}

/// `--dump FILE`: all jobs, then reads of >= 50 kb of query and the shorter ones.
fn dump_mode(path: &str, rt: Option<&GpuRuntime>, reps: usize) -> usize {
    let t0 = Instant::now();
    let dumped = read_dump(path).unwrap_or_else(|e| {
        eprintln!("chain: reading {path}: {e}");
        std::process::exit(2)
    });
    println!("chain: {path}: {} calls read in {:.1} s", dumped.len(), t0.elapsed().as_secs_f64());
    let long: Vec<bool> = dumped.iter().map(|d| d.query_span() >= LONG_QUERY).collect();
    let mut bad = 0;
    for (label, keep) in [("all calls", None), ("reads >= 50 kb", Some(true)), ("reads < 50 kb", Some(false))] {
        let jobs: Vec<ChainDpJob> =
            dumped.iter().zip(&long).filter(|(_, &l)| keep.map_or(true, |k| k == l)).map(|(d, _)| d.job()).collect();
        if jobs.is_empty() {
            println!("{label}: none");
            continue;
        }
        let anchors: u64 = jobs.iter().map(|j| j.n_anchors as u64).sum();
        let pairs: u64 = jobs.par_iter().map(|j| twin::fill(j).expect("memory for the fill").n_visited).sum();
        let largest = jobs.iter().map(|j| j.n_anchors).max().unwrap_or(0);
        println!(
            "{label}: {} calls, {anchors} anchors (largest {largest}), {pairs} pairs, {} threads, best of {reps}",
            jobs.len(),
            rayon::current_num_threads()
        );
        bad += time_paths(&jobs, pairs, rt, reps);
    }
    bad
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let opt = |name: &str, d: u64| -> u64 {
        args.iter().position(|a| a == name).and_then(|i| args.get(i + 1)).map(|v| v.parse().expect("a number")).unwrap_or(d)
    };
    let (n_reads, reps, seed) = (opt("--reads", 2000), opt("--reps", 3) as usize, opt("--seed", 1));
    let rt = match GpuRuntime::start() {
        Ok(rt) => Some(rt),
        Err(e) => {
            eprintln!("chain: {e}; the GPU rows are skipped");
            None
        }
    };
    if args.iter().any(|a| a == "--fuzz") {
        let rt = rt.unwrap_or_else(|| {
            eprintln!("chain --fuzz needs a GPU");
            std::process::exit(2)
        });
        std::process::exit(if fuzz(&rt, opt("--fuzz", 100_000), seed) { 0 } else { 1 });
    }

    let bad = if let Some(i) = args.iter().position(|a| a == "--dump") {
        let path = args.get(i + 1).unwrap_or_else(|| {
            eprintln!("chain --dump needs a file");
            std::process::exit(2)
        });
        dump_mode(path, rt.as_ref(), reps)
    } else {
        let sets: Vec<(Cfg, Vec<Anchor>)> = (0..n_reads)
            .into_par_iter()
            .map(|i| {
                let mut rng = Rng::new(seed.wrapping_mul(0x9E37_79B9) ^ i);
                let p = [Preset::MapOnt, Preset::MapOnt, Preset::MapPb, Preset::MapHifi][(i % 4) as usize];
                let (k, mut cfg, qlen) = preset_cfg(p, &mut rng);
                // minimap2's defaults for these presets
                cfg.max_skip = 25;
                cfg.max_iter = 5000;
                let n = read_size(&mut rng);
                let a = random_anchors(&mut rng, k, &cfg, qlen.max(4 * n as i64), n);
                (cfg, a)
            })
            .collect();
        let jobs: Vec<ChainDpJob> = sets.iter().map(|(c, a)| c.job(a)).collect();
        let anchors: u64 = jobs.iter().map(|j| j.n_anchors as u64).sum();
        let pairs: u64 = jobs.par_iter().map(|j| twin::fill(j).expect("memory for the fill").n_visited).sum();
        let largest = jobs.iter().map(|j| j.n_anchors).max().unwrap_or(0);
        println!(
            "chain: {n_reads} long-read-like sets (map-ont, map-pb, map-hifi), {anchors} anchors (largest {largest}), {pairs} pairs, {} threads, best of {reps}",
            rayon::current_num_threads()
        );
        time_paths(&jobs, pairs, rt.as_ref(), reps)
    };
    if bad > 0 {
        println!("chain: {bad} sets differ from the oracle");
        std::process::exit(1);
    }
    println!("chain: all outputs equal the oracle's");
}
