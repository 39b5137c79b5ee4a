//! Twin of minimap2 2.31 `ksw_exts2_sse` (ksw2_exts2_sse.c, SSE4.1 build), bit-exact.
//!
//! Upstream's prologue, the splice signals and exts2's cells ([`Exts2`]); from the allocations on, the walk
//! shared with extd2 and extz2 (common.rs [`extend`]: padded 16-lane band, stale `s[]` lanes, int8
//! wrap-around, the 4-lane argmax, the traceback). The differences of exts2:
//! - no band: `[st0, en0] = [max(0, r - qlen + 1), min(tlen - 1, r)]`, never a band-exhaustion z-drop;
//! - early return also when `q2 <= q + e` (in `int`), and when `-min_sc > 2 (q + e)` (min over `mat[1..]`);
//! - three gap states: X, Y (`q, e`) and the intron state X2 (open `q2`, no extension; deletions only).
//!   `long_thres = (q2 - q) / e - 1`, `+1` if `q2 > q + e + long_thres * e`, `long_diff = long_thres * e -
//!   (q2 - q)`; the boundary `u/v` is `-q-e, -e.., long_diff, 0..` (int8);
//! - per cell: `a2 = x2[t-1] + v[t-1]`, `a2a = a2 + acceptor[t]` competes in the max (d = 3); **no**
//!   `min(z, mat[0])` clamp; `x2[t] = max(a2 - (z - q2), donor[t]) - q2`, bit 0x20 = `a2 > donor[t]`
//!   (RIGHT: `a2 >= donor[t]`). The SSE4.1 score-only path computes the same x2 (the SSE2 one differs);
//! - donor/acceptor: int8 per target position (16 * ceil(tlen/16), zero when neither SPLICE_FOR nor
//!   SPLICE_REV is set, else `-sp[3]` with the motif table values, mirrored under REV_CIGAR), then the junc
//!   adjustments (SPLICE_SCORE: scores from `junc[t+1]` for both arrays; else `+junc_bonus` at annotated
//!   sites), all with int8 wrap-around;
//! - `sc_N = mat[m*m-1] == 0 ? -e : mat[m*m-1]`; z-drop with `e = 0`; backtrack with `min_intron_len =
//!   long_thres` (state 3 and a long leading deletion become N).
//!
//! Both SPLICE_FOR and SPLICE_REV set: upstream asserts (aborts); the twin panics likewise.

use super::common::{beats, extend, min_sc, reset, slices, take, Cells, Gaps, LongEdge, Setup};
use crate::ksw::flag::{REV_CIGAR, SPLICE_CMPLX, SPLICE_FLANK, SPLICE_FOR, SPLICE_REV, SPLICE_SCORE};
use crate::ksw::{KswExts2Job, KswResult};
use crate::memory::{try_zeroed, OutOfMemory};

const SPSC_OFFSET: i8 = 64;

/// exts2's cells: the per-call constants of the core loop, as the `__m128i` broadcasts hold them (int8), and
/// the boundary of the first row and column.
struct Exts2 {
    q: i8,
    q2: i8,
    qe: i8,
    edge: LongEdge,
}

/// Sides: `[v, x, x2]` read at t - 1, `[u, y]` at t; the donor and acceptor signals are read at t.
impl Cells<3, 2, 2> for Exts2 {
    fn init(&self) -> ([i8; 3], [i8; 2]) {
        let qe = self.qe.wrapping_neg();
        ([qe, qe, self.q2.wrapping_neg()], [qe, qe])
    }

    fn first(&self, r: i32) -> i8 {
        self.edge.at(r)
    }

    /// `__dp_code_block1`, the max with its direction `d` (SSE4.1 path), `__dp_code_block2` and the stores.
    #[inline(always)]
    fn cell<const MODE: u8>(&self, s: u8, [vt1, xt1, x2t1]: [i8; 3], [ut, yt]: [i8; 2], [don, acc]: [i8; 2]) -> ([i8; 3], [i8; 2], u8) {
        let mut z = s as i8;
        let mut a = xt1.wrapping_add(vt1);
        let mut b = yt.wrapping_add(ut);
        let mut a2 = x2t1.wrapping_add(vt1);
        let a2a = a2.wrapping_add(acc);
        let mut d = 0;
        take::<MODE>(&mut z, &mut d, a, 1);
        take::<MODE>(&mut z, &mut d, b, 2);
        take::<MODE>(&mut z, &mut d, a2a, 3);
        let tq = z.wrapping_sub(self.q);
        a = a.wrapping_sub(tq);
        b = b.wrapping_sub(tq);
        a2 = a2.wrapping_sub(z.wrapping_sub(self.q2));
        if MODE != 0 {
            d |= (beats::<MODE>(a, 0) as u8) << 3 | (beats::<MODE>(b, 0) as u8) << 4 | (beats::<MODE>(a2, don) as u8) << 5;
        }
        let x = [z.wrapping_sub(ut), a.max(0).wrapping_sub(self.qe), a2.max(don).wrapping_sub(self.q2)];
        (x, [z.wrapping_sub(vt1), b.max(0).wrapping_sub(self.qe)], d)
    }
}

/// Upstream's splice motif tests of one site (0/1/2/3 = A/C/G/T): the two site bases, tested in order, and the
/// `sp` index each selects. The first is canonical: index 0, or no penalty (upstream's `z = -1`) when its
/// flanking base is one of `flank`. No match selects `sp[3]`.
struct Motifs {
    sites: &'static [([u8; 2], i32)],
    flank: [u8; 2],
}

/// `MOTIFS[REV_CIGAR][SPLICE_REV][acceptor]`: a donor's bases are `target[t+1..t+3]` flanked by `target[t+3]`,
/// an acceptor's `target[t-1..=t]` flanked by `target[t-2]`.
#[rustfmt::skip]
const MOTIFS: [[[Motifs; 2]; 2]; 2] = [[
    // |GTr |GC. |AT.; yAG| .AC|
    [Motifs { sites: &[([2, 3], 0), ([2, 1], 1), ([0, 3], 2)], flank: [0, 2] }, Motifs { sites: &[([0, 2], 0), ([0, 1], 2)], flank: [1, 3] }],
    // |CT. |GT. (revcomp of .AG| .AC|); yAC| .GC| .AT| (revcomp of |GT. |GC. |AT.)
    [Motifs { sites: &[([1, 3], 0), ([2, 3], 2)], flank: [0, 2] }, Motifs { sites: &[([0, 1], 0), ([2, 1], 1), ([0, 3], 2)], flank: [1, 3] }],
], [
    // |GA. |CA. (rev of .AG| .AC|); .TG| .CG| .TA| (rev of |GT. |GC. |AT.)
    [Motifs { sites: &[([2, 0], 0), ([1, 0], 2)], flank: [1, 3] }, Motifs { sites: &[([3, 2], 0), ([1, 2], 1), ([3, 0], 2)], flank: [0, 2] }],
    // |CA. |CG. |TA. (comp of |GT. |GC. |AT.); .TC| .TG| (comp of .AG| .AC|)
    [Motifs { sites: &[([1, 0], 0), ([1, 2], 1), ([3, 0], 2)], flank: [1, 3] }, Motifs { sites: &[([3, 1], 0), ([3, 2], 2)], flank: [0, 2] }],
]];

impl Motifs {
    /// Upstream's `z` for the site bases `pair` flanked by `flank`: the index into `sp`, -1 for no penalty.
    fn z(&self, pair: [u8; 2], flank: u8) -> i32 {
        match self.sites.iter().position(|&(s, _)| s == pair) {
            Some(0) if self.flank.contains(&flank) => -1,
            Some(i) => self.sites[i].1,
            None => 3,
        }
    }
}

/// The donor and acceptor signal arrays (ksw2_exts2_sse.c, "set the donor and acceptor arrays" and the junc
/// adjustments), int8 with wrap-around, into `don` and `acc` (16 * ceil(tlen / 16) entries each, every one
/// written).
#[allow(clippy::too_many_arguments)]
pub(crate) fn splice_signals(flag: i32, target: &[u8], junc: Option<&[u8]>, noncan: i8, junc_bonus: i8, junc_pen: i8, don: &mut [i8], acc: &mut [i8]) {
    let tlen = target.len() as i32;
    don.fill(0);
    acc.fill(0);
    let fwd = flag & SPLICE_FOR != 0;
    let rev = flag & SPLICE_REV != 0;
    let rc = flag & REV_CIGAR != 0;
    if fwd || rev {
        let mut sp = [0i32; 4];
        if flag & SPLICE_CMPLX != 0 {
            let sp0 = [8.0f64, 15.0, 21.0, 30.0];
            for t in 0..4 {
                sp[t] = (sp0[t] / 3. + 0.499) as i32;
            }
        } else {
            let nc = noncan as i32;
            sp[0] = if flag & SPLICE_FLANK != 0 { nc / 2 } else { 0 };
            sp[1] = nc;
            sp[2] = nc;
            sp[3] = nc;
        }
        don.fill((-sp[3]) as i8);
        acc.fill((-sp[3]) as i8);
        // each signal depends on three consecutive target bases only, and values above 3 compare like 4:
        // upstream's tests are evaluated once per window into a 125-entry table
        let val = |z: i32| -> i8 { if z < 0 { 0 } else { (-sp[z as usize]) as i8 } };
        let [donor, acceptor] = &MOTIFS[rc as usize][!fwd as usize];
        let (mut dtab, mut atab) = ([0i8; 125], [0i8; 125]);
        for w in 0..125 {
            let (b0, b1, b2) = ((w / 25) as u8, (w / 5 % 5) as u8, (w % 5) as u8);
            dtab[w] = val(donor.z([b0, b1], b2));
            atab[w] = val(acceptor.z([b1, b2], b0));
        }
        let win = |w: &[u8]| w[0].min(4) as usize * 25 + w[1].min(4) as usize * 5 + w[2].min(4) as usize;
        if tlen > 4 {
            // don[t] from target[t+1..t+4], t < tlen - 4
            for (d, w) in don.iter_mut().zip(target[1..tlen as usize - 1].windows(3)) {
                *d = dtab[win(w)];
            }
        }
        if tlen > 2 {
            // acc[t] from target[t-2..t+1], t >= 2
            for (a, w) in acc[2..].iter_mut().zip(target.windows(3)) {
                *a = atab[win(w)];
            }
        }
    }
    if let Some(junc) = junc {
        let tl = tlen as usize;
        if flag & SPLICE_SCORE != 0 {
            // junc[] keeps the donor score
            let donor_val: u8 = if fwd == !rc { 0 } else { 1 };
            let adj = |j: u8, want: u8| -> i32 {
                if j == 0xff || (j & 1) != want {
                    -(junc_pen as i32)
                } else {
                    ((j >> 1) as i8 as i32) - SPSC_OFFSET as i32
                }
            };
            for t in 0..tl.saturating_sub(1) {
                don[t] = (don[t] as i32 + adj(junc[t + 1], donor_val)) as i8;
            }
            for t in 0..tl.saturating_sub(1) {
                acc[t] = (acc[t] as i32 + adj(junc[t + 1], (donor_val == 0) as u8)) as i8;
            }
        } else {
            let jb = junc_bonus;
            let (dm_f, dm_r, am_f, am_r) = if !rc { (1u8, 8u8, 2u8, 4u8) } else { (2, 4, 1, 8) };
            for t in 0..tl.saturating_sub(1) {
                let j = junc[t + 1];
                if (fwd && j & dm_f != 0) || (rev && j & dm_r != 0) {
                    don[t] = don[t].wrapping_add(jb);
                }
            }
            for t in 0..tl {
                let j = junc[t];
                if (fwd && j & am_f != 0) || (rev && j & am_r != 0) {
                    acc[t] = acc[t].wrapping_add(jb);
                }
            }
        }
    }
}

/// exts2's prologue on a job with `m > 1`, positive lengths and `q2 > q + e` (`mat`: its `m * m` scores); None
/// where upstream returns at once (`-min_sc > 2 (q + e)`). `e == 0` divides by zero, as upstream does.
pub(crate) fn exts2_gaps(job: &KswExts2Job, mat: &[i8]) -> Option<Gaps> {
    let (qi, ei, q2i) = (job.q as i32, job.e as i32, job.q2 as i32);
    let last = mat[mat.len() - 1];
    let sc_n: i8 = if last == 0 { (-ei) as i8 } else { last };
    if -min_sc(mat[1], mat) > 2 * (qi + ei) {
        return None;
    }
    let mut long_thres = (q2i - qi) / ei - 1;
    if q2i > qi + ei + long_thres * ei {
        long_thres += 1;
    }
    let long_diff = long_thres * ei - (q2i - qi);
    Some(Gaps { q: job.q, e: job.e, q2: job.q2, e2: 0, qe_h: qi + ei, sc_n, long_thres, long_diff, min_intron_len: long_thres })
}

/// Bit-exact twin of `ksw_exts2_sse` (SSE4.1 build). `out` is overwritten (not freed first); its CIGAR,
/// when `n_cigar > 0`, is `malloc`ed in ksw2's `len<<4|op` encoding (op 3 = N). `job.junc`, when not null,
/// covers `tlen` bytes. Out of memory: as [`super::extd2`].
pub fn exts2(job: &KswExts2Job, out: &mut KswResult) -> Result<(), OutOfMemory> {
    reset(out);
    let (qlen, tlen, m) = (job.qlen, job.tlen, job.m as i32);
    if m <= 1 || qlen <= 0 || tlen <= 0 || job.q2 as i32 <= job.q as i32 + job.e as i32 {
        return Ok(());
    }
    let flag = job.flag;
    assert!(flag & SPLICE_FOR == 0 || flag & SPLICE_REV == 0, "ksw_exts2: SPLICE_FOR and SPLICE_REV both set");
    // SAFETY: the caller guarantees the job's pointers cover qlen, tlen, m*m and (junc) tlen elements.
    let (query, target, mat) = unsafe { slices(job.query, qlen, job.target, tlen, job.mat, m) };
    let junc = (!job.junc.is_null()).then(|| unsafe { std::slice::from_raw_parts(job.junc, tlen as usize) });
    let Some(g) = exts2_gaps(job, mat) else { return Ok(()) };
    let qe = g.qe_h;
    let edge = LongEdge { qe, e: g.e as i32, long_thres: g.long_thres, long_diff: g.long_diff, tail: 0 };
    let c = Exts2 { q: g.q, q2: g.q2, qe: qe as i8, edge };

    let tt16 = ((tlen + 15) / 16 * 16) as usize;
    let (mut don, mut acc) = (try_zeroed::<i8>(tt16)?, try_zeroed::<i8>(tt16)?);
    splice_signals(flag, target, junc, job.noncan, job.junc_bonus, job.junc_pen, &mut don, &mut acc);
    let setup = Setup {
        query,
        target,
        mat,
        m,
        sc: [mat[0], mat[1], g.sc_n],
        w: None,
        flag,
        zdrop: job.zdrop,
        zdrop_e: 0,
        end_bonus: job.end_bonus,
        qe,
        min_intron_len: g.min_intron_len,
    };
    extend(&c, [don, acc], &setup, out)
}
