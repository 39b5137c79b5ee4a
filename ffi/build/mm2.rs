//! minimap2 2.31: ksw2 (SSE4.1 and SSE2 variants behind upstream's own CPU dispatch), kalloc, lchain, misc, and
//! seeding: sketch, index, seed, and map.c's static seeding steps through a shim (csrc/mm2_seed_hits_shim.c), with
//! everything map.c calls (align, hit, esterr, pe, format, sdust, jump, splitidx, bseq and its zlib, kthread,
//! options for the presets).

use std::path::Path;

pub fn build(src: &Path, out: &Path) {
    let csrc = Path::new(env!("CARGO_MANIFEST_DIR")).join("csrc");
    let rename = csrc.join("mm2_rename.h");
    let base = || {
        let mut b = cc::Build::new();
        b.include(src)
            .flag("-include")
            .flag(rename.to_str().unwrap())
            .define("HAVE_KALLOC", None)
            .opt_level(2)
            .warnings(false);
        b
    };
    // Same object split as upstream's Makefile: each ksw2 file twice (SSE4.1, SSE2) plus the dispatcher.
    for (isa, flags, defs) in [
        ("sse41", &["-msse4.1"][..], &[][..]),
        ("sse2", &["-msse2", "-mno-sse4.1"][..], &["KSW_SSE2_ONLY"][..]),
    ] {
        let mut b = base();
        b.define("KSW_CPU_DISPATCH", None);
        for f in flags {
            b.flag(f);
        }
        for d in defs {
            b.define(d, None);
        }
        for f in ["ksw2_extd2_sse.c", "ksw2_exts2_sse.c", "ksw2_extz2_sse.c"] {
            b.file(src.join(f));
        }
        b.compile(&format!("warpalign_oracle_mm2_ksw_{isa}"));
    }
    let mut b = base();
    b.define("KSW_CPU_DISPATCH", None);
    for f in ["ksw2_dispatch.c", "kalloc.c", "lchain.c", "misc.c"] {
        b.file(src.join(f));
    }
    b.compile("warpalign_oracle_mm2");
    let mut b = base();
    for f in [
        "sketch.c", "index.c", "seed.c", "bseq.c", "kthread.c", "options.c", "align.c", "hit.c", "esterr.c", "pe.c",
        "format.c", "sdust.c", "jump.c", "splitidx.c",
    ] {
        b.file(src.join(f));
    }
    b.file(csrc.join("mm2_seed_hits_shim.c")).include(&csrc);
    b.compile("warpalign_oracle_mm2_seed");
    println!("cargo:rustc-link-lib=z");
    println!("cargo:rustc-link-lib=pthread");

    let bindings = bindgen::Builder::default()
        .header(csrc.join("oracle_mm2.h").to_str().unwrap())
        .clang_arg(format!("-I{}", src.display()))
        .clang_arg("-include")
        .clang_arg(rename.to_str().unwrap())
        .allowlist_function("warpalign_oracle_(ksw_ext[dsz]2_sse|mg_lchain_dp|mg_lchain_rmq|radix_sort_128x|km_init|km_destroy|kmalloc|kfree)")
        .allowlist_function("warpalign_oracle_(mm_sketch|mm_idx_str|mm_idx_destroy|mm_idx_get|mm_idx_cal_max_occ|mm_idx_dump|mm_idx_load)")
        .allowlist_function("warpalign_oracle_(mm_seed_mz_flt|mm_seed_collect_all|mm_seed_select|mm_collect_matches)")
        .allowlist_function("warpalign_oracle_(mm_set_opt|mm_idxopt_init|mm_mapopt_init|mm_mapopt_update)")
        .allowlist_function("warpalign_oracle_(mm_bseq_open|mm_bseq_read|mm_bseq_close|sdust)")
        .allowlist_function("warpalign_oracle_collect_(minimizers|seed_hits|seed_hits_heap)")
        .allowlist_type("ksw_extz_t|mm128_t|mm128_v|mm_idx_t|mm_idxopt_t|mm_mapopt_t|mm_seed_t|mm_bseq1_t")
        .allowlist_var("MM_([FI]|SEED)_.*")
        .allowlist_var("KSW_.*")
        .generate()
        .expect("bindgen failed on minimap2 headers");
    bindings.write_to_file(out.join("mm2_bindings.rs")).unwrap();
}
