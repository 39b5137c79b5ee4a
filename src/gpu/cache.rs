//! Disk cache of compiled kernels (cubins), keyed by the source, the compile options and the library version.
//! Directory: `WARPALIGN_CACHE_DIR`, else `$XDG_CACHE_HOME/warpalign`, else `~/.cache/warpalign`.
//! A cache that cannot be read or written is only a slower start.

use sha2::{Digest, Sha256};
use std::path::PathBuf;

fn dir() -> Option<PathBuf> {
    if let Some(d) = crate::env::CACHE_DIR.get() {
        return Some(d);
    }
    if let Some(d) = std::env::var_os("XDG_CACHE_HOME") {
        return Some(PathBuf::from(d).join("warpalign"));
    }
    std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".cache/warpalign"))
}

fn path(name: &str, src: &str, opts: &[String]) -> Option<PathBuf> {
    let mut h = Sha256::new();
    h.update(crate::VERSION.as_bytes());
    h.update([0]);
    for o in opts {
        h.update(o.as_bytes());
        h.update([0]);
    }
    h.update(src.as_bytes());
    let key: String = h.finalize().iter().take(12).map(|b| format!("{b:02x}")).collect();
    dir().map(|d| d.join(format!("{name}-{key}.cubin")))
}

pub(super) fn load(name: &str, src: &str, opts: &[String]) -> Option<Vec<u8>> {
    std::fs::read(path(name, src, opts)?).ok().filter(|c| !c.is_empty())
}

pub(super) fn store(name: &str, src: &str, opts: &[String], cubin: &[u8]) {
    let Some(p) = path(name, src, opts) else { return };
    let Some(parent) = p.parent() else { return };
    if std::fs::create_dir_all(parent).is_err() {
        return;
    }
    // Write then rename, so that concurrent processes never read a partial file.
    let tmp = p.with_extension(format!("tmp{}", std::process::id()));
    if std::fs::write(&tmp, cubin).is_ok() && std::fs::rename(&tmp, &p).is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
}
