//! Random `mg_lchain_dp` calls shared by the twin and GPU differential tests and the chain benchmark: anchor
//! sets shaped like minimap2's presets (map-ont, map-pb, map-hifi, ava-ont, sr, splice, splice:sr) and wilder
//! parameters.

use super::Rng;
use warpalign::chain::{twin, Anchor, ChainDpJob};

// ---------------------------------------------------------------------------------------------------------
// Parameters

/// The scalar arguments of one call (the anchors travel separately).
#[derive(Debug, Clone, Copy)]
pub struct Cfg {
    pub max_dist_x: i32,
    pub max_dist_y: i32,
    pub bw: i32,
    pub max_skip: i32,
    pub max_iter: i32,
    pub min_cnt: i32,
    pub min_sc: i32,
    pub chn_pen_gap: f32,
    pub chn_pen_skip: f32,
    pub is_cdna: i32,
    pub n_seg: i32,
}

impl Cfg {
    pub fn job(&self, a: &[Anchor]) -> ChainDpJob {
        ChainDpJob {
            max_dist_x: self.max_dist_x,
            max_dist_y: self.max_dist_y,
            bw: self.bw,
            max_skip: self.max_skip,
            max_iter: self.max_iter,
            min_cnt: self.min_cnt,
            min_sc: self.min_sc,
            chn_pen_gap: self.chn_pen_gap,
            chn_pen_skip: self.chn_pen_skip,
            is_cdna: self.is_cdna,
            n_seg: self.n_seg,
            n_anchors: a.len() as i64,
            anchors: a.as_ptr(),
        }
    }
}

/// map.c:273: `chn_pen_gap = opt->chain_gap_scale * 0.01 * mi->k` (float * double * int, stored as float).
pub fn pen(scale: f32, k: i32) -> f32 {
    (scale as f64 * 0.01 * k as f64) as f32
}

#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Preset {
    MapOnt,
    MapPb,
    MapHifi,
    AvaOnt,
    Sr,
    Splice,
    SpliceSr,
    Wild,
}

pub const PRESETS: [Preset; 8] =
    [Preset::MapOnt, Preset::MapPb, Preset::MapHifi, Preset::AvaOnt, Preset::Sr, Preset::Splice, Preset::SpliceSr, Preset::Wild];

/// k, the configuration as map.c:262-280 derives it from the preset (options.c), and the query length.
pub fn preset_cfg(p: Preset, rng: &mut Rng) -> (i32, Cfg, i64) {
    let long = |k: i32, max_gap: i32, bw: i32, min_sc: i32| Cfg {
        max_dist_x: max_gap,
        max_dist_y: max_gap,
        bw,
        max_skip: 25,
        max_iter: 5000,
        min_cnt: 3,
        min_sc,
        chn_pen_gap: pen(0.8, k),
        chn_pen_skip: pen(0.0, k),
        is_cdna: 0,
        n_seg: 1,
    };
    let (k, mut cfg, qlen) = match p {
        Preset::MapOnt => (15, long(15, 5000, 500, 40), rng.range(500, 100_000)),
        Preset::MapPb => (19, long(19, 5000, 500, 40), rng.range(500, 60_000)),
        Preset::MapHifi => (19, long(19, 10_000, 500, 40), rng.range(500, 40_000)),
        Preset::AvaOnt => (15, long(15, 5000, 2000, 100), rng.range(500, 100_000)),
        Preset::Sr => {
            // is_sr: gap_qry = max(qlen_sum, max_gap); max_frag_len 800: gap_ref = max(800 - qlen_sum, max_gap)
            let n_seg = if rng.chance(0.7) { 2 } else { 1 };
            let qlen_sum = n_seg as i64 * rng.range(50, 300);
            let cfg = Cfg {
                max_dist_x: (800 - qlen_sum as i32).max(100),
                max_dist_y: (qlen_sum as i32).max(100),
                bw: 100,
                max_skip: 25,
                max_iter: 5000,
                min_cnt: 2,
                min_sc: 25,
                chn_pen_gap: pen(0.8, 21),
                chn_pen_skip: 0.0,
                is_cdna: 0,
                n_seg,
            };
            (21, cfg, qlen_sum)
        }
        Preset::Splice | Preset::SpliceSr => {
            let sr = p == Preset::SpliceSr;
            let n_seg = if sr && rng.chance(0.5) { 2 } else { 1 };
            let cfg = Cfg {
                max_dist_x: 200_000,
                max_dist_y: 2000,
                bw: 200_000,
                max_skip: 25,
                max_iter: 5000,
                min_cnt: 3,
                min_sc: if sr { 25 } else { 40 },
                chn_pen_gap: pen(0.8, 15),
                chn_pen_skip: 0.0,
                is_cdna: 1,
                n_seg,
            };
            (15, cfg, if sr { n_seg as i64 * rng.range(50, 300) } else { rng.range(200, 20_000) })
        }
        Preset::Wild => {
            let k = rng.range(5, 28) as i32;
            let bw = [1, 5, 50, 100, 500, 2000, 20_000, 200_000][rng.below(8) as usize];
            let cfg = Cfg {
                max_dist_x: [0, 10, 100, 500, 5000, 10_000, 200_000][rng.below(7) as usize],
                max_dist_y: [0, 10, 100, 500, 2000, 5000, 10_000][rng.below(7) as usize],
                bw,
                max_skip: 25,
                max_iter: [1, 2, 3, 10, 50, 500, 5000, 100_000][rng.below(8) as usize],
                min_cnt: rng.range(0, 5) as i32,
                min_sc: [-20, 0, 1, 15, 25, 40, 100, 300][rng.below(8) as usize],
                chn_pen_gap: pen([0.0f32, 0.1, 0.8, 1.0, 2.5, 5.0, 20.0][rng.below(7) as usize], k),
                chn_pen_skip: pen([0.0f32, 0.0, 0.05, 0.3, 1.0][rng.below(5) as usize], k),
                is_cdna: rng.chance(0.3) as i32,
                n_seg: [1, 1, 2, 3][rng.below(4) as usize],
            };
            (k, cfg, rng.range(50, 50_000))
        }
    };
    // max_chain_skip: upstream's 25 mostly, else 0, small, or "infinity"
    if rng.chance(0.3) {
        cfg.max_skip = [0, 1, 2, 3, 5, 10, 1000, i32::MAX][rng.below(8) as usize];
    }
    // max_chain_iter now and then small, so that the window clip and the max_ii rescue meet
    if rng.chance(0.1) {
        cfg.max_iter = [1, 2, 5, 20, 100][rng.below(5) as usize];
    }
    (k, cfg, qlen)
}

// ---------------------------------------------------------------------------------------------------------
// Anchors

pub fn anchor(rev: u64, tid: u64, tpos: i64, seg: u64, flags: u64, span: u64, qpos: i64) -> Anchor {
    let tpos = tpos.clamp(0, (1 << 31) - 1) as u64;
    let qpos = qpos.clamp(0, (1 << 31) - 1) as u64;
    Anchor { x: rev << 63 | tid << 32 | tpos, y: seg << 48 | flags << 40 | (span & 0xff) << 32 | qpos }
}

/// A set of about `n` anchors in minimap2's shape: colinear runs with noise, gaps and introns, exact lattices
/// (equal scores), tandem-repeat grids (many equal diagonals: skips and ties), scatter and duplicates, on
/// several targets, strands and segments; sorted by `x` with equal `x` in random order.
pub fn random_anchors(rng: &mut Rng, k: i32, cfg: &Cfg, qlen: i64, n: usize) -> Vec<Anchor> {
    let k = k as i64;
    let span_mode = rng.below(5);
    let span = |rng: &mut Rng| -> u64 {
        match span_mode {
            0 | 1 => k as u64,
            2 => (k + rng.range(0, 12)) as u64, // HPC-like
            3 => rng.range(1, 255) as u64,
            _ => [k, k, 255, 1][rng.below(4) as usize] as u64,
        }
    };
    let n_tid = rng.range(1, 4) as u64;
    let n_seg = cfg.n_seg.max(1) as u64;
    let with_flags = rng.chance(0.2);
    let tlen: i64 = [10_000, 1_000_000, 100_000_000, (1 << 31) - 1][rng.below(4) as usize];
    let max_step = (cfg.max_dist_x.max(cfg.bw).max(1) as i64).min(50_000);
    let mut a: Vec<Anchor> = Vec::with_capacity(n + 64);
    while a.len() < n {
        let rev = rng.below(2);
        let tid = rng.below(n_tid);
        let seg = rng.below(n_seg);
        let flags = if with_flags { rng.below(16) } else { 0 };
        let mut t = rng.range(0, tlen);
        let mut q = rng.range(0, qlen.max(1));
        let left = (n - a.len()) as i64;
        match rng.below(6) {
            0 | 1 => {
                // colinear run: small indels, occasional long gaps (introns in splice) and big jumps
                let cnt = rng.range(1, left.min(400));
                let dstep = rng.range(1, 2 * k.max(1));
                for _ in 0..cnt {
                    let dt = rng.range(1, dstep);
                    let mut dq = dt + if rng.chance(0.3) { rng.range(-8, 8) } else { 0 };
                    let mut dt = dt;
                    if rng.chance(0.02) {
                        dt += rng.range(1, max_step);
                    }
                    if rng.chance(0.02) {
                        dq += rng.range(1, max_step.min(5000));
                    }
                    t += dt;
                    q = (q + dq).max(0);
                    let sp = span(rng);
                    a.push(anchor(rev, tid, t, seg, flags, sp, q));
                }
            }
            2 => {
                // exact lattice: equal steps, so equal scores everywhere
                let cnt = rng.range(1, left.min(300));
                let step = [1, k, k, rng.range(1, 3 * k.max(1))][rng.below(4) as usize].max(1);
                let sp = span(rng);
                for _ in 0..cnt {
                    t += step;
                    q += step;
                    a.push(anchor(rev, tid, t, seg, flags, sp, q));
                }
            }
            3 => {
                // tandem repeat: every copy of a period-P unit on the target against every copy on the query
                let per = rng.range(1, 60);
                let m1 = rng.range(1, 40);
                let m2 = rng.range(1, 40).min((left / m1).max(1));
                let off = rng.range(0, per - 1);
                let sp = span(rng);
                for x in 0..m1 {
                    for y in 0..m2 {
                        let jit = if rng.chance(0.1) { rng.range(-2, 2) } else { 0 };
                        a.push(anchor(rev, tid, t + x * per + off, seg, flags, sp, q + y * per + off + jit));
                    }
                }
            }
            4 => {
                // scatter in a window
                let cnt = rng.range(1, left.min(300));
                let w = rng.range(10, 20_000);
                for _ in 0..cnt {
                    let sp = span(rng);
                    a.push(anchor(rev, tid, t + rng.range(0, w), seg, flags, sp, q + rng.range(0, w)));
                }
            }
            _ => {
                // duplicates: same x (other y, or the same anchor again, or the other segment)
                if a.is_empty() {
                    continue;
                }
                for _ in 0..rng.range(1, left.min(100)) {
                    let mut e = a[rng.below(a.len() as u64) as usize];
                    match rng.below(4) {
                        0 => {}
                        1 => e.y = (e.y & !0xffff_ffff) | (e.y as u32 as i64 + rng.range(-30, 30)).clamp(0, i32::MAX as i64) as u64,
                        2 => e.y = (e.y & !(0xffu64 << 48)) | rng.below(n_seg) << 48,
                        _ => e.x += rng.range(0, 3) as u64, // tpos < 2^31: no carry into tid
                    }
                    a.push(e);
                }
            }
        }
    }
    a.truncate(n);
    a.sort_by_key(|e| e.x);
    // minimap2's own sort leaves equal x in no particular order: shuffle each group
    let mut s = 0;
    while s < a.len() {
        let mut e = s + 1;
        while e < a.len() && a[e].x == a[s].x {
            e += 1;
        }
        for i in (s + 1..e).rev() {
            let j = s + rng.below((i - s + 1) as u64) as usize;
            a.swap(i, j);
        }
        s = e;
    }
    a
}

pub fn set_size(rng: &mut Rng) -> usize {
    match rng.below(1000) {
        0..=9 => rng.range(6000, 20_000) as usize,
        10..=79 => rng.range(2000, 6000) as usize,
        80..=349 => rng.range(200, 2000) as usize,
        350..=359 => 0,
        _ => rng.range(1, 200) as usize,
    }
}

/// Case `idx` of seed base `seed`: preset, configuration and anchors.
pub fn random_case(seed: u64, idx: u64) -> (Preset, Cfg, Vec<Anchor>) {
    let mut rng = Rng::new(seed.wrapping_mul(1_000_003) ^ idx.wrapping_mul(0x9E37_79B9) ^ 0x5eed);
    let p = PRESETS[rng.below(PRESETS.len() as u64) as usize];
    let (k, cfg, qlen) = preset_cfg(p, &mut rng);
    let n = set_size(&mut rng);
    let a = random_anchors(&mut rng, k, &cfg, qlen, n);
    (p, cfg, a)
}


// ---------------------------------------------------------------------------------------------------------
// Trap families

/// The cases of the chain twin test's `comput_sc_float_rounding` test.
pub fn float_rounding_cases() -> Vec<(String, Cfg, Vec<Anchor>)> {
    let mut cases: Vec<(String, Cfg, Vec<Anchor>)> = Vec::new();
    let big = (1 << 30) + 1000;
    let base = Cfg {
        max_dist_x: big,
        max_dist_y: big,
        bw: big,
        max_skip: 25,
        max_iter: 5000,
        min_cnt: 2,
        min_sc: 0,
        chn_pen_gap: 0.0,
        chn_pen_skip: 0.0,
        is_cdna: 0,
        n_seg: 1,
    };
    let mut rng = Rng::new(77);
    let mut dds: Vec<i64> = (1..=1 << 17).collect();
    for sh in 17..30 {
        for _ in 0..2000 {
            dds.push((1i64 << sh) + rng.range(-3, (1 << sh) - 1));
        }
        dds.push((1 << sh) - 1);
        dds.push(1 << sh);
    }
    let gaps: [(f32, f32); 6] =
        [(pen(0.8, 15), 0.0), (pen(0.8, 19), 0.0), (pen(0.8, 21), 0.0), (1e-4, 0.0), (3.3e-4, 1e-5), (pen(0.01, 15), pen(0.003, 15))];
    for (gi, &(g, s)) in gaps.iter().enumerate() {
        for (bi, branch) in ["del", "ins", "cdna-del", "cdna-ins", "seg"].iter().enumerate() {
            // the full sweep on two settings, every 7th dd on the others
            let stride = if gi < 2 || bi == 2 { 1 } else { 7 };
            for &dd in dds.iter().step_by(stride) {
                let mut cfg = Cfg { chn_pen_gap: g, chn_pen_skip: s, ..base };
                let (dr, dq) = match bi {
                    0 | 2 => (300 + dd, 300),
                    1 | 3 => (300, 300 + dd),
                    _ => (300 + dd * (dd & 1), 300 + dd * (1 - (dd & 1))),
                };
                cfg.is_cdna = (bi == 2 || bi == 3) as i32;
                let (s0, s1) = if bi == 4 { (0u64, 1u64) } else { (0, 0) };
                if bi == 4 {
                    cfg.n_seg = 2;
                }
                let a = vec![anchor(0, 0, 1000, s0, 0, 255, 1000), anchor(0, 0, 1000 + dr, s1, 0, 255, 1000 + dq)];
                cases.push((format!("dd {dd} {branch} gap {g} skip {s}"), cfg, a));
            }
        }
    }
    cases
}

/// The cases of the chain twin test's `comput_sc_truncation_boundaries` test.
pub fn truncation_cases() -> Vec<(String, Cfg, Vec<Anchor>)> {
    let mut rng = Rng::new(4242);
    let mut cases = Vec::new();
    let big = (1 << 30) + 1000;
    for i in 0..40_000u64 {
        let dd = match i % 4 {
            0 => rng.range(1, 300),
            1 => rng.range(300, 5000),
            2 => rng.range(5000, 200_000),
            _ => rng.range(200_000, 1 << 24),
        };
        let ins = rng.chance(0.5); // dr < dq
        let (dr, dq) = if ins { (300, 300 + dd) } else { (300 + dd, 300) };
        let dg = dr.min(dq) as f64;
        let skip = [0.0f32, 0.0, 1e-3, 0.01, 0.0123, 0.05][rng.below(6) as usize];
        let cdna = (i % 7 == 3) as i32;
        let log = twin::mg_log2((dd + 1) as f32) as f64;
        let target = rng.range(1, 200) as f64;
        // the cDNA min branch (deletions) truncates lin itself: aim lin at the integer
        let g0 = if cdna != 0 && !ins { (target - skip as f64 * dg) / dd as f64 } else { (target - skip as f64 * dg - 0.5 * log) / dd as f64 };
        if g0 <= 0.0 {
            continue;
        }
        let g0 = g0 as f32;
        for d in -6i32..=6 {
            let g = f32::from_bits((g0.to_bits() as i32 + d) as u32);
            let cfg = Cfg {
                max_dist_x: big,
                max_dist_y: big,
                bw: big,
                max_skip: 25,
                max_iter: 5000,
                min_cnt: 2,
                min_sc: 0,
                chn_pen_gap: g,
                chn_pen_skip: skip,
                is_cdna: cdna,
                n_seg: 1,
            };
            let a = vec![anchor(0, 0, 1000, 0, 0, 255, 1000), anchor(0, 0, 1000 + dr, 0, 0, 255, 1000 + dq)];
            cases.push((format!("case {i} dd {dd} ins {ins} gap {g:e} skip {skip}"), cfg, a));
        }
    }
    cases
}

/// The cases of the chain twin test's `comput_sc_penalty_overflow` test.
pub fn penalty_overflow_cases() -> Vec<(String, Cfg, Vec<Anchor>)> {
    let big = i32::MAX - 10;
    let mut rng = Rng::new(99);
    let mut cases = Vec::new();
    for i in 0..20_000u64 {
        let g = [1.0f32, 2.0, 4.0, 100.0, 1e6, 3.4e38][rng.below(6) as usize];
        let dd = rng.range(1, (1 << 31) - 400);
        let cfg = Cfg {
            max_dist_x: big,
            max_dist_y: big,
            bw: big,
            max_skip: 25,
            max_iter: 5000,
            min_cnt: 1,
            min_sc: i32::MIN + 1,
            chn_pen_gap: g,
            chn_pen_skip: if i % 2 == 0 { 0.0 } else { g },
            is_cdna: (i % 3 == 0) as i32,
            n_seg: 1,
        };
        let (dr, dq) = if i % 4 < 2 { (300 + dd, 300) } else { (300, 300 + dd) };
        let dq = dq.min((1 << 31) - 1000);
        let a = vec![
            anchor(0, 0, 10, 0, 0, 255, 10),
            anchor(0, 0, 100, 0, 0, 255, 100),
            anchor(0, 0, 100 + dr, 0, 0, 255, 100 + dq),
            anchor(0, 0, 200 + dr, 0, 0, 255, 200 + dq),
        ];
        cases.push((format!("case {i} dd {dd} gap {g}"), cfg, a));
    }
    // The wrapped `0 - INT32_MIN` is INT32_MIN itself, comput_sc's "not allowed": with q_span 0 predecessors
    // and overflowing penalties the pair is skipped (no t[] mark, no n_skip), which changes where scans stop.
    for i in 0..3000u64 {
        let mut a = Vec::new();
        for d in 0..rng.range(1, 6) {
            let (mut t, mut q) = (10_000 + d * 7, 10_000 + d * 3000 + rng.range(0, 3000));
            for _ in 0..rng.range(3, 80) {
                let st = rng.range(1, 20);
                t += st;
                q += st;
                let sp = if rng.chance(0.4) { 0 } else { 15 };
                a.push(anchor(0, 0, t, 0, 0, sp, q));
                if rng.chance(0.5) {
                    a.push(anchor(0, 0, t + rng.range(0, 3), 0, 0, sp, q + rng.range(-4000, 4000)));
                }
            }
        }
        a.sort_by_key(|e| e.x);
        let cfg = Cfg {
            max_dist_x: 5000,
            max_dist_y: 5000,
            bw: 5000,
            max_skip: [0, 1, 2, 25][(i % 4) as usize],
            max_iter: 5000,
            min_cnt: 2,
            min_sc: 1,
            chn_pen_gap: [1e7f32, 1e8, 3e6][rng.below(3) as usize],
            chn_pen_skip: 0.0,
            is_cdna: 0,
            n_seg: 1,
        };
        cases.push((format!("span-0 case {i}"), cfg, a));
    }
    cases
}

/// The cases of the chain twin test's `max_chain_skip_early_exit` test.
pub fn skip_grid_cases() -> Vec<(String, Cfg, Vec<Anchor>)> {
    let mut cases = Vec::new();
    let mut rng = Rng::new(1234);
    for i in 0..3000u64 {
        let max_skip = [0, 1, 2, 3, 25, i32::MAX][(i % 6) as usize];
        let per = rng.range(1, 40);
        let (m1, m2) = (rng.range(5, 60), rng.range(5, 60));
        let sp = [15u64, 19, 1, 255][rng.below(4) as usize];
        let mut a = Vec::new();
        for x in 0..m1 {
            for y in 0..m2 {
                a.push(anchor(0, 0, 5000 + x * per, 0, 0, sp, 7000 + y * per + if rng.chance(0.05) { 1 } else { 0 }));
            }
        }
        a.sort_by_key(|e| e.x);
        let cfg = Cfg {
            max_dist_x: 5000,
            max_dist_y: 5000,
            bw: [500, 50, 10][rng.below(3) as usize],
            max_skip,
            max_iter: 5000,
            min_cnt: 3,
            min_sc: 40,
            chn_pen_gap: pen(0.8, 15),
            chn_pen_skip: 0.0,
            is_cdna: (i % 7 == 0) as i32,
            n_seg: 1,
        };
        cases.push((format!("case {i} skip {max_skip} per {per} {m1}x{m2}"), cfg, a));
    }
    cases
}

/// The cases of the chain twin test's `max_ii_rescue` test.
pub fn rescue_cases() -> Vec<(String, Cfg, Vec<Anchor>)> {
    let mut cases = Vec::new();
    let mut rng = Rng::new(4321);
    for i in 0..3000u64 {
        let k = 15;
        let cfg = Cfg {
            max_dist_x: 5000,
            max_dist_y: 5000,
            bw: 500,
            max_skip: [0, 1, 25][(i % 3) as usize],
            max_iter: [1, 2, 3, 5, 10, 50, 5000][rng.below(7) as usize],
            min_cnt: 3,
            min_sc: 40,
            chn_pen_gap: pen(0.8, k),
            chn_pen_skip: 0.0,
            is_cdna: (i % 5 == 0) as i32,
            n_seg: 1,
        };
        // a strong chain interleaved with dense noise of its own target region
        let mut a = Vec::new();
        let n_main = rng.range(5, 60);
        let (mut t, mut q) = (10_000i64, 1000i64);
        for _ in 0..n_main {
            t += rng.range(10, 40);
            q += rng.range(10, 40);
            a.push(anchor(0, 0, t, 0, 0, k as u64, q));
            for _ in 0..rng.range(0, 8) {
                a.push(anchor(0, 0, t + rng.range(0, 30), 0, 0, k as u64, rng.range(0, 20_000)));
            }
        }
        a.sort_by_key(|e| e.x);
        cases.push((format!("case {i} iter {}", cfg.max_iter), cfg, a));
    }
    cases
}
