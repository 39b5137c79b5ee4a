//! What the rebuilt LASTZ calls for each query strand it hands to warpalign: a per-target object that holds
//! the target's bytes as LASTZ searches them, the search's options and score matrix, and what is built once
//! per target (the position table, as LASTZ builds its own once), then answers one query strand at a time with
//! the HSPs in the order LASTZ collects them.
//!
//! The batched engine answers ([`SearchEngine`]): on the GPU when one works and the target is large enough to
//! pay for starting it, else on CPU threads; the same HSPs in the same order as the twin either way.

use super::engine::{SearchConfig, SearchEngine};
use super::twin::pos_table::PosTable;
use super::twin::scoring::ScoreMatrix;
use super::{Hsp, SearchOptions};
use crate::engine::BackendChoice;
use crate::{Engine, Error, Result};
use std::sync::Arc;

/// Targets shorter than this are searched on CPU threads unless `WARPALIGN_BACKEND=gpu`: the GPU's start
/// (about 0.35 s) costs more than their search.
pub const GPU_MIN_TARGET: usize = 1 << 20;

/// Targets shorter than this keep LASTZ's own search unless `WARPALIGN_SEARCH=warpalign`: building the
/// engine's tables (two of 4^12 entries for the default seed) costs more than upstream's whole search there
/// (human/orangutan mtDNA: 0.22 s against 0.08 s on the development machine).
pub const SEARCH_MIN_TARGET: usize = 1 << 20;

/// `WARPALIGN_SEARCH`: who searches the query strands whose options warpalign covers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Searcher {
    /// warpalign for targets of [`SEARCH_MIN_TARGET`] or more, else LASTZ (the default).
    Auto,
    /// warpalign, whatever the target's size (tests).
    Warpalign,
    /// LASTZ's own `seed_hit_search` (for tests and comparisons).
    Upstream,
}

impl Searcher {
    /// What the variable's value asks for.
    pub fn parse(s: &str) -> Option<Searcher> {
        match s {
            "" | "auto" => Some(Searcher::Auto),
            "warpalign" => Some(Searcher::Warpalign),
            "upstream" => Some(Searcher::Upstream),
            _ => None,
        }
    }

    /// Whether warpalign searches a target of `len` bytes.
    pub fn takes(self, len: usize) -> bool {
        match self {
            Searcher::Auto => len >= SEARCH_MIN_TARGET,
            Searcher::Warpalign => true,
            Searcher::Upstream => false,
        }
    }
}

/// LASTZ's default build holds positions in 31 bits (`maxSequenceIndex`); the twin's diagonals are `i32`.
pub const MAX_LEN: usize = i32::MAX as usize;

/// One target's search: made once per target, then [`TargetSearch::search_strand`] for each query strand.
pub struct TargetSearch {
    search: SearchEngine<'static>,
}

impl TargetSearch {
    /// Checks the target and options (what the twin would panic on, or where its arithmetic would leave
    /// LASTZ's), then builds the target's position table (limited by `--maxwordcount` if set).
    pub fn new(target: Vec<u8>, options: SearchOptions, scoring: ScoreMatrix) -> Result<TargetSearch> {
        let bad = |m: String| Err(Error::InvalidArgument(m));
        if target.is_empty() || target.len() > MAX_LEN {
            return bad(format!("target of {} bytes (needs 1 to {MAX_LEN})", target.len()));
        }
        if options.seed.length < 2 {
            return bad(format!("seed of length {} (needs 2 or more)", options.seed.length));
        }
        if options.with_trans > 2 || options.step == 0 {
            return bad(format!("transitions {}, step {} (needs 0 to 2, and 1 or more)", options.with_trans, options.step));
        }
        // `run >= best - x_drop` and `similarity <= 3 * threshold` stay in i32
        if options.x_drop < 0 || options.hsp_threshold.unsigned_abs() > i32::MAX as u32 / 3 {
            return bad(format!(
                "x-drop {}, threshold {} (needs 0 <= x-drop, |threshold| <= INT32_MAX / 3)",
                options.x_drop, options.hsp_threshold
            ));
        }
        if options.filter.is_some_and(|f| f.min_matches < 0) {
            return bad("filter with a negative match count".into());
        }
        let table = PosTable::for_options(&target, &options);
        let choice = BackendChoice::from_env()?;
        let engine = match choice {
            BackendChoice::Auto if target.len() < GPU_MIN_TARGET => Engine::cpu(),
            // one GPU, the one this process's y-drop pool uses (processes side by side spread over the GPUs)
            _ => Engine::with_gpus(choice, Some(1)),
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let search = SearchEngine::owned(Arc::new(engine), target, &table, &options, scoring, SearchConfig::with_threads(threads));
        Ok(TargetSearch { search })
    }

    /// The HSPs of one query strand (for the minus strand, its reverse complement, as LASTZ searches it), in
    /// the order LASTZ's `collect_hsps` receives them.
    pub fn search_strand(&self, query: &[u8]) -> Result<Vec<Hsp>> {
        if query.is_empty() || query.len() > MAX_LEN {
            return Err(Error::InvalidArgument(format!("query of {} bytes (needs 1 to {MAX_LEN})", query.len())));
        }
        Ok(self.search.search_strand(query))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn options() -> SearchOptions {
        SearchOptions::lastz_default()
    }

    #[test]
    fn refuses_what_the_twin_cannot_search() {
        let t = b"ACGTACGTACGTACGTACGTACGT".to_vec();
        assert!(TargetSearch::new(Vec::new(), options(), ScoreMatrix::masked_hoxd70()).is_err());
        let mut o = options();
        o.step = 0;
        assert!(TargetSearch::new(t.clone(), o, ScoreMatrix::masked_hoxd70()).is_err());
        let mut o = options();
        o.with_trans = 3;
        assert!(TargetSearch::new(t.clone(), o, ScoreMatrix::masked_hoxd70()).is_err());
        let mut o = options();
        o.x_drop = -1;
        assert!(TargetSearch::new(t.clone(), o, ScoreMatrix::masked_hoxd70()).is_err());
        let s = TargetSearch::new(t, options(), ScoreMatrix::masked_hoxd70()).unwrap();
        assert!(s.search_strand(b"").is_err());
    }

    /// The same HSPs as the twin called directly, strand after strand on one table.
    #[test]
    fn answers_as_the_twin() {
        let unit = b"ACGGTCATTGACCGTAGGCTTACGATCGGATCCATGCAAGT";
        let target: Vec<u8> = unit.iter().cycle().take(unit.len() * 6).copied().collect();
        let query: Vec<u8> = target[20..200].to_vec();
        let o = options();
        let s = TargetSearch::new(target.clone(), o.clone(), ScoreMatrix::masked_hoxd70()).unwrap();
        let pt = PosTable::for_options(&target, &o);
        let want = super::super::search(&target, &pt, &query, &o, &ScoreMatrix::masked_hoxd70());
        assert!(!want.is_empty());
        for _ in 0..2 {
            assert_eq!(s.search_strand(&query).unwrap(), want);
        }
    }
}
