//! The speculation test of the y-drop engine (warpalign::ydrop::twin::shadow): an extension run without
//! constraints, whose envelope `unaffected` accepts for a call's real earlier alignments, must equal LASTZ's
//! own function on that constrained call (score, end, truncation, edit script). On fixed-seed random calls
//! bounded and masked by random earlier alignments around the anchor (both directions, truncations, odd
//! scorings); it prints how many were accepted, and how many of the rejected ones differed.
//!
//! `YDROP_SHADOW_CASES=N` scales it (default 20,000), `YDROP_SHADOW_SEED=S` changes the seed.

mod common;

use common::ydrop_cases::*;
use common::Rng;
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use warpalign::ydrop::twin::shadow::{run_recorded, unaffected, Envelope};
use warpalign::ydrop::YdropResult;

fn env_u64(key: &str, default: u64) -> u64 {
    std::env::var(key).ok().and_then(|v| v.parse().ok()).unwrap_or(default)
}

#[test]
fn accepted_speculation_equals_the_constrained_call() {
    let seed = env_u64("YDROP_SHADOW_SEED", 1);
    let n = env_u64("YDROP_SHADOW_CASES", 20_000);
    let pool = matrix_pool(seed, 12);
    let threads = std::thread::available_parallelism().map_or(2, |x| x.get()) as u64;
    let next = AtomicU64::new(0);
    let [accepted, rejected_same, rejected_diff, bad] = std::array::from_fn::<AtomicU64, 4, _>(|_| AtomicU64::new(0));
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| {
                let mut env = Envelope::default();
                loop {
                    let i = next.fetch_add(1, Relaxed);
                    if i >= n {
                        break;
                    }
                    let case = random_constrained_case(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)), &pool, 1500);
                    let job = case.job();
                    let mut r = YdropResult::EMPTY;
                    run_recorded(&job, &mut r, &mut env);
                    let spec = outcome(&mut r);
                    let real = oracle(&job);
                    if unaffected(&env, &job) {
                        accepted.fetch_add(1, Relaxed);
                        if spec != real {
                            if bad.fetch_add(1, Relaxed) < 3 {
                                eprintln!("ACCEPTED BUT DIFFERENT case {i} (seed {seed})\n  real {real:?}\n  spec {spec:?}\n  {}", case.describe());
                            }
                        }
                    } else if spec == real {
                        rejected_same.fetch_add(1, Relaxed);
                    } else {
                        rejected_diff.fetch_add(1, Relaxed);
                    }
                }
            });
        }
    });
    let (a, rs, rd, b) = (accepted.into_inner(), rejected_same.into_inner(), rejected_diff.into_inner(), bad.into_inner());
    eprintln!("{n} constrained calls: {a} accepted ({b} of them different), rejected {} ({rs} equal anyway, {rd} different)", rs + rd);
    assert_eq!(b, 0, "accepted speculative results differ from the constrained call");
    // the test is not vacuous: both outcomes occur often
    assert!(a >= n / 10 && rd >= n / 100, "accepted {a}, rejected-and-different {rd} of {n}");
}

/// Without earlier alignments every speculative result is accepted and is the call's.
#[test]
fn unconstrained_calls_are_accepted() {
    let pool = matrix_pool(2, 6);
    let mut env = Envelope::default();
    for i in 0..3000 {
        let case = random_case(&mut Rng::new(7_000_003u64.wrapping_add(i)), &pool, 2000);
        let job = case.job();
        let mut r = YdropResult::EMPTY;
        run_recorded(&job, &mut r, &mut env);
        assert!(unaffected(&env, &job));
        assert_eq!(outcome(&mut r), oracle(&job), "case {i}\n{}", case.describe());
    }
}

/// The batch entry (what LASTZ's waves call) gives each job's unconstrained result and envelope.
#[test]
fn speculate_batch_matches_one_by_one() {
    let pool = matrix_pool(5, 6);
    let cases: Vec<Case> = (0..400).map(|i| random_constrained_case(&mut Rng::new(9_000_011u64.wrapping_add(i)), &pool, 1500)).collect();
    let jobs: Vec<_> = cases.iter().map(|c| c.job()).collect();
    let mut res: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
    let mut envs: Vec<Envelope> = (0..jobs.len()).map(|_| Envelope::default()).collect();
    warpalign::ydrop::speculate_batch(&jobs, &mut res, &mut envs).unwrap();
    let mut env = Envelope::default();
    for (i, ((j, r), e)) in jobs.iter().zip(res.iter_mut()).zip(envs.iter()).enumerate() {
        let mut one = YdropResult::EMPTY;
        run_recorded(j, &mut one, &mut env);
        assert_eq!(outcome(r), outcome(&mut one), "case {i}");
        assert_eq!(unaffected(e, j), unaffected(&env, j), "case {i}");
    }
}
