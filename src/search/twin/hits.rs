//! seed_search.c's `seed_hit_search` (`private_hit_search`, `find_table_matches`) with the hit processor
//! LASTZ uses by default, `process_for_simple_hit`, its `filter_seed_hit_by_subs` and
//! `xdrop_extend_seed_hit` (or `match_extend_seed_hit` for `--exact`, `mismatch_extend_seed_hit` for
//! `--mismatch`, or none for `--nogfextend`), and `process_for_plain_hit` for `--nogfextend --nogapped`;
//! diag_hash.c's hashed diagonals. The hash keeps one end per diagonal modulo
//! 65,536: diagonals that collide share it, as in LASTZ (a hit can be dropped, or a left extension
//! stopped, by another diagonal's extension). `--recoverhits` (`process_for_recoverable_hit`) also keeps the
//! diagonal that set the end, and extends a colliding hit anyway.

use super::pos_table::{upper_nuc_to_bits, PosTable, NO_PREVIOUS};
use super::scoring::{entropy, ScoreMatrix};
use crate::search::{Extension, HitFilter, Hsp, SearchOptions, SelfCompare};

/// `diagHashSize` (the default build's).
pub const DIAG_HASH_SIZE: u32 = 65536;
/// `hashInactiveEnd`.
pub const INACTIVE: u32 = u32::MAX;

/// One hashed diagonal's state: `diagEnd[]`, the query position its last extension reached, and `diagActual[]`,
/// the diagonal that extension was on (read by `process_for_recoverable_hit` alone; LASTZ's extensions set it
/// wherever they raise the end).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct DiagSlot {
    pub end: u32,
    pub actual: i32,
}

impl DiagSlot {
    /// An inactive diagonal (its `actual` is set whenever it becomes active).
    pub const fn inactive() -> DiagSlot {
        DiagSlot { end: INACTIVE, actual: 0 }
    }

    /// Raises the end to `extent` (and the diagonal to `diag`) when it lies further right.
    fn raise(&mut self, extent: u32, diag: i32) {
        if extent > self.end {
            self.end = extent;
            self.actual = diag;
        }
    }
}

/// Searches one query strand against the target's table, as `seed_hit_search(target, pt, query, 0,
/// query.len(), selfCompare, upper_nuc_to_bits, seed, no limit, bandWidth, process_for_simple_hit)`
/// with x-drop extension: the HSPs in the order LASTZ collects them. `pt` must be the table of `target`
/// for `options.seed` and `options.step`. Panics on a seed shorter than 2 (LASTZ dies) and on an empty
/// query (LASTZ dies: "interval is void").
pub fn search(target: &[u8], pt: &PosTable, query: &[u8], options: &SearchOptions, scoring: &ScoreMatrix) -> Vec<Hsp> {
    let seed = &options.seed;
    let seed_len = seed.length;
    assert!(seed_len >= 2, "seed length must be at least two");
    assert!(!query.is_empty(), "the query is empty");
    let mut hsps = Vec::new();
    if (query.len() as u32) < seed_len {
        return hsps;
    }
    let mut search = Search {
        hit: HitProcessor { target, query, options, scoring },
        pt,
        diags: vec![DiagSlot::inactive(); DIAG_HASH_SIZE as usize],
        hsps: &mut hsps,
    };
    // private_hit_search
    let stop = query.len();
    let mut q = 0usize;
    'empty: while q < stop {
        let mut w = 0u64;
        let mut nts = 1;
        while nts < seed_len && q < stop {
            let Some(ww) = upper_nuc_to_bits(query[q]) else {
                q += 1;
                continue 'empty;
            };
            q += 1;
            w = seed.push(w, ww);
            nts += 1;
        }
        while q < stop {
            let Some(ww) = upper_nuc_to_bits(query[q]) else {
                q += 1;
                continue 'empty;
            };
            w = seed.push(w, ww);
            let pos2 = q as u32 + 1;
            let packed = seed.apply(w);
            // (with a resolving seed, the transitions its resolved bases may still take: what the word's
            // flips leave of --transition)
            search.table_matches(packed, pos2, w, options.with_trans);
            let flips = &seed.trans_flips;
            if options.with_trans == 1 {
                for &f1 in flips {
                    search.table_matches(packed ^ f1, pos2, w, 0);
                }
            } else if options.with_trans >= 2 {
                for (i, &f1) in flips.iter().enumerate() {
                    search.table_matches(packed ^ f1, pos2, w, 1);
                    for &f2 in &flips[i + 1..] {
                        search.table_matches(packed ^ f1 ^ f2, pos2, w, 0);
                    }
                }
            }
            q += 1;
        }
    }
    hsps
}

struct Search<'a> {
    hit: HitProcessor<'a>,
    pt: &'a PosTable,
    /// Per hashed diagonal, `diagEnd[]` and `diagActual[]`.
    diags: Vec<DiagSlot>,
    hsps: &'a mut Vec<Hsp>,
}

impl Search<'_> {
    /// `find_table_matches` (`find_table_matches_resolve` for a resolving seed, `word` the query's window and
    /// `allowed` its resolved bases' transitions): each target window with this word, rightmost first.
    fn table_matches(&mut self, packed: u32, pos2: u32, word: u64, allowed: u32) {
        let mut pos = self.pt.last[packed as usize];
        if pos == 0 {
            return;
        }
        let seed = &self.hit.options.seed;
        while pos != NO_PREVIOUS {
            let pos1 = self.pt.step * pos;
            if !self.hit.skipped(pos1, pos2) && seed.resolves(self.hit.target, pos1, word, allowed) {
                if let Some(hsp) = self.hit.process(&mut self.diags[hashed_diag(pos1, pos2)], pos1, pos2) {
                    self.hsps.push(hsp);
                }
            }
            pos = self.pt.prev[pos as usize];
        }
    }
}

/// What processing one seed hit reads besides its hashed diagonal's end: the sequences, the options and the
/// matrix, none of which the search changes. (The batched engine runs it per hashed diagonal.)
#[derive(Clone, Copy)]
pub struct HitProcessor<'a> {
    pub target: &'a [u8],
    pub query: &'a [u8],
    pub options: &'a SearchOptions,
    pub scoring: &'a ScoreMatrix,
}

/// An x-drop extension before the entropy adjustment and the threshold: the HSP's start, length and score.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Extended {
    pub pos1: u32,
    pub pos2: u32,
    pub length: u32,
    pub similarity: i32,
}

impl HitProcessor<'_> {
    /// Whether `find_table_matches` skips the hit ending at `(pos1, pos2)` before the hit processor sees it:
    /// with `--self`, a hit on or below the main diagonal (`seed_hit_below_diagonal`; on the reverse strand of a
    /// partitioned target by partition, then within one), and on the target's own strand one more than `--band`
    /// diagonals above it.
    pub fn skipped(&self, pos1: u32, pos2: u32) -> bool {
        match self.options.self_compare {
            SelfCompare::No => false,
            SelfCompare::SameStrand => pos1 >= pos2 || (self.options.band_width > 0 && pos2 - pos1 > self.options.band_width),
            SelfCompare::OppositeStrand => {
                // both moved to the hit's start, the query's counted from the other end of its strand, or of
                // its partition where both ends lie in one (unspos arithmetic, as upstream's)
                let length = self.options.seed.length;
                let (p1, p2) = (pos1.wrapping_sub(length), pos2.wrapping_sub(length));
                let parts = &self.options.partitions;
                if parts.is_empty() {
                    return p1 >= (self.query.len() as u32).wrapping_sub(1).wrapping_sub(p2);
                }
                // lookup_partition: the partition whose separators enclose the position
                let lookup = |p: u32| parts.partition_point(|&(before, _)| before < p).wrapping_sub(1);
                let (ix1, ix2) = (lookup(p1), lookup(p2));
                if ix1 != ix2 {
                    return ix1 >= ix2;
                }
                let (before, after) = parts[ix2];
                p1 >= before.wrapping_add(after).wrapping_sub(p2)
            }
        }
    }

    /// The run's hit processor on the hit ending at `(pos1, pos2)` (seed-long), `slot` being its hashed
    /// diagonal's state, the only state it reads and writes: [`Self::recoverable_hit`] with `--recoverhits`
    /// (but for the plain processor), else [`Self::simple_hit`].
    pub fn process(&self, slot: &mut DiagSlot, pos1: u32, pos2: u32) -> Option<Hsp> {
        if self.options.recover_hits && self.options.extension != Extension::Plain {
            self.recoverable_hit(slot, pos1, pos2)
        } else {
            self.simple_hit(slot, pos1, pos2)
        }
    }

    /// `process_for_recoverable_hit` (no position filter): a hit on the diagonal the hash holds is dropped where
    /// that diagonal's last extension already passed its start (the end raised to the hit's); any other hit,
    /// a colliding diagonal's too, is extended, its left extension unblocked.
    fn recoverable_hit(&self, slot: &mut DiagSlot, pos1: u32, pos2: u32) -> Option<Hsp> {
        let length = self.options.seed.length;
        let diag = pos1 as i32 - pos2 as i32;
        if slot.end == INACTIVE {
            slot.end = 0;
        } else if diag == slot.actual && pos2 - length < slot.end {
            slot.raise(pos2, diag);
            return None;
        }
        slot.actual = diag;
        if let Some(f) = self.options.filter {
            if self.filtered(&f, pos1, pos2, length) {
                slot.end = slot.end.max(pos2);
                return None;
            }
        }
        match self.options.extension {
            Extension::XDrop => self.threshold(self.xdrop_extend(slot, pos1, pos2, true), pos2),
            Extension::Exact => self.match_extend(slot, pos1, pos2, length, true),
            Extension::Mismatch(m) => self.mismatch_extend(slot, pos1, pos2, length, m as usize, true),
            Extension::None | Extension::Plain => {
                slot.end = slot.end.max(pos2);
                Some(Hsp { pos1: pos1 - length, pos2: pos2 - length, length, score: 0, hit_pos2: pos2 })
            }
        }
    }

    /// `process_for_simple_hit` (no position filter) of the hit ending at `(pos1, pos2)` (seed-long),
    /// `slot.end` being `diagEnd[]` of its hashed diagonal: the only state it reads and writes. With
    /// `Extension::Plain`, `process_for_plain_hit`.
    pub fn simple_hit(&self, slot: &mut DiagSlot, pos1: u32, pos2: u32) -> Option<Hsp> {
        let length = self.options.seed.length;
        if slot.end == INACTIVE {
            slot.end = 0;
        }
        // a hit starting before this hashed diagonal's last extension ended is not extended again
        if slot.end > pos2 - length {
            return None;
        }
        if let Some(f) = self.options.filter {
            if self.filtered(&f, pos1, pos2, length) {
                return None;
            }
        }
        match self.options.extension {
            Extension::XDrop => self.threshold(self.xdrop_extend(slot, pos1, pos2, false), pos2),
            Extension::Exact => self.match_extend(slot, pos1, pos2, length, false),
            Extension::Mismatch(m) => self.mismatch_extend(slot, pos1, pos2, length, m as usize, false),
            Extension::None => {
                slot.end = pos2;
                Some(Hsp { pos1: pos1 - length, pos2: pos2 - length, length, score: 0, hit_pos2: pos2 })
            }
            // process_for_plain_hit, which has no diagonal hash: nothing raises this one's end, so the overlap
            // test above drops no hit
            Extension::Plain => Some(Hsp { pos1: pos1 - length, pos2: pos2 - length, length, score: 0, hit_pos2: pos2 }),
        }
    }

    /// `match_extend_seed_hit`: a hit that is not an exact match (any byte but ACGT in either case counts as a
    /// mismatch) is dropped, the end raised to its rightmost mismatch; else it is extended left (to this
    /// hashed diagonal's last end at most, unless `unblocked`) and right while the bases match and neither is
    /// NUL (LASTZ's sequences end in one), the end raised to where the right extension stopped, and kept when at
    /// least `hsp_threshold` long, scoring its length.
    fn match_extend(&self, slot: &mut DiagSlot, pos1: u32, pos2: u32, length: u32, unblocked: bool) -> Option<Hsp> {
        let (t, q) = (self.target, self.query);
        // LASTZ's byte at i: its sequence with the NUL after its end
        let at = |s: &[u8], i: i64| if (i as usize) < s.len() { s[i as usize] } else { 0 };
        let same = |a: u8, b: u8| matches!((nuc_to_bits(a), nuc_to_bits(b)), (Some(x), Some(y)) if x == y);
        let diag = pos1 as i64 - pos2 as i64;
        // the hit itself, from its right end
        for k in 1..=length as i64 {
            let (s1, s2) = (pos1 as i64 - k, pos2 as i64 - k);
            if !same(t[s1 as usize], q[s2 as usize]) {
                slot.raise(s2 as u32, diag as i32);
                return None;
            }
        }
        // left, from the hit's start: the first mismatch, or just left of the stop
        let block2 = if unblocked { 0 } else { slot.end as i64 };
        let stop = if block2 + diag > 0 { block2 + diag } else { 0 };
        let (mut s1, mut s2) = (pos1 as i64 - length as i64, pos2 as i64 - length as i64);
        if s1 < stop {
            s1 -= 1;
        } else {
            while s1 >= stop {
                if s1 == stop {
                    s1 -= 1;
                    break;
                }
                s1 -= 1;
                s2 -= 1;
                let (n1, n2) = (at(t, s1), at(q, s2));
                if n1 == 0 || n2 == 0 || !same(n1, n2) {
                    break;
                }
            }
        }
        let left = s1;
        // right, from the hit's end: the first mismatch, or the stop
        let block2 = q.len() as i64;
        let stop = if t.len() as i64 <= block2 + diag { t.len() as i64 } else { block2 + diag };
        let (mut s1, mut s2) = (pos1 as i64 - 1, pos2 as i64 - 1);
        while s1 < stop {
            s1 += 1;
            s2 += 1;
            let (n1, n2) = (at(t, s1), at(q, s2));
            if n1 == 0 || n2 == 0 || !same(n1, n2) {
                break;
            }
        }
        let right = s1;
        slot.raise((right - diag) as u32, diag as i32);
        let length = (right - (left + 1)) as u32;
        if length < self.options.hsp_threshold as u32 {
            return None;
        }
        Some(Hsp { pos1: (left + 1) as u32, pos2: (left + 1 - diag) as u32, length, score: length as i32, hit_pos2: pos2 })
    }

    /// `mismatch_extend_seed_hit` with at most `m` mismatches (a mismatch: the bases differ, or either is not
    /// ACGT in either case). A hit with more than `m` is dropped, the end raised to its (m+1)th mismatch
    /// from the right. Else, with `e` mismatches in the hit, the left extension (to this hashed diagonal's last
    /// end at most unless `unblocked`, or a NUL) collects up to `m + 1 - e` mismatches as interval starts, padded by where it
    /// stopped; the right extension (to a sequence's end or a NUL) closes each interval at a mismatch, after
    /// skipping the starts it did not find, and the longest interval wins (the first of equal ones), the last
    /// one closed where the extension stopped. The end is raised to the first mismatch at or right of the
    /// hit, or where the right extension stopped, or past the interval when it is kept (at least
    /// `hsp_threshold` long, scoring its length).
    fn mismatch_extend(&self, slot: &mut DiagSlot, pos1: u32, pos2: u32, length: u32, m: usize, unblocked: bool) -> Option<Hsp> {
        let (t, q) = (self.target, self.query);
        let at = |s: &[u8], i: i64| if (i as usize) < s.len() { s[i as usize] } else { 0 };
        let differ = |a: u8, b: u8| !matches!((nuc_to_bits(a), nuc_to_bits(b)), (Some(x), Some(y)) if x == y);
        let diag = pos1 as i64 - pos2 as i64;
        // the hit's mismatches, right to left
        let mut extent = INACTIVE;
        let mut e = 0;
        for k in 1..=length as i64 {
            let (s1, s2) = (pos1 as i64 - k, pos2 as i64 - k);
            if differ(t[s1 as usize], q[s2 as usize]) {
                extent = s2 as u32;
                e += 1;
                if e > m {
                    slot.raise(extent, diag as i32);
                    return None;
                }
            }
        }
        // left: interval starts (each one left of its first base) at mismatches, filled from the back
        let mut starts = [0i64; 51];
        let stop_at = m + 1 - e;
        let mut scan = stop_at;
        let block2 = if unblocked { 0 } else { slot.end as i64 };
        let stop = if block2 + diag > 0 { block2 + diag } else { 0 };
        let (mut s1, mut s2) = (pos1 as i64 - length as i64, pos2 as i64 - length as i64);
        if s1 < stop {
            s1 -= 1;
        } else {
            while s1 >= stop {
                if s1 == stop {
                    s1 -= 1;
                    break;
                }
                s1 -= 1;
                s2 -= 1;
                let (n1, n2) = (at(t, s1), at(q, s2));
                if n1 == 0 || n2 == 0 {
                    break;
                }
                if differ(n1, n2) {
                    scan -= 1;
                    starts[scan] = s1;
                    if scan == 0 {
                        break;
                    }
                }
            }
        }
        if scan > 0 {
            scan -= 1;
            starts[scan] = s1;
        }
        let mut shortfall = scan;
        // right: each mismatch closes the interval of the next start
        let block2 = q.len() as i64;
        let stop = if t.len() as i64 <= block2 + diag { t.len() as i64 } else { block2 + diag };
        let (mut s1, mut s2) = (pos1 as i64 - 1, pos2 as i64 - 1);
        let mut best: Option<(i64, i64)> = None;
        let mut best_length = 0i64;
        while s1 < stop {
            s1 += 1;
            s2 += 1;
            let (n1, n2) = (at(t, s1), at(q, s2));
            if n1 == 0 || n2 == 0 {
                break;
            }
            if differ(n1, n2) {
                if extent == INACTIVE {
                    extent = s2 as u32;
                }
                if shortfall > 0 {
                    shortfall -= 1;
                    continue;
                }
                let this = s1 - starts[scan];
                if this > best_length {
                    best_length = this;
                    best = Some((starts[scan], s1));
                }
                scan += 1;
                if scan == stop_at {
                    break;
                }
            }
        }
        if scan < stop_at {
            if extent == INACTIVE {
                extent = s2 as u32;
            }
            if s1 - starts[scan] > best_length {
                best = Some((starts[scan], s1));
            }
        }
        let (left, right) = best.expect("mismatch_extend_seed_hit: no interval (LASTZ dies: internal error)");
        let length = (right - (left + 1)) as u32;
        if length >= self.options.hsp_threshold as u32 {
            extent = (right + 1 - diag) as u32;
        }
        slot.raise(extent, diag as i32);
        if length < self.options.hsp_threshold as u32 {
            return None;
        }
        Some(Hsp { pos1: (left + 1) as u32, pos2: (left + 1 - diag) as u32, length, score: length as i32, hit_pos2: pos2 })
    }

    /// `filter_seed_hit_by_subs`: whether the hit `[pos - length, pos)` has too few matches or too many
    /// transversions (bytes as `nuc_to_bits` reads them, either case).
    fn filtered(&self, f: &HitFilter, pos1: u32, pos2: u32, length: u32) -> bool {
        let (a, b) = (&self.target[(pos1 - length) as usize..], &self.query[(pos2 - length) as usize..]);
        let (mut matches, mut transversions) = (0i32, 0i32);
        for k in 0..length as usize {
            if f.cares_only && self.options.seed.pattern[k] == b'0' {
                continue;
            }
            match (nuc_to_bits(a[k]), nuc_to_bits(b[k])) {
                (Some(x), Some(y)) if x == y => matches += 1,
                (Some(x), Some(y)) if (x ^ y) & 1 == 0 => {} // a transition
                _ => transversions += 1,
            }
        }
        matches < f.min_matches || (f.max_transversions >= 0 && transversions > f.max_transversions)
    }

    /// `xdrop_extend_seed_hit` up to the entropy adjustment: extends left from the hit's end, then right
    /// from it, each until the score drops `x_drop` below its best, keeping the best; records in `slot` how far
    /// right it went. (The hit's length only feeds LASTZ's debug output.)
    fn xdrop_extend(&self, slot: &mut DiagSlot, pos1: u32, pos2: u32, unblocked: bool) -> Extended {
        let (t, q, sub) = (self.target, self.query, self.scoring);
        let x_drop = self.options.x_drop;
        let diag = pos1 as i32 - pos2 as i32;

        // left: stop at the target's start, the query's start, or where this hashed diagonal's last
        // extension ended (process_for_simple_hit blocks the left extension, process_for_recoverable_hit not)
        let block2 = if unblocked { 0 } else { slot.end as i32 };
        let stop = if block2 + diag > 0 { (block2 + diag) as u32 } else { 0 };
        let (mut s1, mut s2) = (pos1, pos2);
        let mut left_start = s1;
        let (mut run, mut left) = (0i32, 0i32);
        while s1 > stop && run >= left - x_drop {
            s1 -= 1;
            s2 -= 1;
            run += sub.get(t[s1 as usize], q[s2 as usize]);
            if run > left {
                left_start = s1;
                left = run;
            }
        }

        // right: stop at the end of the target or of the query
        let block2 = q.len() as i32;
        let stop = if t.len() as i32 <= block2 + diag { t.len() as u32 } else { (block2 + diag) as u32 };
        let (mut s1, mut s2) = (pos1, pos2);
        let mut right_stop = s1;
        let (mut run, mut right) = (0i32, 0i32);
        while s1 < stop && run >= right - x_drop {
            run += sub.get(t[s1 as usize], q[s2 as usize]);
            s1 += 1;
            s2 += 1;
            if run > right {
                right_stop = s1;
                right = run;
            }
        }
        let right_block = s1;

        slot.raise((right_block as i32 - diag) as u32, diag);
        let length = right_stop - left_start;
        Extended { pos1: left_start, pos2: (left_start as i32 - diag) as u32, length, similarity: left + right }
    }

    /// The rest of `xdrop_extend_seed_hit`: the entropy adjustment and the threshold. An extension below the
    /// threshold is not adjusted, so it is dropped whatever its entropy. `hit_pos2`: the seed hit's end.
    pub fn threshold(&self, e: Extended, hit_pos2: u32) -> Option<Hsp> {
        let (t, q) = (self.target, self.query);
        let mut similarity = e.similarity;
        let threshold = self.options.hsp_threshold;
        let zero_threshold = threshold.max(0);
        if self.options.entropic && similarity >= zero_threshold && similarity <= 3 * threshold {
            let (s1, s2, n) = (e.pos1 as usize, e.pos2 as usize, e.length as usize);
            similarity = (similarity as f64 * entropy(&t[s1..s1 + n], &q[s2..s2 + n])) as i32;
        }
        if similarity < threshold {
            return None;
        }
        Some(Hsp { pos1: e.pos1, pos2: e.pos2, length: e.length, score: similarity, hit_pos2 })
    }
}

/// `nuc_to_bits`: A, C, G, T in either case to 0..3.
#[inline]
fn nuc_to_bits(c: u8) -> Option<u8> {
    upper_nuc_to_bits(c.to_ascii_uppercase()).map(|b| b as u8)
}

/// `hashedDiag`.
#[inline]
pub fn hashed_diag(pos1: u32, pos2: u32) -> usize {
    ((pos1 as i32 - pos2 as i32) as u32 & (DIAG_HASH_SIZE - 1)) as usize
}
