//! LASTZ 1.04.52: `ydrop_one_sided_align` (static in gapped_extend.c), reached through a shim
//! (csrc/lastz_ydrop_shim.c) that `#include`s gapped_extend.c unmodified and exports one call, constrained
//! or not; and the HSP search (pos_table.c, seed_search.c, diag_hash.c, seeds.c, unmodified), reached
//! through csrc/lastz_search_shim.c, which sets it up as lastz.c does and collects the HSPs.
//!
//! Compiled as upstream's src/Makefile compiles `lastz` (-O3, -Dscore_type=I, large-file and VERSION_*
//! defines), with csrc/lastz_rename.h force-included so that every global symbol carries a
//! `warpalign_oracle_lastz_` prefix. Only the files the shim links are built; output.c is replaced by two
//! stubs in the shim (it would pull in the whole program).

use std::path::Path;
use std::process::Command;

/// The LASTZ files besides gapped_extend.c (included by the shim) that the oracle links.
const FILES: &[&str] = &[
    "edit_script.c",
    "utilities.c",
    "segment.c",
    "sequences.c",
    "dna_utilities.c",
    "identity_dist.c",
    "coverage_dist.c",
    "continuity_dist.c",
    // the HSP search (csrc/lastz_search_shim.c)
    "seeds.c",
    "pos_table.c",
    "seed_search.c",
    "diag_hash.c",
];

const PREFIX: &str = "warpalign_oracle_lastz_";

/// `KEY=value` lines of LASTZ's src/version.mak.
fn version_defines(src: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(src.join("src/version.mak")).expect("read lastz src/version.mak");
    let mut out = Vec::new();
    for key in ["VERSION_MAJOR", "VERSION_MINOR", "VERSION_SUBMINOR", "REVISION_DATE", "SUBVERSION_REV"] {
        let value = text
            .lines()
            .find_map(|l| l.trim().strip_prefix(key).and_then(|r| r.trim_start().strip_prefix('=')))
            .map(|v| v.trim().to_string())
            .unwrap_or_default();
        out.push((key.to_string(), format!("\"{value}\"")));
    }
    out
}

pub fn build(src: &Path, out: &Path) {
    let csrc = Path::new(env!("CARGO_MANIFEST_DIR")).join("csrc");
    let rename = csrc.join("lastz_rename.h");
    let lz = src.join("src");
    println!("cargo:rerun-if-changed={}", lz.display());

    let mut b = cc::Build::new();
    b.include(&lz)
        .include(&csrc)
        .flag("-include")
        .flag(rename.to_str().unwrap())
        .define("_FILE_OFFSET_BITS", "64")
        .define("_LARGEFILE_SOURCE", None)
        .define("score_type", "I")
        .opt_level(3)
        .warnings(false);
    for (k, v) in version_defines(src) {
        b.define(&k, v.as_str());
    }
    b.file(csrc.join("lastz_ydrop_shim.c"));
    b.file(csrc.join("lastz_search_shim.c"));
    for f in FILES {
        b.file(lz.join(f));
    }
    b.compile("warpalign_oracle_lastz");
    check_prefixed(&out.join("libwarpalign_oracle_lastz.a"));

    let bindings = bindgen::Builder::default()
        .header(csrc.join("lastz_ydrop_shim.h").to_str().unwrap())
        .header(csrc.join("lastz_search_shim.h").to_str().unwrap())
        .allowlist_function("warpalign_oracle_lastz_search")
        .allowlist_function("warpalign_oracle_lastz_search_masked")
        .allowlist_function("warpalign_oracle_lastz_masked_hoxd70")
        .allowlist_function("warpalign_oracle_lastz_free")
        .allowlist_type("warpalign_oracle_lastz_hsp")
        .allowlist_type("warpalign_oracle_lastz_search_options")
        .allowlist_function("warpalign_oracle_lastz_ydrop_one_sided")
        .allowlist_type("warpalign_oracle_lastz_ydrop_out")
        .allowlist_type("warpalign_oracle_lastz_ydrop_bounds")
        .generate()
        .expect("bindgen failed on lastz_ydrop_shim.h");
    bindings.write_to_file(out.join("lastz_bindings.rs")).unwrap();
}

/// Fails the build when a global symbol of the oracle's LASTZ copy escaped lastz_rename.h (it would clash
/// with LASTZ's own when libwarpalign.a is linked into the patched lastz). Skipped without `nm`.
fn check_prefixed(lib: &Path) {
    let nm = std::env::var("NM").unwrap_or_else(|_| "nm".into());
    let output = match Command::new(&nm).args(["-g", "--defined-only", "-P"]).arg(lib).output() {
        Ok(o) if o.status.success() => o,
        _ => {
            println!("cargo:warning=`{nm}` unavailable: not checking the LASTZ oracle's symbol prefixes");
            return;
        }
    };
    let text = String::from_utf8_lossy(&output.stdout);
    let bad: Vec<&str> = text
        .lines()
        .filter_map(|l| {
            let mut f = l.split_whitespace();
            let name = f.next()?;
            let kind = f.next()?;
            // archive member headers ("lib.a[x.o]:") have no type letter
            (kind.len() == 1 && !name.ends_with(':') && !name.starts_with(PREFIX)).then_some(name)
        })
        .collect();
    if !bad.is_empty() {
        panic!("LASTZ oracle symbols without the {PREFIX} prefix (add them to csrc/lastz_rename.h): {bad:?}");
    }
}
