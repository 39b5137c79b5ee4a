//! The ydrop engine's dump mode in process: its own executable, as the library reads `WARPALIGN_YDROP_DUMP`
//! once per process and this test sets it (every other batch call in the process would be dumped too).

mod common;

use common::ydrop_cases::{matrix_pool, random_case, random_constrained_case, recorded, replay};
use common::Rng;
use warpalign::ydrop::dump::read_dump;
use warpalign::ydrop::{self, YdropResult};
use warpalign::Engine;

/// The engine in dump mode records each job's prefixes, bounds and result; the file replays to the same
/// outcomes.
#[test]
fn dump_round_trip() {
    // The system's temporary folder: the build's target folder may not exist where the test runs (the GPU machine).
    let path = std::env::temp_dir().join(format!("warpalign_ydrop_round_trip.{}", std::process::id()));
    let _ = std::fs::remove_file(&path);
    std::env::set_var("WARPALIGN_YDROP_DUMP", &path);
    let pool = matrix_pool(31, 2);
    let mut rng = Rng::new(31);
    let cases: Vec<_> = (0..300)
        .map(|i| if i % 2 == 0 { random_case(&mut rng, &pool, 2000) } else { random_constrained_case(&mut rng, &pool, 2000) })
        .collect();
    let jobs: Vec<_> = cases.iter().map(|c| c.job()).collect();
    let mut results: Vec<YdropResult> = (0..jobs.len()).map(|_| YdropResult::EMPTY).collect();
    ydrop::one_sided_batch(&Engine::cpu(), &jobs, &mut results).unwrap();
    let dumped = read_dump(&path).unwrap();
    let _ = std::fs::remove_file(&path);
    assert_eq!(dumped.len(), jobs.len());
    for ((c, d), r) in cases.iter().zip(&dumped).zip(results.iter_mut()) {
        assert_eq!((d.job.m as usize, d.job.n as usize), (c.a.len() - 1, c.b.len() - 1));
        let want = c.bounds.as_ref().map(|b| (b.segments.clone(), b.alignments.clone()));
        assert_eq!(d.bounds.as_ref().map(|b| (b.segments.clone(), b.alignments.clone())), want);
        assert_eq!(recorded(d), (r.score, r.end1, r.end2, r.truncated, r.ops().to_vec()));
        assert!(d.a.len() < c.a.len() && c.a.starts_with(&d.a) && c.b.starts_with(&d.b));
        replay(d).unwrap();
        r.release();
    }
}
