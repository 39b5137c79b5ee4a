//! Random `ksw_exts2_sse` jobs (shared by the twin's and the kernel's tests): spliced pairs (exons of the
//! query separated by GT..AG / CT..AC introns in the target), random and mutated pairs; every flag, junc
//! null or random, the splice presets' scoring and wild int8 parameters.

use super::ksw_cases::{hex, pick, seq, similar_target};
use super::{mm2_matrix, Rng};
use warpalign::ksw::{flag, KswExts2Job};

/// One job with owned data.
#[derive(Clone)]
pub struct Case {
    pub q: Vec<u8>,
    pub t: Vec<u8>,
    pub m: i8,
    pub mat: Vec<i8>,
    /// (q, e, q2, noncan)
    pub gap: (i8, i8, i8, i8),
    pub zdrop: i32,
    pub end_bonus: i32,
    pub junc_bonus: i8,
    pub junc_pen: i8,
    pub flag: i32,
    /// tlen bytes when present
    pub junc: Option<Vec<u8>>,
}

impl Case {
    pub fn job(&self) -> KswExts2Job {
        let (q, e, q2, noncan) = self.gap;
        KswExts2Job {
            qlen: self.q.len() as i32, query: self.q.as_ptr(), tlen: self.t.len() as i32, target: self.t.as_ptr(),
            m: self.m, mat: self.mat.as_ptr(), q, e, q2, noncan, zdrop: self.zdrop, end_bonus: self.end_bonus,
            junc_bonus: self.junc_bonus, junc_pen: self.junc_pen, flag: self.flag,
            junc: self.junc.as_ref().map_or(std::ptr::null(), |j| j.as_ptr()),
        }
    }

    pub fn describe(&self) -> String {
        let junc = match &self.junc {
            None => "null".to_string(),
            Some(j) => j.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        };
        format!(
            "qlen={} tlen={} m={} mat={:?} (q,e,q2,noncan)={:?} zdrop={} end_bonus={} junc_bonus={} junc_pen={} flag={:#x}\nquery={}\ntarget={}\njunc={}",
            self.q.len(), self.t.len(), self.m, self.mat, self.gap, self.zdrop, self.end_bonus, self.junc_bonus, self.junc_pen,
            self.flag, hex(&self.q), hex(&self.t), junc
        )
    }
}

/// minimap2 splice scoring: (a, b, q, e, q2, noncan, junc_bonus, junc_pen) (options.c), then variants.
pub const PRESETS: &[(i8, i8, i8, i8, i8, i8, i8, i8)] = &[
    (1, 2, 2, 1, 32, 9, 9, 5), // splice, cdna
    (1, 4, 6, 1, 24, 5, 9, 5), // splice:hq, splice:sr
    (1, 2, 2, 1, 32, 0, 9, 5), // -C0
    (2, 4, 4, 2, 24, 9, 9, 5), // map-ont scores with splicing
    (1, 4, 6, 2, 26, 9, 15, 10),
    (2, 8, 12, 2, 60, 20, 20, 20),
    (5, 20, 30, 5, 127, 40, 60, 60), // near the int8 limits
];

pub fn random_len(rng: &mut Rng) -> usize {
    match rng.below(40) {
        0..=1 => rng.range(0, 4) as usize,
        2 => rng.range(500, 2000) as usize,
        3..=9 => rng.range(1, 40) as usize,
        10..=19 => rng.range(40, 120) as usize,
        _ => rng.range(1, 400) as usize,
    }
}

pub fn intron_len(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0 => rng.range(200, 2000) as usize,
        1..=4 => rng.range(20, 60) as usize,
        _ => rng.range(20, 200) as usize,
    }
}

/// An intron: GT..AG (forward) or CT..AC (reverse strand), sometimes a non-canonical or GC..AG / AT..AC one,
/// with a pyrimidine / purine context sometimes.
pub fn intron(rng: &mut Rng, len: usize) -> Vec<u8> {
    let mut s = seq(rng, len.max(4), 0.0, 4);
    let (d, a): ([u8; 2], [u8; 2]) = match rng.below(8) {
        0..=2 => ([2, 3], [0, 2]), // GT..AG
        3..=4 => ([1, 3], [0, 1]), // CT..AC
        5 => ([2, 1], [0, 2]),     // GC..AG
        6 => ([0, 3], [0, 1]),     // AT..AC
        _ => ([rng.below(4) as u8, rng.below(4) as u8], [rng.below(4) as u8, rng.below(4) as u8]),
    };
    let n = s.len();
    s[0] = d[0];
    s[1] = d[1];
    s[n - 2] = a[0];
    s[n - 1] = a[1];
    if rng.chance(0.5) && n >= 6 {
        s[2] = pick(rng, &[0, 2]); // GTr
        s[n - 3] = pick(rng, &[1, 3]); // yAG
    }
    s
}

/// A spliced pair: the query is the exons (mutated a little), the target the exons with introns between,
/// sometimes with flanks on either side (extension-like).
pub fn spliced_pair(rng: &mut Rng, n_rate: f64) -> (Vec<u8>, Vec<u8>) {
    let n_exon = rng.range(1, 4) as usize;
    let mut q = Vec::new();
    let mut t = Vec::new();
    if rng.chance(0.3) {
        let fl = rng.range(0, 100) as usize;
        t.extend(seq(rng, fl, n_rate, 4));
    }
    for i in 0..n_exon {
        let el = match rng.below(5) {
            0 => rng.range(1, 15) as usize,
            1 => rng.range(100, 400) as usize,
            _ => rng.range(15, 100) as usize,
        };
        let ex = seq(rng, el, n_rate, 4);
        q.extend_from_slice(&ex);
        t.extend_from_slice(&ex);
        if i + 1 < n_exon {
            let il = intron_len(rng);
            t.extend(intron(rng, il));
        }
    }
    if rng.chance(0.3) {
        let fl = rng.range(0, 100) as usize;
        t.extend(seq(rng, fl, n_rate, 4));
    }
    let rate = pick(rng, &[0.0, 0.0, 0.01, 0.03, 0.1]);
    let q = rng.mutate(&q, rate);
    if rng.chance(0.1) {
        let cut = rng.below(q.len() as u64 + 1) as usize;
        return (q[..cut].to_vec(), t);
    }
    (q, t)
}

pub fn random_junc(rng: &mut Rng, tlen: usize, score: bool) -> Vec<u8> {
    let dens = pick(rng, &[0.01, 0.05, 0.3, 1.0]);
    match rng.below(3) {
        0 => (0..tlen).map(|_| rng.below(256) as u8).collect(),
        _ if score => (0..tlen).map(|_| if rng.chance(dens) { rng.below(255) as u8 } else { 0xff }).collect(),
        _ => (0..tlen).map(|_| if rng.chance(dens) { pick(rng, &[1u8, 2, 4, 8, 3, 12, 15]) } else { 0 }).collect(),
    }
}

/// The common flags and the splice ones, at even odds, and a strand (or none).
pub fn random_flags(rng: &mut Rng) -> i32 {
    let mut f = super::ksw_cases::random_flags(rng);
    for bit in [flag::SPLICE_FLANK, flag::SPLICE_CMPLX, flag::SPLICE_SCORE] {
        if rng.chance(0.5) {
            f |= bit;
        }
    }
    f | pick(rng, &[0, flag::SPLICE_FOR, flag::SPLICE_FOR, flag::SPLICE_REV, flag::SPLICE_REV])
}

pub fn random_case(rng: &mut Rng) -> Case {
    let n_rate = pick(rng, &[0.0, 0.0, 0.0, 0.01, 0.05, 0.3]);
    let (q, t) = match rng.below(10) {
        0..=4 => spliced_pair(rng, n_rate),
        5..=7 => {
            let alpha = pick(rng, &[4, 4, 4, 2, 1]);
            let qlen = random_len(rng);
            let q = seq(rng, qlen, n_rate, alpha);
            let t = similar_target(rng, &q, n_rate, alpha);
            if rng.chance(0.5) {
                (q, t)
            } else {
                (t, q)
            }
        }
        _ => {
            let alpha = pick(rng, &[4, 4, 4, 2, 1]);
            let (ql, tl) = (random_len(rng), random_len(rng));
            (seq(rng, ql, n_rate, alpha), seq(rng, tl, n_rate, alpha))
        }
    };
    let mut f = random_flags(rng);
    let (m, mut mat, gap, junc_bonus, junc_pen);
    if rng.chance(0.85) {
        let (a, b, go, ge, go2, nc, jb, jp) = pick(rng, PRESETS);
        let sc_ambi = pick(rng, &[1, 1, 1, 0, 2]);
        m = 5;
        mat = mm2_matrix(a, b, sc_ambi);
        if rng.chance(0.05) {
            // ksw_gen_ts_mat with a transition score (GENERIC_SC is forced then, as align.c does)
            for (i, j) in [(0, 2), (1, 3), (2, 0), (3, 1)] {
                mat[i * 5 + j] = -(b / 2).max(1);
            }
            f |= flag::GENERIC_SC;
        }
        gap = (go, ge, go2, nc);
        junc_bonus = jb;
        junc_pen = jp;
    } else {
        // wild parameters: random matrix, random gap costs and splice scores (int8 wrap-around, q2 <= q + e)
        m = rng.range(2, 5) as i8;
        let hi = rng.range(1, 12);
        let lo = rng.range(-40, 0);
        mat = (0..(m as usize * m as usize)).map(|_| rng.range(lo, hi) as i8).collect();
        if rng.chance(0.7) {
            mat[0] = hi as i8;
        }
        let go = rng.range(0, 60) as i8;
        let ge = rng.range(1, 20) as i8;
        let go2 = if rng.chance(0.1) { rng.range(0, 40) as i8 } else { rng.range(go as i64 + ge as i64 + 1, 127) as i8 };
        let nc = rng.range(-20, 127) as i8;
        gap = (go, ge, go2, nc);
        junc_bonus = rng.range(-128, 127) as i8;
        junc_pen = rng.range(-128, 127) as i8;
    }
    let (q, t) = if m < 5 {
        let mm = m as u8;
        (q.iter().map(|&b| b % mm).collect(), t.iter().map(|&b| b % mm).collect::<Vec<u8>>())
    } else {
        (q, t)
    };
    if m == 5 && rng.chance(0.02) {
        mat[24] = 0; // sc_N = -e
    }
    let junc = if rng.chance(0.4) { None } else { Some(random_junc(rng, t.len(), f & flag::SPLICE_SCORE != 0)) };
    let zdrop = pick(rng, &[-1, -1, 200, 100, 0, 1, 5, 10, 20, 50, 400]);
    let end_bonus = pick(rng, &[-1, 0, 0, 5, 10, 50, 1000]);
    Case { q, t, m, mat: std::mem::take(&mut mat), gap, zdrop, end_bonus, junc_bonus, junc_pen, flag: f, junc }
}

/// The calls minimap2 makes (align.c): splice presets, CMPLX unless --splice-old, FLANK, one strand, junc
/// from a BED (bonus) or --spsc (SCORE), and the four call shapes (left extension EXTZ|RIGHT|REV_CIGAR,
/// first-pass gap fill APPROX_MAX, second-pass fill, right extension EXTZ_ONLY).
pub fn minimap2_call(rng: &mut Rng) -> Case {
    let (q, t) = spliced_pair(rng, 0.0);
    let (a, b, go, ge, go2, nc, jb, jp) = pick(rng, &PRESETS[..2]);
    let mut f = pick(rng, &[flag::SPLICE_FOR, flag::SPLICE_REV]) | flag::SPLICE_FLANK;
    if rng.chance(0.8) {
        f |= flag::SPLICE_CMPLX;
    }
    let junc = match rng.below(3) {
        0 => Some(vec![0u8; t.len()]),
        1 => Some(random_junc(rng, t.len(), false)),
        _ => {
            f |= flag::SPLICE_SCORE;
            Some(random_junc(rng, t.len(), true))
        }
    };
    let (shape, end_bonus, zdrop) = pick(rng, &[
        (flag::EXTZ_ONLY | flag::RIGHT | flag::REV_CIGAR, 0, 200),
        (flag::APPROX_MAX, -1, 200),
        (0, -1, 200),
        (0, -1, 100),
        (flag::EXTZ_ONLY, 0, 200),
    ]);
    let (q, t, junc) = if shape & flag::REV_CIGAR != 0 {
        // the left extension runs on reversed sequences
        let mut q = q;
        let mut t = t;
        q.reverse();
        t.reverse();
        (q, t, junc.map(|mut j| { j.reverse(); j }))
    } else {
        (q, t, junc)
    };
    Case { q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, nc), zdrop, end_bonus, junc_bonus: jb, junc_pen: jp, flag: f | shape, junc }
}

/// Empty sequences (junc null and all-0xff with SPLICE_SCORE), m <= 1, q2 <= q + e, and the early return
/// when no mismatch can win.
pub fn degenerate_cases() -> Vec<Case> {
    let q = [0u8, 1, 2, 3, 2, 3, 0, 2];
    let base = Case {
        q: q.to_vec(), t: q.to_vec(), m: 5, mat: mm2_matrix(1, 2, 1), gap: (2, 1, 32, 9), zdrop: -1, end_bonus: 0, junc_bonus: 9,
        junc_pen: 5, flag: flag::SPLICE_FOR, junc: None,
    };
    let mut cases = vec![];
    for (ql, tl) in [(0, 0), (0, 4), (4, 0), (1, 1), (1, 4), (4, 1), (1, 8), (8, 2), (8, 5)] {
        for junc in [false, true] {
            let mut c = base.clone();
            c.q.truncate(ql);
            c.t.truncate(tl);
            if junc {
                c.junc = Some(vec![0xff; c.t.len()]);
                c.flag |= flag::SPLICE_SCORE;
            }
            cases.push(c);
        }
    }
    let mut c = base.clone();
    c.m = 1;
    cases.push(c);
    for q2 in [3, 2, 0, -5] {
        let mut c = base.clone();
        c.gap.2 = q2; // q2 <= q + e: early return
        cases.push(c);
    }
    let mut c = base.clone();
    c.mat = mm2_matrix(1, 7, 1); // -min_sc = 7 > 2 (q+e) = 6: early return
    cases.push(c);
    cases
}
