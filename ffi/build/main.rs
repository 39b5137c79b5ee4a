//! Builds the oracle: the original upstream DP functions, compiled unmodified from the pinned sources that
//! `vendor/fetch` unpacked, every global symbol renamed with a `warpalign_oracle_` prefix, and bound with bindgen.

mod lastz;
mod mm2;

use std::path::PathBuf;

fn vendor_dir() -> PathBuf {
    println!("cargo:rerun-if-env-changed=WARPALIGN_VENDOR_DIR");
    let dir = match std::env::var_os("WARPALIGN_VENDOR_DIR") {
        Some(d) => PathBuf::from(d),
        None => PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../target/vendor/src"),
    };
    for name in ["minimap2", "lastz"] {
        if !dir.join(name).is_dir() {
            panic!(
                "upstream source '{name}' not found under {}: run `vendor/fetch` first (or set WARPALIGN_VENDOR_DIR)",
                dir.display()
            );
        }
    }
    dir
}

fn main() {
    let vendor = vendor_dir();
    let out = PathBuf::from(std::env::var("OUT_DIR").unwrap());
    println!("cargo:rerun-if-changed=csrc");
    mm2::build(&vendor.join("minimap2"), &out);
    lastz::build(&vendor.join("lastz"), &out);
}
