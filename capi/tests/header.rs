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

/// The paths whose `WARPALIGN_*` names docs/env.md must list: directories are walked recursively. capi/tests
/// is among them for the variable the test above reads.
const ENV_SCAN: &[&str] = &[
    "src", "capi/src", "capi/tests", "glue", "patches", "ffi/build", "ffi/src", "bench/src", "bench/run",
    "bench/lastz", "bench/minimap2", "bench/chain-real", "bench/demo", "tests", "Makefile", ".ci/run",
];
const ENV_PREFIX: &[u8] = b"WARPALIGN_";

/// Every token matching `WARPALIGN_[A-Z0-9_]+` in `text`, in order.
fn env_tokens(text: &[u8]) -> Vec<String> {
    let mut out = Vec::new();
    let mut i = 0;
    while i + ENV_PREFIX.len() <= text.len() {
        if text[i..].starts_with(ENV_PREFIX) {
            let start = i;
            i += ENV_PREFIX.len();
            while i < text.len() && (text[i].is_ascii_uppercase() || text[i].is_ascii_digit() || text[i] == b'_') {
                i += 1;
            }
            if i > start + ENV_PREFIX.len() {
                out.push(String::from_utf8_lossy(&text[start..i]).into_owned());
            }
        } else {
            i += 1;
        }
    }
    out
}

/// The text files under `path` (itself when a file), sorted, skipping target/ and bench/results/ and links.
fn env_scan_files(root: &Path, path: &Path, out: &mut Vec<std::path::PathBuf>) {
    let rel = path.strip_prefix(root).unwrap_or(path);
    if rel.components().any(|c| c.as_os_str() == "target") || rel.starts_with("bench/results") {
        return;
    }
    let Ok(meta) = std::fs::symlink_metadata(path) else { return };
    if meta.is_dir() {
        let mut entries: Vec<_> = std::fs::read_dir(path).unwrap().map(|e| e.unwrap().path()).collect();
        entries.sort();
        for e in entries {
            env_scan_files(root, &e, out);
        }
    } else if meta.is_file() {
        out.push(path.to_path_buf());
    }
}

#[test]
fn env_doc_lists_every_variable() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("..");
    // every name the scanned paths mention, with the first file each was seen in
    let mut seen: std::collections::BTreeMap<String, String> = Default::default();
    let mut files = Vec::new();
    for p in ENV_SCAN {
        env_scan_files(&root, &root.join(p), &mut files);
    }
    assert!(!files.is_empty(), "no files found under {}", root.display());
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if bytes.iter().take(8192).any(|&b| b == 0) {
            continue; // not text
        }
        let rel = f.strip_prefix(&root).unwrap_or(f).display().to_string();
        for t in env_tokens(&bytes) {
            seen.entry(t).or_insert_with(|| rel.clone());
        }
    }

    // the C API's constants: what warpalign.h declares (#define NAME, or NAME at a line's start: enum
    // variants), not what its comments mention
    let header = std::fs::read_to_string(root.join("capi/include/warpalign.h")).unwrap();
    let mut constants = std::collections::BTreeSet::new();
    for line in header.lines() {
        let decl = line.trim_start();
        let decl = decl.strip_prefix("#define ").unwrap_or(decl);
        if decl.as_bytes().starts_with(ENV_PREFIX) {
            constants.extend(env_tokens(decl.as_bytes()).into_iter().take(1));
        }
    }
    assert!(!constants.is_empty(), "no constants found in capi/include/warpalign.h");

    let doc_path = root.join("docs/env.md");
    let doc = std::fs::read_to_string(&doc_path).unwrap_or_else(|e| panic!("{}: {e}", doc_path.display()));
    let missing: Vec<String> = seen
        .iter()
        .filter(|(name, _)| !constants.contains(*name) && !name.ends_with("_H"))
        .filter(|(name, _)| !doc.contains(&format!("`{name}`")))
        .map(|(name, file)| format!("  {name} (first seen in {file})"))
        .collect();
    assert!(
        missing.is_empty(),
        "docs/env.md does not list these variables the source reads (add a table row for each):\n{}",
        missing.join("\n")
    );

    // and no stale rows: every backticked name in a table row is still in the source
    let mut stale = Vec::new();
    for (n, line) in doc.lines().enumerate() {
        if !line.trim_start().starts_with('|') {
            continue;
        }
        for (k, span) in line.split('`').enumerate() {
            if k % 2 == 0 {
                continue; // outside backticks
            }
            for t in env_tokens(span.as_bytes()) {
                if !seen.contains_key(&t) {
                    stale.push(format!("  {t} (docs/env.md line {})", n + 1));
                }
            }
        }
    }
    assert!(
        stale.is_empty(),
        "docs/env.md lists names that none of the scanned paths mention (remove or rename their rows):\n{}",
        stale.join("\n")
    );
}
