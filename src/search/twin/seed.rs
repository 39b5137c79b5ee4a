//! seeds.c's `parse_one_seed` and `apply_seed` for seeds of at most 28 bits, the seeds LASTZ indexes without
//! resolving bits (`maxIndexBits` 28), with the default build's `maintainFlippedBitOrder`: strict seeds (1s
//! and 0s), half-weight seeds (Ts and 0s, `--seed=half<N>`: one bit a base, its purine/pyrimidine bit) and
//! seeds of both 1s and Ts (two bits a base, a T keeping the low one).

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
    /// More than 28 bits: LASTZ would resolve the extra bits against the sequence (not twinned yet).
    Overweight(u32),
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

    /// `parse_one_seed` of one pattern (no commas), as `parse_seeds_string` calls it.
    pub fn parse(pattern: &str) -> Result<Seed, SeedError> {
        let b = pattern.as_bytes();
        let dont_care = |c: u8| c == b'0' || c == b'x' || c == b'X';
        let (mut s, mut e) = (0usize, b.len());
        while s < e && dont_care(b[s]) {
            s += 1;
        }
        if s == e {
            return Err(SeedError::Empty);
        }
        while dont_care(b[e - 1]) {
            e -= 1;
        }
        // half-weight: Ts without 1s, one bit a location
        let half_weight = !b[s..e].contains(&b'1');
        let base_bits = if half_weight { 1 } else { 2 };
        let (mut seed_bits, mut flip_bits) = (0u64, 0u64);
        let (mut length, mut weight) = (0u32, 0u32);
        let mut kept = Vec::new();
        for &c in &b[s..e] {
            match c {
                b' ' | b'\t' | b'\n' => {}
                b'1' => {
                    seed_bits = (seed_bits << 2) + 3;
                    flip_bits = (flip_bits << 2) + 2;
                    length += 1;
                    weight += 2;
                    kept.push(b'1');
                }
                b'T' | b't' => {
                    seed_bits = (seed_bits << base_bits) + 1;
                    flip_bits <<= base_bits;
                    length += 1;
                    weight += 1;
                    kept.push(b'T');
                }
                b'0' | b'x' | b'X' => {
                    seed_bits <<= base_bits;
                    flip_bits <<= base_bits;
                    length += 1;
                    kept.push(b'0');
                }
                _ => return Err(SeedError::Unsupported(c as char)),
            }
        }
        if weight > Seed::MAX_INDEX_BITS {
            return Err(SeedError::Overweight(weight));
        }
        if length > if half_weight { 63 } else { 31 } {
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
        let mut seed = Seed { length, pattern: kept, weight, base_bits, parts, trans_flips: Vec::new() };
        while flip_bits != 0 {
            let right_bit = flip_bits - (flip_bits & (flip_bits - 1));
            flip_bits -= right_bit;
            let packed = seed.apply(right_bit);
            seed.trans_flips.push(packed);
        }
        Ok(seed)
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
