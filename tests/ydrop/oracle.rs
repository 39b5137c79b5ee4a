//! The ydrop engine's batch path against direct calls of LASTZ's own `ydrop_one_sided_align` (the oracle,
//! through ffi/csrc/lastz_ydrop_shim.c), on random jobs with fixed seeds, plus invariants every result must
//! meet: ends within the sequences, an edit script that consumes exactly `end1` bases of `a` and `end2` of
//! `b`, and a score equal to the script rescored with the matrix and gap costs. The batch path runs the Rust
//! twin on the CPU (the twin's test checks it case by case); the GPU kernel plugs into the same harness.

use crate::common::ydrop_cases::{lastz_matrix, match_mismatch, oracle, outcome, Outcome, HOXD70, TB_DEFAULT};
use crate::common::Rng;
use warpalign::ydrop::{self, op, YdropJob, YdropResult, TRUNC_FIRST_ROW, TRUNC_MIDWAY, TRUNC_NONE};
use warpalign::Engine;

struct Scoring {
    name: &'static str,
    sub: Vec<i32>,
    gap_open: i32,
    gap_extend: i32,
    y_drop: i32,
}

fn scorings() -> Vec<Scoring> {
    let hox = lastz_matrix(&HOXD70, -100, -1000);
    vec![
        // LASTZ's defaults: O=400 E=30, Y = O + 300E
        Scoring { name: "default", sub: hox.clone(), gap_open: 400, gap_extend: 30, y_drop: 9400 },
        Scoring { name: "ydrop3000", sub: hox.clone(), gap_open: 400, gap_extend: 30, y_drop: 3000 },
        // E = 0: yDropTail comes from N
        Scoring { name: "E0", sub: hox.clone(), gap_open: 400, gap_extend: 0, y_drop: 3000 },
        // negative gap open (LASTZ accepts O+E >= 0)
        Scoring { name: "O-10", sub: hox, gap_open: -10, gap_extend: 40, y_drop: 2000 },
        // --match=1,2 --gap=2,1 --ydrop=40
        Scoring { name: "unit", sub: lastz_matrix(&match_mismatch(1, 2), -1, -10), gap_open: 2, gap_extend: 1, y_drop: 40 },
    ]
}

/// Bases in LASTZ's text form, with a NUL after the last one (LASTZ reads `b[n]`).
struct Seq(Vec<u8>);

impl Seq {
    fn from_codes(rng: &mut Rng, codes: &[u8]) -> Seq {
        let mut v: Vec<u8> = codes.iter().map(|&c| b"ACGTN"[c.min(4) as usize]).collect();
        // soft-masked stretches: LASTZ's gapped stage scores lowercase like uppercase
        if !v.is_empty() && rng.chance(0.3) {
            let s = rng.below(v.len() as u64) as usize;
            let e = (s + rng.range(1, 400) as usize).min(v.len());
            v[s..e].make_ascii_lowercase();
        }
        v.push(0);
        Seq(v)
    }
    fn len(&self) -> u32 {
        (self.0.len() - 1) as u32
    }
    fn bases(&self) -> &[u8] {
        &self.0[..self.0.len() - 1]
    }
}

struct Case {
    a: Seq,
    b: Seq,
    scoring: usize,
    trim_to_peak: i32,
    reversed: i32,
    tb_size: u32,
}

fn random_cases(seed: u64, n: usize, n_scorings: usize) -> Vec<Case> {
    let mut rng = Rng::new(seed);
    (0..n)
        .map(|i| {
            let len = rng.range(0, 3000) as usize;
            let a_codes = rng.nt4_seq(len, 0.002);
            let b_codes = if rng.chance(0.75) {
                // similar: the extension runs long; sometimes with a dissimilar tail
                let rate = [0.01, 0.05, 0.1, 0.2][rng.below(4) as usize];
                let mut b = rng.mutate(&a_codes, rate);
                if rng.chance(0.3) {
                    let cut = rng.below(b.len() as u64 + 1) as usize;
                    b.truncate(cut);
                    let tail = rng.range(0, 500) as usize;
                    b.extend(rng.nt4_seq(tail, 0.0));
                }
                b
            } else {
                let blen = rng.range(0, 3000) as usize;
                rng.nt4_seq(blen, 0.002)
            };
            let (a, b) = (Seq::from_codes(&mut rng, &a_codes), Seq::from_codes(&mut rng, &b_codes));
            // a small traceback forces truncation; a tiny one cannot hold the first row
            let tb_size = match rng.below(10) {
                0 => rng.range(2_000, 200_000) as u32,
                1 if rng.chance(0.2) => rng.range(10, 400) as u32,
                _ => TB_DEFAULT,
            };
            Case { a, b, scoring: i % n_scorings, trim_to_peak: rng.chance(0.5) as i32, reversed: rng.chance(0.5) as i32, tb_size }
        })
        .collect()
}

fn job(k: &Case, s: &Scoring) -> YdropJob {
    YdropJob {
        a: k.a.0.as_ptr(),
        m: k.a.len(),
        b: k.b.0.as_ptr(),
        n: k.b.len(),
        sub: s.sub.as_ptr(),
        gap_open: s.gap_open,
        gap_extend: s.gap_extend,
        y_drop: s.y_drop,
        trim_to_peak: k.trim_to_peak,
        reversed: k.reversed,
        tb_size: k.tb_size,
        bounds: std::ptr::null(),
    }
}

/// Checks a result's invariants; returns a description of the first violation.
fn check_invariants(k: &Case, s: &Scoring, r: &Outcome) -> Result<(), String> {
    let (score, end1, end2, truncated, ops) = r;
    if *truncated == TRUNC_FIRST_ROW {
        return if (*score, *end1, *end2, ops.len()) == (0, 0, 0, 0) { Ok(()) } else { Err("first-row truncation with output".into()) };
    }
    if ![TRUNC_NONE, TRUNC_MIDWAY].contains(truncated) {
        return Err(format!("truncated = {truncated}"));
    }
    if *end1 > k.a.len() || *end2 > k.b.len() {
        return Err(format!("end ({end1},{end2}) beyond ({},{})", k.a.len(), k.b.len()));
    }
    if (*end1 == 0) != (*end2 == 0) {
        return Err(format!("end ({end1},{end2}) on an edge"));
    }
    if let Some(&first) = ops.first() {
        // the far end is a substitution: best and boundary scores only move on substitution-ended cells
        if op::kind(first) != op::SUB {
            return Err(format!("script starts with op {first:#x}"));
        }
    }
    // rescore in extension order (the script is in traceback order)
    let (a, b) = (k.a.bases(), k.b.bases());
    let (mut i, mut j, mut total) = (0usize, 0usize, 0i64);
    let mut prev_kind = 0;
    for &o in ops.iter().rev() {
        let (kind, run) = (op::kind(o), op::run(o) as usize);
        if run == 0 {
            return Err(format!("empty run {o:#x}"));
        }
        if kind == prev_kind {
            return Err(format!("unmerged runs of op {kind}"));
        }
        prev_kind = kind;
        match kind {
            op::SUB => {
                if i + run > a.len() || j + run > b.len() {
                    return Err("script runs off the sequences".into());
                }
                for t in 0..run {
                    total += s.sub[a[i + t] as usize * 256 + b[j + t] as usize] as i64;
                }
                i += run;
                j += run;
            }
            op::INS => {
                total -= s.gap_open as i64 + run as i64 * s.gap_extend as i64;
                j += run;
            }
            op::DEL => {
                total -= s.gap_open as i64 + run as i64 * s.gap_extend as i64;
                i += run;
            }
            _ => return Err(format!("bad op {o:#x}")),
        }
    }
    if (i, j) != (*end1 as usize, *end2 as usize) {
        return Err(format!("script consumes ({i},{j}), end is ({end1},{end2})"));
    }
    if total != *score as i64 {
        return Err(format!("script rescores to {total}, score is {score}"));
    }
    Ok(())
}

fn run_cases(cases: &[Case], scorings: &[Scoring]) -> (usize, usize, usize) {
    let jobs: Vec<YdropJob> = cases.iter().map(|k| job(k, &scorings[k.scoring])).collect();
    let mut results: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
    ydrop::one_sided_batch(&Engine::cpu(), &jobs, &mut results).unwrap();
    let (mut midway, mut first_row, mut long) = (0, 0, 0);
    for (i, ((k, j), r)) in cases.iter().zip(&jobs).zip(results.iter_mut()).enumerate() {
        let s = &scorings[k.scoring];
        let got = outcome(r);
        let want = oracle(j);
        let what = format!(
            "case {i} ({}, M={} N={} trim={} rev={} tb={})",
            s.name, j.m, j.n, j.trim_to_peak, j.reversed, j.tb_size
        );
        assert_eq!(got, want, "{what}: engine differs from the oracle");
        if let Err(e) = check_invariants(k, s, &got) {
            panic!("{what}: {e}");
        }
        midway += (got.3 == TRUNC_MIDWAY) as usize;
        first_row += (got.3 == TRUNC_FIRST_ROW) as usize;
        long += (got.1 >= 1000) as usize;
        assert!(r.ops.is_null() && r.n_ops == 0);
    }
    (midway, first_row, long)
}

#[test]
fn batch_equals_lastz_on_random_jobs() {
    let scorings = scorings();
    let cases = random_cases(11, 600, scorings.len());
    let (midway, first_row, long) = run_cases(&cases, &scorings);
    eprintln!("ydrop: {} jobs, {long} extensions of >= 1000 rows, {midway} truncated midway, {first_row} first-row", cases.len());
    // the generator must exercise what it is meant to
    assert!(long >= 100, "only {long} long extensions");
    assert!(midway >= 5, "only {midway} truncated extensions");
    assert!(first_row >= 1, "no first-row truncation");
}

#[test]
fn edge_cases_equal_lastz() {
    let scorings = scorings();
    let mut rng = Rng::new(12);
    let mut cases = Vec::new();
    for (a, b) in [(0, 0), (0, 5), (5, 0), (1, 1), (1, 3000), (3000, 1), (2, 2)] {
        for scoring in 0..scorings.len() {
            for (trim_to_peak, reversed) in [(0, 0), (1, 1)] {
                let ac = rng.nt4_seq(a, 0.0);
                let bc = if a == b { ac.clone() } else { rng.nt4_seq(b, 0.0) };
                cases.push(Case { a: Seq::from_codes(&mut rng, &ac), b: Seq::from_codes(&mut rng, &bc), scoring, trim_to_peak, reversed, tb_size: TB_DEFAULT });
            }
        }
    }
    // identical sequences run to both ends: the boundary rule (trim off) and the peak rule meet there
    for scoring in 0..scorings.len() {
        let ac = rng.nt4_seq(2500, 0.0);
        for trim_to_peak in [0, 1] {
            cases.push(Case { a: Seq::from_codes(&mut rng, &ac), b: Seq::from_codes(&mut rng, &ac), scoring, trim_to_peak, reversed: 0, tb_size: TB_DEFAULT });
        }
    }
    run_cases(&cases, &scorings);
}

#[test]
fn bad_jobs_are_rejected_with_a_message() {
    let sub = lastz_matrix(&HOXD70, -100, -1000);
    let seq = b"ACGT\0";
    let good = YdropJob {
        a: seq.as_ptr(), m: 4, b: seq.as_ptr(), n: 4, sub: sub.as_ptr(), gap_open: 400, gap_extend: 30, y_drop: 9400,
        trim_to_peak: 1, reversed: 0, tb_size: TB_DEFAULT, bounds: std::ptr::null(),
    };
    let engine = Engine::cpu();
    for (bad, what) in [
        (YdropJob { a: std::ptr::null(), ..good }, "null sequence"),
        (YdropJob { b: std::ptr::null(), ..good }, "null sequence"),
        (YdropJob { sub: std::ptr::null(), ..good }, "null substitution matrix"),
    ] {
        let mut res = [YdropResult::EMPTY, YdropResult::EMPTY];
        let err = ydrop::one_sided_batch(&engine, &[good, bad], &mut res).unwrap_err();
        assert!(err.to_string().contains("ydrop job 1") && err.to_string().contains(what), "{err}");
    }
    let mut res = [YdropResult::EMPTY];
    assert!(ydrop::one_sided_batch(&engine, &[good, good], &mut res).is_err());
    // empty sequences may be null
    let empty = YdropJob { a: std::ptr::null(), m: 0, b: std::ptr::null(), n: 0, ..good };
    ydrop::one_sided_batch(&engine, &[empty], &mut res).unwrap();
    assert_eq!(outcome(&mut res[0]), (0, 0, 0, TRUNC_NONE, vec![]));
    ydrop::one_sided_batch(&engine, &[], &mut []).unwrap();
}
