//! Replay of real LASTZ y-drop calls: the patched LASTZ (target/tools/lastz, `make tools`) runs on real
//! genome pairs with `WARPALIGN_YDROP_DUMP` (src/ydrop/dump.rs) and `WARPALIGN_BACKEND=cpu`; every dumped call
//! (the prefixes of the sequences it read, its true lengths, and the result the engine gave LASTZ) is run
//! again through LASTZ's own function (the oracle) and the Rust twin: both must equal the recorded result.
//! Prints "NAME: N calls (C constrained, M truncated, S stopped), K mismatches" per run (constrained calls
//! carry the earlier alignments they saw; a stopped call reached a row past its block's `rows` and follows
//! again, with a deeper block).
//!
//! Inputs (from `WARPALIGN_DATA`, default `<repo>/../shared/data`): the human/orangutan mitochondria, the
//! DWV/VDV-1 virus pair, the Drosophila 2R slice against D. pseudoobscura contigs and the B. anthracis slice
//! against its contigs, under LASTZ's defaults, `--noytrim`, `--ydrop=500`, `--allocate:traceback=200K`
//! (truncations), on the two larger pairs `WARPALIGN_YDROP_DEPTH=1` (bounds blocks of one alignment of the
//! list: calls stop and run again deeper) and, on the two small pairs, `--gap=-10,40`; with `YDROP_DUMPS_HPYLORI=1` also the two
//! H. pylori genomes (about a minute). Without the binary or the data: prints "skipped: ..." and passes.

mod common;

use common::ydrop_cases::{matrix_pool, random_case, random_constrained_case, Outcome};
use common::Rng;
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use warpalign::ydrop::dump::{read_dump, DumpedJob, MAGIC};
use warpalign::ydrop::{self, YdropResult, TRUNC_BOUNDS};
use warpalign::Engine;

fn recorded(j: &DumpedJob) -> Outcome {
    (j.score, j.end1, j.end2, j.truncated, j.ops.clone())
}

/// Oracle and twin (its spec sweep, then each vector sweep of this CPU) on the replayed job; the mismatching
/// side's name, if any. A stopped call has only the twin: LASTZ's own code cannot stop at a row (its next
/// record is the same call with a deeper block).
fn replay(j: &DumpedJob) -> Result<(), String> {
    let seq = j.sequences();
    let job = j.job(&seq);
    let (t, want) = (common::ydrop_cases::twin(&job), recorded(j));
    let o = if j.truncated == TRUNC_BOUNDS { want.clone() } else { common::ydrop_cases::oracle(&job) };
    if let Some((sweep, v)) = common::ydrop_cases::vectors_differ(&job, &want) {
        return Err(format!("M={} N={}: recorded {:?}, {sweep:?} sweep {:?}", j.m, j.n, (want.0, want.1, want.2), (v.0, v.1, v.2)));
    }
    match (o == want, t == want) {
        (true, true) => Ok(()),
        (o_ok, t_ok) => Err(format!(
            "M={} N={} O={} E={} Y={} trim={} rev={} tb={}: recorded {:?}, oracle {}, twin {}",
            j.m, j.n, j.gap_open, j.gap_extend, j.y_drop, j.trim_to_peak, j.reversed, j.tb_size,
            (want.0, want.1, want.2, want.3, want.4.len()),
            if o_ok { "same".into() } else { format!("{:?}", (o.0, o.1, o.2, o.3, o.4.len())) },
            if t_ok { "same".into() } else { format!("{:?}", (t.0, t.1, t.2, t.3, t.4.len())) },
        )),
    }
}

fn gunzip_to(src: &Path, dst: &Path) {
    let out = Command::new("gzip").arg("-dc").arg(src).output().expect("gzip");
    assert!(out.status.success(), "gzip -dc {}", src.display());
    std::fs::write(dst, out.stdout).unwrap();
}

#[test]
fn replay_real_lastz_dumps() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let lastz = root.join("target/tools/lastz");
    let data = std::env::var_os("WARPALIGN_DATA").map(PathBuf::from).unwrap_or_else(|| root.join("../shared/data"));
    if !lastz.exists() {
        println!("skipped: {} not found (make tools)", lastz.display());
        return;
    }
    if !std::fs::read(&lastz).unwrap().windows(MAGIC.len()).any(|w| w == MAGIC) {
        println!("skipped: {} predates ydrop dump mode (rebuild it: make tools)", lastz.display());
        return;
    }
    let tmp = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join(format!("ydrop_dumps.{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let wga = data.join("wga");
    // (name, target, query, gzipped)
    let mut pairs = vec![
        ("mt", "MT-human.fa", "MT-orang.fa", false),
        ("dwv", "dwv_NC_004830.fasta.gz", "vdv1_NC_006494.fasta.gz", true),
        ("dmel", "D_melanogaster_2Rslice.fasta.gz", "D_pseudoobscura_contigs.fasta.gz", true),
        ("banthracis", "B_anthracis_Mslice.fasta.gz", "B_anthracis_contigs.fasta.gz", true),
    ];
    if std::env::var("YDROP_DUMPS_HPYLORI").as_deref() == Ok("1") {
        pairs.push(("hpylori", "hpylori_G27.fasta.gz", "hpylori_SJM180.fasta.gz", true));
    }
    let mut total_bad = 0;
    let mut ran = 0;
    let mut depth1_stopped: Option<usize> = None;
    for (name, t, q, gz) in pairs {
        let (t, q) = (wga.join(t), wga.join(q));
        if !t.exists() || !q.exists() {
            println!("skipped {name}: missing {} or {}", t.display(), q.display());
            continue;
        }
        let (t, q) = if gz {
            let (tt, qq) = (tmp.join(format!("{name}.t.fa")), tmp.join(format!("{name}.q.fa")));
            gunzip_to(&t, &tt);
            gunzip_to(&q, &qq);
            (tt, qq)
        } else {
            (t, q)
        };
        // a negative gap open makes wide bands: only on the small pairs
        let variants: &[(&str, &[&str])] = match name {
            "hpylori" => &[("default", &[])],
            "mt" | "dwv" => &[
                ("default", &[]),
                ("noytrim", &["--noytrim"]),
                ("ydrop500", &["--ydrop=500"]),
                ("gap-10,40", &["--gap=-10,40"]),
                ("tb200K", &["--allocate:traceback=200K"]),
            ],
            _ => &[
                ("default", &[]),
                ("noytrim", &["--noytrim"]),
                ("ydrop500", &["--ydrop=500"]),
                ("tb200K", &["--allocate:traceback=200K"]),
                ("depth1", &[]),
            ],
        };
        for (v, opts) in variants {
            let run = format!("{name}.{v}");
            let dump = tmp.join(format!("{run}.ydrop"));
            let t0 = Instant::now();
            let out = Command::new(&lastz)
                .arg(format!("{}[multiple]", t.display()))
                .arg(&q)
                .arg("--format=maf")
                .args(*opts)
                .env("WARPALIGN_YDROP_DUMP", &dump)
                .env("WARPALIGN_BACKEND", "cpu")
                .env("WARPALIGN_YDROP_DEPTH", if *v == "depth1" { "1" } else { "" })
                .output()
                .expect("running lastz");
            assert!(out.status.success(), "{run}: lastz failed: {}", String::from_utf8_lossy(&out.stderr));
            let jobs = read_dump(&dump).unwrap_or_else(|e| panic!("{run}: reading {}: {e}", dump.display()));
            assert!(!jobs.is_empty(), "{run}: no ydrop call dumped");
            let t1 = Instant::now();
            let errs: Vec<String> = jobs.par_iter().filter_map(|j| replay(j).err()).collect();
            for e in errs.iter().take(3) {
                eprintln!("{run}: MISMATCH {e}");
            }
            let truncated = jobs.iter().filter(|j| j.truncated != 0 && j.truncated != TRUNC_BOUNDS).count();
            let stopped = jobs.iter().filter(|j| j.truncated == TRUNC_BOUNDS).count();
            let constrained = jobs.iter().filter(|j| j.bounds.is_some()).count();
            println!(
                "{run}: {} calls ({constrained} constrained, {truncated} truncated, {stopped} stopped), {} mismatches; lastz {:.1}s, replay {:.1}s",
                jobs.len(),
                errs.len(),
                (t1 - t0).as_secs_f64(),
                t1.elapsed().as_secs_f64()
            );
            if *v == "tb200K" {
                assert!(truncated > 0, "{run}: no truncated call");
            }
            if *v == "depth1" {
                *depth1_stopped.get_or_insert(0) += stopped;
            }
            total_bad += errs.len();
        }
        ran += 1;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    if ran == 0 {
        println!("skipped: no real data under {}", data.display());
    }
    assert_eq!(total_bad, 0, "replayed calls differ from the recorded results");
    assert_ne!(depth1_stopped, Some(0), "no call stopped at its bounds' rows with WARPALIGN_YDROP_DEPTH=1");
}

/// The engine in dump mode records each job's prefixes, bounds and result; the file replays to the same
/// outcomes.
/// (This test binary's only batch call: dump mode is read once per process.)
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
        assert_eq!((d.m as usize, d.n as usize), (c.a.len() - 1, c.b.len() - 1));
        let want = c.bounds.as_ref().map(|b| (b.segments.clone(), b.alignments.clone()));
        assert_eq!(d.bounds.as_ref().map(|b| (b.segments.clone(), b.alignments.clone())), want);
        assert_eq!(recorded(d), (r.score, r.end1, r.end2, r.truncated, r.ops().to_vec()));
        assert!(d.a.len() < c.a.len() && c.a.starts_with(&d.a) && c.b.starts_with(&d.b));
        replay(d).unwrap();
        r.release();
    }
}
