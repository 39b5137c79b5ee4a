//! The seed engine (minimap2's seeding): the Rust twins of `mm_sketch` and of the steps to anchors, and the flat
//! index view, against upstream's C (the oracle); the GPU path and the batch call against the twins (`gpu`). Each
//! module's header lists its knobs.

#[path = "../common/mod.rs"]
mod common;

mod gpu;
mod hits;
mod index;
mod sdust;
mod sketch;

use std::ffi::{CStr, CString};
use std::path::Path;
use warpalign::seed::Minimizer;
use warpalign_ffi::mm2 as c;

/// Every preset name `mm_set_opt` knows, in options.c's order.
const PRESETS: &[&str] = &[
    "lr", "map-ont", "ava-ont", "map10k", "map-pb", "ava-pb", "lr:hq", "map-hifi", "map-ccs", "lr:hqae",
    "map-iclr-prerender", "map-iclr", "asm5", "asm10", "asm20", "short", "sr", "splice", "splice:hq", "splice:sr",
    "cdna",
];

/// One preset's indexing options, as upstream's `mm_set_opt` sets them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Sketch {
    k: usize,
    w: usize,
    hpc: bool,
}

/// Upstream's options for `preset` (after the defaults, as minimap2's main applies them).
fn preset_opts(preset: &str) -> (c::mm_idxopt_t, c::mm_mapopt_t) {
    let name = CString::new(preset).unwrap();
    // SAFETY: plain structs that mm_set_opt initializes (preset NULL) then updates.
    unsafe {
        let mut io: c::mm_idxopt_t = std::mem::zeroed();
        let mut mo: c::mm_mapopt_t = std::mem::zeroed();
        assert_eq!(c::warpalign_oracle_mm_set_opt(std::ptr::null(), &mut io, &mut mo), 0);
        assert_eq!(c::warpalign_oracle_mm_set_opt(name.as_ptr(), &mut io, &mut mo), 0, "preset {preset}");
        (io, mo)
    }
}

fn preset_sketch(preset: &str) -> Sketch {
    let (io, _) = preset_opts(preset);
    Sketch { k: io.k as usize, w: io.w as usize, hpc: io.flag as u32 & c::MM_I_HPC != 0 }
}

/// The distinct (k, w, hpc) of all presets.
fn preset_sketches() -> Vec<(String, Sketch)> {
    let mut out: Vec<(String, Sketch)> = vec![];
    for p in PRESETS {
        let s = preset_sketch(p);
        if !out.iter().any(|(_, t)| *t == s) {
            out.push((p.to_string(), s));
        }
    }
    out
}

/// Upstream's `mm_sketch` (km = NULL) on `seq` (non-empty).
fn oracle_sketch(seq: &[u8], s: Sketch, rid: u32) -> Vec<Minimizer> {
    // SAFETY: mm_sketch reads len bytes of seq and grows v with malloc (km = NULL); v is read by its count and freed.
    unsafe {
        let mut v: c::mm128_v = std::mem::zeroed();
        c::warpalign_oracle_mm_sketch(
            std::ptr::null_mut(),
            seq.as_ptr().cast(),
            seq.len() as i32,
            s.w as i32,
            s.k as i32,
            rid,
            s.hpc as i32,
            &mut v,
        );
        let out = if v.n == 0 { vec![] } else { std::slice::from_raw_parts(v.a as *const Minimizer, v.n).to_vec() };
        libc::free(v.a.cast());
        out
    }
}

/// The twin's sketch of `seq`.
fn twin_sketch(seq: &[u8], s: Sketch, rid: u32) -> Vec<Minimizer> {
    let mut v = vec![];
    warpalign::seed::twin::sketch(seq, s.w, s.k, rid, s.hpc, &mut v);
    v
}

/// The sequences of a FASTA/FASTQ file (gzipped or not), read by upstream's reader; empty if it does not exist.
fn read_seqs(path: &Path) -> Vec<(String, Vec<u8>)> {
    if !path.exists() {
        eprintln!("skipping {}: not there (set WARPALIGN_DATA)", path.display());
        return vec![];
    }
    let fname = CString::new(path.to_str().unwrap()).unwrap();
    let mut out = vec![];
    // SAFETY: upstream's reader returns malloc'ed records (name, seq, qual, comment malloc'ed each), freed here.
    unsafe {
        let fp = c::warpalign_oracle_mm_bseq_open(fname.as_ptr());
        assert!(!fp.is_null(), "cannot open {}", path.display());
        loop {
            let mut n = 0;
            let recs = c::warpalign_oracle_mm_bseq_read(fp, 1 << 24, 0, &mut n);
            if recs.is_null() {
                break;
            }
            for r in std::slice::from_raw_parts(recs, n as usize) {
                let name = CStr::from_ptr(r.name).to_string_lossy().into_owned();
                out.push((name, std::slice::from_raw_parts(r.seq as *const u8, r.l_seq as usize).to_vec()));
                for p in [r.name, r.seq, r.qual, r.comment] {
                    libc::free(p.cast());
                }
            }
            libc::free(recs.cast());
        }
        c::warpalign_oracle_mm_bseq_close(fp);
    }
    out
}
