//! The Rust twin of `ksw_extd2_sse` (warpalign::ksw::twin::extd2) against the upstream C function (the
//! oracle), field by field and CIGAR by CIGAR, on fixed-seed random jobs and the trap families.
//!
//! `KSW_TWIN_CASES=N` scales the random test (default 100,000); `KSW_TWIN_SEED=S` changes its seed;
//! `KSW_TWIN_ONLY=I` replays case I alone. A mismatch prints the whole job.
//! `cargo test --release --test ksw -- --ignored --nocapture twin_extd2::bench` times twin vs oracle on one
//! thread (`KSW_TWIN_BENCH_JOBS`, `KSW_TWIN_BENCH_MODE=cigar|cigar+approx|score-only`).

use crate::check::{bench_modes, check_many, same, time_twin_vs_oracle, random_twin_test, Extd2};
use crate::common::ksw_cases::*;
use crate::common::{env_u64, mm2_matrix, Rng};
use warpalign::ksw::KswExtd2Job;

#[test]
fn twin_equals_oracle_random() {
    random_twin_test::<Extd2>(100_000, random_case);
}

// ---- named traps (common/ksw_cases.rs) -----------------------------------------------------------------

#[test]
fn trap_stale_lanes_narrow_band() {
    assert!(check_many::<Extd2>("stale lanes", 11, 3000, trap_stale_lanes).is_empty());
}

#[test]
fn trap_argmax_tie_break() {
    assert!(check_many::<Extd2>("tie-break", 12, 3000, trap_tie_break).is_empty());
}

#[test]
fn trap_approx_max() {
    assert!(check_many::<Extd2>("approx max", 13, 3000, trap_approx).is_empty());
}

/// A band that cannot reach the corner stops with zdropped = 1 and the CIGAR from the max.
#[test]
fn trap_band_exhaustion_is_zdrop() {
    let mut rng = Rng::new(14);
    let exhausted: u32 = (0..500).map(|_| same::<Extd2>(&trap_band_exhaustion(&mut rng)).1).sum();
    assert!(exhausted > 100, "only {exhausted} cases exhausted the band");
}

/// Z-drop tests `max - H > zdrop + l * e2` with the long-gap extension e2 (after the swap).
#[test]
fn trap_zdrop_uses_e2() {
    let mut rng = Rng::new(15);
    let dropped: u32 = (0..1500).map(|_| same::<Extd2>(&trap_zdrop(&mut rng)).1).sum();
    assert!(dropped > 200, "only {dropped} cases z-dropped");
}

#[test]
fn trap_degenerate() {
    for c in degenerate_cases() {
        same::<Extd2>(&c);
    }
}

// ---- speed ---------------------------------------------------------------------------------------------

/// One thread, 1-5 kb pairs with w = 500.
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
    for (label, fl) in bench_modes("KSW_TWIN") {
        let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| KswExtd2Job { flag: fl, ..c.job() }).collect();
        time_twin_vs_oracle::<Extd2>(&format!("{label} 1-5 kb w=500"), &jobs, cells);
    }
}
