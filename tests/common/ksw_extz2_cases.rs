//! Random `ksw_extz2_sse` jobs (single affine gap): minimap2's scorings with q == q2 and e == e2 (the calls
//! mm_align_pair routes to extz2), similar and unrelated pairs, every flag, bands from 0 to unbanded, and wild
//! int8 parameters (gap costs whose `2 (q + e)` wraps, negative q or e, m from 1 to 8, all-positive matrices).

use super::ksw_cases::{hex, pick, random_flags, random_pair, ts_matrix};
use super::Rng;
use warpalign::ksw::{flag, KswExtz2Job};

/// One job with owned data.
#[derive(Clone)]
pub struct Case {
    pub q: Vec<u8>,
    pub t: Vec<u8>,
    pub m: i8,
    /// at least 25 entries (upstream reads `mat[1]` even when m == 1; the extra ones are never read otherwise)
    pub mat: Vec<i8>,
    /// (q, e)
    pub gap: (i8, i8),
    pub w: i32,
    pub zdrop: i32,
    pub end_bonus: i32,
    pub flag: i32,
}

impl Case {
    pub fn job(&self) -> KswExtz2Job {
        let (q, e) = self.gap;
        KswExtz2Job {
            qlen: self.q.len() as i32, query: self.q.as_ptr(), tlen: self.t.len() as i32, target: self.t.as_ptr(),
            m: self.m, mat: self.mat.as_ptr(), q, e, w: self.w, zdrop: self.zdrop, end_bonus: self.end_bonus, flag: self.flag,
        }
    }

    pub fn describe(&self) -> String {
        let mm = (self.m.max(1) as usize).pow(2).max(2).min(self.mat.len());
        format!(
            "qlen={} tlen={} m={} mat={:?} (q,e)={:?} w={} zdrop={} end_bonus={} flag={:#x}\nquery={}\ntarget={}",
            self.q.len(), self.t.len(), self.m, &self.mat[..mm], self.gap, self.w, self.zdrop, self.end_bonus, self.flag,
            hex(&self.q), hex(&self.t)
        )
    }
}

/// (a, b, q, e, transition): single affine scorings, sc_ambi = 1. minimap2 runs extz2 when q == q2 and
/// e == e2 (e.g. `-x sr -O6 -E2`); the presets' first and second gap costs; then int8-limit scorings.
pub const PRESETS: &[(i8, i8, i8, i8, i8)] = &[
    (2, 4, 4, 2, 0),     // map-ont, map-pb (q, e)
    (2, 4, 24, 1, 0),    // map-ont (q2, e2)
    (1, 19, 39, 3, 0),   // asm5
    (1, 9, 16, 2, 0),    // asm10
    (1, 4, 6, 2, 0),     // asm20, map-hifi, lr:hq
    (2, 8, 12, 2, 0),    // sr
    (2, 8, 6, 2, 0),     // sr -O6 -E2 (the dumps' extz2 calls)
    (1, 2, 2, 1, 0),     // splice
    (2, 6, 10, 2, 4),    // map-iclr (transition 4: GENERIC_SC)
    (10, 20, 40, 10, 0), // q+e = 50: 2(q+e) + mat[0] = 110
    (3, 6, 30, 30, 0),   // q+e = 60: max_sc = 123
    (5, 10, 60, 10, 0),  // 2(q+e) = 140 wraps int8; max_sc = 145 (unsigned > 127)
    (20, 30, 100, 27, 0), // q+e = 127
];

pub fn random_len(rng: &mut Rng) -> usize {
    match rng.below(40) {
        0..=1 => rng.range(0, 4) as usize,
        2..=4 => rng.range(600, 2500) as usize,
        5..=12 => rng.range(1, 40) as usize,
        _ => rng.range(1, 600) as usize,
    }
}

/// A random scoring: (m, mat (25+ entries), (q, e), extra flags).
pub fn random_scoring(rng: &mut Rng) -> (i8, Vec<i8>, (i8, i8), i32) {
    if rng.chance(0.8) {
        let (a, b, go, ge, ts) = pick(rng, PRESETS);
        let sc_ambi = pick(rng, &[1, 1, 1, 0, 2]);
        let mut mat = ts_matrix(a, b, ts, sc_ambi);
        if rng.chance(0.03) {
            mat[24] = 0; // sc_N = -e
        }
        return (5, mat, (go, ge), if ts != 0 { flag::GENERIC_SC } else { 0 });
    }
    // wild: m from 1 to 8, a random matrix (sometimes all positive), gap costs anywhere in int8
    let m = rng.range(1, 8) as i8;
    let hi = rng.range(1, 40);
    let lo = if rng.chance(0.1) { rng.range(0, hi) } else { rng.range(-60, 0) };
    let n = (m as usize * m as usize).max(25);
    let mut mat: Vec<i8> = (0..n).map(|_| rng.range(lo, hi) as i8).collect();
    if rng.chance(0.7) {
        mat[0] = hi as i8;
    }
    if rng.chance(0.05) {
        let mm = m as usize * m as usize;
        mat[mm - 1] = 0;
    }
    let gap = match rng.below(4) {
        0 => (rng.range(-128, 127) as i8, rng.range(-128, 127) as i8),
        1 => (rng.range(30, 127) as i8, rng.range(10, 127) as i8),
        2 => (rng.range(-30, 10) as i8, rng.range(0, 40) as i8),
        _ => (rng.range(0, 60) as i8, rng.range(0, 30) as i8),
    };
    (m, mat, gap, 0)
}

pub fn random_w(rng: &mut Rng) -> i32 {
    match rng.below(5) {
        0 => pick(rng, &[-1, -1, -2, -100, i32::MIN]),
        1 => rng.range(0, 40) as i32,
        2 => pick(rng, &[0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 47, 64]),
        3 => pick(rng, &[50, 100, 151, 200, 500, 751]),
        _ => pick(rng, &[601, 2000, 10000, 1 << 20]),
    }
}

/// Maps the bases onto the alphabet of an m-letter matrix: `% m` (m - 1 is the wildcard of the default
/// scoring); with m > 5 and `spread`, uniform over 0..m-1 instead.
pub fn fit_alphabet(rng: &mut Rng, s: &mut [u8], m: i8, spread: bool) {
    let m = m.max(1) as u8;
    if m > 5 && spread {
        s.iter_mut().for_each(|b| *b = rng.below(m as u64) as u8);
    } else {
        s.iter_mut().for_each(|b| *b %= m);
    }
}

pub fn random_case(rng: &mut Rng) -> Case {
    let (mut q, mut t) = random_pair(rng, random_len);
    let mut f = random_flags(rng);
    let (m, mat, gap, extra) = random_scoring(rng);
    f |= extra;
    let spread = rng.chance(0.5);
    fit_alphabet(rng, &mut q, m, spread);
    fit_alphabet(rng, &mut t, m, spread);
    let w = random_w(rng);
    let zdrop = pick(rng, &[-1, -1, -7, 0, 1, 5, 10, 20, 50, 100, 200, 400, 100_000]);
    let end_bonus = pick(rng, &[-1000, -1, 0, 0, 5, 10, 50, 1000]);
    Case { q, t, m, mat, gap, w, zdrop, end_bonus, flag: f }
}
