//! LASTZ y-drop jobs shared by the ydrop tests and the fuzz binary: LASTZ-shaped and random 256x256
//! matrices, similar, repetitive and unrelated pairs, random gap costs (zero and negative open included),
//! small y-drops and traceback sizes that truncate. Also the oracle and twin runs, compared field by field.

use super::Rng;
use std::sync::Arc;
use warpalign::ydrop::dump::DumpedJob;
use warpalign::ydrop::{self, seg, YdropAlignment, YdropBounds, YdropJob, YdropResult, YdropSegment, NONE};
use warpalign_ffi::lastz as c;

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
    /// Earlier alignments the call sees; None: unconstrained.
    pub bounds: Option<Arc<Bounds>>,
}

impl Case {
    /// `a` and `b` are bases; each gets a NUL after it.
    pub fn new(a: &[u8], b: &[u8], matrix: Arc<Matrix>, gap_open: i32, gap_extend: i32, y_drop: i32) -> Case {
        let term = |s: &[u8]| s.iter().copied().chain([0]).collect();
        Case { a: term(a), b: term(b), matrix, gap_open, gap_extend, y_drop, trim_to_peak: 1, reversed: 0, tb_size: TB_DEFAULT, bounds: None }
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
            bounds: self.bounds.as_ref().map_or(std::ptr::null(), |b| &b.block),
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
            "{} O={} E={} Y={} trim={} rev={} tb={} M={} N={}\n  a={}\n  b={}{}",
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
            show(&self.b),
            self.bounds.as_ref().map_or(String::new(), |b| format!("\n  {b:?}"))
        )
    }
}

/// score, end1, end2, truncated, ops.
pub type Outcome = (i32, u32, u32, i32, Vec<u32>);

pub fn outcome(r: &mut YdropResult) -> Outcome {
    let o = (r.score, r.end1, r.end2, r.truncated, r.ops().to_vec());
    r.release();
    o
}

pub fn oracle(j: &YdropJob) -> Outcome {
    let mut r = YdropResult::EMPTY;
    oracle_one_sided(j, &mut r);
    outcome(&mut r)
}

/// The twin's spec sweep (one cell at a time).
pub fn twin(j: &YdropJob) -> Outcome {
    twin_by(j, ydrop::twin::Sweep::Spec)
}

/// The twin's row-parallel sweeps this CPU has (each the spec's where the call does not allow it): the
/// first whose outcome differs from `want`, if any.
pub fn vectors_differ(j: &YdropJob, want: &Outcome) -> Option<(ydrop::twin::Sweep, Outcome)> {
    ydrop::twin::Sweep::vectors().into_iter().map(|s| (s, twin_by(j, s))).find(|(_, o)| o != want)
}

pub fn twin_by(j: &YdropJob, sweep: ydrop::twin::Sweep) -> Outcome {
    let mut r = YdropResult::EMPTY;
    ydrop::twin::one_sided_by(j, &mut r, sweep).unwrap();
    checked_outcome(&mut r)
}

/// As [`outcome`], for the twin's and the GPU's results, which promise a null script when it is empty.
pub fn checked_outcome(r: &mut YdropResult) -> Outcome {
    assert!(r.n_ops > 0 || r.ops.is_null(), "empty script must be null");
    outcome(r)
}

/// What a dumped call returned to LASTZ.
pub fn recorded(j: &DumpedJob) -> Outcome {
    (j.score, j.end1, j.end2, j.truncated, j.ops.clone())
}

/// Oracle and twin (its spec sweep, then each vector sweep of this CPU) on a dumped call; the mismatching
/// side's name, if any. A stopped call has only the twin: LASTZ's own code cannot stop at a row (its next
/// record is the same call with a deeper block).
pub fn replay(j: &DumpedJob) -> Result<(), String> {
    let seq = j.sequences();
    let job = j.job(&seq);
    let (t, want) = (twin(&job), recorded(j));
    let o = if j.truncated == ydrop::TRUNC_BOUNDS { want.clone() } else { oracle(&job) };
    if let Some((sweep, v)) = vectors_differ(&job, &want) {
        return Err(format!("M={} N={}: recorded {:?}, {sweep:?} sweep {:?}", job.m, job.n, (want.0, want.1, want.2), (v.0, v.1, v.2)));
    }
    match (o == want, t == want) {
        (true, true) => Ok(()),
        (o_ok, t_ok) => Err(format!(
            "M={} N={} O={} E={} Y={} trim={} rev={} tb={}: recorded {:?}, oracle {}, twin {}",
            job.m, job.n, job.gap_open, job.gap_extend, job.y_drop, job.trim_to_peak, job.reversed, job.tb_size,
            (want.0, want.1, want.2, want.3, want.4.len()),
            if o_ok { "same".into() } else { format!("{:?}", (o.0, o.1, o.2, o.3, o.4.len())) },
            if t_ok { "same".into() } else { format!("{:?}", (t.0, t.1, t.2, t.3, t.4.len())) },
        )),
    }
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
    let y_drop = match rng.below(40) {
        0..=9 => gap_open + 300 * gap_extend,
        10..=19 => rng.range(0, 60) as i32,
        // (around the span the twin's 16-bit sweep admits)
        37.. => rng.range(20_000, 34_000) as i32,
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

/// A flat bounds block with the arrays it points into (kept together: `block` points into the vectors).
pub struct Bounds {
    pub segments: Vec<YdropSegment>,
    pub alignments: Vec<YdropAlignment>,
    pub block: YdropBounds,
}

impl std::fmt::Debug for Bounds {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let b = &self.block;
        write!(
            f,
            "anchor=({},{}) left={}/{} right={}/{} above={} below={}\n  alignments={:?}\n  segments={:?}",
            b.anchor1, b.anchor2, b.left_align, b.left_seg, b.right_align, b.right_seg, b.above_list, b.below_list,
            self.alignments, self.segments
        )
    }
}

// SAFETY: the block only points into the vectors it is kept with, which nothing mutates.
unsafe impl Send for Bounds {}
unsafe impl Sync for Bounds {}

/// The links of a bounds block, by index (the arrays come from the alignments' segment chains).
pub struct Links {
    pub anchor: (u32, u32),
    pub left: (u32, u32),
    pub right: (u32, u32),
    pub above: u32,
    pub below: u32,
}

impl Bounds {
    /// A block over `chains` (each alignment's segments, in order) with the given alignment links (`pos1`,
    /// `end1`, `first_seg`, `last_seg` are filled in from the chains) and entry links.
    pub fn new(chains: &[Vec<YdropSegment>], mut alignments: Vec<YdropAlignment>, links: &Links) -> Arc<Bounds> {
        let mut segments = Vec::new();
        for (k, (chain, a)) in chains.iter().zip(alignments.iter_mut()).enumerate() {
            a.first_seg = segments.len() as u32;
            a.pos1 = chain[0].b1;
            a.end1 = chain[chain.len() - 1].e1;
            segments.extend(chain.iter().map(|s| YdropSegment { owner: k as u32, ..*s }));
            a.last_seg = segments.len() as u32 - 1;
        }
        let block = YdropBounds {
            anchor1: links.anchor.0,
            anchor2: links.anchor.1,
            segments: segments.as_ptr(),
            n_segments: segments.len() as u32,
            alignments: alignments.as_ptr(),
            n_alignments: alignments.len() as u32,
            left_align: links.left.0,
            left_seg: links.left.1,
            right_align: links.right.0,
            right_seg: links.right.1,
            above_list: links.above,
            below_list: links.below,
            rows: u32::MAX,
        };
        let b = Bounds { segments, alignments, block };
        b.block.check().expect("generated bounds are well-formed");
        Arc::new(b)
    }
}

/// An alignment with no links yet.
pub fn unlinked() -> YdropAlignment {
    YdropAlignment {
        pos1: 0,
        end1: 0,
        first_seg: 0,
        last_seg: 0,
        left_align1: NONE,
        right_align1: NONE,
        left_align2: NONE,
        right_align2: NONE,
        left_seg1: NONE,
        right_seg1: NONE,
        left_seg2: NONE,
        right_seg2: NONE,
        next: NONE,
        prev: NONE,
    }
}

/// A segment chain as LASTZ's `format_alignment` builds it from diagonal runs (`diags[k]` bases) separated
/// by gaps (`gaps[k]`: positive, a horizontal gap of that many columns; negative, a vertical one), from
/// `(b1, b2)`.
pub fn chain(b1: u32, b2: u32, diags: &[u32], gaps: &[i32]) -> Vec<YdropSegment> {
    let mut out = Vec::new();
    let (mut p1, mut p2) = (b1, b2);
    for (k, &len) in diags.iter().enumerate() {
        out.push(YdropSegment { kind: seg::DIAG, b1: p1, b2: p2, e1: p1 + len - 1, e2: p2 + len - 1, owner: 0 });
        (p1, p2) = (p1 + len, p2 + len);
        if let Some(&g) = gaps.get(k) {
            let (kind, d1, d2) = if g > 0 { (seg::HORZ, 0, g as u32) } else { (seg::VERT, (-g) as u32, 0) };
            out.push(YdropSegment { kind, b1: p1, b2: p2, e1: p1 + d1 - 1, e2: p2 + d2 - 1, owner: 0 });
            (p1, p2) = (p1 + d1, p2 + d2);
        }
    }
    out
}

/// The segment of `chain` crossing row `p1` (the first ending at or after it, a horizontal one skipped) and
/// its signed column offset from `(p1, p2)` on that row, as LASTZ's `msp_left_right` measures it.
fn offset_on_row(segs: &[YdropSegment], first: usize, p1: u32, p2: u32) -> Option<(u32, i64)> {
    let mut k = (first..segs.len()).find(|&k| segs[k].e1 >= p1)?;
    if segs[k].kind == seg::HORZ {
        k += 1;
    }
    let s = segs.get(k)?;
    let x = s.b2 as i64 - p2 as i64 + if s.kind == seg::DIAG { p1 as i64 - s.b1 as i64 } else { 0 };
    Some((k as u32, x))
}

/// The nearest alignments (with their segment on row `p1`) left and right of `(p1, p2)`, skipping `skip`.
fn left_right(chains: &[Vec<YdropSegment>], p1: u32, p2: u32, skip: usize) -> ((u32, u32), (u32, u32)) {
    let (mut left, mut right) = ((NONE, NONE, i64::MIN), (NONE, NONE, i64::MAX));
    let mut base = 0u32;
    for (k, c) in chains.iter().enumerate() {
        if k != skip && c[0].b1 <= p1 && p1 <= c[c.len() - 1].e1 {
            if let Some((s, x)) = offset_on_row(c, 0, p1, p2) {
                if x < 0 && x > left.2 {
                    left = (k as u32, base + s, x);
                }
                if x > 0 && x < right.2 {
                    right = (k as u32, base + s, x);
                }
            }
        }
        base += c.len() as u32;
    }
    ((left.0, left.1), (right.0, right.1))
}

/// Random earlier alignments around the anchor of a `m` x `n` extension, linked as LASTZ links them (the
/// ordered lists, the neighbours at each alignment's ends and the anchor's), with some links scrambled.
pub fn random_bounds(rng: &mut Rng, m: u32, n: u32) -> Arc<Bounds> {
    let (anchor, chains) = random_chains(rng, m, n);
    link_bounds(rng, anchor, &chains)
}

/// The anchor and the segment chains of [`random_bounds`]' alignments.
pub fn random_chains(rng: &mut Rng, m: u32, n: u32) -> ((u32, u32), Vec<Vec<YdropSegment>>) {
    let span = m.max(n) as i64 + 20;
    let anchor = ((m as i64 + span + rng.range(0, 100)) as u32, (n as i64 + span + rng.range(0, 100)) as u32);
    let n_aligns = match rng.below(6) {
        0 => 0,
        1 => 1,
        _ => rng.range(2, 8) as usize,
    };
    let mut chains: Vec<Vec<YdropSegment>> = Vec::new();
    for _ in 0..n_aligns {
        let p1 = (anchor.0 as i64 + rng.range(-span, span)).max(0);
        // mostly near the anchor's diagonal, where LASTZ's bounds and masks bite
        let off = if rng.chance(0.7) { rng.range(-40, 40) } else { rng.range(-span, span) };
        let p2 = (p1 - anchor.0 as i64 + anchor.1 as i64 + off).max(0);
        let pieces = rng.range(1, 6) as usize;
        let diags: Vec<u32> = (0..pieces).map(|_| rng.range(1, (span / 3).max(2)) as u32).collect();
        let gaps: Vec<i32> =
            (1..pieces).map(|_| if rng.chance(0.5) { rng.range(1, 12) as i32 } else { -rng.range(1, 12) as i32 }).collect();
        chains.push(chain(p1 as u32, p2 as u32, &diags, &gaps));
    }
    (anchor, chains)
}

/// A block over these alignments, linked as LASTZ links them, with some links scrambled.
pub fn link_bounds(rng: &mut Rng, anchor: (u32, u32), chains: &[Vec<YdropSegment>]) -> Arc<Bounds> {
    let n_aligns = chains.len();
    let mut aligns: Vec<YdropAlignment> = chains.iter().map(|_| unlinked()).collect();
    // a neighbour link, scrambled now and then to reach odd paths
    let scramble = |rng: &mut Rng, link: (u32, u32)| -> (u32, u32) {
        if n_aligns > 0 && rng.chance(0.08) {
            let a = rng.below(n_aligns as u64) as u32;
            let base: u32 = chains[..a as usize].iter().map(|c| c.len() as u32).sum();
            let c = &chains[a as usize];
            let s = base + rng.below(c.len() as u64) as u32;
            if c[(s - base) as usize].kind == seg::HORZ {
                return (a, s + 1);
            }
            (a, s)
        } else {
            link
        }
    };
    for k in 0..n_aligns {
        let (first, last) = (chains[k][0], chains[k][chains[k].len() - 1]);
        let (l1, r1) = left_right(chains, first.b1, first.b2, k);
        let (l2, r2) = left_right(chains, last.e1, last.e2, k);
        let a = &mut aligns[k];
        ((a.left_align1, a.left_seg1), (a.right_align1, a.right_seg1)) = (scramble(rng, l1), scramble(rng, r1));
        ((a.left_align2, a.left_seg2), (a.right_align2, a.right_seg2)) = (scramble(rng, l2), scramble(rng, r2));
    }
    // orderBegInc (pos1 ascending) links `next`, orderEndDec (end1 descending) links `prev`
    let mut by_start: Vec<usize> = (0..n_aligns).collect();
    by_start.sort_by_key(|&k| chains[k][0].b1);
    let mut by_end: Vec<usize> = (0..n_aligns).collect();
    by_end.sort_by_key(|&k| std::cmp::Reverse(chains[k][chains[k].len() - 1].e1));
    for w in by_start.windows(2) {
        aligns[w[0]].next = w[1] as u32;
    }
    for w in by_end.windows(2) {
        aligns[w[0]].prev = w[1] as u32;
    }
    let above = by_start.iter().find(|&&k| chains[k][0].b1 > anchor.0).map_or(NONE, |&k| k as u32);
    let below = by_end.iter().find(|&&k| chains[k][chains[k].len() - 1].e1 < anchor.0).map_or(NONE, |&k| k as u32);
    let (left, right) = left_right(chains, anchor.0, anchor.1, usize::MAX);
    let links = Links {
        anchor,
        left: scramble(rng, left),
        right: scramble(rng, right),
        above: if rng.chance(0.05) { by_start.first().map_or(NONE, |&k| k as u32) } else { above },
        below: if rng.chance(0.05) { by_end.first().map_or(NONE, |&k| k as u32) } else { below },
    };
    Bounds::new(chains, aligns, &links)
}

/// A random case ([`random_case`]) with random earlier alignments around its anchor.
pub fn random_constrained_case(rng: &mut Rng, pool: &[Arc<Matrix>], max_len: usize) -> Case {
    let mut case = random_case(rng, pool, max_len);
    let (m, n) = (case.a.len() as u32 - 1, case.b.len() as u32 - 1);
    case.bounds = Some(random_bounds(rng, m, n));
    case
}

/// [`random_constrained_case`] and a block over some of its alignments (each kept with probability `keep`):
/// the earlier alignments known when the call was computed ahead.
pub fn random_constrained_case_with_snapshot(rng: &mut Rng, pool: &[Arc<Matrix>], max_len: usize, keep: f64) -> (Case, Arc<Bounds>) {
    let mut case = random_case(rng, pool, max_len);
    let (m, n) = (case.a.len() as u32 - 1, case.b.len() as u32 - 1);
    let (anchor, chains) = random_chains(rng, m, n);
    case.bounds = Some(link_bounds(rng, anchor, &chains));
    let known: Vec<_> = chains.into_iter().filter(|_| rng.chance(keep)).collect();
    (case, link_bounds(rng, anchor, &known))
}

// the shim's flat bounds types are ours field for field
const _: () = assert!(std::mem::size_of::<YdropBounds>() == std::mem::size_of::<c::warpalign_oracle_lastz_ydrop_bounds>());
const _: () = assert!(
    std::mem::size_of::<YdropAlignment>() == std::mem::size_of::<c::warpalign_oracle_lastz_ydrop_alignment>()
);
const _: () =
    assert!(std::mem::size_of::<YdropSegment>() == std::mem::size_of::<c::warpalign_oracle_lastz_ydrop_segment>());

/// LASTZ's own `ydrop_one_sided_align` (the oracle) on a job; same contract as the twin's `one_sided`. That
/// copy keeps file-static scratch (`tbRow`), so the shim serializes its calls.
pub fn oracle_one_sided(j: &YdropJob, out: &mut YdropResult) {
    // SAFETY: ydrop_out is plain data.
    let mut o: c::warpalign_oracle_lastz_ydrop_out = unsafe { std::mem::zeroed() };
    // The shim takes LASTZ's 1-based pointers (one byte before the first base); it never dereferences
    // A[0] or B[0], so wrapping_sub keeps this free of out-of-bounds pointer arithmetic on our side.
    // SAFETY: the job was checked; the shim locks its shared state, and ops is malloc'ed for us.
    unsafe {
        c::warpalign_oracle_lastz_ydrop_one_sided(
            j.a.wrapping_sub(1),
            j.b.wrapping_sub(1),
            j.m,
            j.n,
            j.reversed,
            j.trim_to_peak,
            j.sub,
            j.gap_open,
            j.gap_extend,
            j.y_drop,
            j.tb_size,
            j.bounds.cast(),
            &mut o,
        )
    };
    *out = YdropResult { score: o.score, end1: o.end1, end2: o.end2, truncated: o.truncated, n_ops: o.n_ops, ops: o.ops };
}
