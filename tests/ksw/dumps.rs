//! Replay of real ksw workloads: the patched minimap2 (`$TOOLS/minimap2`, default target/tools, `make tools`) runs on real
//! data with `WARPALIGN_KSW_DUMP` (src/ksw/dump.rs) and `WARPALIGN_BACKEND=cpu`; every dumped call is then run
//! again through the engine's CPU batch path (the Rust twins for extd2/exts2, the oracle glue for extz2),
//! through the upstream oracle directly, and (extd2 and exts2, when a GPU works) through the GPU path; every output
//! field and the CIGAR must be equal. Prints "KIND: N calls, M mismatches" per kind.
//!
//! Inputs (from `WARPALIGN_DATA`, default `<repo>/../shared/data`): the first 40 ONT ultra-long reads
//! (`-x map-ont -c`, extd2), synthetic spliced reads from E. coli (`-x splice -c`, exts2; tests/e2e/gen_reads.py),
//! synthetic lambda pairs (`-x sr -a`, extd2; and with `-O6 -E2`, a single affine gap, extz2), and
//! H. pylori SJM180 onto G27 (`-x asm20 -c`, extd2; `KSW_DUMPS_ASM=0` leaves it out).
//! Without the binary or the data: prints "skipped: ..." and passes. `KSW_DUMPS_READS=N` changes 40.

use crate::check::{out_of, Extd2, Exts2, Extz2, GpuKernel, Kernel, Out};
use crate::common::tools::{data_dir, patched_tool, repo_root, scratch_dir};
use rayon::prelude::*;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;
use warpalign::gpu::GpuRuntime;
use warpalign::ksw::dump::{read_dump, DumpKind, DumpedJob};
use warpalign::ksw::{self, KswResult};
use warpalign::Engine;

/// Upstream's function of the job's kind.
fn oracle_out(j: &DumpedJob) -> Out {
    // the jobs point into `j`, which holds every byte the call reads
    match j.kind {
        DumpKind::Extd2 => Extd2::oracle(&j.extd2_job().unwrap()),
        DumpKind::Exts2 => Exts2::oracle(&j.exts2_job().unwrap()),
        DumpKind::Extz2 => Extz2::oracle(&j.extz2_job().unwrap()),
    }
}

/// The GPU kernel of `jobs` (all of one kind), where it has one.
fn gpu_outs(rt: &GpuRuntime, kind: DumpKind, jobs: &[&DumpedJob]) -> Option<Vec<Out>> {
    fn run<K: GpuKernel>(rt: &GpuRuntime, jobs: Vec<K::Job>) -> Vec<Out> {
        crate::check::gpu_run::<K>(rt, &jobs)
    }
    match kind {
        DumpKind::Extd2 => Some(run::<Extd2>(rt, jobs.iter().map(|j| j.extd2_job().unwrap()).collect())),
        DumpKind::Exts2 => Some(run::<Exts2>(rt, jobs.iter().map(|j| j.exts2_job().unwrap()).collect())),
        DumpKind::Extz2 => None,
    }
}

/// The engine's CPU batch path over `jobs` (all of one kind), in one batch call.
fn engine_outs(engine: &Engine, kind: DumpKind, jobs: &[&DumpedJob]) -> Vec<Out> {
    let mut res: Vec<KswResult> = (0..jobs.len()).map(|_| KswResult::EMPTY).collect();
    match kind {
        DumpKind::Extd2 => {
            let js: Vec<_> = jobs.iter().map(|j| j.extd2_job().unwrap()).collect();
            ksw::extd2_batch(engine, &js, &mut res).unwrap();
        }
        DumpKind::Exts2 => {
            let js: Vec<_> = jobs.iter().map(|j| j.exts2_job().unwrap()).collect();
            ksw::exts2_batch(engine, &js, &mut res).unwrap();
        }
        DumpKind::Extz2 => {
            let js: Vec<_> = jobs.iter().map(|j| j.extz2_job().unwrap()).collect();
            ksw::extz2_batch(engine, &js, &mut res).unwrap();
        }
    }
    res.iter_mut().map(out_of).collect()
}

struct Ctx {
    mm2: PathBuf,
    tmp: PathBuf,
}

impl Ctx {
    /// Runs the patched minimap2 with a fresh dump file; returns the dumped jobs.
    fn run(&self, name: &str, args: &[&str]) -> Vec<DumpedJob> {
        let dump = self.tmp.join(format!("{name}.ksw"));
        let _ = std::fs::remove_file(&dump);
        let t0 = Instant::now();
        let out = Command::new(&self.mm2)
            .args(["-t", "2"])
            .args(args)
            .env("WARPALIGN_KSW_DUMP", &dump)
            .env("WARPALIGN_BACKEND", "cpu")
            .output()
            .expect("running minimap2");
        assert!(out.status.success(), "{name}: minimap2 {args:?} failed: {}", String::from_utf8_lossy(&out.stderr));
        assert!(!out.stdout.is_empty(), "{name}: no output");
        assert!(dump.exists(), "{name}: minimap2 wrote no dump at {}", dump.display());
        let jobs = read_dump(&dump).unwrap_or_else(|e| panic!("{name}: reading {}: {e}", dump.display()));
        println!("{name}: minimap2 {:.1}s, {} jobs dumped ({} bytes)", t0.elapsed().as_secs_f64(), jobs.len(), std::fs::metadata(&dump).unwrap().len());
        jobs
    }
}

fn sh(cmd: &str) {
    let st = Command::new("sh").args(["-c", cmd]).status().expect("sh");
    assert!(st.success(), "failed: {cmd}");
}

fn have_python() -> bool {
    Command::new("python3").arg("--version").output().map(|o| o.status.success()).unwrap_or(false)
}

#[test]
fn replay_real_minimap2_dumps() {
    let mm2 = match patched_tool("minimap2", b"WARPALIGN_KSW_DUMP") {
        Ok(t) => t,
        Err(e) => {
            println!("skipped: {e}");
            return;
        }
    };
    let (root, data) = (repo_root(), data_dir());
    let ecoli = data.join("ref/ecoli_K12_MG1655.fasta.gz");
    let ul = data.join("ont/ecoli_ultralong_R9_nanotest.fastq.gz");
    let lambda = data.join("lambda/lambda_NC_001416.fasta.gz");
    let (g27, sjm) = (data.join("wga/hpylori_G27.fasta.gz"), data.join("wga/hpylori_SJM180.fasta.gz"));
    let tmp = scratch_dir("ksw-dumps");
    let ctx = Ctx { mm2, tmp: tmp.clone() };
    let gen = root.join("tests/e2e/gen_reads.py");
    let s = |p: &Path| p.to_str().unwrap().to_string();

    let mut jobs: Vec<DumpedJob> = Vec::new();
    let mut ran = 0;
    if ecoli.exists() && ul.exists() {
        let n: usize = std::env::var("KSW_DUMPS_READS").ok().and_then(|v| v.parse().ok()).unwrap_or(40);
        let reads = tmp.join("ul.fq");
        sh(&format!("gzip -dc '{}' | head -n {} > '{}'", s(&ul), 4 * n, s(&reads)));
        let d = ctx.run("map-ont.c.ultralong", &["-x", "map-ont", "-c", &s(&ecoli), &s(&reads)]);
        assert!(d.iter().any(|j| j.kind == DumpKind::Extd2), "map-ont: no extd2 job dumped");
        jobs.extend(d);
        ran += 1;
    } else {
        println!("skipped map-ont: missing {} or {}", ecoli.display(), ul.display());
    }
    if ecoli.exists() && have_python() {
        let pre = tmp.join("ecoli_splice");
        sh(&format!("python3 '{}' splice '{}' '{}'", s(&gen), s(&ecoli), s(&pre)));
        let d = ctx.run("splice.c.ecoli_genes", &["-x", "splice", "-c", &format!("{}.genome.fa", s(&pre)), &format!("{}.reads.fa", s(&pre))]);
        assert!(d.iter().any(|j| j.kind == DumpKind::Exts2), "splice: no exts2 job dumped");
        jobs.extend(d);
        ran += 1;
    } else {
        println!("skipped splice: missing {} or python3", ecoli.display());
    }
    if lambda.exists() && have_python() {
        let pre = tmp.join("lambda_sr");
        sh(&format!("python3 '{}' sr '{}' '{}'", s(&gen), s(&lambda), s(&pre)));
        let (r1, r2) = (format!("{}_1.fq", s(&pre)), format!("{}_2.fq", s(&pre)));
        jobs.extend(ctx.run("sr.a.lambda_pairs", &["-x", "sr", "-a", &s(&lambda), &r1, &r2]));
        let d = ctx.run("sr.a.lambda_pairs.single_gap", &["-x", "sr", "-a", "-O", "6", "-E", "2", &s(&lambda), &r1, &r2]);
        assert!(d.iter().any(|j| j.kind == DumpKind::Extz2), "sr -O6 -E2: no extz2 job dumped");
        jobs.extend(d);
        ran += 1;
    } else {
        println!("skipped sr: missing {} or python3", lambda.display());
    }
    if std::env::var("KSW_DUMPS_ASM").as_deref() != Ok("0") && g27.exists() && sjm.exists() {
        jobs.extend(ctx.run("asm20.c.hpylori", &["-x", "asm20", "-c", &s(&g27), &s(&sjm)]));
        ran += 1;
    }
    if ran == 0 {
        println!("skipped: no real data under {}", data.display());
        let _ = std::fs::remove_dir_all(&tmp);
        return;
    }

    let engine = Engine::cpu();
    let gpu = GpuRuntime::start().ok();
    let mut total_bad = 0;
    for kind in [DumpKind::Extd2, DumpKind::Exts2, DumpKind::Extz2] {
        let t0 = Instant::now();
        let js: Vec<&DumpedJob> = jobs.iter().filter(|j| j.kind == kind).collect();
        let mut bad = 0usize;
        for chunk in js.chunks(20_000) {
            let eng = engine_outs(&engine, kind, chunk);
            let ora: Vec<Out> = chunk.par_iter().map(|j| oracle_out(j)).collect();
            let gpu_outs = gpu.as_ref().and_then(|rt| gpu_outs(rt, kind, chunk));
            for (k, (e, o)) in eng.iter().zip(ora.iter()).enumerate() {
                let g_bad = gpu_outs.as_ref().is_some_and(|g| &g[k] != o);
                if e != o || g_bad {
                    if bad < 3 {
                        let j = chunk[k];
                        eprintln!(
                            "{}: MISMATCH qlen {} tlen {} w {} zdrop {} end_bonus {} flag {:#x}\n  oracle {:?}\n  engine {:?}\n  gpu    {:?}",
                            kind.name(), j.qlen, j.tlen, j.w, j.zdrop, j.end_bonus, j.flag, o, e, gpu_outs.as_ref().map(|g| &g[k])
                        );
                    }
                    bad += 1;
                }
            }
        }
        let via = if gpu.is_some() && kind != DumpKind::Extz2 { " (CPU engine and GPU vs oracle)" } else { " (CPU engine vs oracle)" };
        println!("{}: {} calls, {} mismatches{via}, {:.1}s", kind.name(), js.len(), bad, t0.elapsed().as_secs_f64());
        total_bad += bad;
    }
    let _ = std::fs::remove_dir_all(&tmp);
    assert_eq!(total_bad, 0, "replayed jobs differ from upstream");
}

#[test]
fn dump_format_round_trip() {
    // The reader on a hand-made dump: header, one job of each kind, a repeated header (concatenation).
    use warpalign::ksw::dump::{parse_dump, MAGIC, VERSION};
    let mut f = Vec::new();
    let hdr = |f: &mut Vec<u8>| {
        f.extend_from_slice(MAGIC);
        f.extend_from_slice(&VERSION.to_le_bytes());
        f.extend_from_slice(&0u32.to_le_bytes());
    };
    let rec = |f: &mut Vec<u8>, kind: u8, bits: u8, qlen: i32, tlen: i32, junc: bool| {
        f.push(kind);
        f.push(2); // m
        f.extend_from_slice(&[4, 2, 24, 1, 9, 7, 5]);
        f.push(bits);
        for x in [51i32, 400, 10, 0x42, qlen, tlen] {
            f.extend_from_slice(&x.to_le_bytes());
        }
        f.extend((0..qlen.max(0)).map(|i| i as u8 % 2));
        f.extend((0..tlen.max(0)).map(|i| (i as u8 + 1) % 2));
        f.extend_from_slice(&[2, 0xfe, 0xfe, 2]);
        if junc {
            f.extend((0..tlen.max(0)).map(|i| i as u8));
        }
    };
    hdr(&mut f);
    rec(&mut f, 1, 0, 3, 5, false);
    rec(&mut f, 2, 1, 4, 6, true);
    hdr(&mut f);
    rec(&mut f, 3, 0, 0, -1, false);
    let jobs = parse_dump(&f).unwrap();
    assert_eq!(jobs.len(), 3);
    assert_eq!(jobs[0].kind, DumpKind::Extd2);
    assert_eq!((jobs[0].qlen, jobs[0].tlen, jobs[0].w, jobs[0].zdrop, jobs[0].end_bonus, jobs[0].flag), (3, 5, 51, 400, 10, 0x42));
    assert_eq!((jobs[0].q, jobs[0].e, jobs[0].q2, jobs[0].e2), (4, 2, 24, 1));
    assert_eq!(jobs[0].mat, vec![2, -2, -2, 2]);
    assert!(jobs[0].junc.is_none() && jobs[0].extd2_job().is_some() && jobs[0].exts2_job().is_none());
    assert_eq!(jobs[1].junc.as_deref(), Some(&[0u8, 1, 2, 3, 4, 5][..]));
    assert_eq!((jobs[1].noncan, jobs[1].junc_bonus, jobs[1].junc_pen), (9, 7, 5));
    let j = jobs[1].exts2_job().unwrap();
    assert!(!j.junc.is_null() && j.qlen == 4 && j.tlen == 6);
    let z = jobs[2].extz2_job().unwrap();
    assert!(z.query.is_null() && z.target.is_null() && z.tlen == -1);
    assert!(parse_dump(&f[..f.len() - 1]).is_err(), "truncated record must fail");
    assert!(parse_dump(b"not a dump at all, no").is_err());
}
