//! The speculation test of the y-drop engine (warpalign::ydrop::twin::shadow): an extension run without
//! constraints, or under part of the call's earlier alignments, whose envelope `unaffected` accepts for the
//! call's real earlier alignments, must equal LASTZ's own function on that constrained call (score, end,
//! truncation, edit script). On fixed-seed random calls
//! bounded and masked by random earlier alignments around the anchor (both directions, truncations, odd
//! scorings); it prints how many were accepted, and how many of the rejected ones differed.
//!
//! `YDROP_SHADOW_CASES=N` scales it (default 20,000), `YDROP_SHADOW_SEED=S` changes the seed.

use crate::common::ydrop_cases::*;
use crate::common::{env_u64, Rng};
use std::sync::atomic::{AtomicU64, Ordering::Relaxed};
use std::sync::Arc;
use warpalign::ydrop::ahead::{Ahead, Taken};
use warpalign::ydrop::twin::shadow::{run_recorded, unaffected, Envelope};
use warpalign::ydrop::{BoundsCopy, YdropBounds, YdropJob, YdropResult, TRUNC_MIDWAY, TRUNC_NONE};

/// What a run computed ahead knew of the call's earlier alignments.
#[derive(Clone, Copy, PartialEq, Debug)]
enum Known {
    /// None of them (run unconstrained).
    Nothing,
    /// A random part of them (a block over some of the alignments, relinked).
    Some,
    /// All of them (the call's own block).
    All,
}

/// Runs `n` random constrained calls computed ahead knowing `known`, and checks that every accepted result
/// equals LASTZ's function on the real call; returns (accepted, rejected-and-different).
fn check_speculation(known: Known, seed: u64, n: u64) -> (u64, u64) {
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
                    let rng = &mut Rng::for_case(seed, i);
                    let (case, snapshot) = match known {
                        Known::Some => {
                            let (c, s) = random_constrained_case_with_snapshot(rng, &pool, 1500, 0.6);
                            (c, Some(s))
                        }
                        _ => (random_constrained_case(rng, &pool, 1500), None),
                    };
                    let job = case.job();
                    let ahead = match (known, &snapshot) {
                        (Known::Nothing, _) => YdropJob { bounds: std::ptr::null(), ..job },
                        (_, Some(s)) => YdropJob { bounds: &s.block, ..job },
                        (_, None) => job,
                    };
                    let mut r = YdropResult::EMPTY;
                    run_recorded(&ahead, &mut r, &mut env).unwrap();
                    // (as the worker pool keeps it: a call whose block has the same values needs no replay)
                    // SAFETY: a non-null bounds points to the case's or the snapshot's block, alive here.
                    env.ran_under = (!ahead.bounds.is_null()).then(|| Arc::new(BoundsCopy::of(unsafe { &*ahead.bounds })));
                    let spec = outcome(&mut r);
                    let real = oracle(&job);
                    if unaffected(&env, &job) {
                        accepted.fetch_add(1, Relaxed);
                        if spec != real && bad.fetch_add(1, Relaxed) < 3 {
                            eprintln!(
                                "ACCEPTED BUT DIFFERENT case {i} (seed {seed}, known {known:?})\n  real {real:?}\n  spec {spec:?}\n  {}\n  snapshot {snapshot:?}",
                                case.describe()
                            );
                        }
                    } else {
                        assert_ne!(known, Known::All, "case {i}: a run under the call's own bounds is the call");
                        if spec == real {
                            rejected_same.fetch_add(1, Relaxed);
                        } else {
                            rejected_diff.fetch_add(1, Relaxed);
                        }
                    }
                }
            });
        }
    });
    let (a, rs, rd, b) = (accepted.into_inner(), rejected_same.into_inner(), rejected_diff.into_inner(), bad.into_inner());
    eprintln!("{n} constrained calls, known {known:?}: {a} accepted ({b} of them different), rejected {} ({rs} equal anyway, {rd} different)", rs + rd);
    assert_eq!(b, 0, "accepted results computed ahead differ from the constrained call");
    (a, rd)
}

#[test]
fn accepted_speculation_equals_the_constrained_call() {
    let seed = env_u64("YDROP_SHADOW_SEED", 1);
    let n = env_u64("YDROP_SHADOW_CASES", 20_000);
    let (a, rd) = check_speculation(Known::Nothing, seed, n);
    // the test is not vacuous: both outcomes occur often
    assert!(a >= n / 10 && rd >= n / 100, "accepted {a}, rejected-and-different {rd} of {n}");
}

/// Computed ahead under the earlier alignments known then (a part of the real ones), as LASTZ's anchor
/// loop queues them.
#[test]
fn accepted_snapshot_speculation_equals_the_constrained_call() {
    let seed = env_u64("YDROP_SHADOW_SEED", 1);
    let n = env_u64("YDROP_SHADOW_CASES", 20_000);
    let (a, rd) = check_speculation(Known::Some, seed.wrapping_add(77), n);
    assert!(a >= n / 10 && rd >= n / 100, "accepted {a}, rejected-and-different {rd} of {n}");
}

/// Computed under the call's own bounds, a result is always accepted.
#[test]
fn speculation_under_the_real_bounds_is_accepted() {
    let seed = env_u64("YDROP_SHADOW_SEED", 1);
    check_speculation(Known::All, seed.wrapping_add(991), env_u64("YDROP_SHADOW_CASES", 20_000) / 4);
}

/// A kept block is the same as a block only when every value is: a copy is, and a copy with any one value
/// changed is not (that call is then replayed).
#[test]
fn kept_blocks_equal_only_blocks_with_the_same_values() {
    let pool = matrix_pool(4, 2);
    let mut changed = 0;
    for i in 0..300 {
        let case = random_constrained_case(&mut Rng::new(5_000_009u64.wrapping_add(i)), &pool, 1500);
        let Some(b) = &case.bounds else { continue };
        let kept = BoundsCopy::of(&b.block);
        assert!(kept.same_as(&b.block), "case {i}");
        let mut segs = kept.block().segments().to_vec();
        let mut aligns = kept.block().alignments().to_vec();
        let mut block = YdropBounds { segments: segs.as_ptr(), alignments: aligns.as_ptr(), ..*kept.block() };
        let mut expect_differs = |what: &str, block: &YdropBounds| {
            assert!(!kept.same_as(block), "case {i}: {what} changed, still the same");
            changed += 1;
        };
        block.rows ^= 1;
        expect_differs("rows", &block);
        block.rows ^= 1;
        block.anchor2 ^= 1;
        expect_differs("anchor2", &block);
        block.anchor2 ^= 1;
        if let Some(s) = segs.last_mut() {
            s.e2 ^= 1;
            block.segments = segs.as_ptr();
            expect_differs("a segment's e2", &block);
            segs.last_mut().unwrap().e2 ^= 1;
        }
        if let Some(a) = aligns.first_mut() {
            a.next ^= 1;
            block.alignments = aligns.as_ptr();
            expect_differs("an alignment's next", &block);
            aligns.first_mut().unwrap().next ^= 1;
        }
        block.n_segments = 0;
        block.n_alignments = 0;
        if !segs.is_empty() || !aligns.is_empty() {
            expect_differs("the arrays' lengths", &block);
        }
    }
    assert!(changed > 300, "too few blocks to change: {changed}");
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
        run_recorded(&job, &mut r, &mut env).unwrap();
        assert!(unaffected(&env, &job));
        assert_eq!(outcome(&mut r), oracle(&job), "case {i}\n{}", case.describe());
    }
}

/// The worker pool (what LASTZ's anchor loop queues ahead) gives each job it ran the result and envelope of
/// running it alone; a job it had not started comes back as such, and cancelled or drained jobs never hang.
#[test]
fn ahead_pool_matches_one_by_one() {
    let pool = matrix_pool(5, 6);
    let cases: Vec<Case> = (0..400).map(|i| random_constrained_case(&mut Rng::new(9_000_011u64.wrapping_add(i)), &pool, 1500)).collect();
    let jobs: Vec<_> = cases.iter().map(|c| c.job()).collect();
    // (CPU workers only: the GPU thread runs jobs without their bounds, see the test below)
    let ahead = Ahead::with_gpu(3, false).unwrap();
    assert_eq!(ahead.threads(), 3);
    // every third job queued at a lower priority than the rest, every seventh cancelled
    let tickets: Vec<_> = jobs.iter().enumerate().map(|(i, j)| ahead.submit(j, (i % 3 != 0) as u64).unwrap()).collect();
    for (i, &t) in tickets.iter().enumerate().filter(|(i, _)| i % 7 == 3) {
        ahead.cancel(t);
        assert!(ahead.take(t).is_err(), "job {i}: a cancelled ticket is gone");
    }
    let (mut done, mut not_started) = (0, 0);
    let mut env = Envelope::default();
    for (i, (j, &t)) in jobs.iter().zip(&tickets).enumerate().filter(|(i, _)| i % 7 != 3) {
        // (what LASTZ's loop asks of a finished job before its call: whether it still holds)
        let holds = ahead.still_holds(t, j);
        // (a job ends at any time, but an ended one stays so until taken)
        assert!(holds.is_none() || ahead.finished(t), "job {i}");
        match ahead.take(t).unwrap() {
            Taken::Done(mut r, e) => {
                if let Some(h) = holds {
                    let complete = matches!(r.truncated, TRUNC_NONE | TRUNC_MIDWAY);
                    assert_eq!(h, complete && unaffected(&e, j), "job {i}");
                }
                let mut one = YdropResult::EMPTY;
                run_recorded(j, &mut one, &mut env).unwrap();
                assert_eq!(outcome(&mut r), outcome(&mut one), "job {i}");
                assert_eq!(unaffected(&e, j), unaffected(&env, j), "job {i}");
                done += 1;
            }
            Taken::NotStarted => not_started += 1,
        }
        assert!(ahead.take(t).is_err(), "job {i}: a ticket is taken once");
        assert!(!ahead.finished(t) && ahead.still_holds(t, j).is_none(), "job {i}: a taken ticket");
    }
    // (how many ran depends on how soon the workers got a core)
    eprintln!("{done} taken done, {not_started} not started");
    // a drain with jobs queued and running returns, and the pool takes new jobs afterwards
    for j in &jobs {
        ahead.submit(j, 0).unwrap();
    }
    ahead.drain();
    let ran = (0..100).any(|_| {
        let t = ahead.submit(&jobs[0], 0).unwrap();
        std::thread::sleep(std::time::Duration::from_millis(100));
        matches!(ahead.take(t).unwrap(), Taken::Done(..))
    });
    assert!(ran, "no job ran after the drain");
}

/// A job no worker started can be dropped before it runs (LASTZ's loop drops the jobs queued while it seeded
/// that no worker reached); one a worker started or finished stays as it is.
#[test]
fn ahead_pool_drops_only_jobs_not_started() {
    let pool = matrix_pool(3, 6);
    let cases: Vec<Case> = (0..200).map(|i| random_case(&mut Rng::new(9_200_017u64.wrapping_add(i)), &pool, 1500)).collect();
    let jobs: Vec<_> = cases.iter().map(|c| c.job()).collect();
    let ahead = Ahead::with_gpu(1, false).unwrap();
    let tickets: Vec<_> = jobs.iter().map(|j| ahead.submit(j, 0).unwrap()).collect();
    let mut dropped = 0;
    // (from the back: the one worker takes them from the front)
    for (i, &t) in tickets.iter().enumerate().rev() {
        if ahead.cancel_queued(t) {
            dropped += 1;
            assert!(ahead.take(t).is_err() && !ahead.cancel_queued(t), "job {i}: a dropped ticket is gone");
        } else {
            assert!(matches!(ahead.take(t).unwrap(), Taken::Done(..)), "job {i}: kept, so started");
            assert!(!ahead.cancel_queued(t), "job {i}: a taken ticket");
        }
    }
    assert!(dropped > 0, "the worker ran all 200 jobs before the first drop");
}

/// A job whose traceback passes the workers' share in flight (`twin::TB_FLIGHT_MAX`) is given up by its
/// worker: `take` says it was not started (the loop then runs it itself, as it does any job no worker
/// started) and the pool counts it; the jobs beside it come back done.
#[test]
fn ahead_pool_gives_up_a_job_past_the_traceback_in_flight() {
    // a sequence against itself, about 400 columns a row for 700,000 rows: 280M traceback links, 140 MB at
    // two a byte
    let mut x = 11u64;
    let seq: Vec<u8> = (0..700_001)
        .map(|_| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            b"ACGT"[(x % 4) as usize]
        })
        .collect();
    let sub: Vec<i32> = (0..256 * 256).map(|i| if i >> 8 == i & 255 { 91 } else { -114 }).collect();
    let large = YdropJob {
        a: seq.as_ptr(),
        m: 700_000,
        b: seq.as_ptr(),
        n: 700_000,
        sub: sub.as_ptr(),
        gap_open: 400,
        gap_extend: 30,
        y_drop: 10_000,
        trim_to_peak: 1,
        reversed: 0,
        tb_size: 1 << 30,
        bounds: std::ptr::null(),
    };
    let small = YdropJob { m: 2_000, n: 2_000, ..large };
    let ahead = Ahead::with_gpu(2, false).unwrap();
    let tickets: Vec<_> = [small, large, small].iter().map(|j| ahead.submit(j, 0).unwrap()).collect();
    for (i, &t) in tickets.iter().enumerate() {
        while !ahead.finished(t) {
            std::thread::sleep(std::time::Duration::from_millis(5));
        }
        match (i, ahead.take(t).unwrap()) {
            (1, Taken::NotStarted) => {}
            (0 | 2, Taken::Done(mut r, _)) => {
                assert_eq!((r.end1, r.end2), (2_000, 2_000));
                r.release();
            }
            (_, _) => panic!("job {i}: not as expected"),
        }
    }
    assert_eq!(ahead.given_up(), 1);
}

/// With the GPU thread (where a GPU is; elsewhere it stops at once and the workers run everything): a job
/// queued with the earlier alignments known then comes back run under them (a CPU worker) or under none (the
/// GPU), with that run's result and envelope; either way, when `unaffected` accepts it for the job's real
/// bounds, the result is the real call's.
#[test]
fn ahead_pool_with_gpu_matches_one_by_one() {
    pool_with_gpu_matches_one_by_one(Ahead::with_gpu(2, true).unwrap());
}

/// The same, with the GPU leaving the jobs past 30 rows to the CPU workers (queued again, for them only).
#[test]
fn ahead_pool_with_gpu_row_cap_matches_one_by_one() {
    let ahead = Ahead::with_gpu_row_cap(2, 30).unwrap();
    let gpu = warpalign::gpu::GpuRuntime::start().is_ok();
    // (the jobs go in once the pool's GPU thread takes batches: else the workers may run them all first)
    let t0 = std::time::Instant::now();
    while gpu && !ahead.gpu_running() && t0.elapsed().as_secs() < 60 {
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let (on_gpu, left, _) = pool_with_gpu_matches_one_by_one(ahead);
    if gpu {
        assert!(on_gpu > 0 && left > 0, "with a GPU: {on_gpu} jobs run there, {left} left by it");
    }
}

/// Returns what [`Ahead::gpu_jobs`] counts.
fn pool_with_gpu_matches_one_by_one(ahead: Ahead) -> (u64, u64, u64) {
    let pool = matrix_pool(7, 6);
    let cases: Vec<Case> =
        (0..600).map(|i| random_constrained_case(&mut Rng::new(9_100_003u64.wrapping_add(i)), &pool, 1500)).collect();
    let real: Vec<_> = cases.iter().map(|c| c.job()).collect();
    let free: Vec<_> = real.iter().map(|j| YdropJob { bounds: std::ptr::null(), ..*j }).collect();
    assert_eq!(ahead.threads(), 2);
    // half queued under their real bounds, half under none
    let tickets: Vec<_> =
        (0..real.len()).map(|i| ahead.submit(if i % 2 == 0 { &real[i] } else { &free[i] }, i as u64).unwrap()).collect();
    // time for the GPU thread to start and take its batches
    std::thread::sleep(std::time::Duration::from_secs(3));
    let (mut done, mut accepted, mut unbounded) = (0, 0, 0);
    for (i, &t) in tickets.iter().enumerate() {
        let Taken::Done(mut r, e) = ahead.take(t).unwrap() else { continue };
        let run = |j: &YdropJob| {
            let (mut one, mut env) = (YdropResult::EMPTY, Envelope::default());
            run_recorded(j, &mut one, &mut env).unwrap();
            // (a CPU worker keeps the block it ran under)
            // SAFETY: a non-null bounds points to a case's block, alive here.
            env.ran_under = (!j.bounds.is_null()).then(|| Arc::new(BoundsCopy::of(unsafe { &*j.bounds })));
            (outcome(&mut one), env)
        };
        let got = (outcome(&mut r), e);
        let queued = if i % 2 == 0 { &real[i] } else { &free[i] };
        let as_queued = run(queued);
        if got != as_queued {
            assert_eq!(got, run(&free[i]), "job {i}: neither its run as queued nor without bounds\n{}", cases[i].describe());
            unbounded += 1;
        }
        if unaffected(&got.1, &real[i]) {
            assert_eq!(got.0, run(&real[i]).0, "job {i}: accepted, yet not the real call's result\n{}", cases[i].describe());
            accepted += 1;
        }
        done += 1;
    }
    eprintln!("{done} of {} taken done ({unbounded} differ from their run as queued: run without bounds), {accepted} accepted for their real bounds", tickets.len());
    ahead.gpu_jobs()
}
