//! The ksw kernels' 4-lane cell update (kernels/ksw_lanes.cuh) against the cell-by-cell form it replaced
//! (tests/ksw/lanes_check.c), on the host: the header is plain C too. Random words with every byte value and
//! small ones (ties), all six forms (extd2 and exts2; score only, left- and right-aligned).
//! `KSW_LANES_WORDS=N` sets the words (default 2,000,000), `KSW_LANES_SEED=S` the seed.

use crate::common::{env_u64, tools::scratch_dir};
use std::path::Path;
use std::process::Command;

#[test]
fn lanes_equal_cells_one_by_one() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    let dir = scratch_dir("ksw-lanes");
    let exe = dir.join("lanes_check");
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let built = Command::new(&cc)
        .args(["-O2", "-Wall", "-Werror", "-I"])
        .arg(root.join("kernels"))
        .arg(root.join("tests/ksw/lanes_check.c"))
        .arg("-o")
        .arg(&exe)
        .status()
        .unwrap_or_else(|e| panic!("running {cc}: {e}"));
    assert!(built.success(), "{cc} could not build tests/ksw/lanes_check.c");
    let (n, seed) = (env_u64("KSW_LANES_WORDS", 2_000_000), env_u64("KSW_LANES_SEED", 1));
    let out = Command::new(&exe).args([n.to_string(), seed.to_string()]).output().unwrap();
    let text = String::from_utf8_lossy(&out.stdout);
    eprint!("{text}");
    assert!(out.status.success(), "the 4-lane update differs:\n{text}");
    let _ = std::fs::remove_dir_all(&dir);
}
