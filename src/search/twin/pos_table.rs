//! pos_table.c's `build_seed_position_table` for a strict seed (`record_seed_positions`): for each packed
//! word, the positions (ends of the windows, on step boundaries) where the target has it, as LASTZ's
//! `last[]`/`prev[]` lists; and `limit_position_table` (`--maxwordcount=<limit>[,<chasm>]`).

use super::seed::Seed;
use crate::search::SearchOptions;

/// `noPreviousPos`: the end of a `prev[]` list.
pub const NO_PREVIOUS: u32 = u32::MAX;

/// A target's position table (LASTZ's `postable`, over the whole target: start 0, so `adjStart` 0).
pub struct PosTable {
    /// `step`: only window ends that are multiples of it are recorded.
    pub step: u32,
    /// `last[word]`: the index (position / step) of the word's rightmost window; 0 means none (as in
    /// LASTZ, which never records index 0: a window's end is at least the seed's length).
    pub last: Vec<u32>,
    /// `prev[index]`: the next window to the left with the same word, or [`NO_PREVIOUS`].
    pub prev: Vec<u32>,
}

/// `upper_nuc_to_bits`: A, C, G, T to 0..3; anything else (lowercase and N included) stops a seed word.
#[inline]
pub fn upper_nuc_to_bits(c: u8) -> Option<u64> {
    match c {
        b'A' => Some(0),
        b'C' => Some(1),
        b'G' => Some(2),
        b'T' => Some(3),
        _ => None,
    }
}

impl PosTable {
    /// `build_seed_position_table(seq, 0, seq->len, upper_nuc_to_bits, seed, step)`. Panics on step 0 (LASTZ
    /// dies) and on an empty target (LASTZ dies: "interval is void").
    pub fn build(target: &[u8], seed: &Seed, step: u32) -> PosTable {
        assert!(step >= 1, "step can't be 0");
        assert!(!target.is_empty(), "the target is empty");
        let end = target.len() as u32;
        let mut pt = PosTable { step, last: vec![0; 1usize << seed.weight], prev: vec![0; 1 + (end / step) as usize] };
        record_positions(target, seed, step, |word, pos| pt.add_word(word, pos));
        pt
    }

    /// The table LASTZ searches for these options: built, then limited by `--maxwordcount` if set.
    pub fn for_options(target: &[u8], options: &SearchOptions) -> PosTable {
        let mut pt = PosTable::build(target, &options.seed, options.step);
        if options.max_word_count > 0 {
            pt.limit(options.max_word_count, options.max_word_count_chasm);
        }
        pt
    }

    /// The positions of a word's list, rightmost first.
    fn list(&self, word: usize) -> impl Iterator<Item = u32> + '_ {
        let link = |p: u32| (p != NO_PREVIOUS).then_some(p);
        std::iter::successors(link(self.last[word]), move |&p| link(self.prev[p as usize]))
    }

    /// `limit_position_table(pt, limit, max_chasm)`: drops the words found more than `limit` times, but for
    /// `max_chasm > 0` keeps enough of their positions that no run of dropped positions is longer than
    /// `max_chasm` (in bases; in table entries after dividing by the step).
    pub fn limit(&mut self, limit: u32, max_chasm: u32) {
        let max_chasm = max_chasm / self.step;
        let mut protected = Vec::new();
        if max_chasm > 0 {
            protected = vec![false; self.prev.len()];
            for w in 0..self.last.len() {
                if self.last[w] == 0 || self.list(w).count() as u32 <= limit {
                    continue;
                }
                for pos in self.list(w).collect::<Vec<_>>() {
                    protected[pos as usize] = true;
                }
            }
            // the runs of marked positions are chasms: unmark them, then mark a sparse subset again
            let (mut in_chasm, mut chasm_start) = (false, 0u32);
            let mut pos = 0u32;
            while (pos as usize) < protected.len() {
                if protected[pos as usize] {
                    if !in_chasm {
                        chasm_start = pos;
                        in_chasm = true;
                    }
                    protected[pos as usize] = false;
                } else if in_chasm {
                    in_chasm = false;
                    if pos - chasm_start > max_chasm {
                        breakup_chasm(&mut protected, chasm_start, pos, max_chasm);
                    }
                }
                pos += 1;
            }
            // (at the end LASTZ compares with >=, within the sequence with >)
            if in_chasm && pos - chasm_start >= max_chasm {
                breakup_chasm(&mut protected, chasm_start, pos, max_chasm);
            }
        }
        for w in 0..self.last.len() {
            if self.last[w] == 0 || self.list(w).count() as u32 <= limit {
                continue;
            }
            if max_chasm == 0 {
                for pos in self.list(w).collect::<Vec<_>>() {
                    self.prev[pos as usize] = NO_PREVIOUS;
                }
                // an empty list, though not "no list" (0): find_table_matches walks it to nothing
                self.last[w] = NO_PREVIOUS;
            } else {
                // unlink the unprotected positions; `pred` is the link that points at `pos`
                let mut pred: Option<u32> = None; // None: last[w]
                let mut pos = self.last[w];
                while pos != NO_PREVIOUS {
                    let next = self.prev[pos as usize];
                    if protected[pos as usize] {
                        pred = Some(pos);
                    } else {
                        match pred {
                            None => self.last[w] = next,
                            Some(p) => self.prev[p as usize] = next,
                        }
                        self.prev[pos as usize] = NO_PREVIOUS;
                    }
                    pos = next;
                }
            }
        }
    }

    /// `add_word`: prepends `pos` to its word's list (an empty list is `last == 0`, as in LASTZ).
    fn add_word(&mut self, word: u32, pos: u32) {
        let index = pos / self.step;
        let old_last = self.last[word as usize];
        self.prev[index as usize] = if old_last == 0 { NO_PREVIOUS } else { old_last };
        self.last[word as usize] = index;
    }
}

/// `record_seed_positions` over the whole target: `f(word, pos)` for each window LASTZ records, in the order
/// it records them (positions increasing), `word` with the seed applied and `pos` the window's end.
pub fn record_positions(target: &[u8], seed: &Seed, step: u32, mut f: impl FnMut(u32, u32)) {
    assert!(step >= 1, "step can't be 0");
    let end = target.len() as u32;
    let seed_len = seed.length;
    if end < seed_len {
        return;
    }
    // `skip` is false only at its `empty_skipped:` label (right after a recorded word, with a large step),
    // true at `empty:` (the loop's start, or after a bad character)
    let mut s = 0u32;
    while s < end {
        let mut skip = true;
        'word: loop {
            if skip && step > seed_len {
                // for large steps, go to the next start whose window ends on a step boundary
                s = s + (step - 1) - ((s + seed_len - 1) % step);
            }
            skip = true;
            let mut w = 0u64;
            let mut nts = 1;
            while nts < seed_len && s < end {
                let c = target[s as usize];
                s += 1;
                let Some(ww) = upper_nuc_to_bits(c) else { continue 'word };
                w = seed.push(w, ww);
                nts += 1;
            }
            while s < end {
                let c = target[s as usize];
                s += 1;
                let Some(ww) = upper_nuc_to_bits(c) else { continue 'word };
                w = seed.push(w, ww);
                if !s.is_multiple_of(step) {
                    continue;
                }
                f(seed.apply(w), s);
                if step > seed_len {
                    s += step - seed_len;
                    skip = false;
                    continue 'word;
                }
            }
            break;
        }
    }
}

/// `breakup_chasm`: marks enough positions of `start..end` that no unmarked run exceeds `max_chasm`,
/// stepping by (len + 1) / denom from -1/2 as LASTZ does (a Bresenham-like walk).
fn breakup_chasm(protected: &mut [bool], start: u32, end: u32, max_chasm: u32) {
    let len = (end - start) as u64;
    let denom = 1 + len / (max_chasm as u64 + 1);
    // LASTZ's numer starts at denom/2 - denom, wrapped to a negative s64
    let mut numer = (denom / 2).wrapping_sub(denom) as i64;
    for _ in 1..denom {
        numer += len as i64 + 1;
        assert!(numer >= 0, "internal error, in breakup_chasm()");
        let pos = numer as u64 / denom;
        protected[start as usize + pos as usize] = true;
    }
}
