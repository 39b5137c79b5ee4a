//! The Rust twin of `ksw_exts2_sse` (warpalign::ksw::twin::exts2) against the upstream C function (the
//! oracle), field by field and CIGAR by CIGAR, on fixed-seed random jobs: spliced pairs (exons of the query
//! separated by GT..AG / CT..AC introns in the target), random and mutated pairs; every flag, junc null or
//! random, the splice presets' scoring and wild int8 parameters.
//!
//! `KSW_TWIN_EXTS2_CASES=N` scales the random test (default 30,000); `KSW_TWIN_EXTS2_SEED=S` changes its
//! seed; `KSW_TWIN_EXTS2_ONLY=I` replays case I alone. A mismatch prints the whole job.
//! `cargo test --release --test ksw_twin_exts2 -- --ignored --nocapture bench` times twin vs oracle on one
//! thread.

mod common;

use common::ksw_cases::{env_u64, pick, seq};
use common::{mm2_matrix, Rng};
use std::time::Instant;
use warpalign::ksw::{flag, twin, KswExts2Job, KswResult};
use warpalign_ffi::mm2 as c;

type Out = (u32, u32, [i32; 8], Vec<u32>);

fn oracle(j: &KswExts2Job) -> Out {
    let mut ez: c::ksw_extz_t = unsafe { std::mem::zeroed() };
    unsafe {
        c::warpalign_oracle_ksw_exts2_sse(
            std::ptr::null_mut(), j.qlen, j.query, j.tlen, j.target, j.m, j.mat, j.q, j.e, j.q2, j.noncan, j.zdrop,
            j.end_bonus, j.junc_bonus, j.junc_pen, j.flag, j.junc, &mut ez,
        )
    };
    let cigar = if ez.n_cigar > 0 { unsafe { std::slice::from_raw_parts(ez.cigar, ez.n_cigar as usize) }.to_vec() } else { Vec::new() };
    let o = (ez.max(), ez.zdropped(), [ez.max_q, ez.max_t, ez.mqe, ez.mqe_t, ez.mte, ez.mte_q, ez.score, ez.reach_end], cigar);
    unsafe { libc_free(ez.cigar.cast()) };
    o
}

fn twin_run(j: &KswExts2Job) -> Out {
    let mut r = KswResult::EMPTY;
    twin::exts2(j, &mut r);
    assert!(r.n_cigar > 0 || r.cigar.is_null(), "empty CIGAR must be null");
    let o = (r.max, r.zdropped as u32, [r.max_q, r.max_t, r.mqe, r.mqe_t, r.mte, r.mte_q, r.score, r.reach_end], r.cigar().to_vec());
    r.release();
    o
}

/// One job with owned data.
#[derive(Clone)]
struct Case {
    q: Vec<u8>,
    t: Vec<u8>,
    m: i8,
    mat: Vec<i8>,
    /// (q, e, q2, noncan)
    gap: (i8, i8, i8, i8),
    zdrop: i32,
    end_bonus: i32,
    junc_bonus: i8,
    junc_pen: i8,
    flag: i32,
    /// tlen bytes when present
    junc: Option<Vec<u8>>,
}

impl Case {
    fn job(&self) -> KswExts2Job {
        let (q, e, q2, noncan) = self.gap;
        KswExts2Job {
            qlen: self.q.len() as i32, query: self.q.as_ptr(), tlen: self.t.len() as i32, target: self.t.as_ptr(),
            m: self.m, mat: self.mat.as_ptr(), q, e, q2, noncan, zdrop: self.zdrop, end_bonus: self.end_bonus,
            junc_bonus: self.junc_bonus, junc_pen: self.junc_pen, flag: self.flag,
            junc: self.junc.as_ref().map_or(std::ptr::null(), |j| j.as_ptr()),
        }
    }

    fn describe(&self) -> String {
        let seq = |s: &[u8]| s.iter().map(|&b| char::from(b"0123456789abcdef"[(b & 15) as usize])).collect::<String>();
        let junc = match &self.junc {
            None => "null".to_string(),
            Some(j) => j.iter().map(|b| format!("{b:02x}")).collect::<String>(),
        };
        format!(
            "qlen={} tlen={} m={} mat={:?} (q,e,q2,noncan)={:?} zdrop={} end_bonus={} junc_bonus={} junc_pen={} flag={:#x}\nquery={}\ntarget={}\njunc={}",
            self.q.len(), self.t.len(), self.m, self.mat, self.gap, self.zdrop, self.end_bonus, self.junc_bonus, self.junc_pen,
            self.flag, seq(&self.q), seq(&self.t), junc
        )
    }
}

/// minimap2 splice scoring: (a, b, q, e, q2, noncan, junc_bonus, junc_pen) (options.c), then variants.
const PRESETS: &[(i8, i8, i8, i8, i8, i8, i8, i8)] = &[
    (1, 2, 2, 1, 32, 9, 9, 5), // splice, cdna
    (1, 4, 6, 1, 24, 5, 9, 5), // splice:hq, splice:sr
    (1, 2, 2, 1, 32, 0, 9, 5), // -C0
    (2, 4, 4, 2, 24, 9, 9, 5), // map-ont scores with splicing
    (1, 4, 6, 2, 26, 9, 15, 10),
    (2, 8, 12, 2, 60, 20, 20, 20),
    (5, 20, 30, 5, 127, 40, 60, 60), // near the int8 limits
];



fn random_len(rng: &mut Rng) -> usize {
    match rng.below(40) {
        0..=1 => rng.range(0, 4) as usize,
        2 => rng.range(500, 2000) as usize,
        3..=9 => rng.range(1, 40) as usize,
        10..=19 => rng.range(40, 120) as usize,
        _ => rng.range(1, 400) as usize,
    }
}

fn intron_len(rng: &mut Rng) -> usize {
    match rng.below(10) {
        0 => rng.range(200, 2000) as usize,
        1..=4 => rng.range(20, 60) as usize,
        _ => rng.range(20, 200) as usize,
    }
}

/// An intron: GT..AG (forward) or CT..AC (reverse strand), sometimes a non-canonical or GC..AG / AT..AC one,
/// with a pyrimidine / purine context sometimes.
fn intron(rng: &mut Rng, len: usize) -> Vec<u8> {
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
fn spliced_pair(rng: &mut Rng, n_rate: f64) -> (Vec<u8>, Vec<u8>) {
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

fn random_junc(rng: &mut Rng, tlen: usize, score: bool) -> Vec<u8> {
    let dens = pick(rng, &[0.01, 0.05, 0.3, 1.0]);
    match rng.below(3) {
        0 => (0..tlen).map(|_| rng.below(256) as u8).collect(),
        _ if score => (0..tlen).map(|_| if rng.chance(dens) { rng.below(255) as u8 } else { 0xff }).collect(),
        _ => (0..tlen).map(|_| if rng.chance(dens) { pick(rng, &[1u8, 2, 4, 8, 3, 12, 15]) } else { 0 }).collect(),
    }
}

fn random_flags(rng: &mut Rng) -> i32 {
    let mut f = 0;
    for bit in [flag::SCORE_ONLY, flag::RIGHT, flag::GENERIC_SC, flag::APPROX_MAX, flag::APPROX_DROP, flag::EXTZ_ONLY, flag::REV_CIGAR, flag::SPLICE_FLANK, flag::SPLICE_CMPLX, flag::SPLICE_SCORE] {
        if rng.chance(0.5) {
            f |= bit;
        }
    }
    f | pick(rng, &[0, flag::SPLICE_FOR, flag::SPLICE_FOR, flag::SPLICE_REV, flag::SPLICE_REV])
}

fn random_case(rng: &mut Rng) -> Case {
    let n_rate = pick(rng, &[0.0, 0.0, 0.0, 0.01, 0.05, 0.3]);
    let (q, t) = match rng.below(10) {
        0..=4 => spliced_pair(rng, n_rate),
        5..=7 => {
            let alpha = pick(rng, &[4, 4, 4, 2, 1]);
            let qlen = random_len(rng);
            let q = seq(rng, qlen, n_rate, alpha);
            let rate = pick(rng, &[0.0, 0.01, 0.03, 0.1, 0.2, 0.35]);
            let mut t = rng.mutate(&q, rate);
            if rng.chance(0.3) {
                let extra = rng.range(0, 300) as usize;
                t.extend(seq(rng, extra, n_rate, alpha));
            }
            if rng.chance(0.2) {
                t.truncate(rng.below(t.len() as u64 + 1) as usize);
            }
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


/// Runs `n` cases `gen(seed + i)` on all cores; returns the mismatching indices (printing the first few).
fn check_many(what: &str, seed: u64, n: u64, gen: fn(&mut Rng) -> Case) -> Vec<u64> {
    let threads = std::thread::available_parallelism().map(|x| x.get()).unwrap_or(2) as u64;
    let next = std::sync::atomic::AtomicU64::new(0);
    let bad = std::sync::Mutex::new(Vec::new());
    let cells = std::sync::atomic::AtomicU64::new(0);
    let start = Instant::now();
    std::thread::scope(|sc| {
        for _ in 0..threads {
            sc.spawn(|| loop {
                let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                if i >= n {
                    break;
                }
                let case = gen(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)));
                cells.fetch_add(case.q.len() as u64 * case.t.len() as u64, std::sync::atomic::Ordering::Relaxed);
                let j = case.job();
                let (o, t) = (oracle(&j), twin_run(&j));
                if o != t {
                    let mut b = bad.lock().unwrap();
                    if b.len() < 3 {
                        eprintln!("{what}: MISMATCH case {i} (seed {seed}; replay with KSW_TWIN_EXTS2_SEED={seed} KSW_TWIN_EXTS2_ONLY={i})\n  oracle {:?}\n  twin   {:?}\n  {}", o, t, case.describe());
                    }
                    b.push(i);
                }
            });
        }
    });
    let b = bad.into_inner().unwrap();
    eprintln!(
        "{what}: {n} cases ({:.2e} cells), {} mismatches, {:.1}s",
        cells.into_inner() as f64, b.len(), start.elapsed().as_secs_f64()
    );
    b
}

#[test]
fn twin_equals_oracle_random() {
    let seed = env_u64("KSW_TWIN_EXTS2_SEED", 1);
    if let Ok(i) = std::env::var("KSW_TWIN_EXTS2_ONLY") {
        let i: u64 = i.parse().unwrap();
        let case = random_case(&mut Rng::new(seed.wrapping_mul(1_000_003).wrapping_add(i)));
        let j = case.job();
        eprintln!("{}", case.describe());
        assert_eq!(twin_run(&j), oracle(&j), "case {i}");
        return;
    }
    let n = env_u64("KSW_TWIN_EXTS2_CASES", 30_000);
    let bad = check_many("random", seed, n, random_case);
    assert!(bad.is_empty(), "{} of {n} cases differ; first {:?}", bad.len(), &bad[..bad.len().min(20)]);
}

// ---- named traps -------------------------------------------------------------------------------------------

/// The calls minimap2 makes (align.c): splice presets, CMPLX unless --splice-old, FLANK, one strand, junc
/// from a BED (bonus) or --spsc (SCORE), and the four call shapes (left extension EXTZ|RIGHT|REV_CIGAR,
/// first-pass gap fill APPROX_MAX, second-pass fill, right extension EXTZ_ONLY).
#[test]
fn trap_minimap2_calls() {
    fn gen(rng: &mut Rng) -> Case {
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
    assert!(check_many("minimap2 calls", 21, 3000, gen).is_empty());
}

/// Wild int8 parameters: gap costs near 127, noncan / junc_bonus / junc_pen over the whole int8 range.
#[test]
fn trap_int8_wrap() {
    fn gen(rng: &mut Rng) -> Case {
        let (q, t) = spliced_pair(rng, 0.02);
        let go = rng.range(0, 80) as i8;
        let ge = rng.range(1, 40) as i8;
        let go2 = rng.range((go as i64 + ge as i64 + 1).min(127), 127) as i8;
        let a = rng.range(1, 20) as i8;
        let b = rng.range(1, (go as i64 + ge as i64).min(60).max(1)) as i8;
        let f = random_flags(rng);
        let junc = if rng.chance(0.3) { None } else { Some(random_junc(rng, t.len(), f & flag::SPLICE_SCORE != 0)) };
        Case {
            q, t, m: 5, mat: mm2_matrix(a, b, 1), gap: (go, ge, go2, rng.range(-128, 127) as i8), zdrop: pick(rng, &[-1, 50, 400]),
            end_bonus: pick(rng, &[-1, 0, 30]), junc_bonus: rng.range(-128, 127) as i8, junc_pen: rng.range(-128, 127) as i8, flag: f, junc,
        }
    }
    assert!(check_many("int8 wrap", 22, 3000, gen).is_empty());
}

/// Degenerate inputs: empty sequences, m <= 1, q2 <= q + e, and the early return when no mismatch can win.
#[test]
fn trap_degenerate() {
    let mat = mm2_matrix(1, 2, 1);
    let q = [0u8, 1, 2, 3, 2, 3, 0, 2];
    let base = Case {
        q: q.to_vec(), t: q.to_vec(), m: 5, mat: mat.clone(), gap: (2, 1, 32, 9), zdrop: -1, end_bonus: 0, junc_bonus: 9,
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
    for (i, c) in cases.iter().enumerate() {
        let j = c.job();
        assert_eq!(twin_run(&j), oracle(&j), "degenerate case {i}\n{}", c.describe());
    }
}

// ---- speed ---------------------------------------------------------------------------------------------

#[test]
#[ignore]
fn bench_twin_vs_oracle() {
    let n = env_u64("KSW_TWIN_EXTS2_BENCH_JOBS", 300) as usize;
    let mut rng = Rng::new(99);
    let mat = mm2_matrix(1, 2, 1);
    let mut cases = Vec::with_capacity(n);
    for _ in 0..n {
        // a 300-1000 bp read piece with 1-3 introns of 50-1500 bp
        let mut q = Vec::new();
        let mut t = Vec::new();
        let n_exon = rng.range(2, 4);
        for i in 0..n_exon {
            let el = rng.range(100, 350) as usize;
            let ex = seq(&mut rng, el, 0.0, 4);
            q.extend_from_slice(&ex);
            t.extend_from_slice(&ex);
            if i + 1 < n_exon {
                let il = rng.range(50, 1500) as usize;
                t.extend(intron(&mut rng, il));
            }
        }
        let q = rng.mutate(&q, 0.03);
        let junc = vec![0u8; t.len()];
        cases.push(Case {
            q, t, m: 5, mat: mat.clone(), gap: (2, 1, 32, 9), zdrop: 200, end_bonus: -1, junc_bonus: 9, junc_pen: 5,
            flag: flag::SPLICE_FOR | flag::SPLICE_FLANK | flag::SPLICE_CMPLX, junc: Some(junc),
        });
    }
    let cells: f64 = cases.iter().map(|c| c.q.len() as f64 * c.t.len() as f64).sum();
    let only = std::env::var("KSW_TWIN_EXTS2_BENCH_MODE").unwrap_or_default();
    for (label, fl) in [("cigar", 0), ("cigar+approx", flag::APPROX_MAX), ("score-only", flag::SCORE_ONLY)] {
        if !only.is_empty() && only != label {
            continue;
        }
        let jobs: Vec<KswExts2Job> = cases.iter().map(|c| { let mut j = c.job(); j.flag |= fl; j }).collect();
        let t0 = Instant::now();
        let mut so = 0i64;
        for j in &jobs {
            so += oracle(j).2[6] as i64;
        }
        let to = t0.elapsed().as_secs_f64();
        let t1 = Instant::now();
        let mut st = 0i64;
        for j in &jobs {
            st += twin_run(j).2[6] as i64;
        }
        let tt = t1.elapsed().as_secs_f64();
        assert_eq!(so, st);
        eprintln!(
            "bench {label}: {n} spliced jobs ({:.2e} cells): oracle {to:.3}s ({:.2} GCUPS), twin {tt:.3}s ({:.2} GCUPS), twin/oracle time = {:.2}x",
            cells, cells / to / 1e9, cells / tt / 1e9, tt / to
        );
    }
}

extern "C" {
    #[link_name = "free"]
    fn libc_free(p: *mut std::ffi::c_void);
}
