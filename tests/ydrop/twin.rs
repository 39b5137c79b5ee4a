//! The Rust twin of LASTZ's `ydrop_one_sided_align` (warpalign::ydrop::twin) against LASTZ's own function
//! (the oracle), score, end, truncation and edit script, on fixed-seed random jobs and on named traps.
//!
//! `YDROP_TWIN_CASES=N` scales the random test (default 50,000); `YDROP_TWIN_SEED=S` changes its seed;
//! `YDROP_TWIN_ONLY=I` replays case I alone. A mismatch prints the whole job.
//! `cargo test --release --test ydrop -- --ignored --nocapture twin::bench` times twin vs oracle on one thread.

use crate::common::ydrop_cases::*;
use crate::common::{env_u64, failing_cases, pick, Rng};
use std::sync::Arc;
use std::time::Instant;
use warpalign::ydrop::{self, op, YdropAlignment, YdropBounds, YdropJob, YdropResult, YdropSegment, NONE, TRUNC_BOUNDS, TRUNC_FIRST_ROW, TRUNC_MIDWAY, TRUNC_NONE};

/// Runs `n` cases `gen(rng of seed, i)` on all cores; returns the mismatching indices (printing the first few).
fn check_many(what: &str, seed: u64, n: u64, gen: &(dyn Fn(&mut Rng) -> Case + Sync)) -> Vec<u64> {
    let start = Instant::now();
    let bad = failing_cases(n, |i| {
        let case = gen(&mut Rng::for_case(seed, i));
        let j = case.job();
        let (o, t) = (oracle(&j), twin(&j));
        let v = vectors_differ(&j, &t);
        (o != t || v.is_some()).then(|| {
            format!(
                "{what}: MISMATCH case {i} (replay with YDROP_TWIN_SEED={seed} YDROP_TWIN_ONLY={i})\n  oracle {o:?}\n  twin   {t:?}\n  vector {v:?} (None: the same)\n  {}",
                case.describe()
            )
        })
    });
    eprintln!("{what}: {n} cases, {} mismatches, {:.1}s", bad.len(), start.elapsed().as_secs_f64());
    bad
}

/// Twin (both sweeps) and oracle agree on `case`; returns the outcome.
fn same(case: &Case) -> Outcome {
    let j = case.job();
    let (o, t) = (oracle(&j), twin(&j));
    assert_eq!(t, o, "twin differs from the oracle on\n  {}", case.describe());
    assert_eq!(vectors_differ(&j, &t), None, "a vector sweep differs from the spec on\n  {}", case.describe());
    o
}

fn hoxd70() -> Arc<Matrix> {
    matrix_pool(0, 0)[0].clone()
}

fn matrix(name: &str, sub: Vec<i32>) -> Arc<Matrix> {
    Arc::new(Matrix { name: name.into(), sub })
}

/// Bases over the first `alpha` letters of ACGT.
fn letters(rng: &mut Rng, len: usize, alpha: u64) -> Vec<u8> {
    (0..len).map(|_| b"ACGT"[rng.below(alpha) as usize]).collect()
}

/// A similar pair: `b` is `a` mutated at `rate`.
fn similar(rng: &mut Rng, len: usize, rate: f64) -> (Vec<u8>, Vec<u8>) {
    let a = rng.nt4_seq(len, 0.0);
    let b = rng.mutate(&a, rate);
    let text = |s: &[u8]| s.iter().map(|&c| b"ACGT"[c as usize]).collect::<Vec<u8>>();
    (text(&a), text(&b))
}

/// The random test of `gen`: `YDROP_TWIN_CASES` cases (else `default_n`), or case `YDROP_TWIN_ONLY` alone.
fn twin_equals_oracle(what: &str, default_n: u64, gen: &(dyn Fn(&mut Rng) -> Case + Sync)) {
    let seed = env_u64("YDROP_TWIN_SEED", 1);
    if let Ok(i) = std::env::var("YDROP_TWIN_ONLY") {
        let case = gen(&mut Rng::for_case(seed, i.parse().unwrap()));
        eprintln!("{}", case.describe());
        same(&case);
        return;
    }
    let n = env_u64("YDROP_TWIN_CASES", default_n);
    let bad = check_many(what, seed, n, gen);
    assert!(bad.is_empty(), "{} of {n} cases differ; first {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

#[test]
fn twin_equals_oracle_random() {
    let pool = matrix_pool(env_u64("YDROP_TWIN_SEED", 1), 12);
    twin_equals_oracle("random", 50_000, &|rng: &mut Rng| random_case(rng, &pool, 3000));
}

/// Calls bounded and masked by random earlier alignments around the anchor, both directions.
#[test]
fn twin_equals_oracle_constrained_random() {
    let pool = matrix_pool(env_u64("YDROP_TWIN_SEED", 1), 12);
    twin_equals_oracle("constrained", 20_000, &|rng: &mut Rng| random_constrained_case(rng, &pool, 1500));
}

/// The constrained generator's earlier alignments really change results, in both directions.
#[test]
fn constrained_cases_change_results() {
    let pool = matrix_pool(3, 6);
    let mut changed = [0u32; 2];
    for i in 0..2000 {
        let case = random_constrained_case(&mut Rng::for_case(3, i), &pool, 1500);
        let bounded = same(&case);
        let free = same(&Case { bounds: None, ..case.clone() });
        changed[case.reversed as usize] += (bounded != free) as u32;
    }
    eprintln!("constrained results differing from unconstrained: forward {}, reversed {}", changed[0], changed[1]);
    assert!(changed.iter().all(|&c| c >= 100));
}

/// The generator reaches what it is meant to: long extensions, both truncations, every op.
#[test]
fn random_cases_cover_the_quirks() {
    let pool = matrix_pool(2, 6);
    let (mut long, mut midway, mut first_row, mut gaps, mut boundary_ends) = (0, 0, 0, 0, 0);
    for i in 0..2000 {
        let case = random_case(&mut Rng::for_case(2, i), &pool, 3000);
        let (_, end1, end2, truncated, ops) = same(&case);
        long += (end1 >= 1000) as u32;
        midway += (truncated == TRUNC_MIDWAY) as u32;
        first_row += (truncated == TRUNC_FIRST_ROW) as u32;
        gaps += ops.iter().any(|&o| op::kind(o) != op::SUB) as u32;
        boundary_ends += (case.trim_to_peak == 0 && end1 > 0 && (end1 == case.a.len() as u32 - 1 || end2 == case.b.len() as u32 - 1)) as u32;
    }
    eprintln!("coverage: {long} long, {midway} midway, {first_row} first-row, {gaps} gapped, {boundary_ends} boundary ends");
    assert!(long >= 20 && midway >= 20 && first_row >= 20 && gaps >= 200 && boundary_ends >= 50);
}

// ---- named traps -------------------------------------------------------------------------------------------

/// Row 0 tests the PREVIOUS C against -yDrop, so it stores the first C below it, and that sets row 1's
/// right bound; a y-drop of a few gap extensions (ties with `>=` at exact multiples) stops row 0 after a
/// cell or two, and the tiny bands prune leading cells (which keep the running I) on most rows.
#[test]
fn trap_row_zero_and_narrow_ydrop() {
    let pool = matrix_pool(3, 3);
    let gen = |rng: &mut Rng| {
        let e = rng.range(1, 40) as i32;
        let o = pick(rng, &[0, e, 3 * e, 400]);
        let y = pick(rng, &[0, e - 1, e, e + 1, 2 * e, 2 * e + 1, o + e, o + 2 * e, o + 3 * e - 1]).max(0);
        let len = rng.range(0, 200) as usize;
        let rate = pick(rng, &[0.0, 0.05, 0.3, 0.75]);
        let (a, b) = similar(rng, len, rate);
        let mut c = Case::new(&a, &b, pool[rng.below(pool.len() as u64) as usize].clone(), o, e, y);
        c.trim_to_peak = rng.chance(0.5) as i32;
        c
    };
    assert!(check_many("row 0, narrow y-drop", 21, 20_000, &gen).is_empty());
}

/// The 32-lane sweep holds scores in 16 bits relative to each row's floor: it must give way to the 16-lane
/// sweep where a substitution score or the y-drop would carry a deciding score past 16 bits (large scores and
/// y-drops at and beyond its admitted span), and agree with the spec everywhere.
#[test]
fn trap_sixteen_bit_scores_at_their_span() {
    let gen = |rng: &mut Rng| {
        let hit = pick(rng, &[91, 1000, 1001, 5000, 10_000]);
        let sub = lastz_matrix(&match_mismatch(hit, pick(rng, &[hit, 100, 3 * hit])), -100, -1000);
        let (o, e) = (pick(rng, &[0, 400, 3000]), pick(rng, &[1, 30, 300]));
        let span = 30_000 - o - 34 * e - 2000;
        let y = pick(rng, &[9400, span - 1, span, span + 1, span + 3000, 32_767]).max(0);
        let len = rng.range(50, 600) as usize;
        let rate = pick(rng, &[0.0, 0.02, 0.1, 0.3]);
        let (a, b) = similar(rng, len, rate);
        let mut c = Case::new(&a, &b, matrix("match/mismatch", sub), o, e, y);
        c.trim_to_peak = rng.chance(0.5) as i32;
        c
    };
    assert!(check_many("16-bit span", 23, 3_000, &gen).is_empty());
}

/// `C >= best`: of equal scores the later cell in row-major order is the end. With every substitution
/// scoring 0 only the main diagonal reaches 0, and the end is its last cell, not the anchor.
#[test]
fn trap_best_ties_move_the_end() {
    let zero = matrix("zero", vec![0; 256 * 256]);
    let (score, end1, end2, truncated, ops) = same(&Case::new(b"ACGTA", b"TTGCA", zero, 1, 1, 10));
    assert_eq!((score, end1, end2, truncated, ops), (0, 5, 5, TRUNC_NONE, vec![5 << 2 | op::SUB]));
}

/// Ties everywhere: one- and two-letter sequences with scores where a gap, a mismatch and a match run can
/// cost the same (`C >= best`, D preferred over I when they tie, an extension preferred over an open on a
/// tie, no gap opened from a gap-ended cell).
#[test]
fn trap_tie_rules_low_complexity() {
    let scorings = [
        matrix("match2,2", lastz_matrix(&match_mismatch(2, 2), 0, -10)),
        matrix("match1,1", lastz_matrix(&match_mismatch(1, 1), 0, -10)),
        matrix("match3,1", lastz_matrix(&match_mismatch(3, 1), 0, -10)),
    ];
    let gen = |rng: &mut Rng| {
        let alpha = pick(rng, &[1, 2, 2, 3]);
        let (a_len, b_len) = (rng.range(0, 300) as usize, rng.range(0, 300) as usize);
        let a = letters(rng, a_len, alpha);
        let b = if rng.chance(0.5) { letters(rng, b_len, alpha) } else { a.iter().rev().copied().collect() };
        let e = rng.range(0, 3) as i32;
        let o = pick(rng, &[0, 1, 2, -e]);
        let sc = scorings[rng.below(scorings.len() as u64) as usize].clone();
        let mut c = Case::new(&a, &b, sc, o, e, rng.range(0, 30) as i32);
        c.trim_to_peak = rng.chance(0.5) as i32;
        c
    };
    assert!(check_many("tie rules", 22, 20_000, &gen).is_empty());
}

/// --noytrim: an end on the last row or column is kept even when a mismatch lowers it; with trimming the
/// end goes back to the peak.
#[test]
fn trap_noytrim_keeps_the_boundary_end() {
    let unit = matrix("match1,2", lastz_matrix(&match_mismatch(1, 2), -1, -10));
    let mut c = Case::new(b"ACGTACGTACT", b"ACGTACGTACG", unit, 2, 1, 40);
    assert_eq!(same(&c), (10, 10, 10, TRUNC_NONE, vec![10 << 2 | op::SUB]));
    c.trim_to_peak = 0;
    assert_eq!(same(&c), (8, 11, 11, TRUNC_NONE, vec![11 << 2 | op::SUB]));
    // and when the sequences are unrelated near the end, any boundary cell still in the band
    let pool = matrix_pool(4, 3);
    let gen = |rng: &mut Rng| {
        let len = rng.range(1, 120) as usize;
        let rate = pick(rng, &[0.0, 0.05, 0.2]);
        let (a, mut b) = similar(rng, len, rate);
        b.truncate(rng.range(0, b.len() as i64) as usize);
        let mut c = Case::new(&a, &b, pool[rng.below(pool.len() as u64) as usize].clone(), rng.range(0, 400) as i32, rng.range(1, 30) as i32, rng.range(0, 2000) as i32);
        c.trim_to_peak = 0;
        c
    };
    assert!(check_many("noytrim", 23, 10_000, &gen).is_empty());
}

/// `yDropTail = yDrop / gapExtend + 6` (integer division; `N + 1` when gapExtend is 0): a traceback below it
/// cannot hold the first row; from it on, rows are computed until `used + width + yDropTail >= size`.
#[test]
fn trap_traceback_size_edges() {
    let hox = hoxd70();
    let (a, b) = similar(&mut Rng::new(5), 400, 0.05);
    for (o, e, y, tail) in [(400, 30, 9400, 319), (400, 30, 59, 7), (400, 0, 3000, 401), (0, 7, 0, 6)] {
        let mut c = Case::new(&a, &b[..b.len().min(400)], hox.clone(), o, e, y);
        c.tb_size = tail - 1;
        assert_eq!(same(&c), (0, 0, 0, TRUNC_FIRST_ROW, vec![]), "O={o} E={e} Y={y}");
        c.tb_size = tail;
        assert_ne!(same(&c).3, TRUNC_FIRST_ROW, "O={o} E={e} Y={y}");
        // every size up to a complete extension: each one truncates before a different row
        let full = (c.b.len() as u32) * (c.a.len() as u32) + tail;
        let step = ((full - tail) / 600).max(1);
        let mut midway = 0;
        for tb in (tail..full).step_by(step as usize) {
            c.tb_size = tb;
            midway += (same(&c).3 == TRUNC_MIDWAY) as u32;
        }
        assert!(midway > 0, "O={o} E={e} Y={y}: no midway truncation");
    }
    // an empty sequence returns before the check
    let mut c = Case::new(b"", b"ACGT", hox, 400, 30, 9400);
    c.tb_size = 0;
    assert_eq!(same(&c), (0, 0, 0, TRUNC_NONE, vec![]));
}

/// A zero gap open, a negative one (LASTZ accepts gapOpen + gapExtend >= 0) and a zero gap extension (no
/// y-drop bound on a gap: rows prolong to the end of `b`).
#[test]
fn trap_gap_open_zero_negative_and_extend_zero() {
    let pool = matrix_pool(6, 3);
    let gen = |rng: &mut Rng| {
        let e = pick(rng, &[0, 0, 1, 5, 30]);
        let o = pick(rng, &[0, -e, -e / 2, -1.min(e), 1]);
        let len = rng.range(0, 300) as usize;
        let rate = pick(rng, &[0.02, 0.1, 0.3]);
        let (a, b) = similar(rng, len, rate);
        let mut c = Case::new(&a, &b, pool[rng.below(pool.len() as u64) as usize].clone(), o, e, rng.range(0, 3000) as i32);
        c.trim_to_peak = rng.chance(0.5) as i32;
        c
    };
    assert!(check_many("gap open <= 0, extend 0", 24, 10_000, &gen).is_empty());
}

/// A short `a` against a long `b`: the live last cell of a row prolongs it with insertions, then the
/// terminator cell (no traceback byte) closes it; reaching `N` ends both.
#[test]
fn trap_prolongation_and_terminator() {
    let pool = matrix_pool(7, 3);
    let gen = |rng: &mut Rng| {
        let len = rng.range(1, 40) as usize;
        let (a, b) = similar(rng, len, 0.05);
        let mut b = b;
        let extra = rng.range(0, 600) as usize;
        b.extend(letters(rng, extra, 4));
        let e = rng.range(1, 10) as i32;
        let mut c = Case::new(&a, &b, pool[rng.below(pool.len() as u64) as usize].clone(), rng.range(0, 50) as i32, e, rng.range(0, 3000) as i32);
        c.trim_to_peak = rng.chance(0.5) as i32;
        c
    };
    assert!(check_many("prolongation", 25, 10_000, &gen).is_empty());
}

/// LASTZ forms a proposal from the byte after `b` (`B[N+1]`) and throws it away: its value never matters.
#[test]
fn trap_byte_after_b_is_unused() {
    let mut sub = lastz_matrix(&HOXD70, -100, -1000);
    for x in 0..256 {
        sub[x * 256 + 0xEE] = 1_000_000;
    }
    let m = matrix("HOXD70+EE", sub);
    let (a, b) = similar(&mut Rng::new(8), 300, 0.02);
    let mut c = Case::new(&a, &b, m, 400, 30, 9400);
    for trim in [0, 1] {
        c.trim_to_peak = trim;
        *c.b.last_mut().unwrap() = 0;
        let with_nul = same(&c);
        *c.b.last_mut().unwrap() = 0xEE;
        assert_eq!(same(&c), with_nul);
        assert_eq!(with_nul.2 as usize, c.b.len() - 1, "the extension reaches the end of b");
    }
}

/// The matrix is indexed by the raw bytes: case, N and IUPAC letters mean what the matrix says (LASTZ's
/// gapped stage scores lowercase like uppercase only because its matrix does).
#[test]
fn trap_raw_bytes_index_the_matrix() {
    let mut sub = lastz_matrix(&HOXD70, -100, -1000);
    for x in b"acgt" {
        for y in b"ACGTacgt" {
            sub[*x as usize * 256 + *y as usize] = -50;
        }
    }
    let m = matrix("HOXD70, lowercase -50", sub);
    let (a, b) = similar(&mut Rng::new(9), 200, 0.02);
    let upper = same(&Case::new(&a, &b, m.clone(), 400, 30, 9400));
    let lower = same(&Case::new(&a.to_ascii_lowercase(), &b, m.clone(), 400, 30, 9400));
    assert!(upper.0 > 0 && lower.0 == 0 && lower.1 == 0, "upper {:?}, lower {:?}", upper.0, lower.0);
    let pool = matrix_pool(10, 3);
    let gen = |rng: &mut Rng| {
        let len = rng.range(0, 200) as usize;
        let a: Vec<u8> = (0..len).map(|_| pick(rng, b"ACGTacgtNnRYKMSWBDHVX")).collect();
        let b: Vec<u8> = a.iter().map(|&x| if rng.chance(0.1) { pick(rng, b"ACGTacgtNnRYX") } else { x }).collect();
        Case::new(&a, &b, pool[rng.below(pool.len() as u64) as usize].clone(), 400, 30, rng.range(100, 9400) as i32)
    };
    assert!(check_many("raw bytes", 26, 5_000, &gen).is_empty());
}

/// Unconstrained, `reversed` only names the direction in LASTZ's truncation report.
#[test]
fn trap_reversed_changes_nothing() {
    let pool = matrix_pool(11, 3);
    let mut rng = Rng::new(11);
    for _ in 0..300 {
        let mut c = random_case(&mut rng, &pool, 800);
        c.reversed = 0;
        let forward = same(&c);
        c.reversed = 1;
        assert_eq!(same(&c), forward);
    }
}

/// One thread, LASTZ's defaults, 1-5 kb pairs at 3-10% divergence (the band is about 600 columns wide).
#[test]
#[ignore]
fn bench_twin_vs_oracle() {
    let n = env_u64("YDROP_TWIN_BENCH_JOBS", 300) as usize;
    let mut rng = Rng::new(99);
    let hox = hoxd70();
    let cases: Vec<Case> = (0..n)
        .map(|_| {
            let len = rng.range(1000, 5000) as usize;
            let rate = pick(&mut rng, &[0.03, 0.05, 0.1]);
            let (a, b) = similar(&mut rng, len, rate);
            Case::new(&a, &b, hox.clone(), 400, 30, 9400)
        })
        .collect();
    let jobs: Vec<_> = cases.iter().map(|c| c.job()).collect();
    let t0 = Instant::now();
    let so: i64 = jobs.iter().map(|j| oracle(j).0 as i64).sum();
    let to = t0.elapsed().as_secs_f64();
    let t1 = Instant::now();
    let st: i64 = jobs.iter().map(|j| twin(j).0 as i64).sum();
    let tt = t1.elapsed().as_secs_f64();
    assert_eq!(so, st);
    eprintln!("bench: {n} jobs 1-5 kb, LASTZ defaults: oracle {to:.3}s, twin {tt:.3}s, twin/oracle = {:.2}x", tt / to);
}

// ---- constrained traps: earlier alignments (YdropBounds) -----------------------------------------------

const ANCHOR: (u32, u32) = (5000, 5000);

/// `a` of `len` random bases and `b` = `a` with `ins` random bases inserted at `at` (the best path leaves
/// the anchor's diagonal there).
fn shifted_pair(rng: &mut Rng, len: usize, at: usize, ins: usize) -> (Vec<u8>, Vec<u8>) {
    let a = letters(rng, len, 4);
    let mut b = a[..at].to_vec();
    b.extend(letters(rng, ins, 4));
    b.extend_from_slice(&a[at..]);
    (a, b)
}

/// A diagonal alignment `off` columns right of the anchor's diagonal over absolute rows `rows`.
fn diagonal(off: i64, rows: std::ops::Range<u32>) -> Vec<YdropSegment> {
    let b2 = (rows.start as i64 - ANCHOR.0 as i64 + ANCHOR.1 as i64 + off) as u32;
    chain(rows.start, b2, &[rows.end - rows.start], &[])
}

/// The anchor's neighbours `left`/`right` (alignment index, its segment index) and the list heads.
#[derive(Clone, Copy)]
struct Setup {
    left: (u32, u32),
    right: (u32, u32),
    above: u32,
    below: u32,
}

/// A case over `a`, `b` with `chains` as earlier alignments entered as `s` says, `link` setting the
/// alignments' own links.
fn bounded(a: &[u8], b: &[u8], reversed: bool, chains: &[Vec<YdropSegment>], s: Setup, link: impl Fn(&mut [YdropAlignment])) -> Case {
    let mut aligns: Vec<_> = chains.iter().map(|_| unlinked()).collect();
    link(&mut aligns);
    let links = Links { anchor: ANCHOR, left: s.left, right: s.right, above: s.above, below: s.below };
    let mut c = Case::new(a, b, hoxd70(), 400, 30, 9400);
    c.reversed = reversed as i32;
    c.bounds = Some(Bounds::new(chains, aligns, &links));
    c
}

/// Twin and oracle agree, and the earlier alignments change the result.
fn bites(case: &Case) -> Outcome {
    let o = same(case);
    assert_ne!(o, same(&Case { bounds: None, ..case.clone() }), "the bounds change nothing:\n  {}", case.describe());
    o
}

/// Left and right neighbours parallel to the anchor's diagonal keep the sweep between them, so the indel
/// at row 300 cannot be followed. On a neighbour's first segment the bound is the segment's own column
/// (left: inclusive, right: exclusive); reversed sweeps mirror them (LASTZ's note 14).
#[test]
fn trap_left_right_bounds_hold_the_band() {
    let mut rng = Rng::new(40);
    let (a, b) = shifted_pair(&mut rng, 600, 300, 20);
    for reversed in [false, true] {
        let rows = if reversed { ANCHOR.0 - 700..ANCHOR.0 + 10 } else { ANCHOR.0 - 10..ANCHOR.0 + 700 };
        // reversed, the left neighbour is the one on the right of the anchor's diagonal
        let (lo, hi) = if reversed { (8, -8) } else { (-8, 8) };
        let chains = [diagonal(lo, rows.clone()), diagonal(hi, rows)];
        let s = Setup { left: (0, 0), right: (1, 1), above: NONE, below: NONE };
        let (_, end1, _, _, _) = bites(&bounded(&a, &b, reversed, &chains, s, |_| {}));
        assert!(end1 < 320, "reversed={reversed}: the band let the path past the indel");
    }
}

/// A right neighbour one column off the anchor's diagonal leaves the rows one column wide, where no
/// substitution score is read: a vector sweep's first such call on a thread whose profiles hold nothing yet
/// must still read its chunk within memory it owns (it once read through an empty profile and crashed).
#[test]
fn trap_one_column_rows_on_a_fresh_thread() {
    let mut rng = Rng::new(44);
    let (a, b) = shifted_pair(&mut rng, 300, 150, 0);
    for (reversed, off, left, right) in [(false, 1, (NONE, NONE), (0, 0)), (true, -1, (0, 0), (NONE, NONE))] {
        let rows = if reversed { ANCHOR.0 - 400..ANCHOR.0 + 10 } else { ANCHOR.0 - 10..ANCHOR.0 + 400 };
        let s = Setup { left, right, above: NONE, below: NONE };
        let case = bounded(&a, &b, reversed, &[diagonal(off, rows)], s, |_| {});
        let (_, _, end2, _, _) = std::thread::spawn(move || same(&case)).join().unwrap();
        assert!(end2 <= 1, "reversed={reversed}: the rows were wider than one column (end2 {end2})");
    }
}

/// In a reversed sweep the prolongation bound `NN` still tests rightSeg, while the right bound comes from
/// leftSeg: with a leftSeg alone the row is cut at R but prolongs (and terminates) up to N.
#[test]
fn trap_reversed_prolongation_ignores_the_left_segment_bound() {
    let mut rng = Rng::new(41);
    let (a, b) = shifted_pair(&mut rng, 400, 200, 12);
    for (left_only, off) in [(true, 4), (true, 15), (false, 4), (false, 15)] {
        let rows = ANCHOR.0 - 500..ANCHOR.0 + 10;
        let chains = [diagonal(off, rows.clone()), diagonal(-off, rows)];
        let s = Setup { left: (0, 0), right: if left_only { (NONE, NONE) } else { (1, 1) }, above: NONE, below: NONE };
        bites(&bounded(&a, &b, true, &chains, s, |_| {}));
    }
}

/// An earlier alignment lying on the anchor's diagonal ahead masks its cells as the sweep reaches it (from
/// aboveList forward, belowList reversed): the path must detour around it (y-drop 9400 lets it).
#[test]
fn trap_masks_block_the_diagonal() {
    let mut rng = Rng::new(42);
    let (a, b) = shifted_pair(&mut rng, 500, 250, 0);
    for reversed in [false, true] {
        let rows = if reversed { ANCHOR.0 - 300..ANCHOR.0 - 200 } else { ANCHOR.0 + 201..ANCHOR.0 + 301 };
        let chains = [diagonal(0, rows)];
        let s = Setup { left: (NONE, NONE), right: (NONE, NONE), above: 0, below: 0 };
        let (_, _, _, _, ops) = bites(&bounded(&a, &b, reversed, &chains, s, |_| {}));
        assert!(ops.iter().any(|&o| op::kind(o) != op::SUB), "reversed={reversed}: no detour");
    }
}

/// A horizontal segment masks its whole column run on the row where the sweep enters it, then the sweep
/// follows the next segment; a vertical one masks one column per row.
#[test]
fn trap_gap_segments_mask_runs_and_columns() {
    let mut rng = Rng::new(43);
    let (a, b) = shifted_pair(&mut rng, 500, 250, 0);
    for reversed in [false, true] {
        for gap in [25, -25, 3, -3] {
            let start = if reversed { ANCHOR.0 - 400 } else { ANCHOR.0 + 100 };
            // the gap segment crosses the anchor's diagonal
            let off = -gap / 2;
            let b2 = (start as i64 - ANCHOR.0 as i64 + ANCHOR.1 as i64 + off as i64) as u32;
            let chains = [chain(start, b2, &[100, 150], &[gap])];
            let s = Setup { left: (NONE, NONE), right: (NONE, NONE), above: 0, below: 0 };
            bites(&bounded(&a, &b, reversed, &chains, s, |_| {}));
        }
    }
}

/// Running off a neighbour's last (forward) or first (reversed) segment jumps to the alignment its
/// `*Align2`/`*Align1` link names, entering at the linked segment (mid-chain, diagonal or vertical; the
/// column of a diagonal one is taken on the current row) or, without a link, drops the bound. After a move
/// the bound is one column off the segment (left +1, right -1), unlike on the first segment.
#[test]
fn trap_neighbour_segments_and_jumps() {
    let mut rng = Rng::new(44);
    let (a, b) = shifted_pair(&mut rng, 600, 400, 10);
    let mut jumps_matter = 0;
    for reversed in [false, true] {
        for entry in [0u32, 1, 2] {
            let (near, far) = if reversed {
                (ANCHOR.0 - 150..ANCHOR.0 + 10, ANCHOR.0 - 700)
            } else {
                (ANCHOR.0 - 10..ANCHOR.0 + 150, ANCHOR.0 + 120)
            };
            let side = if reversed { 1 } else { -1 };
            // the near neighbour (two segments), then a farther one the near one links to
            let near_chain = {
                let b2 = (near.start as i64 - ANCHOR.0 as i64 + ANCHOR.1 as i64 + 6 * side) as u32;
                let half = (near.end - near.start) / 2;
                chain(near.start, b2, &[half, near.end - near.start - half - 2], &[-2])
            };
            let far_b2 = (far as i64 - ANCHOR.0 as i64 + ANCHOR.1 as i64 + 4 * side) as u32;
            let far_chain = chain(far, far_b2, &[200, 150, 200], &[-5, 4]);
            let entry_seg = 3 + entry;
            let chains = [near_chain, far_chain];
            let s = Setup { left: (0, 0), right: (NONE, NONE), above: NONE, below: NONE };
            let s = if reversed { Setup { left: (NONE, NONE), right: (0, 2), ..s } } else { s };
            let case = bounded(&a, &b, reversed, &chains, s, |al| {
                if reversed {
                    (al[0].right_align1, al[0].right_seg1) = (1, entry_seg);
                } else {
                    (al[0].left_align2, al[0].left_seg2) = (1, entry_seg);
                }
            });
            let unlinked_case = bounded(&a, &b, reversed, &chains, s, |_| {});
            jumps_matter += (same(&case) != same(&unlinked_case)) as u32;
        }
    }
    assert!(jumps_matter >= 2, "the neighbour links changed {jumps_matter} results");
}

/// A block serving only its first `rows` rows: the twin stops with TRUNC_BOUNDS exactly when the sweep with
/// the whole block enters a later row (a row cut short by the traceback memory counts), and otherwise gives
/// the whole block's result.
#[test]
fn bounds_rows_stop_the_sweep() {
    let pool = matrix_pool(5, 6);
    let (mut stopped, mut served) = (0, 0);
    for i in 0..3000 {
        let mut rng = Rng::for_case(5, i);
        let case = random_constrained_case(&mut rng, &pool, 1500);
        let whole = case.job();
        let mut r = YdropResult::EMPTY;
        let extent = ydrop::twin::one_sided(&whole, &mut r).unwrap();
        let entered = extent.a + (r.truncated == TRUNC_MIDWAY) as u32;
        r.release();
        let want = twin(&whole);
        for rows in [0, entered.saturating_sub(1), entered, rng.range(0, entered as i64 + 2) as u32] {
            let block = YdropBounds { rows, ..case.bounds.as_ref().unwrap().block };
            let got = twin(&YdropJob { bounds: &block, ..whole });
            if rows < entered {
                assert_eq!(got, (0, 0, 0, TRUNC_BOUNDS, vec![]), "rows {rows} of {entered}:\n  {}", case.describe());
                stopped += 1;
            } else {
                assert_eq!(got, want, "rows {rows} of {entered}:\n  {}", case.describe());
                served += 1;
            }
        }
    }
    eprintln!("stopped {stopped}, served {served}");
    assert!(stopped >= 1000 && served >= 1000);
}
