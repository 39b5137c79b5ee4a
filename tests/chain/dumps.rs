//! Replay of real chaining workloads: the patched minimap2 (`$TOOLS/minimap2`, default target/tools, `make
//! tools`) runs on real data with `WARPALIGN_CHAIN_DUMP` (src/chain/dump.rs) and `WARPALIGN_BACKEND=cpu`;
//! every dumped `mg_lchain_dp` call is then run again through the engine's CPU batch path (the Rust twin),
//! through the upstream oracle directly, and (when a GPU works) through the GPU path; the chains and the
//! compacted anchors must be equal. Prints "NAME: N calls, M mismatches" per input.
//!
//! Inputs (from `WARPALIGN_DATA`, default `<repo>/../shared/data`), all onto references with presets that
//! chain with `mg_lchain_dp` (the asm presets use `mg_lchain_rmq`): the first 40 ONT ultra-long reads onto
//! E. coli (`-x map-ont`), the PacBio CLR subreads onto E. coli (`-x map-pb`, run twice into one file: the
//! second run appends its records under the first's header), H. pylori SJM180 onto G27 (`-x map-hifi`).
//! Without the binary or the data: prints "skipped: ..." and passes. `CHAIN_DUMPS_READS=N` changes 40.

use crate::common::tools::{data_dir, patched_tool, scratch_dir};
use crate::{oracle, take, Out};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use warpalign::chain::dump::{encode, parse_dump, read_dump, DumpedJob, MAGIC, VERSION};
use warpalign::chain::{self, Anchor, ChainDpJob, ChainDpResult};
use warpalign::Engine;

/// Runs the patched minimap2 into the dump file `dump` (appending when it exists); returns the wall time.
fn minimap2(mm2: &Path, name: &str, dump: &Path, args: &[&str]) -> f64 {
    let t0 = Instant::now();
    let out = Command::new(mm2)
        .args(["-t", "2"])
        .args(args)
        .env("WARPALIGN_CHAIN_DUMP", dump)
        .env("WARPALIGN_BACKEND", "cpu")
        .output()
        .expect("running minimap2");
    assert!(out.status.success(), "{name}: minimap2 {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
    assert!(!out.stdout.is_empty(), "{name}: no output");
    assert!(dump.exists(), "{name}: minimap2 wrote no dump at {}", dump.display());
    t0.elapsed().as_secs_f64()
}

/// Replays `jobs` through the engine's CPU path, the oracle and (with `gpu`) the GPU path; the mismatches.
fn replay(name: &str, jobs: &[DumpedJob], gpu: Option<&warpalign::gpu::GpuRuntime>) -> usize {
    let t0 = Instant::now();
    let js: Vec<ChainDpJob> = jobs.iter().map(DumpedJob::job).collect();
    let mut res: Vec<ChainDpResult> = (0..js.len()).map(|_| ChainDpResult::EMPTY).collect();
    chain::dp_batch(&Engine::cpu(), &js, &mut res).unwrap();
    let eng: Vec<Out> = res.iter_mut().map(take).collect();
    let ora: Vec<Out> = js.par_iter().map(oracle).collect();
    let gpu_outs = gpu.map(|rt| {
        let mut res: Vec<ChainDpResult> = (0..js.len()).map(|_| ChainDpResult::EMPTY).collect();
        chain::gpu::dp_batch_gpu(rt, &js, &mut res).unwrap_or_else(|e| panic!("dp_batch_gpu: {e}"));
        res.iter_mut().map(take).collect::<Vec<Out>>()
    });
    let mut bad = 0;
    for (k, (e, o)) in eng.iter().zip(&ora).enumerate() {
        let g = gpu_outs.as_ref().map(|g| &g[k]);
        if e != o || g.is_some_and(|g| g != o) {
            if bad < 3 {
                let j = &js[k];
                eprintln!(
                    "{name}: MISMATCH call {k}: {} anchors, max_dist {}/{} bw {} max_skip {} max_iter {} min_cnt {} min_sc {} pen {}/{} is_cdna {} n_seg {}\n  oracle {} chains {:?}\n  engine {} chains {:?}\n  gpu    {:?}",
                    j.n_anchors, j.max_dist_x, j.max_dist_y, j.bw, j.max_skip, j.max_iter, j.min_cnt, j.min_sc,
                    j.chn_pen_gap, j.chn_pen_skip, j.is_cdna, j.n_seg, o.0.len(), &o.0[..o.0.len().min(4)],
                    e.0.len(), &e.0[..e.0.len().min(4)], g.map(|g| (g.0.len(), &g.0[..g.0.len().min(4)]))
                );
            }
            bad += 1;
        }
    }
    let anchors: usize = jobs.iter().map(|j| j.anchors.len()).sum();
    let via = if gpu.is_some() { "CPU engine and GPU vs oracle" } else { "CPU engine vs oracle" };
    println!("{name}: {} calls, {bad} mismatches ({anchors} anchors; {via}), {:.1}s", jobs.len(), t0.elapsed().as_secs_f64());
    bad
}

#[test]
fn replay_real_minimap2_chain_dumps() {
    let mm2 = match patched_tool("minimap2", b"WARPALIGN_CHAIN_DUMP") {
        Ok(t) => t,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let data = data_dir();
    let ecoli = data.join("ref/ecoli_K12_MG1655.fasta.gz");
    let ul = data.join("ont/ecoli_ultralong_R9_nanotest.fastq.gz");
    let clr = data.join("pacbio/ecoli_sequel_clr_subreads.fastq.gz");
    let (g27, sjm) = (data.join("wga/hpylori_G27.fasta.gz"), data.join("wga/hpylori_SJM180.fasta.gz"));
    let tmp = scratch_dir("chain-dumps");
    let s = |p: &Path| p.to_str().unwrap().to_string();

    // (name, dump file, minimap2 arguments, runs into the file)
    let mut runs: Vec<(&str, PathBuf, Vec<String>, usize)> = Vec::new();
    if ecoli.exists() && ul.exists() {
        let n: usize = std::env::var("CHAIN_DUMPS_READS").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
        let reads = tmp.join("ul.fq");
        let cmd = format!("gzip -dc '{}' | head -n {} > '{}'", s(&ul), 4 * n, s(&reads));
        assert!(Command::new("sh").args(["-c", &cmd]).status().expect("sh").success(), "failed: {cmd}");
        runs.push(("map-ont.ultralong", tmp.join("ul.chain"), vec!["-x".into(), "map-ont".into(), s(&ecoli), s(&reads)], 1));
    } else {
        println!("skipped map-ont: missing {} or {}", ecoli.display(), ul.display());
    }
    if ecoli.exists() && clr.exists() {
        runs.push(("map-pb.clr", tmp.join("clr.chain"), vec!["-x".into(), "map-pb".into(), s(&ecoli), s(&clr)], 2));
    } else {
        println!("skipped map-pb: missing {} or {}", ecoli.display(), clr.display());
    }
    if g27.exists() && sjm.exists() {
        runs.push(("map-hifi.hpylori", tmp.join("hp.chain"), vec!["-x".into(), "map-hifi".into(), s(&g27), s(&sjm)], 1));
    } else {
        println!("skipped map-hifi: missing {} or {}", g27.display(), sjm.display());
    }
    if runs.is_empty() {
        println!("skipped: no real data under {}", data.display());
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }

    let gpu = warpalign::gpu::GpuRuntime::start().ok();
    let mut total_bad = 0;
    for (name, dump, args, times) in &runs {
        let args: Vec<&str> = args.iter().map(String::as_str).collect();
        let mut sizes = Vec::new();
        let mut secs = 0.0;
        for _ in 0..*times {
            secs += minimap2(&mm2, name, dump, &args);
            sizes.push(std::fs::metadata(dump).unwrap().len());
        }
        let jobs = read_dump(dump).unwrap_or_else(|e| panic!("{name}: reading {}: {e}", dump.display()));
        println!("{name}: minimap2 {secs:.1}s ({times} run(s)), {} jobs dumped ({} bytes)", jobs.len(), sizes.last().unwrap());
        assert!(!jobs.is_empty(), "{name}: no chain job dumped");
        if *times == 2 {
            // The second run appended its records and no second header: the same calls, the same bytes.
            assert_eq!(sizes[1], 2 * sizes[0] - 16, "{name}: the second run's append is not header-free");
            assert_eq!(jobs.len() % 2, 0, "{name}: the two runs dumped different call counts");
        }
        total_bad += replay(name, &jobs, gpu.as_ref());
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(total_bad, 0, "replayed chain calls differ from upstream");
}

#[test]
fn dump_format_round_trip() {
    // Jobs written by the dump's encoder into a file in the system temp dir (header, records, a repeated
    // header as `cat` of two dumps leaves it) read back field for field, float bits included.
    let a = |x: u64, y: u64| Anchor { x, y };
    let anchors = vec![a(1 << 63 | 3 << 32 | 1000, 0x42 << 40 | 15 << 32 | 20), a(u64::MAX, 0), a(0, u64::MAX)];
    let mk = |anchors: Vec<Anchor>, gap: f32, skip: f32, is_cdna: i32, n_seg: i32| DumpedJob {
        job: ChainDpJob {
            max_dist_x: 5000,
            max_dist_y: -1,
            bw: 500,
            max_skip: 25,
            max_iter: i32::MAX,
            min_cnt: 3,
            min_sc: i32::MIN,
            chn_pen_gap: gap,
            chn_pen_skip: skip,
            is_cdna,
            n_seg,
            n_anchors: 0,
            anchors: std::ptr::null(),
        },
        anchors,
    };
    let want = vec![mk(anchors.clone(), 0.12, 0.0, 0, 1), mk(Vec::new(), -0.0, f32::MIN_POSITIVE / 2.0, 1, 2), mk(anchors[..1].to_vec(), 1e30, 0.8, 0, 1)];
    let header = |f: &mut Vec<u8>| {
        f.extend_from_slice(MAGIC);
        f.extend_from_slice(&VERSION.to_le_bytes());
        f.extend_from_slice(&0u32.to_le_bytes());
    };
    let mut f = Vec::new();
    header(&mut f);
    encode(&mut f, &want[0].job());
    encode(&mut f, &want[1].job());
    header(&mut f);
    encode(&mut f, &want[2].job());
    let path = std::env::temp_dir().join(format!("warpalign-chain-dump-round-trip.{}", std::process::id()));
    std::fs::write(&path, &f).unwrap();
    let got = read_dump(&path).unwrap();
    std::fs::remove_file(&path).unwrap();
    assert_eq!(got, want);
    for (g, w) in got.iter().zip(&want) {
        assert_eq!((g.job.chn_pen_gap.to_bits(), g.job.chn_pen_skip.to_bits()), (w.job.chn_pen_gap.to_bits(), w.job.chn_pen_skip.to_bits()));
    }
    assert_eq!(f.len(), 2 * 16 + 3 * 52 + 4 * 16, "two headers, records of 52 bytes and 16 per anchor");
    let j = got[0].job();
    assert_eq!((j.n_anchors, j.anchors), (3, got[0].anchors.as_ptr()));
    assert_eq!((j.max_dist_y, j.min_sc, j.n_seg), (-1, i32::MIN, 1));
    assert!(got[1].job().anchors.is_null() && got[1].job().n_anchors == 0);
    assert_eq!(got[2].query_span(), 35, "q_pos 20 + q_span 15");
    assert!(parse_dump(&f[..f.len() - 1]).is_err(), "truncated record must fail");
    assert!(parse_dump(&f[..16 + 51]).is_err(), "truncated fixed part must fail");
    assert!(parse_dump(b"not a chain dump at all").is_err());
    let mut v2 = f.clone();
    v2[8] = 2;
    assert!(parse_dump(&v2).is_err(), "an unknown version must fail");
    assert_eq!(parse_dump(&f[..16]).unwrap(), Vec::new(), "a header alone is an empty dump");
}
