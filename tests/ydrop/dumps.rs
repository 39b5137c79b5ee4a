//! Replay of real LASTZ y-drop calls (the runs of tests/ydrop/lastz.rs, with `WARPALIGN_YDROP_DEPTH=1` on the
//! two larger pairs): every dumped call (the prefixes of the sequences it read, its true lengths, and the
//! result the engine gave LASTZ) is run again through LASTZ's own function (the oracle) and the Rust twin:
//! both must equal the recorded result. Prints "NAME: N calls (C constrained, M truncated, S stopped), K
//! mismatches" per run (constrained calls carry the earlier alignments they saw; a stopped call reached a
//! row past its block's `rows` and follows again, with a deeper block).
//!
//! With `YDROP_DUMPS_HPYLORI=1` also the two H. pylori genomes (about a minute). Without the binary or the
//! data: prints "skipped: ..." and passes.

use crate::common::ydrop_cases::replay;
use rayon::prelude::*;
use std::time::Instant;
use warpalign::ydrop::TRUNC_BOUNDS;

#[test]
fn replay_real_lastz_dumps() {
    let hpylori = std::env::var("YDROP_DUMPS_HPYLORI").as_deref() == Ok("1");
    let runs = match crate::lastz::runs(true, hpylori) {
        Ok(r) => r,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let mut total_bad = 0;
    let mut depth1_stopped: Option<usize> = None;
    for run in runs {
        let (name, jobs) = (&run.name, &run.calls);
        assert!(!jobs.is_empty(), "{name}: no ydrop call dumped");
        let t1 = Instant::now();
        let errs: Vec<String> = jobs.par_iter().filter_map(|j| replay(j).err()).collect();
        for e in errs.iter().take(3) {
            eprintln!("{name}: MISMATCH {e}");
        }
        let truncated = jobs.iter().filter(|j| j.truncated != 0 && j.truncated != TRUNC_BOUNDS).count();
        let stopped = jobs.iter().filter(|j| j.truncated == TRUNC_BOUNDS).count();
        let constrained = jobs.iter().filter(|j| j.bounds.is_some()).count();
        println!(
            "{name}: {} calls ({constrained} constrained, {truncated} truncated, {stopped} stopped), {} mismatches; lastz {:.1}s, replay {:.1}s",
            jobs.len(),
            errs.len(),
            run.secs,
            t1.elapsed().as_secs_f64()
        );
        if name.ends_with(".tb200K") {
            assert!(truncated > 0, "{name}: no truncated call");
        }
        if name.ends_with(".depth1") {
            *depth1_stopped.get_or_insert(0) += stopped;
        }
        total_bad += errs.len();
    }
    assert_eq!(total_bad, 0, "replayed calls differ from the recorded results");
    assert_ne!(depth1_stopped, Some(0), "no call stopped at its bounds' rows with WARPALIGN_YDROP_DEPTH=1");
}
