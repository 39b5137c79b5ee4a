//! Real LASTZ runs in dump mode: the patched lastz (`$TOOLS/lastz`, else target/tools/lastz: `make tools`)
//! on the real genome pairs (`WARPALIGN_DATA`, default `<repo>/../shared/data`) under several options, with
//! `WARPALIGN_YDROP_DUMP` and `WARPALIGN_BACKEND=cpu`; each run's dumped calls.

use crate::common::tools::{data_dir, patched_tool, scratch_dir};
use std::path::Path;
use std::process::Command;
use std::time::Instant;
use warpalign::ydrop::dump::{read_dump, DumpedJob, MAGIC};

pub struct Run {
    /// pair.variant
    pub name: String,
    pub calls: Vec<DumpedJob>,
    /// lastz's wall time
    pub secs: f64,
}

/// The human/orangutan mitochondria, the DWV/VDV-1 virus pair, the Drosophila 2R slice against D.
/// pseudoobscura contigs and the B. anthracis slice against its contigs (with `hpylori`, also the two H.
/// pylori genomes, LASTZ's defaults only), under LASTZ's defaults, `--noytrim`, `--ydrop=500`,
/// `--allocate:traceback=200K` (truncations), on the two small pairs `--gap=-10,40` (a negative gap open
/// makes wide bands) and, with `depth1`, on the two larger pairs `WARPALIGN_YDROP_DEPTH=1` (bounds blocks
/// of one alignment: calls stop and run again deeper). Err says why there are none.
pub fn runs(depth1: bool, hpylori: bool) -> Result<Vec<Run>, String> {
    let lastz = patched_tool("lastz", MAGIC)?;
    let data = data_dir();
    let tmp = scratch_dir("ydrop-lastz");
    let mut pairs = vec![
        ("mt", "MT-human.fa", "MT-orang.fa"),
        ("dwv", "dwv_NC_004830.fasta.gz", "vdv1_NC_006494.fasta.gz"),
        ("dmel", "D_melanogaster_2Rslice.fasta.gz", "D_pseudoobscura_contigs.fasta.gz"),
        ("banthracis", "B_anthracis_Mslice.fasta.gz", "B_anthracis_contigs.fasta.gz"),
    ];
    if hpylori {
        pairs.push(("hpylori", "hpylori_G27.fasta.gz", "hpylori_SJM180.fasta.gz"));
    }
    let mut runs = Vec::new();
    for (name, t, q) in pairs {
        let (t, q) = (data.join("wga").join(t), data.join("wga").join(q));
        if !t.exists() || !q.exists() {
            println!("skipped {name}: missing {} or {}", t.display(), q.display());
            continue;
        }
        let (t, q) = (gunzipped(&t, &tmp.join(format!("{name}.t.fa"))), gunzipped(&q, &tmp.join(format!("{name}.q.fa"))));
        let small = matches!(name, "mt" | "dwv");
        let mut variants: Vec<(&str, &[&str])> = vec![("default", &[])];
        if name != "hpylori" {
            variants.extend([
                ("noytrim", &["--noytrim"][..]),
                ("ydrop500", &["--ydrop=500"]),
                ("tb200K", &["--allocate:traceback=200K"]),
            ]);
            if small {
                variants.push(("gap-10,40", &["--gap=-10,40"]));
            } else if depth1 {
                variants.push(("depth1", &[]));
            }
        }
        for (v, opts) in variants {
            let run = format!("{name}.{v}");
            let dump = tmp.join(format!("{run}.ydrop"));
            let t0 = Instant::now();
            let out = Command::new(&lastz)
                .arg(format!("{}[multiple]", t.display()))
                .arg(&q)
                .arg("--format=maf")
                .args(opts)
                .env("WARPALIGN_YDROP_DUMP", &dump)
                .env("WARPALIGN_BACKEND", "cpu")
                .env("WARPALIGN_YDROP_DEPTH", if v == "depth1" { "1" } else { "" })
                .output()
                .expect("running lastz");
            assert!(out.status.success(), "{run}: lastz failed: {}", String::from_utf8_lossy(&out.stderr));
            let calls = read_dump(&dump).unwrap_or_else(|e| panic!("{run}: reading {}: {e}", dump.display()));
            runs.push(Run { name: run, calls, secs: t0.elapsed().as_secs_f64() });
        }
    }
    let _ = std::fs::remove_dir_all(&tmp);
    if runs.is_empty() {
        return Err(format!("no real data under {}", data.display()));
    }
    Ok(runs)
}

/// `p` itself, or when gzipped its contents unpacked into `to`.
fn gunzipped(p: &Path, to: &Path) -> std::path::PathBuf {
    if p.extension().is_none_or(|e| e != "gz") {
        return p.to_path_buf();
    }
    let out = Command::new("gzip").arg("-dc").arg(p).output().expect("gzip");
    assert!(out.status.success(), "gzip -dc {}", p.display());
    std::fs::write(to, out.stdout).unwrap();
    to.to_path_buf()
}
