//! `ydrop --dump FILE`: times the y-drop engines on the calls of a LASTZ run, dumped by the patched LASTZ
//! (`WARPALIGN_YDROP_DUMP=FILE`, see src/ydrop/dump.rs; `.gz` read as such), every call run without its earlier
//! alignments (as LASTZ's extensions computed ahead run): (a) the twin on one thread (with `--one-thread`; its spec sweep and its
//! vector sweep, whose results and envelopes must be equal), (b) the twin over all
//! cores (rayon), (c) the GPU batch of all calls, (d) the GPU in waves of `--wave K` calls in LASTZ's order,
//! one batch after the other (what a pool handing waves of anchors ahead to the GPU would see), (e) with
//! `--row-cap R`, the GPU batch of all calls leaving those past R rows to the twin over all cores, which runs
//! them after the batch and, separately, beside it (as LASTZ's pool does). Every GPU
//! result is checked against the twin's (a mismatch is printed and the exit status is 1). Each timing is
//! the best of `--reps` runs (default 3), after one untimed GPU warm-up. Cells: the twin's swept cells.
//! (c) and (d) also print the time per row of each launch's longest call (an upper bound on a row's latency).
//! `--take N` keeps the first N calls only. `--largest K` also times the K largest calls with the default
//! sweep, each alone on one thread and then all K at once on K fresh threads (how much a call slows down when
//! every core runs one, as in LASTZ's pool at the start of its anchor loop).
//!
//! usage: ydrop --dump FILE [--reps N] [--wave K]... [--row-cap R]... [--take N] [--largest K] [--one-thread]

use rayon::prelude::*;
use std::io::Read;
use std::time::Instant;
use warpalign::gpu::GpuRuntime;
use warpalign::ydrop::dump::{parse_dump, DumpedJob};
use warpalign::ydrop::gpu::{one_sided_batch_gpu, one_sided_batch_gpu_capped};
use warpalign::ydrop::twin::shadow::Envelope;
use warpalign::ydrop::twin::{self, Sweep};
use warpalign::ydrop::{YdropJob, YdropResult};

type Outcome = (i32, u32, u32, i32, Vec<u32>);

fn outcome(r: &YdropResult) -> Outcome {
    (r.score, r.end1, r.end2, r.truncated, r.ops().to_vec())
}

fn best_of<T>(reps: usize, mut f: impl FnMut() -> T) -> (f64, T) {
    let mut best = f64::INFINITY;
    let mut last = None;
    for _ in 0..reps.max(1) {
        let t = Instant::now();
        let v = f();
        best = best.min(t.elapsed().as_secs_f64());
        last = Some(v);
    }
    (best, last.expect("one run"))
}

fn twin_all(jobs: &[YdropJob], parallel: bool, sweep: Sweep) -> Vec<Outcome> {
    let one = |j: &YdropJob| {
        let mut r = YdropResult::EMPTY;
        twin::one_sided_by(j, &mut r, sweep).expect("memory for the job");
        let o = outcome(&r);
        r.release();
        o
    };
    if parallel {
        jobs.par_iter().with_max_len(1).map(one).collect()
    } else {
        jobs.iter().map(one).collect()
    }
}

fn gpu_all(rt: &GpuRuntime, jobs: &[YdropJob], wave: usize) -> Vec<Outcome> {
    let mut out = Vec::with_capacity(jobs.len());
    for chunk in jobs.chunks(wave.max(1)) {
        let mut res: Vec<YdropResult> = chunk.iter().map(|_| YdropResult::EMPTY).collect();
        one_sided_batch_gpu(rt, chunk, &mut res).unwrap_or_else(|e| {
            eprintln!("ydrop: GPU batch failed: {e}");
            std::process::exit(2)
        });
        out.extend(res.iter_mut().map(|r| {
            let o = outcome(r);
            r.release();
            o
        }));
    }
    out
}

/// A call's run with the default sweep: its seconds.
fn run_one(j: &YdropJob) -> f64 {
    let t = Instant::now();
    let mut r = YdropResult::EMPTY;
    twin::one_sided(j, &mut r).expect("memory for the job");
    let dt = t.elapsed().as_secs_f64();
    r.release();
    dt
}

fn time_largest(jobs: &[YdropJob], k: usize) {
    let mut sized: Vec<(u64, usize)> = jobs
        .iter()
        .enumerate()
        .map(|(i, j)| {
            let c0 = twin::cells_swept();
            run_one(j);
            (twin::cells_swept() - c0, i)
        })
        .collect();
    sized.sort_unstable_by(|x, y| y.cmp(x));
    sized.truncate(k);
    let alone: Vec<f64> = sized.iter().map(|&(_, i)| run_one(&jobs[i])).collect();
    // (twice on the same threads: the first run also grows each fresh thread's scratch)
    let go = std::sync::Barrier::new(sized.len());
    let together: Vec<(f64, f64)> = std::thread::scope(|sc| {
        let hs: Vec<_> = sized
            .iter()
            .map(|&(_, i)| {
                let go = &go;
                sc.spawn(move || {
                    go.wait();
                    let first = run_one(&jobs[i]);
                    go.wait();
                    (first, run_one(&jobs[i]))
                })
            })
            .collect();
        hs.into_iter().map(|h| h.join().expect("a timing thread")).collect()
    });
    println!(
        "  the {} largest calls, default sweep: alone on one thread, then all at once on {} fresh threads, twice",
        sized.len(),
        sized.len()
    );
    for ((&(cells, i), a), t) in sized.iter().zip(&alone).zip(&together) {
        let rate = |s: f64| cells as f64 / s / 1e9;
        println!(
            "      call {i:5}: {:5.1}M cells  alone {:6.2} ms ({:.2} Gcells/s)  together {:6.2} ms, again {:6.2} ms ({:.2} Gcells/s)",
            cells as f64 / 1e6,
            a * 1e3,
            rate(*a),
            t.0 * 1e3,
            t.1 * 1e3,
            rate(t.1)
        );
    }
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let (mut dump, mut reps, mut waves, mut take, mut largest) = (None, 3usize, Vec::new(), None::<usize>, 0usize);
    let mut caps: Vec<u32> = Vec::new();
    let one_thread = args.iter().any(|a| a == "--one-thread");
    let mut it = args.iter().filter(|a| *a != "--one-thread");
    while let Some(a) = it.next() {
        let v = it.next();
        match (a.as_str(), v) {
            ("--dump", Some(v)) => dump = Some(v.clone()),
            ("--reps", Some(v)) => reps = v.parse().unwrap_or(3),
            ("--wave", Some(v)) => waves.push(v.parse::<usize>().unwrap_or(64)),
            ("--take", Some(v)) => take = v.parse().ok(),
            ("--row-cap", Some(v)) => caps.push(v.parse().unwrap_or(8192)),
            ("--largest", Some(v)) => largest = v.parse().unwrap_or(0),
            _ => {
                eprintln!("usage: ydrop --dump FILE [--reps N] [--wave K]... [--row-cap R]... [--take N] [--largest K] [--one-thread]");
                std::process::exit(2);
            }
        }
    }
    let Some(dump) = dump else {
        eprintln!("usage: ydrop --dump FILE [--reps N] [--wave K]... [--row-cap R]... [--take N] [--largest K] [--one-thread]");
        std::process::exit(2);
    };
    let mut raw = Vec::new();
    let read = std::fs::File::open(&dump).and_then(|mut f| {
        if dump.ends_with(".gz") {
            flate2::read::GzDecoder::new(f).read_to_end(&mut raw)
        } else {
            f.read_to_end(&mut raw)
        }
    });
    let dumped: Vec<DumpedJob> = read.and_then(|_| parse_dump(&raw)).unwrap_or_else(|e| {
        eprintln!("ydrop: {dump}: {e}");
        std::process::exit(2)
    });
    drop(raw);
    let mut dumped = dumped;
    dumped.truncate(take.unwrap_or(usize::MAX));
    let seqs: Vec<_> = dumped.iter().map(|d| d.sequences()).collect();
    let jobs: Vec<YdropJob> =
        dumped.iter().zip(&seqs).map(|(d, s)| YdropJob { bounds: std::ptr::null(), ..d.job(s) }).collect();
    let threads = rayon::current_num_threads();

    let c0 = twin::cells_swept();
    let want = twin_all(&jobs, true, Sweep::Spec);
    let cells = twin::cells_swept() - c0;
    println!("{} calls (run without their earlier alignments), {:.3} Gcells", jobs.len(), cells as f64 / 1e9);
    let rate = |t: f64| format!("{t:.4} s, {:.2} Gcells/s", cells as f64 / 1e9 / t);
    let bad = std::cell::Cell::new(0usize);
    let check = |name: &str, got: &[Outcome]| {
        for (i, (g, w)) in got.iter().zip(&want).enumerate() {
            if g != w {
                bad.set(bad.get() + 1);
                if bad.get() <= 5 {
                    eprintln!("mismatch ({name}) call {i}: {:?} twin {:?}", (g.0, g.1, g.2, g.3, g.4.len()), (w.0, w.1, w.2, w.3, w.4.len()));
                }
            }
        }
    };
    let name_of = |s: Sweep| match s {
        Sweep::Spec => "spec sweep",
        Sweep::Lanes8 => "vector sweep, 8 lanes (AVX2)",
        Sweep::Lanes16 => "vector sweep, 16 lanes (AVX-512)",
        Sweep::Lanes32 => "vector sweep, 32 lanes (AVX-512BW)",
    };
    let sweeps: Vec<Sweep> = std::iter::once(Sweep::Spec).chain(Sweep::vectors()).collect();
    if one_thread {
        let mut envs = Vec::new();
        for &sweep in &sweeps {
            let name = name_of(sweep);
            let t = Instant::now();
            let mut rows = 0u64;
            let mut sizes: Vec<u64> = Vec::with_capacity(jobs.len());
            let mut env_of = Vec::with_capacity(jobs.len());
            // rows' chunks for chunks of 512, 768 and 1,024 columns, over all calls and over the longest
            let (mut chunks, mut longest) = ([0u64; 3], (0usize, [0u64; 3]));
            for j in &jobs {
                let c0 = twin::cells_swept();
                let (mut r, mut e) = (YdropResult::EMPTY, twin::shadow::Envelope::default());
                twin::shadow::run_recorded_by(j, &mut r, &mut e, sweep).expect("memory for the job");
                r.release();
                rows += e.rows() as u64;
                if sweep == Sweep::Spec {
                    let mut c = [0u64; 3];
                    for w in e.row_widths() {
                        for (k, size) in [512, 768, 1024].into_iter().enumerate() {
                            c[k] += w.div_ceil(size).max(1) as u64;
                        }
                    }
                    (0..3).for_each(|k| chunks[k] += c[k]);
                    if e.rows() > longest.0 {
                        longest = (e.rows(), c);
                    }
                }
                sizes.push(twin::cells_swept() - c0);
                env_of.push(e);
            }
            println!("  (a) twin, 1 thread, {name:28} {}", rate(t.elapsed().as_secs_f64()));
            envs.push(env_of);
            if sweep == Sweep::Spec {
                sizes.sort_unstable_by(|x, y| y.cmp(x));
                let top: Vec<String> = sizes.iter().take(8).map(|c| format!("{:.1}M", *c as f64 / 1e6)).collect();
                println!("      largest calls (cells): {}; median {:.2}M", top.join(" "), sizes[sizes.len() / 2] as f64 / 1e6);
                println!("      {rows} rows, {:.0} cells a row", cells as f64 / rows as f64);
                let per_row = |c: [u64; 3], r: u64| c.map(|c| format!("{:.3}", c as f64 / r.max(1) as f64)).join(" / ");
                println!(
                    "      a GPU block's chunks a row, chunks of 512 / 768 / 1,024 columns: {} (the longest call, {} rows: {})",
                    per_row(chunks, rows),
                    longest.0,
                    per_row(longest.1, longest.0 as u64)
                );
            }
        }
        let differ: usize = envs[1..].iter().map(|e| envs[0].iter().zip(e).filter(|(a, b)| a != b).count()).sum();
        println!("      envelopes differing from the spec's: {differ}");
        bad.set(bad.get() + differ);
    }
    if largest > 0 {
        time_largest(&jobs, largest);
    }
    let mut tn = f64::INFINITY;
    for &sweep in &sweeps {
        let (t, got) = best_of(reps, || twin_all(&jobs, true, sweep));
        check(name_of(sweep), &got);
        println!("  (b) twin, {threads:2} threads, {:32} {}", name_of(sweep), rate(t));
        tn = tn.min(t);
    }

    let rt = match GpuRuntime::start() {
        Ok(rt) => rt,
        Err(e) => {
            println!("  (c) GPU: skipped: no GPU ({e})");
            println!("mismatches {}", bad.get());
            std::process::exit((bad.get() > 0) as i32);
        }
    };
    // A call's rows are sequential on the GPU, so a launch takes at least its longest call's rows times a row's
    // latency: the time per row of those calls bounds the row latency from above.
    let rows: Vec<u64> = jobs
        .par_iter()
        .map(|j| {
            let (mut r, mut e) = (YdropResult::EMPTY, Envelope::default());
            twin::shadow::run_recorded(j, &mut r, &mut e).expect("memory for the job");
            r.release();
            e.rows() as u64
        })
        .collect();
    let longest_rows = |w: usize| -> u64 { rows.chunks(w.max(1)).map(|c| c.iter().copied().max().unwrap_or(0)).sum() };
    let _ = gpu_all(&rt, &jobs, jobs.len());
    let (tg, got) = best_of(reps, || gpu_all(&rt, &jobs, jobs.len()));
    check("GPU, all", &got);
    let lr = longest_rows(jobs.len());
    println!(
        "  (c) GPU, one batch           {}  ({:.1}x the twin on {threads} threads; longest call {lr} rows, {:.2} us a row)",
        rate(tg),
        tn / tg,
        tg * 1e6 / lr.max(1) as f64
    );
    for w in waves {
        let (tw, got) = best_of(reps, || gpu_all(&rt, &jobs, w));
        check(&format!("GPU, wave {w}"), &got);
        let lr = longest_rows(w);
        println!(
            "  (d) GPU, waves of {w:5}      {}  ({} waves, {:.2} ms each; their longest calls {lr} rows, {:.2} us a row)",
            rate(tw),
            jobs.len().div_ceil(w),
            tw * 1e3 / jobs.len().div_ceil(w) as f64,
            tw * 1e6 / lr.max(1) as f64
        );
    }
    for cap in caps {
        let capped = |beside: bool| {
            let mut res: Vec<YdropResult> = jobs.iter().map(|_| YdropResult::EMPTY).collect();
            let mut envs = vec![Envelope::default(); jobs.len()];
            let t = Instant::now();
            let (left, t_gpu) = if beside {
                // the long ones known beforehand from a first run: what a pool's CPU workers overlap
                let left = one_sided_batch_gpu_capped(&rt, &jobs, &mut res, &mut envs, cap).expect("capped batch");
                res.iter_mut().for_each(YdropResult::release);
                let t = Instant::now();
                let long: Vec<YdropJob> = left.iter().map(|&i| jobs[i]).collect();
                let (cpu, gpu) = rayon::join(
                    || twin_all(&long, true, twin::default_sweep()),
                    || one_sided_batch_gpu_capped(&rt, &jobs, &mut res, &mut envs, cap).expect("capped batch"),
                );
                drop((cpu, gpu));
                (left, t.elapsed().as_secs_f64())
            } else {
                let left = one_sided_batch_gpu_capped(&rt, &jobs, &mut res, &mut envs, cap).expect("capped batch");
                (left, t.elapsed().as_secs_f64())
            };
            let mut got: Vec<Outcome> = res.iter_mut().map(|r| { let o = outcome(r); r.release(); o }).collect();
            let long: Vec<YdropJob> = left.iter().map(|&i| jobs[i]).collect();
            let t_twin = Instant::now();
            let ran = twin_all(&long, true, twin::default_sweep());
            let after = if beside { 0.0 } else { t_twin.elapsed().as_secs_f64() };
            for (&i, o) in left.iter().zip(ran) {
                got[i] = o;
            }
            (t_gpu + after, t_gpu, left.len(), got)
        };
        for beside in [false, true] {
            let (t, t_gpu, n_left, got) = capped(beside);
            check(&format!("GPU, row cap {cap}"), &got);
            println!(
                "  (e) GPU, row cap {cap:6}, {}  {}  (GPU {:.4} s; {n_left} calls past the cap on the twin, {threads} threads)",
                if beside { "twin beside" } else { "twin after " },
                rate(t),
                t_gpu
            );
        }
    }
    println!("mismatches {}", bad.get());
    std::process::exit((bad.get() > 0) as i32);
}
