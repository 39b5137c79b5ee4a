//! The Rust twin of `ksw_extd2_sse` (warpalign::ksw::twin::extd2) against the upstream C function (the
//! oracle), field by field and CIGAR by CIGAR, on fixed-seed random jobs.
//!
//! `KSW_TWIN_CASES=N` scales the random test (default 100,000); `KSW_TWIN_SEED=S` changes its seed;
//! `KSW_TWIN_ONLY=I` replays case I alone. A mismatch prints the whole job.
//! `cargo test --release --test ksw_twin -- --ignored --nocapture bench` times twin vs oracle on one thread.

mod common;

use common::ksw_cases::*;
use common::{mm2_matrix, Rng};
use std::time::Instant;
use warpalign::ksw::{flag, twin, KswExtd2Job, KswResult};
use warpalign_ffi::mm2 as c;

type Out = (u32, u32, [i32; 8], Vec<u32>);

fn oracle(j: &KswExtd2Job) -> Out {
    let mut ez: c::ksw_extz_t = unsafe { std::mem::zeroed() };
    unsafe {
        c::warpalign_oracle_ksw_extd2_sse(
            std::ptr::null_mut(), j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.q2, j.e2, j.w, j.zdrop,
            j.end_bonus, j.flag, &mut ez,
        )
    };
    let cigar = if ez.n_cigar > 0 { unsafe { std::slice::from_raw_parts(ez.cigar, ez.n_cigar as usize) }.to_vec() } else { Vec::new() };
    let o = (ez.max(), ez.zdropped(), [ez.max_q, ez.max_t, ez.mqe, ez.mqe_t, ez.mte, ez.mte_q, ez.score, ez.reach_end], cigar);
    unsafe { libc_free(ez.cigar.cast()) };
    o
}

fn twin_run(j: &KswExtd2Job) -> Out {
    let mut r = KswResult::EMPTY;
    twin::extd2(j, &mut r);
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
    let start = Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let case = gen(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)));
                let j = case.job();
                let (o, t) = (oracle(&j), twin_run(&j));
                if o != t {
                    let mut b = bad.lock().unwrap();
                    if b.len() < 3 {
                        eprintln!("{what}: MISMATCH case {i} (seed {seed}; replay with KSW_TWIN_SEED={seed} KSW_TWIN_ONLY={i})\n  oracle {:?}\n  twin   {:?}\n  {}", o, t, case.describe());
                    }
                    b.push(i);
                }
            });
        }
    });
    let b = bad.into_inner().unwrap();
    eprintln!("{what}: {n} cases, {} mismatches, {:.1}s", b.len(), start.elapsed().as_secs_f64());
    b
}

#[test]
fn twin_equals_oracle_random() {
    let seed = env_u64("KSW_TWIN_SEED", 1);
    if let Ok(i) = std::env::var("KSW_TWIN_ONLY") {
        let i: u64 = i.parse().unwrap();
        let case = random_case(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)));
        let j = case.job();
        eprintln!("{}", case.describe());
        assert_eq!(twin_run(&j), oracle(&j), "case {i}");
        return;
    }
    let n = env_u64("KSW_TWIN_CASES", 100_000);
    let bad = check_many("random", seed, n, random_case);
    assert!(bad.is_empty(), "{} of {n} cases differ; first {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

// ---- named traps -------------------------------------------------------------------------------------------

/// Narrow bands (w < 16): st0 is inside a 16-lane block, so lanes [st, st0) use stale s[] bytes and lanes
/// past en0 are scored from bytes past the band (and past the target into the reversed query).
#[test]
fn trap_stale_lanes_narrow_band() {
    fn gen(rng: &mut Rng) -> Case {
        let len = rng.range(20, 300) as usize;
        let rate = pick(rng, &[0.02, 0.1, 0.3]);
        let (q, t) = similar_pair(rng, len, rate);
        let f = pick(rng, &[0, flag::RIGHT, flag::GENERIC_SC, flag::SCORE_ONLY, flag::EXTZ_ONLY, flag::APPROX_MAX]);
        let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
        let w = rng.range(0, 20) as i32;
        Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w, zdrop: -1, end_bonus: 0, flag: f }
    }
    assert!(check_many("stale lanes", 11, 3000, gen).is_empty());
}

/// Low-complexity sequences make many equal H on one anti-diagonal: the 4-lane argmax order decides max_t.
#[test]
fn trap_argmax_tie_break() {
    fn gen(rng: &mut Rng) -> Case {
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
    assert!(check_many("tie-break", 12, 3000, gen).is_empty());
}

/// APPROX_MAX follows one greedy path (score only from it); with APPROX_DROP it z-drops on it.
#[test]
fn trap_approx_max() {
    fn gen(rng: &mut Rng) -> Case {
        let len = rng.range(1, 600) as usize;
        let rate = pick(rng, &[0.01, 0.1, 0.4]);
        let (q, t) = similar_pair(rng, len, rate);
        let f = flag::APPROX_MAX | pick(rng, &[0, flag::APPROX_DROP, flag::EXTZ_ONLY, flag::APPROX_DROP | flag::EXTZ_ONLY, flag::SCORE_ONLY]);
        let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
        Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w: pick(rng, &[-1, 10, 50, 500]), zdrop: pick(rng, &[-1, 10, 100]), end_bonus: pick(rng, &[0, 10]), flag: f }
    }
    assert!(check_many("approx max", 13, 3000, gen).is_empty());
}

/// A band that cannot reach the corner (|qlen - tlen| > w) stops with zdropped = 1 and the CIGAR from the max.
#[test]
fn trap_band_exhaustion_is_zdrop() {
    let mut rng = Rng::new(14);
    let mut exhausted = 0;
    for i in 0..500 {
        let len = rng.range(30, 300) as usize;
        let q = seq(&mut rng, len, 0.0, 4);
        let mut t = rng.mutate(&q, 0.02);
        let extra = rng.range(5, 100) as usize;
        t.extend(seq(&mut rng, extra, 0.0, 4));
        let w = rng.range(0, extra as i64 - 1) as i32;
        let f = pick(&mut rng, &[0, flag::EXTZ_ONLY, flag::RIGHT, flag::APPROX_MAX]);
        let (q, t) = if i % 2 == 0 { (q, t) } else { (t, q) };
        let case = Case { q, t, m: 5, mat: mm2_matrix(2, 4, 1), gap: (4, 2, 24, 1), w, zdrop: -1, end_bonus: 0, flag: f };
        let j = case.job();
        let o = oracle(&j);
        exhausted += o.1 as usize;
        assert_eq!(twin_run(&j), o, "band exhaustion case {i}\n{}", case.describe());
    }
    assert!(exhausted > 100, "only {exhausted} cases exhausted the band");
}

/// Z-drop tests `max - H > zdrop + l * e2` with the long-gap extension e2 (after the swap).
#[test]
fn trap_zdrop_uses_e2() {
    let mut rng = Rng::new(15);
    let mut dropped = 0;
    for i in 0..1500 {
        let len = rng.range(50, 400) as usize;
        let q = seq(&mut rng, len, 0.0, 4);
        // a good prefix, then an indel and/or junk
        let cut = rng.range(10, len as i64 - 10) as usize;
        let mut t = q[..cut].to_vec();
        let gap = rng.range(0, 60) as usize;
        t.extend(seq(&mut rng, gap, 0.0, 4));
        let rate = pick(&mut rng, &[0.0, 0.05, 0.5]);
        t.extend_from_slice(&rng.mutate(&q[cut..], rate));
        let (a, b, go, ge, go2, ge2, _) = pick(&mut rng, PRESETS);
        let gap4 = if i % 7 == 0 { (go2, ge2, go, ge) } else { (go, ge, go2, ge2) };
        let f = pick(&mut rng, &[0, flag::EXTZ_ONLY, flag::APPROX_MAX | flag::APPROX_DROP, flag::SCORE_ONLY]);
        let case = Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: gap4, w: -1, zdrop: rng.range(0, 60) as i32, end_bonus: 5, flag: f };
        let j = case.job();
        let o = oracle(&j);
        dropped += o.1 as usize;
        assert_eq!(twin_run(&j), o, "zdrop case {i}\n{}", case.describe());
    }
    assert!(dropped > 200, "only {dropped} cases z-dropped");
}

/// Degenerate inputs: empty sequences, m <= 1, and the early return when no mismatch can ever win.
#[test]
fn trap_degenerate() {
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
    c.mat = mm2_matrix(1, 40, 1); // -min_sc = 40 > 2 (q+e) = 12: early return
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
    let n = env_u64("KSW_TWIN_BENCH_JOBS", 2000) as usize;
    let mut rng = Rng::new(99);
    let mat = mm2_matrix(2, 4, 1);
    let mut cases = Vec::with_capacity(n);
    for _ in 0..n {
        let len = rng.range(1000, 5000) as usize;
        let q = seq(&mut rng, len, 0.001, 4);
        let t = rng.mutate(&q, 0.03);
        cases.push(Case { q, t, m: 5, mat: mat.clone(), gap: (4, 2, 24, 1), w: 500, zdrop: 400, end_bonus: -1, flag: 0 });
    }
    let cells: f64 = cases.iter().map(|c| (c.q.len() + c.t.len()) as f64 * 501.0).sum();
    let only = std::env::var("KSW_TWIN_BENCH_MODE").unwrap_or_default();
    for (label, fl) in [("cigar", 0), ("cigar+approx", flag::APPROX_MAX), ("score-only", flag::SCORE_ONLY)] {
        if !only.is_empty() && only != label {
            continue;
        }
        // jobs point into `cases`; only the flag changes per run
        let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| { let mut j = c.job(); j.flag = fl; j }).collect();
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
            "bench {label}: {n} jobs 1-5 kb w=500: oracle {to:.3}s ({:.2} GCUPS approx), twin {tt:.3}s, twin/oracle = {:.2}x",
            cells / to / 1e9, tt / to
        );
    }
}

extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut std::ffi::c_void);
}
