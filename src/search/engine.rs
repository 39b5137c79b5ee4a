//! The batched search: the twin's `search` decomposed so that its hits can be found and extended in
//! parallel, with the same HSPs in the same order (docs/search.md says why this is exact).
//!
//! Upstream processes the hits of one query strand one after the other: query positions increasing, for
//! each the seed word's variants (packed, then the transition flips in the twin's order), for each the
//! target positions of the word's list, rightmost first. The only state one hit's processing leaves to the
//! next is `diagEnd[]` of its hashed diagonal (`(pos1 - pos2) mod 65,536`). So, per chunk of query positions:
//! 1. **hits**: each position's hit count, a prefix sum, then every hit written at its ordinal (its place in
//!    upstream's order);
//! 2. **group**: the ordinals sorted stably by hashed diagonal;
//! 3. **extend**: each hashed diagonal's hits in ordinal order against its own `diagEnd`, the diagonals in
//!    parallel, each extension keeping its hit's ordinal;
//! 4. **order**: the HSPs by ordinal.
//!
//! Chunks run one after the other, `diagEnd` carried over; a chunk holds at most [`SearchConfig::max_hits`]
//! hits (a position with more runs alone), so memory is bounded on any genome.

use super::twin::hits::{hashed_diag, DiagSlot, HitProcessor, DIAG_HASH_SIZE};
use super::twin::pos_table::{record_positions, upper_nuc_to_bits, PosTable, NO_PREVIOUS};
use super::twin::scoring::ScoreMatrix;
use super::{Hsp, Seed, SearchOptions};
use crate::{Backend, Engine};
use std::borrow::Cow;
use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// The position table as contiguous lists: word `w`'s target positions (ends of windows, in bases, as
/// `step * index`) are `positions[offsets[w]..offsets[w + 1]]`, rightmost first, as `find_table_matches`
/// walks `last[]`/`prev[]`. A word with no list, or an emptied one (`--maxwordcount`), has none.
pub struct SeedIndex {
    pub offsets: Vec<u32>,
    pub positions: Vec<u32>,
}

impl SeedIndex {
    pub fn new(pt: &PosTable) -> SeedIndex {
        let mut offsets = Vec::with_capacity(pt.last.len() + 1);
        let mut positions = Vec::new();
        offsets.push(0);
        for &last in &pt.last {
            // (0: no list; the walk from NO_PREVIOUS is empty)
            if last != 0 {
                let mut pos = last;
                while pos != NO_PREVIOUS {
                    positions.push(pt.step * pos);
                    pos = pt.prev[pos as usize];
                }
            }
            offsets.push(positions.len() as u32);
        }
        SeedIndex { offsets, positions }
    }

    /// The index of the table LASTZ searches for these options ([`PosTable::for_options`]), for the default
    /// `--maxwordcount` (none) without building the table: the recorded windows sorted by word, each word's
    /// rightmost first. Panics where [`PosTable::build`] does.
    ///
    /// Counting into all 2^weight words at once misses the cache on every window; here the windows go to
    /// 4,096 buckets by their word's high bits first, then each bucket is counted and placed by the low bits
    /// within its own slice of `offsets`. Beside the index it takes 2 bytes a window and one bucket's copy.
    pub fn for_options(target: &[u8], options: &SearchOptions) -> SeedIndex {
        if options.max_word_count > 0 {
            return SeedIndex::new(&PosTable::for_options(target, options));
        }
        assert!(!target.is_empty(), "the target is empty");
        let (seed, step) = (&options.seed, options.step);
        let lo_bits = seed.weight.saturating_sub(12);
        let (lo_mask, n_buckets) = ((1u32 << lo_bits) - 1, 1usize << (seed.weight - lo_bits));
        let mut starts = vec![0u32; n_buckets];
        record_positions(target, seed, step, |word, _| starts[(word >> lo_bits) as usize] += 1);
        let mut end = 0;
        for s in starts.iter_mut() {
            end += *s;
            *s = end;
        }
        let n = end as usize;
        // a bucket is filled from its end as the scan moves right: its windows rightmost first (and each
        // bucket's entry in `starts` goes from its end to its start)
        let (mut positions, mut lows) = (vec![0u32; n], vec![0u16; n]);
        record_positions(target, seed, step, |word, pos| {
            let at = &mut starts[(word >> lo_bits) as usize];
            *at -= 1;
            positions[*at as usize] = pos;
            lows[*at as usize] = (word & lo_mask) as u16;
        });
        let mut offsets = vec![0u32; (1usize << seed.weight) + 1];
        let mut bucket = Vec::new();
        for (h, &b0) in starts.iter().enumerate() {
            let (b0, b1) = (b0 as usize, starts.get(h + 1).map_or(n, |&b| b as usize));
            let slots = &mut offsets[h << lo_bits..(h + 1) << lo_bits];
            for &l in &lows[b0..b1] {
                slots[l as usize] += 1;
            }
            let mut at = b0 as u32;
            for s in slots.iter_mut() {
                (*s, at) = (at, at + *s);
            }
            // placed in order, each word's windows stay rightmost first; the slots end as the next ones' starts
            bucket.clear();
            bucket.extend_from_slice(&positions[b0..b1]);
            for (&pos, &l) in bucket.iter().zip(&lows[b0..b1]) {
                positions[slots[l as usize] as usize] = pos;
                slots[l as usize] += 1;
            }
            slots.copy_within(..slots.len() - 1, 1);
            slots[0] = b0 as u32;
        }
        *offsets.last_mut().expect("words + 1") = n as u32;
        SeedIndex { offsets, positions }
    }

    #[inline]
    fn list(&self, word: u32) -> &[u32] {
        &self.positions[self.offsets[word as usize] as usize..self.offsets[word as usize + 1] as usize]
    }

    #[inline]
    fn count(&self, word: u32) -> u64 {
        (self.offsets[word as usize + 1] - self.offsets[word as usize]) as u64
    }
}

/// The window ends (in bases) that LASTZ's dynamic masking of the census interval `beg..=end` (1-based) takes out
/// of the table: `remove_interval_seeds` widens it by `seed_len - 1` on both sides (within the target, with its
/// unsigned arithmetic), and `mask_seed_positions` removes the windows lying wholly in the widened interval,
/// whose ends are `lo..=hi` (empty when `lo > hi`).
pub fn masked_windows(beg: u32, end: u32, target_len: u32, seed_len: u32) -> (u32, u32) {
    let b = if beg < seed_len { 1 } else { beg - (seed_len - 1) };
    let e = if end >= target_len.wrapping_sub(seed_len - 1) { target_len } else { end + seed_len - 1 };
    ((b - 1) + seed_len, e)
}

/// The masks XORed into a packed word to give its variants, in the order `private_hit_search` looks them
/// up: the word itself, then for `--transition` each flip, for `--transition=2` each flip followed by its
/// pairs with the later flips; each with the transitions a resolving seed's resolved bases may still take.
pub fn variant_masks(seed: &Seed, with_trans: u32) -> Vec<(u32, u32)> {
    let flips = &seed.trans_flips;
    let mut masks = vec![(0, with_trans)];
    match with_trans {
        0 => {}
        1 => masks.extend(flips.iter().map(|&f| (f, 0))),
        _ => {
            for (i, &f1) in flips.iter().enumerate() {
                masks.push((f1, 1));
                masks.extend(flips[i + 1..].iter().map(|&f2| (f1 ^ f2, 0)));
            }
        }
    }
    masks
}

/// Calls `f(pos2, word)` for each position in `range` (ends of windows) whose seed-long window is all A, C,
/// G, T: where the twin's scan looks its word up. `word` packs the window's bases as [`Seed::push`] does.
fn for_each_window(query: &[u8], seed: &Seed, range: Range<u32>, mut f: impl FnMut(u32, u64)) {
    let (mut w, mut run, seed_len) = (0u64, 0u32, seed.length);
    for q in range.start - seed_len..range.end - 1 {
        match upper_nuc_to_bits(query[q as usize]) {
            Some(b) => {
                w = seed.push(w, b);
                run += 1;
            }
            None => run = 0,
        }
        if q + 1 >= range.start && run >= seed_len {
            f(q + 1, w);
        }
    }
}

/// Tuning of the batched search (none changes its output).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SearchConfig {
    /// Threads of the CPU backend (at least 1).
    pub threads: usize,
    /// Query positions whose hits are counted at once.
    pub block_positions: usize,
    /// Hits per chunk at most (a position with more makes a chunk of its own).
    pub max_hits: usize,
}

impl SearchConfig {
    /// The defaults with `threads` CPU threads.
    pub fn with_threads(threads: usize) -> SearchConfig {
        SearchConfig { threads: threads.max(1), block_positions: 1 << 20, max_hits: 1 << 23 }
    }
}

/// One target's search, for each query strand in turn, on the CPU (threads) or the GPU (the engine's, with
/// the table uploaded once). Same HSPs, in the same order, as [`crate::search::search`].
pub struct SearchEngine<'a> {
    pub(super) target: Cow<'a, [u8]>,
    /// On the host for the CPU path; with a device table, built again only should the GPU fail.
    index: OnceLock<SeedIndex>,
    pub(super) options: SearchOptions,
    pub(super) scoring: Cow<'a, ScoreMatrix>,
    pub(super) variants: Vec<(u32, u32)>,
    pub(super) config: SearchConfig,
    engine: EngineRef<'a>,
    gpu: Option<super::gpu::DeviceTable>,
}

/// The engine a search runs on: borrowed, or shared by a search that owns everything ([`SearchEngine::owned`]).
enum EngineRef<'a> {
    Borrowed(&'a Engine),
    Shared(Arc<Engine>),
}

impl std::ops::Deref for EngineRef<'_> {
    type Target = Engine;
    fn deref(&self) -> &Engine {
        match self {
            EngineRef::Borrowed(e) => e,
            EngineRef::Shared(e) => e,
        }
    }
}

impl<'a> SearchEngine<'a> {
    /// The search of `target` with its table's `index` ([`SeedIndex::for_options`]). With a GPU in `engine`,
    /// the index goes to the device now and leaves the host; if that fails, the search runs on the CPU (same
    /// output, one notice).
    pub fn new(
        engine: &'a Engine,
        target: &'a [u8],
        index: SeedIndex,
        options: &SearchOptions,
        scoring: &'a ScoreMatrix,
        config: SearchConfig,
    ) -> SearchEngine<'a> {
        Self::build(EngineRef::Borrowed(engine), Cow::Borrowed(target), index, options, Cow::Borrowed(scoring), config)
    }

    /// As [`SearchEngine::new`], owning the target and matrix and sharing the engine: a search to keep (one per
    /// target of a LASTZ run).
    pub fn owned(
        engine: Arc<Engine>,
        target: Vec<u8>,
        index: SeedIndex,
        options: &SearchOptions,
        scoring: ScoreMatrix,
        config: SearchConfig,
    ) -> SearchEngine<'static> {
        SearchEngine::build(EngineRef::Shared(engine), Cow::Owned(target), index, options, Cow::Owned(scoring), config)
    }

    fn build(
        engine: EngineRef<'a>,
        target: Cow<'a, [u8]>,
        index: SeedIndex,
        options: &SearchOptions,
        scoring: Cow<'a, ScoreMatrix>,
        config: SearchConfig,
    ) -> SearchEngine<'a> {
        assert!(options.seed.length >= 2, "seed length must be at least two");
        assert!(target.len() < i32::MAX as usize, "the twin's arithmetic is int32");
        let mut e = SearchEngine {
            target,
            index: OnceLock::from(index),
            options: options.clone(),
            scoring,
            variants: variant_masks(&options.seed, options.with_trans),
            config: SearchConfig { threads: config.threads.max(1), ..config },
            engine,
            gpu: None,
        };
        // the kernels extend by x-drop only, for the simple hit processor, and know nothing of --self
        if options.extension == super::Extension::XDrop && options.self_compare == super::SelfCompare::No && !options.recover_hits {
            if let Some(rt) = e.engine.gpu() {
                match super::gpu::DeviceTable::upload(&rt, &e) {
                    Ok(t) => {
                        e.gpu = Some(t);
                        // (tens of MB that the host would hold beside the tool's own table)
                        e.index = OnceLock::new();
                    }
                    Err(err) => crate::engine::gpu_failed_notice(&err),
                }
            }
        }
        e
    }

    /// LASTZ's dynamic masking (`--masking=<count>`) between strands: for each census interval `(beg, end)`
    /// (1-based, inclusive, as `remove_interval_seeds` gets it), the table loses the windows with a base in it
    /// (pos_table.c's `mask_seed_positions` over the interval widened by the seed's length less one on both
    /// sides) and the target's bases there become `x` (masking.c's `mask_interval`). Later strands search the
    /// masked target, on the CPU: the first mask brings the table back to the host (built from the target as
    /// yet unmasked, so `--maxwordcount` keeps upstream's counts) and leaves the GPU's.
    pub fn mask(&mut self, intervals: &[(u32, u32)]) -> Result<(), String> {
        let len = self.target.len() as u32;
        let seed_len = self.options.seed.length;
        // (a widened interval past the target's end is where LASTZ dies: "interval end is bad")
        let outside = |&&(b, e): &&(u32, u32)| b < 1 || b > e || e > len || masked_windows(b, e, len, seed_len).1 > len;
        if let Some(&(b, e)) = intervals.iter().find(outside) {
            return Err(format!("masked interval {b}..{e} outside the target's 1..{len}"));
        }
        if intervals.is_empty() {
            return Ok(());
        }
        self.index();
        if let Some(t) = self.gpu.take() {
            crate::gpu::gate::dispose(t);
        }
        let mut removed = vec![0u64; len as usize / 64 + 1];
        for &(b, e) in intervals {
            let (lo, hi) = masked_windows(b, e, len, seed_len);
            for pos in lo..=hi {
                removed[pos as usize / 64] |= 1 << (pos % 64);
            }
        }
        let index = self.index.get_mut().expect("the host's index, built above");
        let (mut kept, mut from) = (0usize, 0usize);
        for w in 0..index.offsets.len() - 1 {
            let to = index.offsets[w + 1] as usize;
            for k in from..to {
                let pos = index.positions[k];
                if removed[pos as usize / 64] >> (pos % 64) & 1 == 0 {
                    index.positions[kept] = pos;
                    kept += 1;
                }
            }
            from = to;
            index.offsets[w + 1] = kept as u32;
        }
        index.positions.truncate(kept);
        let target = self.target.to_mut();
        for &(b, e) in intervals {
            target[b as usize - 1..e as usize].fill(b'x');
        }
        Ok(())
    }

    /// `--self` on a partitioned (`[multiple]`) target: its partitions' `(sepBefore, sepAfter)` for the
    /// reverse-complement strand's comparisons ([`SearchOptions::partitions`]). Refused unless each lies in
    /// the target, after the one before it, with at least one base.
    pub fn set_partitions(&mut self, partitions: Vec<(u32, u32)>) -> Result<(), String> {
        let len = self.target.len() as u32;
        let mut prev_after = 0;
        for (k, &(before, after)) in partitions.iter().enumerate() {
            if (k > 0 && before < prev_after) || after <= before + 1 || after > len {
                return Err(format!("partition {k} ({before}, {after}) out of order or outside the target's {len} bytes"));
            }
            prev_after = after;
        }
        self.options.partitions = partitions;
        Ok(())
    }

    /// The same engine (its index, and its table on the GPU) under another configuration.
    pub fn set_config(&mut self, config: SearchConfig) {
        self.config = SearchConfig { threads: config.threads.max(1), ..config };
    }

    /// Where the strands run.
    pub fn backend(&self) -> Backend {
        if self.gpu.is_some() {
            Backend::Gpu
        } else {
            Backend::Cpu
        }
    }

    /// The HSPs of one query strand (for the minus strand, the reverse complement), in the order LASTZ
    /// collects them. A GPU failure redoes the strand on the CPU (same output, one notice per process).
    /// Panics on an empty query (LASTZ dies: "interval is void").
    pub fn search_strand(&self, query: &[u8]) -> Vec<Hsp> {
        assert!(!query.is_empty(), "the query is empty");
        assert!(query.len() < i32::MAX as usize, "the twin's arithmetic is int32");
        if let Some((table, rt)) = self.gpu.as_ref().and_then(|t| Some((t, self.engine.gpu_on(t.ordinal())?))) {
            match super::gpu::search_strand(&rt, table, self, query) {
                Ok(hsps) => return hsps,
                Err(err) => crate::engine::gpu_failed_notice(&err),
            }
        }
        self.search_cpu(query)
    }

    /// The strand on the device, errors returned rather than redone on the CPU (for tests); None without a
    /// device table.
    pub fn search_gpu(&self, query: &[u8]) -> Option<Result<Vec<Hsp>, String>> {
        assert!(!query.is_empty(), "the query is empty");
        let table = self.gpu.as_ref()?;
        let rt = self.engine.gpu_on(table.ordinal())?;
        Some(super::gpu::search_strand(&rt, table, self, query))
    }

    /// The host's index, built again if it went to the device.
    pub(super) fn index(&self) -> &SeedIndex {
        self.index.get_or_init(|| SeedIndex::for_options(&self.target, &self.options))
    }

    /// The decomposition on CPU threads.
    pub fn search_cpu(&self, query: &[u8]) -> Vec<Hsp> {
        self.search_cpu_with(query, &self.options)
    }

    /// `--self`: one strand of the target against the target, `strand` saying which (the reverse complement for
    /// [`SelfCompare::OppositeStrand`]), on CPU threads. Panics on an empty query.
    pub fn search_self_strand(&self, query: &[u8], strand: super::SelfCompare) -> Vec<Hsp> {
        assert!(!query.is_empty(), "the query is empty");
        assert!(query.len() < i32::MAX as usize, "the twin's arithmetic is int32");
        self.search_cpu_with(query, &SearchOptions { self_compare: strand, ..self.options.clone() })
    }

    fn search_cpu_with(&self, query: &[u8], options: &SearchOptions) -> Vec<Hsp> {
        let seed_len = self.options.seed.length;
        let mut hsps = Vec::new();
        if (query.len() as u32) < seed_len {
            return hsps;
        }
        let hit = HitProcessor { target: &self.target, query, options, scoring: &self.scoring };
        let mut diags = vec![DiagSlot::inactive(); DIAG_HASH_SIZE as usize];
        let ends = seed_len..query.len() as u32 + 1;
        let mut block = ends.start;
        while block < ends.end {
            let block_end = ends.end.min(block.saturating_add(self.config.block_positions.max(1) as u32));
            let counts = self.count(query, block..block_end);
            for (r, n_hits) in chunks(&counts, self.config.max_hits) {
                let c = &counts[r.start as usize..r.end as usize];
                self.chunk(&hit, query, block + r.start..block + r.end, c, n_hits, &mut diags, &mut hsps);
            }
            block = block_end;
        }
        hsps
    }

    /// Hits per position of `range`.
    fn count(&self, query: &[u8], range: Range<u32>) -> Vec<u64> {
        let index = self.index();
        let mut counts = vec![0u64; (range.end - range.start) as usize];
        let runs = split_even(range.clone(), parts((range.end - range.start) as usize, self.config.threads));
        let slices = split_slices(&mut counts, runs.iter().map(|r| (r.end - r.start) as usize));
        in_parallel(runs.into_iter().zip(slices).collect(), |(r, out): (Range<u32>, &mut [u64])| {
            let start = r.start;
            for_each_window(query, &self.options.seed, r, |pos2, w| {
                let packed = self.options.seed.apply(w);
                out[(pos2 - start) as usize] = if self.options.seed.resolving_mask == 0 {
                    self.variants.iter().map(|&(m, _)| index.count(packed ^ m)).sum()
                } else {
                    let seed = &self.options.seed;
                    let resolved = |&(m, allowed): &(u32, u32)| {
                        index.list(packed ^ m).iter().filter(|&&pos1| seed.resolves(&self.target, pos1, w, allowed)).count() as u64
                    };
                    self.variants.iter().map(resolved).sum()
                };
            });
        });
        counts
    }

    /// Steps 1 to 4 for the positions `range` (`counts` their hit counts, `n_hits` in all).
    #[allow(clippy::too_many_arguments)]
    fn chunk(
        &self,
        hit: &HitProcessor,
        query: &[u8],
        range: Range<u32>,
        counts: &[u64],
        n_hits: usize,
        diags: &mut [DiagSlot],
        hsps: &mut Vec<Hsp>,
    ) {
        if n_hits == 0 {
            return;
        }
        assert!(n_hits < u32::MAX as usize, "a chunk's ordinals are u32");
        let (threads, index) = (self.config.threads, self.index());
        // 1. hits, at their ordinals: each thread a run of positions, hence a run of ordinals
        let mut first = Vec::with_capacity(counts.len() + 1);
        first.push(0u64);
        for &c in counts {
            first.push(first.last().unwrap() + c);
        }
        let cuts = split_weighted(&first, parts(n_hits, threads));
        let mut hits = vec![(0u32, 0u32); n_hits];
        let slices = split_slices(&mut hits, cuts.windows(2).map(|w| (first[w[1]] - first[w[0]]) as usize));
        let items: Vec<_> = cuts.windows(2).map(|w| range.start + w[0] as u32..range.start + w[1] as u32).zip(slices).collect();
        in_parallel(items, |(r, out): (Range<u32>, &mut [(u32, u32)])| {
            let mut o = 0;
            for_each_window(query, &self.options.seed, r, |pos2, w| {
                let packed = self.options.seed.apply(w);
                for &(m, allowed) in &self.variants {
                    for &pos1 in index.list(packed ^ m).iter().filter(|&&pos1| self.options.seed.resolves(&self.target, pos1, w, allowed)) {
                        out[o] = (pos1, pos2);
                        o += 1;
                    }
                }
            });
        });

        // 2. group: the ordinals sorted by (hashed diagonal, ordinal)
        let sorted = group(&hits, threads);

        // 3. extend: each thread a run of whole hashed diagonals (so a run of their states) of about as many hits
        let diag_of = |k: usize| {
            let (p1, p2) = hits[sorted[k] as usize];
            hashed_diag(p1, p2)
        };
        let mut cuts = vec![0usize];
        for part in 1..parts(n_hits, threads) {
            let mut c = n_hits * part / parts(n_hits, threads);
            while c < n_hits && c > 0 && diag_of(c) == diag_of(c - 1) {
                c += 1;
            }
            if c > *cuts.last().unwrap() && c < n_hits {
                cuts.push(c);
            }
        }
        cuts.push(n_hits);
        // the diagonals of run k: from its first hit's (0 for the first run) to the next run's first
        let diag_cuts: Vec<usize> =
            cuts.iter().enumerate().map(|(k, &c)| if k == 0 { 0 } else if c == n_hits { DIAG_HASH_SIZE as usize } else { diag_of(c) }).collect();
        let ends = split_slices(diags, diag_cuts.windows(2).map(|w| w[1] - w[0]));
        let items: Vec<_> = cuts.windows(2).zip(diag_cuts.windows(2)).zip(ends).map(|((c, d), e)| (c[0]..c[1], d[0], e)).collect();
        let found = in_parallel(items, |(run, first_diag, ends): (Range<usize>, usize, &mut [DiagSlot])| {
            let mut found = Vec::new();
            for &i in &sorted[run] {
                let (p1, p2) = hits[i as usize];
                if hit.skipped(p1, p2) {
                    continue;
                }
                if let Some(h) = hit.process(&mut ends[hashed_diag(p1, p2) - first_diag], p1, p2) {
                    found.push((i, h));
                }
            }
            found
        });

        // 4. order
        let mut found: Vec<(u32, Hsp)> = found.into_iter().flatten().collect();
        found.sort_unstable_by_key(|&(i, _)| i);
        hsps.extend(found.into_iter().map(|(_, h)| h));
    }
}

impl Drop for SearchEngine<'_> {
    fn drop(&mut self) {
        if let Some(t) = self.gpu.take() {
            crate::gpu::gate::dispose(t);
        }
    }
}

/// Splits a block's positions (hit counts `counts`) into chunks of at most `max_hits` hits, a position
/// with more alone: each chunk's positions (relative to the block) and hits.
pub(super) fn chunks(counts: &[u64], max_hits: usize) -> Vec<(Range<u32>, usize)> {
    let mut out = Vec::new();
    let mut a = 0;
    while a < counts.len() {
        let (mut b, mut sum) = (a, 0u64);
        while b < counts.len() && (b == a || sum + counts[b] <= max_hits as u64) {
            sum += counts[b];
            b += 1;
        }
        out.push((a as u32..b as u32, sum as usize));
        a = b;
    }
    out
}

/// Items per thread at least: below it, threads cost more than they save.
const MIN_PART: usize = 4096;

/// Threads for `n` items of work.
fn parts(n: usize, threads: usize) -> usize {
    threads.min(n.div_ceil(MIN_PART)).max(1)
}

/// The ordinals of `hits` sorted by (hashed diagonal, ordinal): a comparison sort for a few hits, else a
/// stable counting sort, each thread counting and placing a run of ordinals.
fn group(hits: &[(u32, u32)], threads: usize) -> Vec<u32> {
    let n = hits.len();
    if n < DIAG_HASH_SIZE as usize {
        let mut keys: Vec<u64> = hits.iter().enumerate().map(|(i, &(p1, p2))| (hashed_diag(p1, p2) as u64) << 32 | i as u64).collect();
        keys.sort_unstable();
        return keys.into_iter().map(|k| k as u32).collect();
    }
    let runs = split_even(0..n as u32, parts(n, threads));
    let hists = in_parallel(runs.clone(), |r: Range<u32>| {
        let mut h = vec![0u32; DIAG_HASH_SIZE as usize];
        for &(p1, p2) in &hits[r.start as usize..r.end as usize] {
            h[hashed_diag(p1, p2)] += 1;
        }
        h
    });
    // each thread's first slot per diagonal: after the earlier diagonals, and this diagonal's earlier runs
    let mut next: Vec<Vec<u32>> = vec![vec![0; DIAG_HASH_SIZE as usize]; hists.len()];
    let mut at = 0u32;
    for d in 0..DIAG_HASH_SIZE as usize {
        for (t, h) in hists.iter().enumerate() {
            next[t][d] = at;
            at += h[d];
        }
    }
    let mut sorted = vec![0u32; n];
    let out = SharedSlice(sorted.as_mut_ptr());
    in_parallel(runs.into_iter().zip(next).collect(), |(r, mut next): (Range<u32>, Vec<u32>)| {
        for i in r {
            let (p1, p2) = hits[i as usize];
            let d = hashed_diag(p1, p2);
            // SAFETY: the slots next[d] takes are this thread's alone (disjoint ranges of `sorted`, laid out
            // above), each written once.
            unsafe { out.write(next[d] as usize, i) };
            next[d] += 1;
        }
    });
    sorted
}

/// `range` in at most `parts` runs of about equal length (one, maybe empty, at least).
fn split_even(range: Range<u32>, parts: usize) -> Vec<Range<u32>> {
    let n = (range.end - range.start) as u64;
    let parts = (parts as u64).clamp(1, n.max(1));
    (0..parts).map(|k| range.start + (n * k / parts) as u32..range.start + (n * (k + 1) / parts) as u32).collect()
}

/// Cuts `0..n` (`prefix`: n + 1 running totals of the items' weights) into at most `parts` runs of about
/// equal weight: the run boundaries, 0 first and n last.
fn split_weighted<T: Copy + Into<u64>>(prefix: &[T], parts: usize) -> Vec<usize> {
    let n = prefix.len() - 1;
    let total: u64 = prefix[n].into();
    let mut cuts = vec![0];
    for k in 1..parts as u64 {
        let c = prefix.partition_point(|&p| p.into() < total * k / parts as u64).min(n);
        if c > *cuts.last().unwrap() {
            cuts.push(c);
        }
    }
    if n > *cuts.last().unwrap() || cuts.len() == 1 {
        cuts.push(n);
    }
    cuts
}

/// `v` cut into consecutive pieces of the given lengths (which sum to at most its length).
fn split_slices<T>(mut v: &mut [T], lens: impl Iterator<Item = usize>) -> Vec<&mut [T]> {
    lens.map(|n| {
        let (head, tail) = std::mem::take(&mut v).split_at_mut(n);
        v = tail;
        head
    })
    .collect()
}

/// `f` of each item, each on a thread of its own but the first (on the calling thread); the results in order.
fn in_parallel<I: Send, R: Send>(items: Vec<I>, f: impl Fn(I) -> R + Sync) -> Vec<R> {
    let mut items = items.into_iter();
    let Some(first) = items.next() else { return Vec::new() };
    let f = &f;
    std::thread::scope(|s| {
        let others: Vec<_> = items.map(|it| s.spawn(move || f(it))).collect();
        let mut out = vec![f(first)];
        out.extend(others.into_iter().map(|h| h.join().expect("a search thread panicked")));
        out
    })
}

/// A slice that threads write at disjoint indices.
struct SharedSlice<T>(*mut T);

// SAFETY: writers use disjoint indices (see `write`).
unsafe impl<T: Send> Sync for SharedSlice<T> {}

impl<T> SharedSlice<T> {
    /// # Safety
    /// `i` is in bounds and no other thread reads or writes it meanwhile.
    unsafe fn write(&self, i: usize, v: T) {
        unsafe { self.0.add(i).write(v) }
    }
}
