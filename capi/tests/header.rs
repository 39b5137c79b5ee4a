//! capi/include/warpalign.h is checked in so that C builds need no cbindgen; this test fails when it is
//! stale. `WARPALIGN_BLESS=1 cargo test -p warpalign-capi --test header` rewrites it.

use std::path::Path;

#[test]
fn header_matches_cbindgen_output() {
    let crate_dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let config = cbindgen::Config::from_file(crate_dir.join("cbindgen.toml")).expect("read cbindgen.toml");
    let mut generated = Vec::new();
    cbindgen::Builder::new()
        .with_crate(crate_dir)
        .with_config(config)
        .generate()
        .expect("cbindgen failed")
        .write(&mut generated);
    let path = crate_dir.join("include/warpalign.h");
    if std::env::var_os("WARPALIGN_BLESS").is_some() {
        std::fs::write(&path, &generated).unwrap();
        return;
    }
    let committed = std::fs::read(&path).unwrap_or_default();
    assert!(
        committed == generated,
        "{} is stale: regenerate it with WARPALIGN_BLESS=1 cargo test -p warpalign-capi --test header",
        path.display()
    );
}
