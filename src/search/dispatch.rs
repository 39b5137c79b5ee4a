//! What the rebuilt LASTZ calls for each query strand it hands to warpalign: a per-target object that holds
//! the target's bytes as LASTZ searches them, the search's options and score matrix, and what is built once
//! per target (the position table, as LASTZ builds its own once), then answers one query strand at a time with
//! the HSPs in the order LASTZ collects them.
//!
//! The batched engine answers ([`SearchEngine`]): on the GPU when one works and the target is large enough to
//! pay for starting it, else on CPU threads; the same HSPs in the same order as the twin either way.

use super::engine::{SearchConfig, SearchEngine, SeedIndex};
use super::twin::scoring::ScoreMatrix;
use super::{Hsp, SearchOptions, SelfCompare};
use crate::engine::BackendChoice;
use crate::{Engine, Error, Result};
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;
use std::time::Instant;

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
    /// Seconds [`TargetSearch::new`] took, and of them the wait for the engine (the GPU's start).
    pub prepare_secs: f64,
    pub engine_wait_secs: f64,
}

/// What the search of one target needs before its first strand: its engine and its index.
struct Prepared {
    target: Vec<u8>,
    key: IndexKey,
    index: SeedIndex,
    engine: Engine,
}

/// What a target's index depends on besides its bytes.
#[derive(Clone, PartialEq, Eq)]
struct IndexKey {
    pattern: Vec<u8>,
    step: u32,
    max_word_count: u32,
    max_word_count_chasm: u32,
}

impl IndexKey {
    fn of(o: &SearchOptions) -> IndexKey {
        IndexKey { pattern: o.seed.pattern.clone(), step: o.step, max_word_count: o.max_word_count, max_word_count_chasm: o.max_word_count_chasm }
    }
}

/// The engine for a target of `len` bytes: on the GPU (one, the one this process's y-drop pool uses, so
/// processes side by side spread over the GPUs) unless the backend is `cpu`, or `auto` and the target small.
fn engine_for(choice: BackendChoice, len: usize) -> Engine {
    match choice {
        BackendChoice::Auto if len < GPU_MIN_TARGET => Engine::cpu(),
        _ => Engine::with_gpus(choice, Some(1)),
    }
}

/// Prepares a target's engine and index together: the GPU starts while the index is built.
fn prepare(choice: BackendChoice, target: Vec<u8>, options: &SearchOptions) -> Prepared {
    let len = target.len();
    let starting = std::thread::spawn(move || engine_for(choice, len));
    let index = SeedIndex::for_options(&target, options);
    let engine = starting.join().unwrap_or_else(|_| Engine::cpu());
    Prepared { target, key: IndexKey::of(options), index, engine }
}

/// A preparation started ahead ([`warm_up`]), until a search takes it.
struct WarmSlot(Mutex<Option<JoinHandle<Option<Prepared>>>>);

/// The process's: LASTZ searches one target at a time.
static WARM: WarmSlot = WarmSlot(Mutex::new(None));

impl WarmSlot {
    fn start(&self, searcher: Searcher, choice: BackendChoice, target: &[u8], options: &SearchOptions) {
        if !searcher.takes(target.len()) || target.is_empty() || target.len() > MAX_LEN || options.step == 0 || options.seed.length < 2 {
            return;
        }
        let mut warm = self.0.lock().unwrap_or_else(|e| e.into_inner());
        if warm.is_some() {
            return;
        }
        let (target, options) = (target.to_vec(), options.clone());
        *warm = std::thread::Builder::new()
            .name("warpalign-search-warm-up".into())
            .spawn(move || std::panic::catch_unwind(|| prepare(choice, target, &options)).ok())
            .ok();
    }

    /// The pending preparation, if it was made for `target` and the index `options` ask for.
    fn take(&self, target: &[u8], options: &SearchOptions) -> Option<Prepared> {
        let pending = self.0.lock().unwrap_or_else(|e| e.into_inner()).take()?;
        pending.join().ok().flatten().filter(|p| p.key == IndexKey::of(options) && p.target == target)
    }
}

/// Starts preparing, in the background, the search of `target` with the seed, `--step` and `--maxwordcount`
/// of `options` (the rest is not read), so that the GPU's start and the index overlap the tool building its
/// own table and reading its queries. [`TargetSearch::new`] takes the preparation when its target and those
/// options are the same, else prepares again. Does nothing for a target warpalign would not search
/// ([`Searcher::takes`]), on a bad `WARPALIGN_*` value (reported where the search is made) or while a
/// preparation is pending.
pub fn warm_up(target: &[u8], options: &SearchOptions) {
    let searcher = crate::env::SEARCH.get().unwrap_or(Searcher::Auto);
    if let Ok(choice) = BackendChoice::from_env() {
        WARM.start(searcher, choice, target, options);
    }
}

impl TargetSearch {
    /// Checks the target and options (what the twin would panic on, or where its arithmetic would leave
    /// LASTZ's), then prepares the target's index (limited by `--maxwordcount` if set) and engine, or takes
    /// what [`warm_up`] prepared for the same target and index.
    pub fn new(target: &[u8], options: SearchOptions, scoring: ScoreMatrix) -> Result<TargetSearch> {
        Self::taking(&WARM, target, options, scoring)
    }

    fn taking(warm: &WarmSlot, target: &[u8], options: SearchOptions, scoring: ScoreMatrix) -> Result<TargetSearch> {
        let started = Instant::now();
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
        let choice = BackendChoice::from_env()?;
        // --self searches on CPU threads: no GPU to start for it
        let choice = if options.self_compare == SelfCompare::No { choice } else { BackendChoice::Cpu };
        let waiting = Instant::now();
        let p = match warm.take(target, &options) {
            Some(p) => p,
            None => prepare(choice, target.to_vec(), &options),
        };
        let engine_wait_secs = waiting.elapsed().as_secs_f64();
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        let search = SearchEngine::owned(Arc::new(p.engine), p.target, p.index, &options, scoring, SearchConfig::with_threads(threads));
        Ok(TargetSearch { search, prepare_secs: started.elapsed().as_secs_f64(), engine_wait_secs })
    }

    /// The HSPs of one query strand (for the minus strand, its reverse complement, as LASTZ searches it), in
    /// the order LASTZ's `collect_hsps` receives them.
    pub fn search_strand(&self, query: &[u8]) -> Result<Vec<Hsp>> {
        if query.is_empty() || query.len() > MAX_LEN {
            return Err(Error::InvalidArgument(format!("query of {} bytes (needs 1 to {MAX_LEN})", query.len())));
        }
        Ok(self.search.search_strand(query))
    }

    /// LASTZ's dynamic masking (`--masking`) after a strand: the census intervals `(beg, end)` (1-based,
    /// inclusive) leave the table and the target's bases there become `x` ([`SearchEngine::mask`]); later
    /// strands search on the CPU. An interval outside the target is an invalid argument, and nothing changes.
    pub fn mask(&mut self, intervals: &[(u32, u32)]) -> Result<()> {
        self.search.mask(intervals).map_err(Error::InvalidArgument)
    }

    /// `--self` on a partitioned target: its partitions ([`SearchEngine::set_partitions`]).
    pub fn set_partitions(&mut self, partitions: Vec<(u32, u32)>) -> Result<()> {
        self.search.set_partitions(partitions).map_err(Error::InvalidArgument)
    }

    /// `--self`: as [`TargetSearch::search_strand`] for a query strand that is the target itself or its reverse
    /// complement (`strand`).
    pub fn search_self_strand(&self, query: &[u8], strand: SelfCompare) -> Result<Vec<Hsp>> {
        if query.is_empty() || query.len() > MAX_LEN {
            return Err(Error::InvalidArgument(format!("query of {} bytes (needs 1 to {MAX_LEN})", query.len())));
        }
        Ok(self.search.search_self_strand(query, strand))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::search::twin::pos_table::PosTable;

    fn options() -> SearchOptions {
        SearchOptions::lastz_default()
    }

    #[test]
    fn refuses_what_the_twin_cannot_search() {
        let t = b"ACGTACGTACGTACGTACGTACGT".to_vec();
        assert!(TargetSearch::new(&[], options(), ScoreMatrix::masked_hoxd70()).is_err());
        let mut o = options();
        o.step = 0;
        assert!(TargetSearch::new(&t, o, ScoreMatrix::masked_hoxd70()).is_err());
        let mut o = options();
        o.with_trans = 3;
        assert!(TargetSearch::new(&t, o, ScoreMatrix::masked_hoxd70()).is_err());
        let mut o = options();
        o.x_drop = -1;
        assert!(TargetSearch::new(&t, o, ScoreMatrix::masked_hoxd70()).is_err());
        let s = TargetSearch::new(&t, options(), ScoreMatrix::masked_hoxd70()).unwrap();
        assert!(s.search_strand(b"").is_err());
    }

    /// The same HSPs as the twin called directly, strand after strand on one table.
    #[test]
    fn answers_as_the_twin() {
        let unit = b"ACGGTCATTGACCGTAGGCTTACGATCGGATCCATGCAAGT";
        let target: Vec<u8> = unit.iter().cycle().take(unit.len() * 6).copied().collect();
        let query: Vec<u8> = target[20..200].to_vec();
        let o = options();
        let s = TargetSearch::new(&target, o.clone(), ScoreMatrix::masked_hoxd70()).unwrap();
        let pt = PosTable::for_options(&target, &o);
        let want = super::super::search(&target, &pt, &query, &o, &ScoreMatrix::masked_hoxd70());
        assert!(!want.is_empty());
        for _ in 0..2 {
            assert_eq!(s.search_strand(&query).unwrap(), want);
        }
    }

    /// A preparation started ahead is taken only for the same target and index options; the answers are the
    /// twin's either way.
    #[test]
    fn takes_a_warm_up_only_for_its_target() {
        let unit = b"ACGGTCATTGACCGTAGGCTTACGATCGGATCCATGCAAGTTGCA";
        let target: Vec<u8> = unit.iter().cycle().take(unit.len() * 8).copied().collect();
        let query: Vec<u8> = target[30..260].to_vec();
        let o = options();
        let pt = PosTable::for_options(&target, &o);
        let want = super::super::search(&target, &pt, &query, &o, &ScoreMatrix::masked_hoxd70());
        assert!(!want.is_empty());
        let slot = WarmSlot(Mutex::new(None));
        let start = |t: &[u8], o: &SearchOptions| slot.start(Searcher::Warpalign, BackendChoice::Cpu, t, o);
        start(&target, &o);
        assert!(slot.take(&target, &o).is_some());
        let mut other = o.clone();
        other.step = 2;
        start(&target, &o);
        assert!(slot.take(&target, &other).is_none(), "another step: prepared again");
        start(&target[1..], &o);
        assert!(slot.take(&target, &o).is_none(), "other bytes: prepared again");
        slot.start(Searcher::Auto, BackendChoice::Cpu, &target, &o);
        assert!(slot.0.lock().unwrap().is_none(), "a small target: LASTZ's own search");
        start(&target, &o);
        let s = TargetSearch::taking(&slot, &target, o, ScoreMatrix::masked_hoxd70()).unwrap();
        assert!(slot.0.lock().unwrap().is_none());
        assert_eq!(s.search_strand(&query).unwrap(), want);
    }
}
