//! Where the tests that run the patched tools find them, the real data and room for their files: the build's
//! tree, or the working directory where the test executables were carried without it (tests/device).

use std::path::{Path, PathBuf};

pub fn repo_root() -> PathBuf {
    let built = Path::new(env!("CARGO_MANIFEST_DIR"));
    if built.exists() {
        built.to_path_buf()
    } else {
        std::env::current_dir().unwrap()
    }
}

/// `$TOOLS`, else target/tools (`make tools`).
pub fn tools_dir() -> PathBuf {
    std::env::var_os("TOOLS").map(PathBuf::from).unwrap_or_else(|| repo_root().join("target/tools"))
}

/// `$WARPALIGN_DATA`, else `<repo>/../shared/data`.
pub fn data_dir() -> PathBuf {
    std::env::var_os("WARPALIGN_DATA").map(PathBuf::from).unwrap_or_else(|| repo_root().join("../shared/data"))
}

/// A fresh folder for one test's files, in the system's temporary folder (the build's target folder may
/// not exist where the test runs); unique per process and call, as tests run in parallel.
pub fn scratch_dir(name: &str) -> PathBuf {
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = std::env::temp_dir().join(format!("warpalign-{name}.{}.{call}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The patched tool `name` under [`tools_dir`] if it has the dump mode (its binary holds `marker`); else why not.
pub fn patched_tool(name: &str, marker: &[u8]) -> Result<PathBuf, String> {
    let tool = tools_dir().join(name);
    if !tool.exists() {
        return Err(format!("{} not found (make tools, or set TOOLS)", tool.display()));
    }
    if !std::fs::read(&tool).map_err(|e| e.to_string())?.windows(marker.len()).any(|w| w == marker) {
        return Err(format!("{} predates its dump mode (rebuild it: make tools)", tool.display()));
    }
    Ok(tool)
}
