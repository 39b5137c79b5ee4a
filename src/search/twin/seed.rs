//! seeds.c's `parse_one_seed` and `apply_seed` for seeds of at most 28 bits, the seeds LASTZ indexes without
//! resolving bits (`maxIndexBits` 28), with the default build's `maintainFlippedBitOrder`: strict seeds (1s
//! and 0s), half-weight seeds (Ts and 0s, `--seed=half<N>`: one bit a base, its purine/pyrimidine bit) and
//! seeds of both 1s and Ts (two bits a base, a T keeping the low one); and seeds heavier than `--word`, whose
//! last 1s LASTZ resolves against the target at each hit.

use super::pos_table::upper_nuc_to_bits;

/// A parsed seed: LASTZ's `seed` fields that the search reads.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Seed {
    /// Locations, from the first 1 to the last.
    pub length: u32,
    /// `pattern`: b'1' (match), b'T' (match or transition) or b'0' per location (what `--filter=cares:`
    /// walks: all but the 0s).
    pub pattern: Vec<u8>,
    /// Bits of a packed word (2 per 1, 1 per T).
    pub weight: u32,
    /// Bits a base takes in the words the search builds: 2, or 1 for a half-weight seed (no 1 in it), whose
    /// words keep each base's low bit (`private_hit_search_halfweight`, `record_seed_positions_halfweight`).
    pub base_bits: u32,
    /// `resolvingMask` (`--word` below the seed's weight): the high bit of each resolved base among the window's
    /// last 16 (bit 2i+1 for the base i from its end), compared with the target's at each hit; 0 for a seed
    /// indexed whole.
    pub resolving_mask: u32,
    /// `shift[]`, `mask[]`: a word packs as the OR of `(word >> shift) & mask`.
    pub parts: Vec<(u32, u32)>,
    /// `transFlips[]` (without its terminating 0): the packed bit flipped by a transition at each 1,
    /// rightmost location first; the search tries them in this order.
    pub trans_flips: Vec<u32>,
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub enum SeedError {
    /// No 1 in the pattern (LASTZ: "seed string is empty!" or "cannot have zero weight").
    Empty,
    /// A character other than 1, T, t, 0, x, X, or whitespace between them.
    Unsupported(char),
    /// More than 28 bits indexed (`--word` above 28).
    Overweight(u32),
    /// Bits to resolve that LASTZ refuses: more than the seed's 1s, more than 16, or spread too widely.
    Unresolvable(u32),
    /// More than 31 locations (63 for a half-weight seed).
    TooLong(u32),
}

impl Seed {
    /// `seed_12of19` (seeds.h), LASTZ's default.
    pub const PATTERN_12OF19: &'static str = "1110100110010101111";
    /// `seed_14of22` (seeds.h).
    pub const PATTERN_14OF22: &'static str = "1110101100110010101111";
    /// Bits LASTZ indexes directly (its `maxIndexBits` default).
    const MAX_INDEX_BITS: u32 = 28;

    /// `--seed=match<N>`: N ones.
    pub fn matches(n: u32) -> Result<Seed, SeedError> {
        Seed::parse(&"1".repeat(n as usize))
    }

    /// `parse_one_seed` of one pattern (no commas), as `parse_seeds_string` calls it with LASTZ's default
    /// `maxIndexBits` (28).
    pub fn parse(pattern: &str) -> Result<Seed, SeedError> {
        Seed::parse_for_index(pattern, Seed::MAX_INDEX_BITS)
    }

    /// `parse_one_seed` with `maxIndexBits` (`--word=<bits>`): a seed heavier than that many bits resolves its
    /// rightmost 1s, each indexed by its low bit as a T is, its high bit compared with the target's at each hit
    /// (`resolving_mask`). Seeds of more than 28 bits still (`--word` above 28) are refused.
    pub fn parse_for_index(pattern: &str, max_index_bits: u32) -> Result<Seed, SeedError> {
        let b = trim(pattern.as_bytes())?;
        let (mut matches, mut weight) = (0u32, 0u32);
        for &c in b {
            match c {
                b'1' => {
                    matches += 1;
                    weight += 2;
                }
                b'T' | b't' => weight += 1,
                _ => {}
            }
        }
        let mut keep = matches;
        if max_index_bits > 0 && weight > max_index_bits {
            let to_resolve = weight - max_index_bits;
            if to_resolve > matches || to_resolve > 16 {
                return Err(SeedError::Unresolvable(to_resolve));
            }
            keep -= to_resolve;
        }
        // a half-weight seed (Ts without 1s) takes one bit a location; one that resolves bits cannot be one
        let base_bits = if matches == 0 { 1 } else { 2 };
        Seed::build(b, base_bits, keep)
    }

    /// A seed as LASTZ holds it once parsed: its `pattern` (resolved 1s written as Ts) and `resolvingMask`.
    pub fn from_lastz(pattern: &str, resolving_mask: u32) -> Result<Seed, SeedError> {
        if resolving_mask == 0 {
            return Seed::parse_for_index(pattern, 0);
        }
        if resolving_mask & 0x5555_5555 != 0 {
            return Err(SeedError::Unresolvable(resolving_mask.count_ones()));
        }
        let b = trim(pattern.as_bytes())?;
        let mut seed = Seed::build(b, 2, u32::MAX)?;
        seed.resolving_mask = resolving_mask;
        Ok(seed)
    }

    /// The second scan of `parse_one_seed`: the first `keep` 1s indexed whole, the later ones resolved.
    fn build(b: &[u8], base_bits: u32, keep: u32) -> Result<Seed, SeedError> {
        let (mut seed_bits, mut flip_bits, mut resolve_bits) = (0u64, 0u64, 0u32);
        let (mut length, mut weight, mut matches) = (0u32, 0u32, 0u32);
        let mut kept = Vec::new();
        for &c in b {
            match c {
                b' ' | b'\t' | b'\n' => continue,
                b'1' if matches >= keep => {
                    // resolved: indexed by its low bit (as a T), its high bit checked at each hit
                    if resolve_bits << 2 < resolve_bits {
                        return Err(SeedError::Unresolvable(keep));
                    }
                    resolve_bits = (resolve_bits << base_bits) + 2;
                    seed_bits = (seed_bits << base_bits) + 1;
                    flip_bits <<= base_bits;
                    weight += 1;
                    kept.push(b'T');
                }
                b'1' => {
                    resolve_bits <<= base_bits;
                    seed_bits = (seed_bits << 2) + 3;
                    flip_bits = (flip_bits << 2) + 2;
                    matches += 1;
                    weight += 2;
                    kept.push(b'1');
                }
                b'T' | b't' => {
                    resolve_bits <<= base_bits;
                    seed_bits = (seed_bits << base_bits) + 1;
                    flip_bits <<= base_bits;
                    weight += 1;
                    kept.push(b'T');
                }
                b'0' | b'x' | b'X' => {
                    resolve_bits <<= base_bits;
                    seed_bits <<= base_bits;
                    flip_bits <<= base_bits;
                    kept.push(b'0');
                }
                _ => return Err(SeedError::Unsupported(c as char)),
            }
            length += 1;
        }
        if weight > Seed::MAX_INDEX_BITS {
            return Err(SeedError::Overweight(weight));
        }
        if length > if base_bits == 1 { 63 } else { 31 } {
            return Err(SeedError::TooLong(length));
        }
        let w_bits = ((1u64 << weight) - 1) as u32;
        let mut covered = (seed_bits as u32) & w_bits;
        let mut rem_bits = seed_bits - covered as u64;
        let mut parts = vec![(0u32, covered)];
        while covered != w_bits {
            let shift = best_shift(!covered & w_bits, rem_bits);
            let mask = ((rem_bits >> shift) as u32) & !covered & w_bits;
            covered += mask;
            rem_bits -= (mask as u64) << shift;
            parts.push((shift, mask));
        }
        let mut seed =
            Seed { length, pattern: kept, weight, base_bits, resolving_mask: resolve_bits, parts, trans_flips: Vec::new() };
        while flip_bits != 0 {
            let right_bit = flip_bits - (flip_bits & (flip_bits - 1));
            flip_bits -= right_bit;
            let packed = seed.apply(right_bit);
            seed.trans_flips.push(packed);
        }
        Ok(seed)
    }

    /// `find_table_matches_resolve`'s check of a hit ending at `pos1` in `target` and at the query word `word`:
    /// the resolved bases' high bits (`fetch_resolving_bits`: the target's 16 bases before `pos1`, 2 bits each,
    /// any byte but A, C, G, T as 3, before its start as 0) differ at most `allowed` times. True for a seed
    /// indexed whole.
    #[inline]
    pub fn resolves(&self, target: &[u8], pos1: u32, word: u64, allowed: u32) -> bool {
        if self.resolving_mask == 0 {
            return true;
        }
        let mut bits1 = 0u32;
        for p in pos1 as i64 - 16..pos1 as i64 {
            let b = if p < 0 { 0 } else { upper_nuc_to_bits(target[p as usize]).unwrap_or(3) as u32 };
            bits1 = (bits1 << 2) | b;
        }
        let mut x = (bits1 ^ word as u32) & self.resolving_mask;
        x = x.wrapping_add(x >> 17);
        (x & 0xffff).count_ones() <= allowed
    }

    /// A word with one more base appended (`bits`, its `upper_nuc_to_bits`): its 2 bits, or for a half-weight
    /// seed its low bit (R/Y).
    #[inline]
    pub fn push(&self, word: u64, bits: u64) -> u64 {
        (word << self.base_bits) | (bits & ((1 << self.base_bits) - 1))
    }

    /// `apply_seed` (not complementing): the packed word of a window's bases (as [`Seed::push`] builds it). Bits above the
    /// seed's window (the search keeps shifting its word) never reach a mask.
    #[inline]
    pub fn apply(&self, word: u64) -> u32 {
        let mut packed = 0u32;
        for &(shift, mask) in &self.parts {
            packed |= ((word >> shift) as u32) & mask;
        }
        packed
    }
}

/// The pattern without leading and trailing don't-cares (LASTZ: "seed string is empty!" when nothing is left).
fn trim(b: &[u8]) -> Result<&[u8], SeedError> {
    let dont_care = |c: &u8| matches!(c, b'0' | b'x' | b'X');
    let s = b.iter().position(|c| !dont_care(c)).ok_or(SeedError::Empty)?;
    let e = b.iter().rposition(|c| !dont_care(c)).unwrap() + 1;
    Ok(&b[s..e])
}

/// seeds.c's `best_shift`: the first shift of the remaining seed bits that covers the most uncovered bits.
fn best_shift(uncovered: u32, mut seed_bits: u64) -> u32 {
    let (mut best_coverage, mut best) = (-1i32, 0u32);
    let mut shift = 0;
    while seed_bits != 0 {
        let coverage = ((seed_bits as u32) & uncovered).count_ones() as i32;
        if coverage > best_coverage {
            best_coverage = coverage;
            best = shift;
        }
        seed_bits >>= 1;
        shift += 1;
    }
    best
}
