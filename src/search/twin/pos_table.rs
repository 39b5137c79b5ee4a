//! pos_table.c's `build_seed_position_table` for a strict seed (`record_seed_positions`): for each packed
//! word, the positions (ends of the windows, on step boundaries) where the target has it, as LASTZ's
//! `last[]`/`prev[]` lists.

use super::seed::Seed;

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
        let seed_len = seed.length;
        if end < seed_len {
            return pt;
        }
        // record_seed_positions; `skip` is false only at its `empty_skipped:` label (right after a
        // recorded word, with a large step), true at `empty:` (the loop's start, or after a bad character)
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
                    w = (w << 2) | ww;
                    nts += 1;
                }
                while s < end {
                    let c = target[s as usize];
                    s += 1;
                    let Some(ww) = upper_nuc_to_bits(c) else { continue 'word };
                    w = (w << 2) | ww;
                    if s % step != 0 {
                        continue;
                    }
                    pt.add_word(seed.apply(w), s);
                    if step > seed_len {
                        s += step - seed_len;
                        skip = false;
                        continue 'word;
                    }
                }
                break;
            }
        }
        pt
    }

    /// `add_word`: prepends `pos` to its word's list (an empty list is `last == 0`, as in LASTZ).
    fn add_word(&mut self, word: u32, pos: u32) {
        let index = pos / self.step;
        let old_last = self.last[word as usize];
        self.prev[index as usize] = if old_last == 0 { NO_PREVIOUS } else { old_last };
        self.last[word as usize] = index;
    }
}
