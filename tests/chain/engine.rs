//! The chain engine's batch path against direct calls of upstream's `mg_lchain_dp` (the oracle), on random
//! anchor sets with fixed seeds: chains and compacted anchors must be equal.

use crate::common::Rng;
use crate::{oracle, take};
use warpalign::chain::{self, Anchor, ChainDpJob, ChainDpResult};
use warpalign::Engine;

/// Anchors as minimap2's seeding makes them: a few colinear runs (with noise and repeats) on one or two
/// targets and strands, sorted by `x`.
fn random_anchors(rng: &mut Rng) -> Vec<Anchor> {
    let mut a = Vec::new();
    let span = 15u64;
    for _ in 0..rng.range(0, 6) {
        let rev = rng.below(2);
        let tid = rng.below(2);
        let mut tpos = rng.below(1_000_000);
        let mut qpos = rng.below(5_000);
        for _ in 0..rng.range(1, 120) {
            tpos += rng.range(1, 60) as u64;
            qpos = (qpos as i64 + rng.range(-5, 60)).max(0) as u64;
            let x = rev << 63 | tid << 32 | (tpos & 0xffff_ffff);
            let y = span << 32 | (qpos & 0xffff_ffff);
            a.push(Anchor { x, y });
        }
    }
    a.sort_by_key(|p| p.x);
    a
}

#[test]
fn lchain_dp_batch_equals_upstream() {
    let mut rng = Rng::new(5);
    let sets: Vec<Vec<Anchor>> = (0..2000).map(|_| random_anchors(&mut rng)).collect();
    let jobs: Vec<ChainDpJob> = sets
        .iter()
        .enumerate()
        .map(|(i, a)| ChainDpJob {
            max_dist_x: [5000, 200, 100_000][i % 3],
            max_dist_y: [5000, 200, 100_000][i % 3],
            bw: [500, 100, 1000][i % 3],
            max_skip: [25, 0, 1000][i % 3],
            max_iter: [5000, 50, 5000][i % 3],
            min_cnt: 3,
            min_sc: 40,
            chn_pen_gap: [0.8f32, 0.12, 1.0][i % 3],
            chn_pen_skip: [0.0f32, 0.0, 0.5][i % 3],
            is_cdna: (i % 5 == 0) as i32,
            n_seg: 1 + (i % 7 == 0) as i32,
            n_anchors: a.len() as i64,
            anchors: a.as_ptr(),
        })
        .collect();
    let mut results: Vec<ChainDpResult> = (0..jobs.len()).map(|_| ChainDpResult::EMPTY).collect();
    chain::dp_batch(&Engine::cpu(), &jobs, &mut results).unwrap();
    let mut chained = 0;
    for (i, (j, r)) in jobs.iter().zip(results.iter_mut()).enumerate() {
        let want = oracle(j);
        assert_eq!(take(r), want, "chains and anchors of case {i}");
        chained += !want.0.is_empty() as usize;
    }
    assert!(chained > 500, "too few cases produced chains ({chained}): the generator is off");
}
