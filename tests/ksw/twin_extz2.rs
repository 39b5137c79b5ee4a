//! The Rust twin of `ksw_extz2_sse` (warpalign::ksw::twin::extz2) against the upstream C function (the
//! oracle), field by field and CIGAR by CIGAR, on fixed-seed random jobs (tests/common/ksw_extz2_cases.rs):
//! minimap2's single-affine scorings and wild int8 parameters, similar and unrelated pairs, every flag, bands
//! from 0 to unbanded, z-drop on and off.
//!
//! `KSW_TWIN_EXTZ2_CASES=N` scales the random test (default 100,000); `KSW_TWIN_EXTZ2_SEED=S` changes its
//! seed; `KSW_TWIN_EXTZ2_ONLY=I` replays case I alone. A mismatch prints the whole job.
//! `cargo test --release --test ksw -- --ignored --nocapture twin_extz2::bench` times twin vs oracle on one
//! thread (`KSW_TWIN_EXTZ2_BENCH_RANDOM`, `KSW_TWIN_EXTZ2_BENCH_JOBS`).

use crate::check::{check_many, same, time_twin_vs_oracle, random_twin_test, Extz2};
use crate::common::ksw_cases::{self, pick, random_flags, seq, similar_pair, ts_matrix};
use crate::common::ksw_extz2_cases::*;
use crate::common::{env_u64, mm2_matrix, Rng};
use warpalign::ksw::{flag, KswExtz2Job};

#[test]
fn twin_equals_oracle_random() {
    random_twin_test::<Extz2>(100_000, random_case);
}

// ---- named traps -------------------------------------------------------------------------------------------

/// The calls minimap2 makes: m = 5, the presets' (q, e) with q == q2, e == e2, bands and z-drops as mapping uses.
#[test]
fn trap_minimap2_calls() {
    fn gen(rng: &mut Rng) -> Case {
        let len = rng.range(1, 1500) as usize;
        let rate = pick(rng, &[0.01, 0.03, 0.1, 0.2]);
        let (q, mut t) = similar_pair(rng, len, rate);
        if rng.chance(0.5) {
            let extra = rng.range(0, 500) as usize;
            t.extend(seq(rng, extra, 0.01, 4));
        }
        let (a, b, go, ge, ts) = pick(rng, &PRESETS[..9]);
        let mut f = if ts != 0 { flag::GENERIC_SC } else { 0 };
        f |= pick(rng, &[0, flag::EXTZ_ONLY, flag::EXTZ_ONLY | flag::RIGHT, flag::EXTZ_ONLY | flag::REV_CIGAR, flag::APPROX_MAX | flag::EXTZ_ONLY, flag::SCORE_ONLY]);
        Case {
            q, t, m: 5, mat: ts_matrix(a, b, ts, 1), gap: (go, ge), w: pick(rng, &[-1, 50, 151, 500, 751]), zdrop: pick(rng, &[-1, 100, 200, 400]),
            end_bonus: pick(rng, &[-1, 0, 10]), flag: f,
        }
    }
    assert!(check_many::<Extz2>("minimap2 calls", 20, 3000, gen).is_empty());
}

/// Narrow bands (w < 16): st0 is inside a 16-lane block, so lanes [st, st0) use stale s[] bytes and lanes
/// past en0 are scored from bytes past the band (and past the target into the reversed query).
#[test]
fn trap_stale_lanes_narrow_band() {
    fn gen(rng: &mut Rng) -> Case {
        let len = rng.range(20, 300) as usize;
        let rate = pick(rng, &[0.02, 0.1, 0.3]);
        let (q, t) = similar_pair(rng, len, rate);
        let f = pick(rng, &[0, flag::RIGHT, flag::GENERIC_SC, flag::SCORE_ONLY, flag::EXTZ_ONLY, flag::APPROX_MAX]);
        let (a, b, go, ge, ts) = pick(rng, PRESETS);
        let w = rng.range(0, 20) as i32;
        Case { q, t, m: 5, mat: ts_matrix(a, b, ts, 1), gap: (go, ge), w, zdrop: -1, end_bonus: 0, flag: f }
    }
    assert!(check_many::<Extz2>("stale lanes", 11, 3000, gen).is_empty());
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
        let (a, b, go, ge, _) = pick(rng, &PRESETS[..8]);
        let f = pick(rng, &[0, flag::EXTZ_ONLY, flag::SCORE_ONLY, flag::RIGHT | flag::EXTZ_ONLY]);
        Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge), w: pick(rng, &[-1, 5, 33, 100]), zdrop: pick(rng, &[-1, 20, 100]), end_bonus: 0, flag: f }
    }
    assert!(check_many::<Extz2>("tie-break", 12, 3000, gen).is_empty());
}

/// APPROX_MAX follows one greedy path (score only from it); with APPROX_DROP it z-drops on it, from r = 1 on
/// (extz2 skips the test at r = 0, extd2 does not).
#[test]
fn trap_approx_max() {
    fn gen(rng: &mut Rng) -> Case {
        let len = rng.range(1, 600) as usize;
        let rate = pick(rng, &[0.01, 0.1, 0.4]);
        let (q, t) = similar_pair(rng, len, rate);
        let f = flag::APPROX_MAX | pick(rng, &[0, flag::APPROX_DROP, flag::EXTZ_ONLY, flag::APPROX_DROP | flag::EXTZ_ONLY, flag::SCORE_ONLY]);
        let (a, b, go, ge, ts) = pick(rng, PRESETS);
        Case {
            q, t, m: 5, mat: ts_matrix(a, b, ts, 1), gap: (go, ge), w: pick(rng, &[-1, 10, 50, 500]), zdrop: pick(rng, &[-1, 0, 10, 100]),
            end_bonus: pick(rng, &[0, 10]), flag: f,
        }
    }
    assert!(check_many::<Extz2>("approx max", 13, 3000, gen).is_empty());
}

/// A band that cannot reach the corner (|qlen - tlen| > w) stops with zdropped = 1 and the CIGAR from the max
/// (extd2's family, with its first gap cost alone).
#[test]
fn trap_band_exhaustion_is_zdrop() {
    let mut rng = Rng::new(14);
    let exhausted: u32 = (0..500)
        .map(|_| {
            let c = ksw_cases::trap_band_exhaustion(&mut rng);
            let (q, e, _, _) = c.gap;
            same::<Extz2>(&Case { q: c.q, t: c.t, m: c.m, mat: c.mat, gap: (q, e), w: c.w, zdrop: c.zdrop, end_bonus: c.end_bonus, flag: c.flag })
        })
        .map(|o| o.1)
        .sum();
    assert!(exhausted > 100, "only {exhausted} cases exhausted the band");
}

/// Z-drop tests `max - H > zdrop + l * e` with the one extension cost e.
#[test]
fn trap_zdrop() {
    let mut rng = Rng::new(15);
    let mut dropped = 0;
    for _ in 0..1500 {
        let len = rng.range(50, 400) as usize;
        let q = seq(&mut rng, len, 0.0, 4);
        // a good prefix, then an indel and/or junk
        let cut = rng.range(10, len as i64 - 10) as usize;
        let mut t = q[..cut].to_vec();
        let gap = rng.range(0, 60) as usize;
        t.extend(seq(&mut rng, gap, 0.0, 4));
        let rate = pick(&mut rng, &[0.0, 0.05, 0.5]);
        t.extend_from_slice(&rng.mutate(&q[cut..], rate));
        let (a, b, go, ge, _) = pick(&mut rng, &PRESETS[..8]);
        let f = pick(&mut rng, &[0, flag::EXTZ_ONLY, flag::APPROX_MAX | flag::APPROX_DROP, flag::SCORE_ONLY, flag::EXTZ_ONLY | flag::RIGHT]);
        let case = Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge), w: -1, zdrop: rng.range(0, 60) as i32, end_bonus: 5, flag: f };
        dropped += same::<Extz2>(&case).1;
    }
    assert!(dropped > 200, "only {dropped} cases z-dropped");
}

/// int8 wrap-around of the biased representation: `2 (q + e)` and `mat[0] + 2 (q + e)` past 127 (the
/// unsigned max/min then disagree with the signed compares), differences >= 128 at the band's left edge (the
/// sign-extended boundary lanes), negative q (the boundary `v1 = q` sign-extends at st == 0).
#[test]
fn trap_int8_wrap() {
    fn gen(rng: &mut Rng) -> Case {
        let len = rng.range(1, 400) as usize;
        let rate = pick(rng, &[0.0, 0.05, 0.2, 0.5]);
        let (q, mut t) = similar_pair(rng, len, rate);
        if rng.chance(0.3) {
            let extra = rng.range(0, 100) as usize;
            t.extend(seq(rng, extra, 0.0, 4));
        }
        let (go, ge) = match rng.below(3) {
            0 => (rng.range(20, 127) as i8, rng.range(10, 127) as i8),
            1 => (rng.range(-128, 0) as i8, rng.range(0, 127) as i8),
            _ => (rng.range(-128, 127) as i8, rng.range(-128, 127) as i8),
        };
        let a = rng.range(1, 127) as i8;
        let b = rng.range(0, 64) as i8;
        let mut f = random_flags(rng);
        f &= !flag::GENERIC_SC;
        Case {
            q, t, m: 5, mat: mm2_matrix(a, b, rng.range(0, 5) as i8), gap: (go, ge), w: random_w(rng), zdrop: pick(rng, &[-1, 0, 50, 400]),
            end_bonus: pick(rng, &[-1, 0, 30]), flag: f,
        }
    }
    assert!(check_many::<Extz2>("int8 wrap", 16, 5000, gen).is_empty());
}

/// Wild matrices: m from 1 to 8 (m = 1 runs in extz2 and reads mat[1]), GENERIC_SC on and off, all-positive
/// matrices (then negative q + e passes the early-return test).
#[test]
fn trap_wild_matrices() {
    fn gen(rng: &mut Rng) -> Case {
        let mut c = random_case(rng);
        let (m, mat, gap, extra) = loop {
            let s = random_scoring(rng);
            if s.0 != 5 || rng.chance(0.1) {
                break s;
            }
        };
        let spread = rng.chance(0.5);
        fit_alphabet(rng, &mut c.q, m, spread);
        fit_alphabet(rng, &mut c.t, m, spread);
        c.m = m;
        c.mat = mat;
        c.gap = gap;
        c.flag |= extra;
        c
    }
    assert!(check_many::<Extz2>("wild matrices", 17, 5000, gen).is_empty());
}

/// Degenerate inputs: empty sequences, m <= 0, m = 1, and the early return when no mismatch can ever win.
#[test]
fn trap_degenerate() {
    let mat = mm2_matrix(2, 4, 1);
    let q = [0u8, 1, 2, 3];
    let base = Case { q: q.to_vec(), t: q.to_vec(), m: 5, mat: mat.clone(), gap: (4, 2), w: -1, zdrop: -1, end_bonus: 0, flag: 0 };
    let mut cases = vec![];
    for (ql, tl) in [(0, 0), (0, 4), (4, 0), (1, 1), (1, 4), (4, 1)] {
        let mut c = base.clone();
        c.q.truncate(ql);
        c.t.truncate(tl);
        cases.push(c);
    }
    for m in [0i8, -1, -128, 1] {
        for f in [0, flag::GENERIC_SC, flag::EXTZ_ONLY, flag::SCORE_ONLY] {
            let mut c = base.clone();
            c.m = m;
            c.flag = f;
            if m == 1 {
                c.q = vec![0, 0, 1, 0, 0, 2, 0];
                c.t = vec![0, 3, 0, 0, 0, 0];
                if f == flag::GENERIC_SC {
                    c.q.iter_mut().for_each(|b| *b = 0);
                    c.t.iter_mut().for_each(|b| *b = 0);
                }
            }
            cases.push(c);
        }
    }
    let mut c = base.clone();
    c.mat = mm2_matrix(1, 13, 1); // -min_sc = 13 > 2 (q+e) = 12: early return
    cases.push(c);
    let mut c = base.clone();
    c.mat = mm2_matrix(1, 12, 1); // -min_sc = 12 == 2 (q+e): runs
    cases.push(c);
    let mut c = base.clone();
    c.gap = (-3, 1); // q + e < 0 with mismatches: early return
    cases.push(c);
    for c in &cases {
        same::<Extz2>(c);
    }
}

// ---- speed ---------------------------------------------------------------------------------------------

/// One thread, the same jobs through both: the random test's cases (seed 1), then 1-5 kb pairs with w = 500.
#[test]
#[ignore]
fn bench_twin_vs_oracle() {
    let n = env_u64("KSW_TWIN_EXTZ2_BENCH_RANDOM", 20_000);
    let cases: Vec<Case> = (0..n).map(|i| random_case(&mut Rng::for_case(1, i))).collect();
    let jobs: Vec<KswExtz2Job> = cases.iter().map(|c| c.job()).collect();
    let cells: f64 = cases.iter().map(|c| c.q.len() as f64 * c.t.len() as f64).sum();
    time_twin_vs_oracle::<Extz2>("random cases (seed 1)", &jobs, cells);

    let n = env_u64("KSW_TWIN_EXTZ2_BENCH_JOBS", 1000) as usize;
    let mut rng = Rng::new(99);
    let mat = mm2_matrix(2, 8, 1);
    let mut cases = Vec::with_capacity(n);
    for _ in 0..n {
        let len = rng.range(1000, 5000) as usize;
        let q = seq(&mut rng, len, 0.001, 4);
        let t = rng.mutate(&q, 0.03);
        cases.push(Case { q, t, m: 5, mat: mat.clone(), gap: (6, 2), w: 500, zdrop: 400, end_bonus: -1, flag: 0 });
    }
    let cells: f64 = cases.iter().map(|c| (c.q.len() + c.t.len()) as f64 * 501.0).sum();
    for (label, fl) in [("cigar", 0), ("cigar+approx", flag::APPROX_MAX), ("score-only", flag::SCORE_ONLY)] {
        let jobs: Vec<KswExtz2Job> = cases.iter().map(|c| { let mut j = c.job(); j.flag = fl; j }).collect();
        time_twin_vs_oracle::<Extz2>(&format!("{label} 1-5 kb w=500"), &jobs, cells);
    }
}
