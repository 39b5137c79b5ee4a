//! LASTZ y-drop jobs shared by the ydrop tests and the fuzz binary: LASTZ-shaped and random 256x256
//! matrices, similar, repetitive and unrelated pairs, random gap costs (zero and negative open included),
//! small y-drops and traceback sizes that truncate. Also the oracle and twin runs, compared field by field.

use super::Rng;
use std::sync::Arc;
use warpalign::ydrop::{self, YdropJob, YdropResult};

/// LASTZ's default traceback (`--allocate:traceback=80M`): `tback.size` cells.
pub const TB_DEFAULT: u32 = 80 * 1024 * 1024 - 7;

/// LASTZ's HOXD70 (dna_utilities.c).
pub const HOXD70: [[i32; 4]; 4] =
    [[91, -114, -31, -123], [-114, 100, -125, -31], [-31, -125, 100, -114], [-123, -31, -114, 91]];

/// LASTZ's `veryBadScore`: what its matrices score against byte 0.
pub const VERY_BAD: i32 = -107_374_182;

/// A 256x256 matrix shaped like LASTZ's default scoreset: `m` on ACGT in either case, `fill` against N/n,
/// `bad` for every other byte, and veryBadScore against byte 0.
pub fn lastz_matrix(m: &[[i32; 4]; 4], fill: i32, bad: i32) -> Vec<i32> {
    let idx = |c: u8| b"ACGT".iter().position(|&x| x == c.to_ascii_uppercase());
    let mut sub = vec![bad; 256 * 256];
    for x in 0..256usize {
        for y in 0..256usize {
            let (cx, cy) = (x as u8, y as u8);
            sub[x * 256 + y] = if x == 0 || y == 0 {
                VERY_BAD
            } else if let (Some(i), Some(j)) = (idx(cx), idx(cy)) {
                m[i][j]
            } else if cx.eq_ignore_ascii_case(&b'N') || cy.eq_ignore_ascii_case(&b'N') {
                fill
            } else {
                bad
            };
        }
    }
    sub
}

pub fn match_mismatch(a: i32, b: i32) -> [[i32; 4]; 4] {
    let mut m = [[-b; 4]; 4];
    for (i, row) in m.iter_mut().enumerate() {
        row[i] = a;
    }
    m
}

/// Every byte pair random in `lo..=hi`, with equal letters (either case) lifted by `bonus` so that similar
/// sequences still extend far.
pub fn random_matrix(rng: &mut Rng, lo: i32, hi: i32, bonus: i32) -> Vec<i32> {
    let mut sub = vec![0; 256 * 256];
    for x in 0..256usize {
        for y in 0..256usize {
            let same = (x as u8).eq_ignore_ascii_case(&(y as u8));
            sub[x * 256 + y] = rng.range(lo as i64, hi as i64) as i32 + if same { bonus } else { 0 };
        }
    }
    sub
}

/// A named matrix.
pub struct Matrix {
    pub name: String,
    pub sub: Vec<i32>,
}

/// LASTZ's HOXD70 default, `--match` scorings, and random matrices from `seed`.
pub fn matrix_pool(seed: u64, n_random: usize) -> Vec<Arc<Matrix>> {
    let mut pool = vec![
        Matrix { name: "HOXD70".into(), sub: lastz_matrix(&HOXD70, -100, -1000) },
        Matrix { name: "match1,2".into(), sub: lastz_matrix(&match_mismatch(1, 2), -1, -10) },
        Matrix { name: "match1,3".into(), sub: lastz_matrix(&match_mismatch(1, 3), 0, -10) },
        Matrix { name: "match10,10".into(), sub: lastz_matrix(&match_mismatch(10, 10), 0, -20) },
    ];
    let mut rng = Rng::new(seed);
    for k in 0..n_random {
        let (lo, hi, bonus) = match k % 3 {
            0 => (-150, 50, 120),
            1 => (-30, 10, 25),
            _ => (-1000, 1000, 300),
        };
        pool.push(Matrix { name: format!("random{k}({lo}..{hi}+{bonus})"), sub: random_matrix(&mut rng, lo, hi, bonus) });
    }
    pool.into_iter().map(Arc::new).collect()
}

/// One job with owned data. `a` and `b` hold the bases and one byte more (LASTZ reads `b[n]`).
#[derive(Clone)]
pub struct Case {
    pub a: Vec<u8>,
    pub b: Vec<u8>,
    pub matrix: Arc<Matrix>,
    pub gap_open: i32,
    pub gap_extend: i32,
    pub y_drop: i32,
    pub trim_to_peak: i32,
    pub reversed: i32,
    pub tb_size: u32,
}

impl Case {
    /// `a` and `b` are bases; each gets a NUL after it.
    pub fn new(a: &[u8], b: &[u8], matrix: Arc<Matrix>, gap_open: i32, gap_extend: i32, y_drop: i32) -> Case {
        let term = |s: &[u8]| s.iter().copied().chain([0]).collect();
        Case { a: term(a), b: term(b), matrix, gap_open, gap_extend, y_drop, trim_to_peak: 1, reversed: 0, tb_size: TB_DEFAULT }
    }

    pub fn job(&self) -> YdropJob {
        YdropJob {
            a: self.a.as_ptr(),
            m: self.a.len() as u32 - 1,
            b: self.b.as_ptr(),
            n: self.b.len() as u32 - 1,
            sub: self.matrix.sub.as_ptr(),
            gap_open: self.gap_open,
            gap_extend: self.gap_extend,
            y_drop: self.y_drop,
            trim_to_peak: self.trim_to_peak,
            reversed: self.reversed,
            tb_size: self.tb_size,
        }
    }

    pub fn describe(&self) -> String {
        let show = |s: &[u8]| {
            let t = String::from_utf8_lossy(&s[..s.len() - 1]).into_owned();
            if t.len() > 120 {
                format!("{}...({} bases)", &t[..120], s.len() - 1)
            } else {
                t
            }
        };
        format!(
            "{} O={} E={} Y={} trim={} rev={} tb={} M={} N={}\n  a={}\n  b={}",
            self.matrix.name,
            self.gap_open,
            self.gap_extend,
            self.y_drop,
            self.trim_to_peak,
            self.reversed,
            self.tb_size,
            self.a.len() - 1,
            self.b.len() - 1,
            show(&self.a),
            show(&self.b)
        )
    }
}

/// score, end1, end2, truncated, ops.
pub type Outcome = (i32, u32, u32, i32, Vec<u32>);

fn outcome(r: &mut YdropResult) -> Outcome {
    let o = (r.score, r.end1, r.end2, r.truncated, r.ops().to_vec());
    r.release();
    o
}

pub fn oracle(j: &YdropJob) -> Outcome {
    let mut r = YdropResult::EMPTY;
    ydrop::oracle::one_sided(j, &mut r);
    outcome(&mut r)
}

pub fn twin(j: &YdropJob) -> Outcome {
    let mut r = YdropResult::EMPTY;
    ydrop::twin::one_sided(j, &mut r);
    assert!(r.n_ops > 0 || r.ops.is_null(), "empty script must be null");
    outcome(&mut r)
}

fn bases(codes: &[u8]) -> Vec<u8> {
    codes.iter().map(|&c| b"ACGTN"[c.min(4) as usize]).collect()
}

/// Lowercase stretches (LASTZ's soft masking) and, rarely, other letters (IUPAC codes, X) and odd bytes.
fn decorate(rng: &mut Rng, s: &mut [u8]) {
    if !s.is_empty() && rng.chance(0.3) {
        let st = rng.below(s.len() as u64) as usize;
        let en = (st + rng.range(1, 400) as usize).min(s.len());
        s[st..en].make_ascii_lowercase();
    }
    if rng.chance(0.1) {
        for _ in 0..rng.range(1, 5) {
            if !s.is_empty() {
                let k = rng.below(s.len() as u64) as usize;
                s[k] = if rng.chance(0.5) { b"RYKMSWBDHVX"[rng.below(11) as usize] } else { rng.range(1, 255) as u8 };
            }
        }
    }
}

/// A short repeat unit tiled: ties in score everywhere.
fn periodic(rng: &mut Rng, len: usize) -> Vec<u8> {
    let unit_len = rng.range(1, 4) as usize;
    let unit = rng.nt4_seq(unit_len, 0.0);
    (0..len).map(|k| unit[k % unit.len()]).collect()
}

fn length(rng: &mut Rng, max: usize) -> usize {
    match rng.below(10) {
        0 => rng.range(0, max as i64) as usize,
        1..=3 => rng.range(0, 12) as usize,
        _ => rng.range(0, (max / 8) as i64) as usize,
    }
}

/// A random case up to `max_len` bases per sequence, its matrix from `pool`.
pub fn random_case(rng: &mut Rng, pool: &[Arc<Matrix>], max_len: usize) -> Case {
    let matrix = pool[rng.below(pool.len() as u64) as usize].clone();
    let gap_extend = match rng.below(20) {
        0 => 0,
        1..=4 => rng.range(1, 3) as i32,
        _ => rng.range(1, 60) as i32,
    };
    let gap_open = match rng.below(10) {
        0 => 0,
        1 => -rng.range(0, gap_extend as i64) as i32,
        _ => rng.range(0, 600) as i32,
    };
    let y_drop = match rng.below(4) {
        0 => gap_open + 300 * gap_extend,
        1 => rng.range(0, 60) as i32,
        _ => rng.range(0, 3000) as i32,
    };
    // a zero extension makes every row as wide as b: keep those small
    let max_len = if gap_extend == 0 || y_drop / gap_extend.max(1) > 1000 { max_len.min(400) } else { max_len };
    let (a_len, b_len) = (length(rng, max_len), length(rng, max_len));
    let a_codes = match rng.below(8) {
        0 => periodic(rng, a_len),
        _ => rng.nt4_seq(a_len, 0.003),
    };
    let b_codes = match rng.below(8) {
        0 => rng.nt4_seq(b_len, 0.003),
        1 => a_codes.clone(),
        2 => periodic(rng, b_len),
        _ => {
            let rate = [0.005, 0.02, 0.05, 0.1, 0.2, 0.3][rng.below(6) as usize];
            let mut b = rng.mutate(&a_codes, rate);
            if rng.chance(0.3) {
                b.truncate(rng.below(b.len() as u64 + 1) as usize);
                let tail = rng.range(0, max_len as i64 / 6) as usize;
                b.extend(rng.nt4_seq(tail, 0.0));
            }
            b
        }
    };
    let (mut a, mut b) = (bases(&a_codes), bases(&b_codes));
    decorate(rng, &mut a);
    decorate(rng, &mut b);
    let mut case = Case::new(&a, &b, matrix, gap_open, gap_extend, y_drop);
    case.trim_to_peak = rng.chance(0.5) as i32;
    case.reversed = rng.chance(0.5) as i32;
    // small tracebacks truncate mid-way, or (below yDropTail) before the first row
    let tail = if gap_extend != 0 { (y_drop / gap_extend + 6) as i64 } else { b.len() as i64 + 1 };
    case.tb_size = match rng.below(10) {
        0 => (tail + rng.range(0, (a.len() as i64 + 1) * (2 * tail).min(b.len() as i64 + 1))).max(0) as u32,
        1 => (tail + rng.range(-2, 3)).max(0) as u32,
        _ => TB_DEFAULT,
    };
    case
}
