//! The Rust twin of `ksw_exts2_sse` (warpalign::ksw::twin::exts2) against the upstream C function (the
//! oracle), field by field and CIGAR by CIGAR, on fixed-seed random jobs (tests/common/ksw_exts2_cases.rs):
//! spliced pairs, random and mutated pairs; every flag, junc null or random, the splice presets' scoring and
//! wild int8 parameters.
//!
//! `KSW_TWIN_EXTS2_CASES=N` scales the random test (default 30,000); `KSW_TWIN_EXTS2_SEED=S` changes its
//! seed; `KSW_TWIN_EXTS2_ONLY=I` replays case I alone. A mismatch prints the whole job.
//! `cargo test --release --test ksw -- --ignored --nocapture twin_exts2::bench` times twin vs oracle on one
//! thread (`KSW_TWIN_EXTS2_BENCH_JOBS`, `KSW_TWIN_EXTS2_BENCH_MODE=cigar|cigar+approx|score-only`).

use crate::check::{bench_modes, check_many, same, time_twin_vs_oracle, random_twin_test, Exts2};
use crate::common::ksw_cases::{pick, seq};
use crate::common::ksw_exts2_cases::*;
use crate::common::{env_u64, mm2_matrix, Rng};
use warpalign::ksw::{flag, KswExts2Job};

#[test]
fn twin_equals_oracle_random() {
    random_twin_test::<Exts2>(30_000, random_case);
}

// ---- named traps -------------------------------------------------------------------------------------------

/// The calls minimap2 makes (see `minimap2_call`).
#[test]
fn trap_minimap2_calls() {
    assert!(check_many::<Exts2>("minimap2 calls", 21, 3000, minimap2_call).is_empty());
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
    assert!(check_many::<Exts2>("int8 wrap", 22, 3000, gen).is_empty());
}

#[test]
fn trap_degenerate() {
    for c in degenerate_cases() {
        same::<Exts2>(&c);
    }
}

// ---- speed ---------------------------------------------------------------------------------------------

/// One thread, spliced reads: 300-1000 bp pieces with 1-3 introns of 50-1500 bp.
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
    for (label, fl) in bench_modes("KSW_TWIN_EXTS2") {
        let jobs: Vec<KswExts2Job> = cases.iter().map(|c| { let mut j = c.job(); j.flag |= fl; j }).collect();
        time_twin_vs_oracle::<Exts2>(&format!("{label} spliced"), &jobs, cells);
    }
}
