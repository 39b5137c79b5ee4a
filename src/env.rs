//! The library's `WARPALIGN_*` variables, each with its parser and what it accepts. Surrounding spaces are
//! ignored and an empty value counts as unset (the default). [`check`] refuses the first variable set to a
//! value it does not accept, naming it; every C API entry point that starts a tool's work calls it (the
//! contexts, the y-drop schedule, `warpalign_env_check`), so both tools stop at start on garbage. The
//! engines read their variables later, during batches, with [`Var::get`].
//!
//! The rebuilt minimap2's own variables (`WARPALIGN_SPECULATE`, `WARPALIGN_CHAIN_BATCH`, `WARPALIGN_SLICES`,
//! `WARPALIGN_BATCH_BASES`) are read and checked by its glue.

use crate::search::dispatch::Searcher;
use crate::ydrop::twin::Sweep;
use crate::{BackendChoice, Error, Result};
use std::ffi::OsStr;
use std::path::PathBuf;

/// A variable, its parser (of the trimmed, non-empty value) and what it accepts, for the error.
pub struct Var<T> {
    pub name: &'static str,
    pub accepts: &'static str,
    parse: fn(&str) -> Option<T>,
}

impl<T> Var<T> {
    /// The value; None when unset or empty, an error naming the variable when it does not accept it.
    pub fn read(&self) -> Result<Option<T>> {
        let Some(raw) = std::env::var_os(self.name) else { return Ok(None) };
        match raw.to_str().map(str::trim) {
            Some("") => Ok(None),
            Some(v) => (self.parse)(v).map(Some).ok_or_else(|| self.refused(&raw)),
            None => Err(self.refused(&raw)),
        }
    }

    /// [`Var::read`] for the engines, during batches: [`check`] refused a bad value before any batch, so
    /// here one (set since, or by a Rust caller that never checked) reads as unset.
    pub fn get(&self) -> Option<T> {
        self.read().ok().flatten()
    }

    fn refused(&self, raw: &OsStr) -> Error {
        Error::InvalidArgument(format!("{}={:?}: expected {}", self.name, raw.to_string_lossy(), self.accepts))
    }
}

/// A path: any value but empty (which counts as unset). Nothing to check.
pub struct PathVar {
    pub name: &'static str,
}

impl PathVar {
    pub fn get(&self) -> Option<PathBuf> {
        std::env::var_os(self.name).filter(|p| !p.is_empty()).map(PathBuf::from)
    }
}

fn flag(s: &str) -> Option<bool> {
    match s {
        "0" => Some(false),
        "1" => Some(true),
        _ => None,
    }
}

fn positive(s: &str) -> Option<usize> {
    s.parse().ok().filter(|&n| n > 0)
}

fn gpus(s: &str) -> Option<Option<usize>> {
    if s.trim().eq_ignore_ascii_case("all") {
        return Some(None);
    }
    positive(s).map(Some)
}

fn block_threads(s: &str) -> Option<usize> {
    s.parse().ok().filter(|t| (32..=1024).contains(t) && t % 32 == 0)
}

fn window_cells(s: &str) -> Option<usize> {
    s.parse().ok().filter(|c: &usize| (4..=64).contains(c) && c.is_power_of_two())
}

/// MiB, as bytes (a count whose bytes overflow is refused).
fn mib(s: &str) -> Option<usize> {
    positive(s)?.checked_mul(1 << 20)
}

fn sweep(s: &str) -> Option<Sweep> {
    match s {
        "spec" => Some(Sweep::Spec),
        "8" => Some(Sweep::Lanes8),
        "16" => Some(Sweep::Lanes16),
        "32" => Some(Sweep::Lanes32),
        _ => None,
    }
}

fn ahead(s: &str) -> Option<usize> {
    s.parse().ok().filter(|&n| n < crate::ydrop::schedule::AHEAD_MAX)
}

fn depth(s: &str) -> Option<u32> {
    s.parse().ok().filter(|&d| d > 0)
}

const fn switch(name: &'static str) -> Var<bool> {
    Var { name, accepts: "0 or 1", parse: flag }
}

pub static BACKEND: Var<BackendChoice> =
    Var { name: "WARPALIGN_BACKEND", accepts: "auto, cpu or gpu", parse: BackendChoice::parse };
/// A stderr line per speculation-cache compute step (and, in the minimap2 glue, per batching pass).
pub static TRACE: Var<bool> = switch("WARPALIGN_TRACE");
pub static GPU_HOST_THREADS: Var<usize> =
    Var { name: "WARPALIGN_GPU_HOST_THREADS", accepts: "a positive integer", parse: positive };
pub static KSW_GPU_THREADS: Var<usize> =
    Var { name: "WARPALIGN_KSW_GPU_THREADS", accepts: "32 to 1024, a multiple of 32", parse: block_threads };
pub static KSW_GPU_CELLS: Var<usize> =
    Var { name: "WARPALIGN_KSW_GPU_CELLS", accepts: "a power of two from 4 to 64", parse: window_cells };
/// Bytes.
/// The ksw kernels' one-warp form for windows of up to 512 cells (the band in registers); `0` takes the block form.
pub static KSW_GPU_WARP: Var<bool> = switch("WARPALIGN_KSW_GPU_WARP");
/// Bytes.
pub static KSW_GPU_MEM_MB: Var<usize> =
    Var { name: "WARPALIGN_KSW_GPU_MEM_MB", accepts: "a positive integer (MiB) under 2^44", parse: mib };
/// Bytes.
pub static YDROP_GPU_MEM_MB: Var<usize> =
    Var { name: "WARPALIGN_YDROP_GPU_MEM_MB", accepts: "a positive integer (MiB) under 2^44", parse: mib };
pub static KSW_GPU_PROFILE: Var<bool> = switch("WARPALIGN_KSW_GPU_PROFILE");
pub static CHAIN_GPU_PROFILE: Var<bool> = switch("WARPALIGN_CHAIN_GPU_PROFILE");
pub static YDROP_GPU_PROFILE: Var<bool> = switch("WARPALIGN_YDROP_GPU_PROFILE");
pub static SEED_GPU_PROFILE: Var<bool> = switch("WARPALIGN_SEED_GPU_PROFILE");
pub static YDROP_SWEEP: Var<Sweep> = Var { name: "WARPALIGN_YDROP_SWEEP", accepts: "spec, 8, 16 or 32", parse: sweep };
pub static YDROP_AHEAD: Var<usize> = Var { name: "WARPALIGN_YDROP_AHEAD", accepts: "0 to 255 anchors", parse: ahead };
pub static YDROP_DEPTH: Var<u32> =
    Var { name: "WARPALIGN_YDROP_DEPTH", accepts: "a positive integer (alignments)", parse: depth };
pub static YDROP_EARLY: Var<bool> = switch("WARPALIGN_YDROP_EARLY");
pub static YDROP_VERIFY: Var<bool> = switch("WARPALIGN_YDROP_VERIFY");
pub static STATS: Var<bool> = switch("WARPALIGN_STATS");
/// How many of the visible GPUs one process uses (None: all).
pub static GPUS: Var<Option<usize>> = Var { name: "WARPALIGN_GPUS", accepts: "all or a positive integer", parse: gpus };
pub static SEARCH: Var<Searcher> =
    Var { name: "WARPALIGN_SEARCH", accepts: "auto, warpalign or upstream", parse: Searcher::parse };

pub static CACHE_DIR: PathVar = PathVar { name: "WARPALIGN_CACHE_DIR" };
pub static KSW_DUMP: PathVar = PathVar { name: "WARPALIGN_KSW_DUMP" };
pub static CHAIN_DUMP: PathVar = PathVar { name: "WARPALIGN_CHAIN_DUMP" };
pub static YDROP_DUMP: PathVar = PathVar { name: "WARPALIGN_YDROP_DUMP" };

trait Checked: Sync {
    fn check(&self) -> Result<()>;
}

impl<T> Checked for Var<T> {
    fn check(&self) -> Result<()> {
        self.read().map(drop)
    }
}

/// Every variable above but the paths.
static CHECKED: &[&dyn Checked] = &[
    &BACKEND,
    &TRACE,
    &GPU_HOST_THREADS,
    &KSW_GPU_THREADS,
    &KSW_GPU_CELLS,
    &KSW_GPU_WARP,
    &KSW_GPU_MEM_MB,
    &YDROP_GPU_MEM_MB,
    &KSW_GPU_PROFILE,
    &CHAIN_GPU_PROFILE,
    &YDROP_GPU_PROFILE,
    &SEED_GPU_PROFILE,
    &YDROP_SWEEP,
    &YDROP_AHEAD,
    &YDROP_DEPTH,
    &YDROP_EARLY,
    &YDROP_VERIFY,
    &STATS,
    &GPUS,
    &SEARCH,
];

/// Refuses the first variable set to a value it does not accept: `NAME="value": expected <what it accepts>`.
pub fn check() -> Result<()> {
    CHECKED.iter().try_for_each(|v| v.check())?;
    crate::gpu::fault::from_env()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn accepts<T>(v: &Var<T>, s: &str) -> bool {
        (v.parse)(s).is_some()
    }

    #[test]
    fn parsers_take_what_the_descriptions_say() {
        for s in ["0", "1"] {
            assert!(accepts(&TRACE, s));
        }
        for s in ["yes", "on", "2", "true", "01"] {
            assert!(!accepts(&KSW_GPU_PROFILE, s), "{s}");
        }
        assert_eq!((flag("0"), flag("1")), (Some(false), Some(true)));

        assert_eq!(positive("3"), Some(3));
        assert_eq!([gpus("all"), gpus(" ALL "), gpus("2")], [Some(None), Some(None), Some(Some(2))]);
        for s in ["0", "-1", "two", ""] {
            assert_eq!(gpus(s), None, "{s}");
        }
        for s in ["0", "-1", "2.5", "x", "99999999999999999999999"] {
            assert_eq!(positive(s), None, "{s}");
        }

        assert!((32..=1024).step_by(32).all(|t| block_threads(&t.to_string()) == Some(t)));
        for s in ["0", "16", "33", "1056", "1024.0"] {
            assert_eq!(block_threads(s), None, "{s}");
        }

        assert_eq!([4, 8, 16, 32, 64].map(|c| window_cells(&c.to_string())), [4, 8, 16, 32, 64].map(Some));
        for s in ["2", "6", "128", "0"] {
            assert_eq!(window_cells(s), None, "{s}");
        }

        assert_eq!(mib("2"), Some(2 << 20));
        assert_eq!(mib("0"), None);
        assert_eq!(mib(&(usize::MAX >> 20).to_string()), Some((usize::MAX >> 20) << 20));
        assert_eq!(mib(&((usize::MAX >> 20) + 1).to_string()), None, "its bytes overflow");

        assert_eq!(["spec", "8", "16", "32"].map(sweep), [Sweep::Spec, Sweep::Lanes8, Sweep::Lanes16, Sweep::Lanes32].map(Some));
        for s in ["SPEC", "4", "64", "avx2"] {
            assert_eq!(sweep(s), None, "{s}");
        }

        assert_eq!((ahead("0"), ahead("255"), ahead("256")), (Some(0), Some(255), None));
        assert_eq!(YDROP_AHEAD.accepts, format!("0 to {} anchors", crate::ydrop::schedule::AHEAD_MAX - 1));
        assert_eq!((depth("1"), depth("0"), depth("4294967296")), (Some(1), None, None));

        assert_eq!(["auto", "warpalign", "upstream"].map(Searcher::parse), [Searcher::Auto, Searcher::Warpalign, Searcher::Upstream].map(Some));
        for s in ["Upstream", "lastz", "0"] {
            assert!(!accepts(&SEARCH, s), "{s}");
        }

        assert_eq!(BACKEND.accepts, "auto, cpu or gpu");
        assert!(["auto", "CPU", "gpu"].iter().all(|s| accepts(&BACKEND, s)));
        assert!(!accepts(&BACKEND, "bogus"));
    }

    #[test]
    fn read_trims_takes_empty_as_unset_and_names_the_variable() {
        // variables no other test or tool reads
        static N: Var<usize> = Var { name: "WA_UNIT_TEST_ENV_N", accepts: "a positive integer", parse: positive };
        static P: PathVar = PathVar { name: "WA_UNIT_TEST_ENV_P" };
        std::env::remove_var(N.name);
        assert_eq!(N.read(), Ok(None));
        for (v, want) in [("", None), ("  ", None), (" 7 ", Some(7)), ("7", Some(7))] {
            std::env::set_var(N.name, v);
            assert_eq!(N.read(), Ok(want), "{v:?}");
        }
        std::env::set_var(N.name, " x");
        let err = N.read().unwrap_err();
        assert_eq!(err, Error::InvalidArgument("WA_UNIT_TEST_ENV_N=\" x\": expected a positive integer".into()));
        assert_eq!(N.get(), None);
        #[cfg(unix)]
        {
            use std::os::unix::ffi::OsStrExt;
            std::env::set_var(N.name, OsStr::from_bytes(b"\xff"));
            assert!(N.read().is_err(), "not UTF-8");
        }
        std::env::remove_var(N.name);

        std::env::set_var(P.name, "");
        assert_eq!(P.get(), None);
        std::env::set_var(P.name, " a b");
        assert_eq!(P.get(), Some(PathBuf::from(" a b")), "a path as given");
        std::env::remove_var(P.name);
    }

    #[test]
    fn check_reads_every_variable() {
        let src = include_str!("env.rs");
        let table = src.split("static CHECKED").nth(1).and_then(|t| t.split("];").next()).unwrap();
        let vars: Vec<&str> = src
            .lines()
            .filter_map(|l| l.strip_prefix("pub static "))
            .filter(|l| l.contains(": Var<"))
            .filter_map(|l| l.split(':').next())
            .collect();
        assert_eq!(vars.len(), CHECKED.len());
        for v in vars {
            assert!(table.contains(&format!("&{v},")), "{v} is not in CHECKED");
        }
    }
}
