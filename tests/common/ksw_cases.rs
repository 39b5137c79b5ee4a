//! Random ksw_extd2 jobs shared by the twin and GPU differential tests: minimap2's preset scorings,
//! similar and unrelated pairs, every flag, bands from 0 to unbanded.

use super::{mm2_matrix, Rng};
use warpalign::ksw::{flag, KswExtd2Job};

/// One job with owned data.
#[derive(Clone)]
pub struct Case {
    pub q: Vec<u8>,
    pub t: Vec<u8>,
    pub m: i8,
    pub mat: Vec<i8>,
    pub gap: (i8, i8, i8, i8),
    pub w: i32,
    pub zdrop: i32,
    pub end_bonus: i32,
    pub flag: i32,
}

impl Case {
    pub fn job(&self) -> KswExtd2Job {
        let (q, e, q2, e2) = self.gap;
        KswExtd2Job {
            qlen: self.q.len() as i32, query: self.q.as_ptr(), tlen: self.t.len() as i32, target: self.t.as_ptr(),
            m: self.m, mat: self.mat.as_ptr(), q, e, q2, e2, w: self.w, zdrop: self.zdrop, end_bonus: self.end_bonus, flag: self.flag,
        }
    }

    pub fn describe(&self) -> String {
        format!(
            "qlen={} tlen={} m={} mat={:?} (q,e,q2,e2)={:?} w={} zdrop={} end_bonus={} flag={:#x}\nquery={}\ntarget={}",
            self.q.len(), self.t.len(), self.m, self.mat, self.gap, self.w, self.zdrop, self.end_bonus, self.flag, hex(&self.q), hex(&self.t)
        )
    }
}

/// Codes as hex digits, one per base, for the replay of a failing case.
pub fn hex(s: &[u8]) -> String {
    s.iter().map(|&b| char::from(b"0123456789abcdef"[(b & 15) as usize])).collect()
}

/// minimap2 scoring: (a, b, q, e, q2, e2, transition) of the presets (options.c), sc_ambi = 1.
pub const PRESETS: &[(i8, i8, i8, i8, i8, i8, i8)] = &[
    (2, 4, 4, 2, 24, 1, 0),   // map-ont, map-pb (defaults)
    (1, 19, 39, 3, 81, 1, 0), // asm5
    (1, 9, 16, 2, 41, 1, 0),  // asm10
    (1, 4, 6, 2, 26, 1, 0),   // asm20, map-hifi, lr:hq
    (2, 8, 12, 2, 24, 1, 0),  // sr
    (1, 2, 2, 1, 32, 0, 0),   // splice (e2 = 0)
    (2, 6, 10, 2, 50, 1, 4),  // map-iclr (transition 4; GENERIC_SC is forced for it below)
    (10, 20, 40, 10, 60, 5, 0), // near the int8 limits: (q+e)+(q2+e2) = 115
    (3, 6, 30, 30, 60, 3, 0), // q+e = 60, q2+e2 = 63
];

/// ksw_gen_ts_mat of align.c.
pub fn ts_matrix(a: i8, b: i8, transition: i8, sc_ambi: i8) -> Vec<i8> {
    let mut mat = mm2_matrix(a, b, sc_ambi);
    if transition != 0 && transition != b {
        for (i, j) in [(0, 2), (1, 3), (2, 0), (3, 1)] {
            mat[i * 5 + j] = -transition;
        }
    }
    mat
}

pub fn seq(rng: &mut Rng, len: usize, n_rate: f64, alpha: u64) -> Vec<u8> {
    (0..len).map(|_| if rng.chance(n_rate) { 4 } else { rng.below(alpha) as u8 }).collect()
}

pub use super::pick;

pub fn random_len(rng: &mut Rng) -> usize {
    match rng.below(20) {
        0 => rng.range(0, 4) as usize,
        1..=3 => rng.range(500, 2000) as usize,
        4..=7 => rng.range(1, 40) as usize,
        _ => rng.range(1, 500) as usize,
    }
}

/// A pair of `len` bases or so: mostly similar (see [`similar_target`]), else unrelated; in either order.
pub fn random_pair(rng: &mut Rng, len: fn(&mut Rng) -> usize) -> (Vec<u8>, Vec<u8>) {
    let n_rate = pick(rng, &[0.0, 0.0, 0.01, 0.05, 0.3]);
    let alpha = pick(rng, &[4, 4, 4, 2, 1]);
    let qlen = len(rng);
    let q = seq(rng, qlen, n_rate, alpha);
    let t = match rng.below(10) {
        0..=5 => similar_target(rng, &q, n_rate, alpha),
        _ => {
            let tlen = len(rng);
            seq(rng, tlen, n_rate, alpha)
        }
    };
    if rng.chance(0.5) {
        (q, t)
    } else {
        (t, q)
    }
}

/// `q` mutated at a random rate, sometimes with a random tail (extension-like) or cut short.
pub fn similar_target(rng: &mut Rng, q: &[u8], n_rate: f64, alpha: u64) -> Vec<u8> {
    let rate = pick(rng, &[0.0, 0.01, 0.03, 0.1, 0.2, 0.35]);
    let mut t = rng.mutate(q, rate);
    if rng.chance(0.3) {
        let extra = rng.range(0, 300) as usize;
        t.extend(seq(rng, extra, n_rate, alpha));
    }
    if rng.chance(0.2) {
        t.truncate(rng.below(t.len() as u64 + 1) as usize);
    }
    t
}

/// Each of the flags every ksw function takes, at even odds.
pub fn random_flags(rng: &mut Rng) -> i32 {
    let mut f = 0;
    for bit in [flag::SCORE_ONLY, flag::RIGHT, flag::GENERIC_SC, flag::APPROX_MAX, flag::APPROX_DROP, flag::EXTZ_ONLY, flag::REV_CIGAR] {
        if rng.chance(0.5) {
            f |= bit;
        }
    }
    f
}

pub fn random_case(rng: &mut Rng) -> Case {
    let (q, t) = random_pair(rng, random_len);
    let mut f = random_flags(rng);
    let (mut m, mut mat, gap);
    if rng.chance(0.9) {
        let (a, b, go, ge, go2, ge2, ts) = pick(rng, PRESETS);
        let sc_ambi = pick(rng, &[1, 1, 1, 0, 2]);
        m = 5;
        mat = ts_matrix(a, b, ts, sc_ambi);
        if ts != 0 {
            f |= flag::GENERIC_SC;
        }
        gap = if rng.chance(0.05) { (go2, ge2, go, ge) } else { (go, ge, go2, ge2) }; // swapped order
    } else {
        // wild parameters: random matrix, random gap costs (possibly wrapping int8, possibly e == e2)
        m = rng.range(2, 5) as i8;
        let hi = rng.range(1, 12) as i64;
        let lo = rng.range(-40, 0);
        mat = (0..(m as usize * m as usize)).map(|_| rng.range(lo, hi) as i8).collect();
        if rng.chance(0.7) {
            mat[0] = hi as i8;
        }
        let go = rng.range(0, 60) as i8;
        let ge = rng.range(0, 30) as i8;
        let go2 = rng.range(0, 90) as i8;
        let ge2 = if rng.chance(0.2) { ge } else { rng.range(0, 10) as i8 };
        gap = (go, ge, go2, ge2);
    }
    if m < 5 {
        // sequences over 0..m-1 (m-1 is the wildcard without GENERIC_SC)
        let mm = m as u8;
        let qq: Vec<u8> = q.iter().map(|&b| b % mm).collect();
        let tt: Vec<u8> = t.iter().map(|&b| b % mm).collect();
        return finish_case(rng, qq, tt, m, mat, gap, f);
    }
    if rng.chance(0.02) {
        m = 5;
        mat[24] = 0; // sc_N = -e2
    }
    finish_case(rng, q, t, m, std::mem::take(&mut mat), gap, f)
}

pub fn finish_case(rng: &mut Rng, q: Vec<u8>, t: Vec<u8>, m: i8, mat: Vec<i8>, gap: (i8, i8, i8, i8), flag: i32) -> Case {
    let w = match rng.below(4) {
        0 => -1,
        1 => rng.range(0, 40) as i32,
        2 => pick(rng, &[0, 1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 47, 64]),
        _ => pick(rng, &[50, 100, 151, 200, 500, 751, 10000]),
    };
    let zdrop = pick(rng, &[-1, -1, 0, 1, 5, 10, 20, 50, 100, 200, 400]);
    let end_bonus = pick(rng, &[-1, 0, 0, 5, 10, 50, 1000]);
    Case { q, t, m, mat, gap, w, zdrop, end_bonus, flag }
}

pub fn similar_pair(rng: &mut Rng, len: usize, rate: f64) -> (Vec<u8>, Vec<u8>) {
    let q = seq(rng, len, 0.01, 4);
    let t = rng.mutate(&q, rate);
    (q, t)
}

// ---- trap families (the twin's and the GPU's tests) -----------------------------------------------------

/// Narrow bands (w < 16): st0 is inside a 16-lane block, so lanes [st, st0) use stale s[] bytes and lanes
/// past en0 are scored from bytes past the band (and past the target into the reversed query).
pub fn trap_stale_lanes(rng: &mut Rng) -> Case {
    let len = rng.range(20, 300) as usize;
    let rate = pick(rng, &[0.02, 0.1, 0.3]);
    let (q, t) = similar_pair(rng, len, rate);
    let f = pick(rng, &[0, flag::RIGHT, flag::GENERIC_SC, flag::SCORE_ONLY, flag::EXTZ_ONLY, flag::APPROX_MAX]);
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    let w = rng.range(0, 20) as i32;
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w, zdrop: -1, end_bonus: 0, flag: f }
}

/// Low-complexity sequences make many equal H on one anti-diagonal: the 4-lane argmax order decides max_t.
pub fn trap_tie_break(rng: &mut Rng) -> Case {
    let len = rng.range(10, 400) as usize;
    let alpha = pick(rng, &[1, 2]);
    let q = seq(rng, len, 0.0, alpha);
    let t = if rng.chance(0.5) {
        rng.mutate(&q, 0.05).iter().map(|&b| b % alpha as u8).collect()
    } else {
        let tl = len + rng.range(0, 50) as usize;
        seq(rng, tl, 0.0, alpha)
    };
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    let f = pick(rng, &[0, flag::EXTZ_ONLY, flag::SCORE_ONLY, flag::RIGHT | flag::EXTZ_ONLY]);
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w: pick(rng, &[-1, 5, 33, 100]), zdrop: pick(rng, &[-1, 20, 100]), end_bonus: 0, flag: f }
}

/// APPROX_MAX follows one greedy path (score only from it); with APPROX_DROP it z-drops on it.
pub fn trap_approx(rng: &mut Rng) -> Case {
    let len = rng.range(1, 600) as usize;
    let rate = pick(rng, &[0.01, 0.1, 0.4]);
    let (q, t) = similar_pair(rng, len, rate);
    let f = flag::APPROX_MAX | pick(rng, &[0, flag::APPROX_DROP, flag::EXTZ_ONLY, flag::APPROX_DROP | flag::EXTZ_ONLY, flag::SCORE_ONLY]);
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, ge2), w: pick(rng, &[-1, 10, 50, 500]), zdrop: pick(rng, &[-1, 10, 100]), end_bonus: pick(rng, &[0, 10]), flag: f }
}

/// A band that cannot reach the corner (|qlen - tlen| > w): map-ont's scoring.
pub fn trap_band_exhaustion(rng: &mut Rng) -> Case {
    let len = rng.range(30, 300) as usize;
    let q = seq(rng, len, 0.0, 4);
    let mut t = rng.mutate(&q, 0.02);
    let extra = rng.range(5, 100) as usize;
    t.extend(seq(rng, extra, 0.0, 4));
    let w = rng.range(0, extra as i64 - 1) as i32;
    let f = pick(rng, &[0, flag::EXTZ_ONLY, flag::RIGHT, flag::APPROX_MAX]);
    let (q, t) = if rng.chance(0.5) { (q, t) } else { (t, q) };
    Case { q, t, m: 5, mat: mm2_matrix(2, 4, 1), gap: (4, 2, 24, 1), w, zdrop: -1, end_bonus: 0, flag: f }
}

/// A good prefix, then an indel and/or junk, under a small z-drop (sometimes with the gap costs swapped).
pub fn trap_zdrop(rng: &mut Rng) -> Case {
    let len = rng.range(50, 400) as usize;
    let q = seq(rng, len, 0.0, 4);
    let cut = rng.range(10, len as i64 - 10) as usize;
    let mut t = q[..cut].to_vec();
    let gap = rng.range(0, 60) as usize;
    t.extend(seq(rng, gap, 0.0, 4));
    let rate = pick(rng, &[0.0, 0.05, 0.5]);
    t.extend_from_slice(&rng.mutate(&q[cut..], rate));
    let (a, b, go, ge, go2, ge2, _) = pick(rng, PRESETS);
    let gap4 = if rng.chance(0.15) { (go2, ge2, go, ge) } else { (go, ge, go2, ge2) };
    let f = pick(rng, &[0, flag::EXTZ_ONLY, flag::APPROX_MAX | flag::APPROX_DROP, flag::SCORE_ONLY]);
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: gap4, w: -1, zdrop: rng.range(0, 60) as i32, end_bonus: 5, flag: f }
}

/// Empty sequences, m <= 1, and the early return when no mismatch can ever win.
pub fn degenerate_cases() -> Vec<Case> {
    let q = [0u8, 1, 2, 3];
    let base = Case { q: q.to_vec(), t: q.to_vec(), m: 5, mat: mm2_matrix(2, 4, 1), gap: (4, 2, 24, 1), w: -1, zdrop: -1, end_bonus: 0, flag: 0 };
    let mut cases = vec![];
    for (ql, tl) in [(0, 0), (0, 4), (4, 0), (1, 1), (1, 4), (4, 1)] {
        let mut c = base.clone();
        c.q.truncate(ql);
        c.t.truncate(tl);
        cases.push(c);
    }
    let mut c = base.clone();
    c.m = 1;
    cases.push(c);
    let mut c = base.clone();
    c.mat = mm2_matrix(1, 40, 1); // -min_sc = 40 > 2 (q+e) = 12: early return
    cases.push(c);
    cases
}
