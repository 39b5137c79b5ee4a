//! The Rust twin of `ksw_exts2_sse` (warpalign::ksw::twin::exts2) against the upstream C function (the
//! oracle), field by field and CIGAR by CIGAR, on fixed-seed random jobs (tests/common/ksw_exts2_cases.rs):
//! spliced pairs, random and mutated pairs; every flag, junc null or random, the splice presets' scoring and
//! wild int8 parameters.
//!
//! `KSW_TWIN_EXTS2_CASES=N` scales the random test (default 30,000); `KSW_TWIN_EXTS2_SEED=S` changes its
//! seed; `KSW_TWIN_EXTS2_ONLY=I` replays case I alone. A mismatch prints the whole job.
//! `cargo test --release --test ksw_twin_exts2 -- --ignored --nocapture bench` times twin vs oracle on one
//! thread.

mod common;

use common::ksw_cases::{env_u64, pick, seq};
use common::ksw_exts2_cases::*;
use common::{mm2_matrix, Rng};
use std::time::Instant;
use warpalign::ksw::{flag, twin, KswExts2Job, KswResult};
use warpalign_ffi::mm2 as c;

type Out = (u32, u32, [i32; 8], Vec<u32>);

fn oracle(j: &KswExts2Job) -> Out {
    let mut ez: c::ksw_extz_t = unsafe { std::mem::zeroed() };
    unsafe {
        c::warpalign_oracle_ksw_exts2_sse(
            std::ptr::null_mut(), j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.q2, j.noncan, j.zdrop,
            j.end_bonus, j.junc_bonus, j.junc_pen, j.flag, j.junc, &mut ez,
        )
    };
    let cigar = if ez.n_cigar > 0 { unsafe { std::slice::from_raw_parts(ez.cigar, ez.n_cigar as usize) }.to_vec() } else { Vec::new() };
    let o = (ez.max(), ez.zdropped(), [ez.max_q, ez.max_t, ez.mqe, ez.mqe_t, ez.mte, ez.mte_q, ez.score, ez.reach_end], cigar);
    unsafe { libc_free(ez.cigar.cast()) };
    o
}

fn twin_run(j: &KswExts2Job) -> Out {
    let mut r = KswResult::EMPTY;
    twin::exts2(j, &mut r);
    assert!(r.n_cigar > 0 || r.cigar.is_null(), "empty CIGAR must be null");
    let o = (r.max, r.zdropped as u32, [r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end], r.cigar().to_vec());
    r.release();
    o
}

/// Runs `n` cases `gen(seed + i)` on all cores; returns the mismatching indices (printing the first few).
fn check_many(what: &str, seed: u64, n: u64, gen: fn(&mut Rng) -> Case) -> Vec<u64> {
    let threads = std::thread::available_parallelism().map(|x| x.get()).unwrap_or(2) as u64;
    let next = std::sync::atomic::AtomicU64::new(0);
    let bad = std::sync::Mutex::new(Vec::new());
    let cells = std::sync::atomic::AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let case = gen(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)));
                cells.fetch_add(case.q.len() as u64 * case.t.len() as u64, std::sync::atomic::Ordering::Relaxed);
                let j = case.job();
                let (o, t) = (oracle(&j), twin_run(&j));
                if o != t {
                    let mut b = bad.lock().unwrap();
                    if b.len() < 3 {
                        eprintln!("{what}: MISMATCH case {i} (seed {seed}; replay with KSW_TWIN_EXTS2_SEED={seed} KSW_TWIN_EXTS2_ONLY={i})\n  oracle {:?}\n  twin   {:?}\n  {}", o, t, case.describe());
                    }
                    b.push(i);
                }
            });
        }
    });
    let b = bad.into_inner().unwrap();
    eprintln!(
        "{what}: {n} cases ({:.2e} cells), {} mismatches, {:.1}s",
        cells.into_inner() as f64, b.len(), start.elapsed().as_secs_f64()
    );
    b
}

#[test]
fn twin_equals_oracle_random() {
    let seed = env_u64("KSW_TWIN_EXTS2_SEED", 1);
    if let Ok(i) = std::env::var("KSW_TWIN_EXTS2_ONLY") {
        let i: u64 = i.parse().unwrap();
        let case = random_case(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)));
        let j = case.job();
        eprintln!("{}", case.describe());
        assert_eq!(twin_run(&j), oracle(&j), "case {i}");
        return;
    }
    let n = env_u64("KSW_TWIN_EXTS2_CASES", 30_000);
    let bad = check_many("random", seed, n, random_case);
    assert!(bad.is_empty(), "{} of {n} cases differ; first {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

// ---- named traps -------------------------------------------------------------------------------------------

/// The calls minimap2 makes (see `minimap2_call`).
#[test]
fn trap_minimap2_calls() {
    assert!(check_many("minimap2 calls", 21, 3000, minimap2_call).is_empty());
}

/// Wild int8 parameters: gap costs near 127, noncan / junc_bonus / junc_pen over the whole int8 range.
#[test]
fn trap_int8_wrap() {
    fn gen(rng: &mut Rng) -> Case {
        let (q, t) = spliced_pair(rng, 0.02);
        let go = rng.range(0, 80) as i8;
        let ge = rng.range(1, 40) as i8;
        let go2 = rng.range((go as i64 + ge as i64 + 1).min(127), 127) as i8;
        let a = rng.range(1, 20) as i8;
        let b = rng.range(1, (go as i64 + ge as i64).min(60).max(1)) as i8;
        let f = random_flags(rng);
        let junc = if rng.chance(0.3) { None } else { Some(random_junc(rng, t.len(), f & flag::SPLICE_SCORE != 0)) };
        Case {
            q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, rng.range(-128, 127) as i8), zdrop: pick(rng, &[-1, 50, 400]),
            end_bonus: pick(rng, &[-1, 0, 30]), junc_bonus: rng.range(-128, 127) as i8, junc_pen: rng.range(-128, 127) as i8, flag: f, junc,
        }
    }
    assert!(check_many("int8 wrap", 22, 3000, gen).is_empty());
}

/// Degenerate inputs: empty sequences, m <= 1, q2 <= q + e, and the early return when no mismatch can win.
#[test]
fn trap_degenerate() {
    let mat = mm2_matrix(1, 2, 1);
    let q = [0u8, 1, 2, 3, 2, 3, 0, 2];
    let base = Case {
        q: q.to_vec(), t: q.to_vec(), m: 5, mat: mat.clone(), gap: (2, 1, 32, 9), zdrop: -1, end_bonus: 0, junc_bonus: 9,
        junc_pen: 5, flag: flag::SPLICE_FOR, junc: None,
    };
    let mut cases = vec![];
    for (ql, tl) in [(0, 0), (0, 4), (4, 0), (1, 1), (1, 4), (4, 1), (1, 8), (8, 2), (8, 5)] {
        for junc in [false, true] {
            let mut c = base.clone();
            c.q.truncate(ql);
            c.t.truncate(tl);
            if junc {
                c.junc = Some(vec![0xff; c.t.len()]);
                c.flag |= flag::SPLICE_SCORE;
            }
            cases.push(c);
        }
    }
    let mut c = base.clone();
    c.m = 1;
    cases.push(c);
    for q2 in [3, 2, 0, -5] {
        let mut c = base.clone();
        c.gap.2 = q2; // q2 <= q + e: early return
        cases.push(c);
    }
    let mut c = base.clone();
    c.mat = mm2_matrix(1, 7, 1); // -min_sc = 7 > 2 (q+e) = 6: early return
    cases.push(c);
    for (i, c) in cases.iter().enumerate() {
        let j = c.job();
        assert_eq!(twin_run(&j), oracle(&j), "degenerate case {i}\n{}", c.describe());
    }
}

// ---- speed ---------------------------------------------------------------------------------------------

#[test]
#[ignore]
fn bench_twin_vs_oracle() {
    let n = env_u64("KSW_TWIN_EXTS2_BENCH_JOBS", 300) as usize;
    let mut rng = Rng::new(99);
    let mat = mm2_matrix(1, 2, 1);
    let mut cases = Vec::with_capacity(n);
    for _ in 0..n {
        // a 300-1000 bp read piece with 1-3 introns of 50-1500 bp
        let mut q = Vec::new();
        let mut t = Vec::new();
        let n_exon = rng.range(2, 4);
        for i in 0..n_exon {
            let el = rng.range(100, 350) as usize;
            let ex = seq(&mut rng, el, 0.0, 4);
            q.extend_from_slice(&ex);
            t.extend_from_slice(&ex);
            if i + 1 < n_exon {
                let il = rng.range(50, 1500) as usize;
                t.extend(intron(&mut rng, il));
            }
        }
        let q = rng.mutate(&q, 0.03);
        let junc = vec![0u8; t.len()];
        cases.push(Case {
            q, t, m: 5, mat: mat.clone(), gap: (2, 1, 32, 9), zdrop: 200, end_bonus: -1, junc_bonus: 9, junc_pen: 5,
            flag: flag::SPLICE_FOR | flag::SPLICE_FLANK | flag::SPLICE_CMPLX, junc: Some(junc),
        });
    }
    let cells: f64 = cases.iter().map(|c| c.q.len() as f64 * c.t.len() as f64).sum();
    let only = std::env::var("KSW_TWIN_EXTS2_BENCH_MODE").unwrap_or_default();
    for (label, fl) in [("cigar", 0), ("cigar+approx", flag::APPROX_MAX), ("score-only", flag::SCORE_ONLY)] {
        if !only.is_empty() && only != label {
            continue;
        }
        let jobs: Vec<KswExts2Job> = cases.iter().map(|c| { let mut j = c.job(); j.flag |= fl; j }).collect();
        let t0 = Instant::now();
        let mut so = 0i64;
        for j in &jobs {
            so += oracle(j).2[6] as i64;
        }
        let to = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let mut st = 0i64;
        for j in &jobs {
            st += twin_run(j).2[6] as i64;
        }
        let tt = t1.elapsed().as_secs_f64();
        assert_eq!(so, st);
        eprintln!(
            "bench {label}: {n} spliced jobs ({:.2e} cells): oracle {to:.3}s ({:.2} GCUPS), twin {tt:.3}s ({:.2} GCUPS), twin/oracle time = {:.2}x",
            cells, cells / to / 1e9, cells / tt / 1e9, tt / to
        );
    }
}

extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut std::ffi::c_void);
}
