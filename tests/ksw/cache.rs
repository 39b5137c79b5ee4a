//! The ksw speculation cache (src/ksw/cache.rs): recorded calls, once computed, are answered with exactly
//! what a direct batch call gives; unknown calls miss; a call is keyed by all of its bytes.

use crate::common::ksw_cases::random_case;
use crate::common::Rng;
use warpalign::ksw::cache::KswCache;
use warpalign::ksw::{extd2_batch, KswExtd2Job, KswResult};
use warpalign::Engine;

type Fields = (u32, [i32; 10], Vec<u32>);

fn fields(r: &KswResult) -> Fields {
    (r.max, [r.zdropped, r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end, r.n_cigar], r.cigar().to_vec())
}

#[test]
fn answers_equal_direct_batch_results() {
    let engine = Engine::cpu();
    let mut rng = Rng::new(41);
    let cases: Vec<_> = (0..400).map(|_| random_case(&mut rng)).collect();
    let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| c.job()).collect();
    let mut direct: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    extd2_batch(&engine, &jobs, &mut direct).unwrap();

    let cache = KswCache::new();
    let mut out = KswResult::EMPTY;
    for j in &jobs {
        // SAFETY: the job points into `cases`, alive here.
        assert!(!unsafe { cache.get_extd2(j, true, &mut out) }, "nothing is known before compute");
    }
    let distinct = cache.take_stats().recorded as usize;
    assert!(distinct <= jobs.len() && distinct > jobs.len() / 2);
    assert_eq!(cache.compute(&engine).unwrap(), distinct);
    assert_eq!(cache.compute(&engine).unwrap(), 0, "a second compute finds nothing new");
    for (j, d) in jobs.iter().zip(&direct) {
        // SAFETY: as above.
        assert!(unsafe { cache.get_extd2(j, false, &mut out) });
        assert_eq!(fields(&out), fields(d));
    }
    let s = cache.take_stats();
    assert_eq!((s.hits, s.misses, s.rounds), (jobs.len() as u64, 0, 1));
    direct.iter_mut().for_each(KswResult::release);
}

#[test]
fn keyed_by_every_byte() {
    let engine = Engine::cpu();
    let mut rng = Rng::new(43);
    let case = random_case(&mut rng);
    let job = case.job();
    let cache = KswCache::new();
    let mut out = KswResult::EMPTY;
    // SAFETY: jobs point into `case` / `query`, alive here.
    unsafe {
        assert!(!cache.get_extd2(&job, true, &mut out));
        cache.compute(&engine).unwrap();
        assert!(cache.get_extd2(&job, false, &mut out));
        let other_zdrop = KswExtd2Job { zdrop: job.zdrop + 1, ..job };
        assert!(!cache.get_extd2(&other_zdrop, false, &mut out));
        if job.qlen > 0 {
            let mut query = std::slice::from_raw_parts(job.query, job.qlen as usize).to_vec();
            let last = query.len() - 1;
            query[last] = (query[last] + 1) % 5;
            let other_base = KswExtd2Job { query: query.as_ptr(), ..job };
            assert!(!cache.get_extd2(&other_base, false, &mut out));
        }
        cache.clear();
        assert!(!cache.get_extd2(&job, false, &mut out), "clear forgets every answer");
    }
    let s = cache.take_stats();
    assert_eq!((s.recorded, s.hits, s.unused), (1, 1, 0));
}

#[test]
fn computes_of_more_calls_than_a_chunk_answer_all() {
    // 40000 distinct short calls: more than one compute chunk's 32768
    let engine = Engine::cpu();
    let mat: Vec<i8> = (0..25).map(|i| if i % 6 == 0 { 2 } else { -4 }).collect();
    let seqs: Vec<[u8; 8]> = (0..40000u32).map(|i| std::array::from_fn(|k| (i >> (2 * k) & 3) as u8)).collect();
    let target = [0u8, 1, 2, 3, 0, 1, 2, 3];
    let jobs: Vec<KswExtd2Job> = seqs
        .iter()
        .map(|q| KswExtd2Job {
            qlen: 8, query: q.as_ptr(), tlen: 8, target: target.as_ptr(), m: 5, mat: mat.as_ptr(),
            q: 4, e: 2, q2: 24, e2: 1, w: -1, zdrop: 400, end_bonus: 0, flag: 0,
        })
        .collect();
    let mut direct: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    extd2_batch(&engine, &jobs, &mut direct).unwrap();
    let cache = KswCache::new();
    let mut out = KswResult::EMPTY;
    for j in &jobs {
        // SAFETY: the jobs point into `seqs`, `target` and `mat`, alive here.
        assert!(!unsafe { cache.get_extd2(j, true, &mut out) });
    }
    assert_eq!(cache.compute(&engine).unwrap(), jobs.len());
    for (j, d) in jobs.iter().zip(&direct) {
        // SAFETY: as above.
        assert!(unsafe { cache.get_extd2(j, false, &mut out) });
        assert_eq!(fields(&out), fields(d));
    }
    let s = cache.take_stats();
    assert_eq!((s.recorded, s.hits, s.misses, s.rounds), (jobs.len() as u64, jobs.len() as u64, 0, 1));
    direct.iter_mut().for_each(KswResult::release);
}

#[test]
fn a_cleared_cache_records_and_answers_anew() {
    // batch after batch on one cache, as minimap2 runs it: the blocks kept from the last batch are written
    // again, and calls of over 16 kB of key (their own allocations) sit beside the small ones
    let engine = Engine::cpu();
    let mut rng = Rng::new(47);
    let cache = KswCache::new();
    let mut out = KswResult::EMPTY;
    for batch in 0..4 {
        let mut cases: Vec<_> = (0..300).map(|_| random_case(&mut rng)).collect();
        for long in [40_000usize, 70_000] {
            let mut c = random_case(&mut rng);
            c.q = (0..long).map(|_| rng.range(0, 4) as u8).collect();
            c.t = c.q.iter().map(|&b| if rng.chance(0.05) { (b + 1) % 4 } else { b }).collect();
            c.w = 8;
            cases.push(c);
        }
        let jobs: Vec<KswExtd2Job> = cases.iter().map(|c| c.job()).collect();
        let mut direct: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
        extd2_batch(&engine, &jobs, &mut direct).unwrap();
        for j in &jobs {
            // SAFETY: the jobs point into `cases`, alive here.
            assert!(!unsafe { cache.get_extd2(j, true, &mut out) }, "batch {batch}: cleared calls are unknown");
        }
        cache.compute(&engine).unwrap();
        for (j, d) in jobs.iter().zip(&direct) {
            // SAFETY: as above.
            assert!(unsafe { cache.get_extd2(j, false, &mut out) }, "batch {batch}");
            assert_eq!(fields(&out), fields(d), "batch {batch}");
        }
        cache.clear();
        let s = cache.take_stats();
        assert_eq!((s.hits, s.misses), (jobs.len() as u64, 0), "batch {batch}");
        assert!(s.recorded as usize <= jobs.len() && s.recorded as usize > jobs.len() / 2, "batch {batch}");
        direct.iter_mut().for_each(KswResult::release);
    }
}
