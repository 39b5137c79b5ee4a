//! Disk cache of compiled kernels (cubins), keyed by the source, the compile options and the library version.
//! Directory: `WARPALIGN_CACHE_DIR`, else `$XDG_CACHE_HOME/warpalign`, else `~/.cache/warpalign`.
//! A cache that cannot be read or written is only a slower start. Cubins shipped with the executable, in
//! its folder's `warpalign-kernels/` (`make tools` fills it) or in `../share/warpalign/kernels/` from it
//! (`make install`), are read when the cache has none: a tool's first run on a machine then compiles nothing.

use sha2::{Digest, Sha256};
use std::path::{Path, PathBuf};

fn dir() -> Option<PathBuf> {
    if let Some(d) = crate::env::CACHE_DIR.get() {
        return Some(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("warpalign"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/warpalign"))
}

/// The file name of a kernel's cubin, the same in the cache and beside the executable.
pub(super) fn file_name(name: &str, src: &str, opts: &[String]) -> String {
    let mut h = Sha256::new();
    h.update(crate::VERSION.as_bytes());
    h.update([0]);
    for o in opts {
        h.update(o.as_bytes());
        h.update([0]);
    }
    h.update(src.as_bytes());
    let key: String = h.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect();
    format!("{name}-{key}.cubin")
}

/// The folders of cubins shipped with the executable: beside it (the build tree), and the installed one.
fn shipped_dirs() -> [Option<PathBuf>; 2] {
    let exe_dir = std::env::current_exe().ok().and_then(|e| e.parent().map(Path::to_path_buf));
    [exe_dir.as_ref().map(|d| d.join("warpalign-kernels")), exe_dir.map(|d| d.join("../share/warpalign/kernels"))]
}

pub(super) fn load(name: &str, src: &str, opts: &[String]) -> Option<Vec<u8>> {
    let [beside, installed] = shipped_dirs();
    load_from(&[dir(), beside, installed], &file_name(name, src, opts))
}

/// The first non-empty `file` in `dirs`, in order.
fn load_from(dirs: &[Option<PathBuf>], file: &str) -> Option<Vec<u8>> {
    dirs.iter().flatten().find_map(|d| std::fs::read(d.join(file)).ok().filter(|c| !c.is_empty()))
}

pub(super) fn store(name: &str, src: &str, opts: &[String], cubin: &[u8]) {
    if let Some(d) = dir() {
        let _ = store_in(&d, &file_name(name, src, opts), cubin);
    }
}

/// Writes `file` into `dir` (made if missing), then renames it into place, so that concurrent processes
/// never read a partial file.
pub(super) fn store_in(dir: &Path, file: &str, cubin: &[u8]) -> std::io::Result<()> {
    std::fs::create_dir_all(dir)?;
    let p = dir.join(file);
    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
    std::fs::write(&tmp, cubin)?;
    std::fs::rename(&tmp, &p).inspect_err(|_| {
        let _ = std::fs::remove_file(&tmp);
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_cache_comes_before_the_shipped_folder() {
        let base = std::env::temp_dir().join(format!("warpalign-cache-test-{}", std::process::id()));
        let (cache, shipped) = (base.join("cache"), base.join("shipped"));
        store_in(&shipped, "k.cubin", b"shipped").unwrap();
        let dirs = [Some(cache.clone()), Some(shipped.clone())];
        assert_eq!(load_from(&dirs, "k.cubin").as_deref(), Some(&b"shipped"[..]));
        store_in(&cache, "k.cubin", b"cached").unwrap();
        assert_eq!(load_from(&dirs, "k.cubin").as_deref(), Some(&b"cached"[..]));
        store_in(&cache, "empty.cubin", b"").unwrap();
        assert_eq!(load_from(&dirs, "empty.cubin"), None);
        assert_eq!(load_from(&[None, Some(shipped)], "missing.cubin"), None);
        let _ = std::fs::remove_dir_all(&base);
    }
}
