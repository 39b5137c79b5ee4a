//! Twin of minimap2 2.31 `ksw_exts2_sse` (ksw2_exts2_sse.c, SSE4.1 build), bit-exact.
//!
//! Same frame as the extd2 twin (see extd2.rs: padded 16-lane band, stale `s[]` lanes in one zeroed
//! `s/sf/qr` image, int8 wrap-around, the 4-lane argmax, the traceback); the differences of exts2:
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
//! Both SPLICE_FOR and SPLICE_REV set: upstream asserts (aborts); the twin panics likewise.

use super::common::{
    approx_step, backtrack, exact_max, finish, give_traceback, ld, score_row, take_traceback, Ez, F_APPROX_DROP, F_APPROX_MAX, F_EXTZ_ONLY, F_GENERIC_SC, F_REV_CIGAR,
    F_RIGHT, F_SCORE_ONLY, NEG_INF, PAD,
};
use crate::ksw::{KswExts2Job, KswResult};

const F_SPLICE_FOR: i32 = 0x100;
const F_SPLICE_REV: i32 = 0x200;
const F_SPLICE_FLANK: i32 = 0x400;
const F_SPLICE_CMPLX: i32 = 0x800;
const F_SPLICE_SCORE: i32 = 0x1000;
const SPSC_OFFSET: i8 = 64;

/// Per-call constants of the core loop, as the `__m128i` broadcasts hold them (int8).
#[derive(Clone, Copy)]
struct K {
    q: i8,
    q2: i8,
    qe: i8,
}

/// The five difference arrays of one call, and the splice signals.
struct Diff {
    u: Vec<i8>,
    v: Vec<i8>,
    x: Vec<i8>,
    y: Vec<i8>,
    x2: Vec<i8>,
    don: Vec<i8>,
    acc: Vec<i8>,
}

/// One anti-diagonal of the core loop over the padded band `[st, en]`; MODE as in extd2 (0 score only, 1
/// left-aligned, 2 right-aligned gaps). Blocks are walked downwards with the boundary values written to
/// `st - 1` first (see extd2.rs `core` for why that is the same computation).
#[inline(always)]
fn core<const MODE: u8>(d: &mut Diff, s: &[u8], p: &mut [u8], st: usize, en: usize, x1: i8, x21: i8, v1: i8, k: K) {
    d.x[PAD + st - 1] = x1;
    d.x2[PAD + st - 1] = x21;
    d.v[PAD + st - 1] = v1;
    let nblk = (en + 1 - st) / 16;
    // n as a multiple of 16 lets the compiler prove every block in bounds (en + 1 - st is one already)
    let n = nblk * 16;
    // the band as local slices: cell st + i lives at [i] of the `u y don acc s` views and at [i + 1] of the
    // `x x2 v` views (which start at st - 1); keeps the array bases in registers and the bounds checks hoisted
    let (x, x2, v) = (&mut d.x[PAD + st - 1..][..n + 1], &mut d.x2[PAD + st - 1..][..n + 1], &mut d.v[PAD + st - 1..][..n + 1]);
    let (u, y) = (&mut d.u[st..][..n], &mut d.y[st..][..n]);
    let (dona, acca, s) = (&d.don[st..][..n], &d.acc[st..][..n], &s[st..][..n]);
    let p = if MODE != 0 { &mut p[..n] } else { p };
    for bi in (0..nblk).rev() {
        let b = bi * 16;
        let xt1 = ld(x, b);
        let x2t1 = ld(x2, b);
        let vt1 = ld(v, b);
        let uo = ld(u, b);
        let yo = ld(y, b);
        let don = ld(dona, b);
        let acc = ld(acca, b);
        let sz: [u8; 16] = s[b..b + 16].try_into().unwrap();
        let mut un = [0i8; 16];
        let mut vn = [0i8; 16];
        let mut xn = [0i8; 16];
        let mut yn = [0i8; 16];
        let mut x2n = [0i8; 16];
        let mut dn = [0u8; 16];
        for l in 0..16 {
            let mut z = sz[l] as i8;
            let mut a = xt1[l].wrapping_add(vt1[l]);
            let mut bb = yo[l].wrapping_add(uo[l]);
            let mut a2 = x2t1[l].wrapping_add(vt1[l]);
            let a2a = a2.wrapping_add(acc[l]);
            let mut dd: u8 = 0;
            if MODE == 0 {
                z = z.max(a).max(bb).max(a2a);
            } else if MODE == 1 {
                dd = if a > z { 1 } else { 0 };
                z = z.max(a);
                dd = if bb > z { 2 } else { dd };
                z = z.max(bb);
                dd = if a2a > z { 3 } else { dd };
                z = z.max(a2a);
            } else {
                dd = if z > a { 0 } else { 1 };
                z = z.max(a);
                dd = if z > bb { dd } else { 2 };
                z = z.max(bb);
                dd = if z > a2a { dd } else { 3 };
                z = z.max(a2a);
            }
            un[l] = z.wrapping_sub(vt1[l]);
            vn[l] = z.wrapping_sub(uo[l]);
            let tq = z.wrapping_sub(k.q);
            a = a.wrapping_sub(tq);
            bb = bb.wrapping_sub(tq);
            a2 = a2.wrapping_sub(z.wrapping_sub(k.q2));
            xn[l] = a.max(0).wrapping_sub(k.qe);
            yn[l] = bb.max(0).wrapping_sub(k.qe);
            x2n[l] = a2.max(don[l]).wrapping_sub(k.q2);
            if MODE == 1 {
                dd |= ((a > 0) as u8) << 3 | ((bb > 0) as u8) << 4 | ((a2 > don[l]) as u8) << 5;
            } else if MODE == 2 {
                dd |= ((a >= 0) as u8) << 3 | ((bb >= 0) as u8) << 4 | ((a2 >= don[l]) as u8) << 5;
            }
            dn[l] = dd;
        }
        u[b..b + 16].copy_from_slice(&un);
        v[b + 1..b + 17].copy_from_slice(&vn);
        x[b + 1..b + 17].copy_from_slice(&xn);
        y[b..b + 16].copy_from_slice(&yn);
        x2[b + 1..b + 17].copy_from_slice(&x2n);
        if MODE != 0 {
            p[b..b + 16].copy_from_slice(&dn);
        }
    }
}

/// Upstream's donor test at t on `(target[t+1], target[t+2], target[t+3])`: the index into `sp`, -1 for
/// 0 (a canonical site with the favoured flank).
fn donor_z(fwd: bool, rev: bool, rc: bool, b0: u8, b1: u8, b2: u8) -> i32 {
    let mut z = 3;
    if !rc {
        if fwd {
            if b0 == 2 && b1 == 3 {
                z = if b2 == 0 || b2 == 2 { -1 } else { 0 };
            } else if b0 == 2 && b1 == 1 {
                z = 1;
            } else if b0 == 0 && b1 == 3 {
                z = 2;
            }
        } else if rev {
            if b0 == 1 && b1 == 3 {
                z = if b2 == 0 || b2 == 2 { -1 } else { 0 };
            } else if b0 == 2 && b1 == 3 {
                z = 2;
            }
        }
    } else if fwd {
        if b0 == 2 && b1 == 0 {
            z = if b2 == 1 || b2 == 3 { -1 } else { 0 };
        } else if b0 == 1 && b1 == 0 {
            z = 2;
        }
    } else if rev {
        if b0 == 1 && b1 == 0 {
            z = if b2 == 1 || b2 == 3 { -1 } else { 0 };
        } else if b0 == 1 && b1 == 2 {
            z = 1;
        } else if b0 == 3 && b1 == 0 {
            z = 2;
        }
    }
    z
}

/// Upstream's acceptor test at t on `(target[t-2], target[t-1], target[t])`, as [`donor_z`].
fn acceptor_z(fwd: bool, rev: bool, rc: bool, a0: u8, a1: u8, a2: u8) -> i32 {
    let mut z = 3;
    if !rc {
        if fwd {
            if a1 == 0 && a2 == 2 {
                z = if a0 == 1 || a0 == 3 { -1 } else { 0 };
            } else if a1 == 0 && a2 == 1 {
                z = 2;
            }
        } else if rev {
            if a1 == 0 && a2 == 1 {
                z = if a0 == 1 || a0 == 3 { -1 } else { 0 };
            } else if a1 == 2 && a2 == 1 {
                z = 1;
            } else if a1 == 0 && a2 == 3 {
                z = 2;
            }
        }
    } else if fwd {
        if a1 == 3 && a2 == 2 {
            z = if a0 == 0 || a0 == 2 { -1 } else { 0 };
        } else if a1 == 1 && a2 == 2 {
            z = 1;
        } else if a1 == 3 && a2 == 0 {
            z = 2;
        }
    } else if rev {
        if a1 == 3 && a2 == 1 {
            z = if a0 == 0 || a0 == 2 { -1 } else { 0 };
        } else if a1 == 3 && a2 == 2 {
            z = 2;
        }
    }
    z
}

/// The donor and acceptor signal arrays (ksw2_exts2_sse.c, "set the donor and acceptor arrays" and the junc
/// adjustments), int8 with wrap-around, into `don` and `acc` (16 * ceil(tlen / 16) entries each, every one
/// written).
#[allow(clippy::too_many_arguments)]
pub(crate) fn splice_signals(flag: i32, target: &[u8], junc: Option<&[u8]>, noncan: i8, junc_bonus: i8, junc_pen: i8, don: &mut [i8], acc: &mut [i8]) {
    let tlen = target.len() as i32;
    don.fill(0);
    acc.fill(0);
    let fwd = flag & F_SPLICE_FOR != 0;
    let rev = flag & F_SPLICE_REV != 0;
    let rc = flag & F_REV_CIGAR != 0;
    if fwd || rev {
        let mut sp = [0i32; 4];
        if flag & F_SPLICE_CMPLX != 0 {
            let sp0 = [8.0f64, 15.0, 21.0, 30.0];
            for t in 0..4 {
                sp[t] = (sp0[t] / 3. + 0.499) as i32;
            }
        } else {
            let nc = noncan as i32;
            sp[0] = if flag & F_SPLICE_FLANK != 0 { nc / 2 } else { 0 };
            sp[1] = nc;
            sp[2] = nc;
            sp[3] = nc;
        }
        don.fill((-sp[3]) as i8);
        acc.fill((-sp[3]) as i8);
        // each signal depends on three consecutive target bases only, and values above 3 compare like 4:
        // upstream's tests are evaluated once per window into a 125-entry table
        let val = |z: i32| -> i8 { if z < 0 { 0 } else { (-sp[z as usize]) as i8 } };
        let (mut dtab, mut atab) = ([0i8; 125], [0i8; 125]);
        for w in 0..125 {
            let (b0, b1, b2) = ((w / 25) as u8, (w / 5 % 5) as u8, (w % 5) as u8);
            dtab[w] = val(donor_z(fwd, rev, rc, b0, b1, b2));
            atab[w] = val(acceptor_z(fwd, rev, rc, b0, b1, b2));
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
        if flag & F_SPLICE_SCORE != 0 {
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

/// Bit-exact twin of `ksw_exts2_sse` (SSE4.1 build). `out` is overwritten (not freed first); its CIGAR,
/// when `n_cigar > 0`, is `malloc`ed in ksw2's `len<<4|op` encoding (op 3 = N). `job.junc`, when not null,
/// covers `tlen` bytes.
pub fn exts2(job: &KswExts2Job, out: &mut KswResult) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { exts2_avx2(job, out) };
        }
        if std::arch::is_x86_feature_detected!("sse4.1") {
            // SAFETY: the CPU has SSE4.1.
            return unsafe { exts2_sse41(job, out) };
        }
    }
    exts2_body(job, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn exts2_avx2(job: &KswExts2Job, out: &mut KswResult) {
    exts2_body(job, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
unsafe fn exts2_sse41(job: &KswExts2Job, out: &mut KswResult) {
    exts2_body(job, out)
}

/// The twin proper; instantiated per instruction set (the integer results do not depend on it).
#[inline(always)]
fn exts2_body(job: &KswExts2Job, out: &mut KswResult) {
    let mut ez = Ez::reset();
    let (qlen, tlen, m) = (job.qlen, job.tlen, job.m as i32);
    let (q, e, q2) = (job.q, job.e, job.q2);
    let (qi, ei, q2i) = (q as i32, e as i32, q2 as i32);
    if m <= 1 || qlen <= 0 || tlen <= 0 || q2i <= qi + ei {
        return finish(&ez, &[], out);
    }
    let flag = job.flag;
    assert!(flag & F_SPLICE_FOR == 0 || flag & F_SPLICE_REV == 0, "ksw_exts2: SPLICE_FOR and SPLICE_REV both set");
    // SAFETY: the caller guarantees the job's pointers cover qlen, tlen, m*m and (junc) tlen elements.
    let (query, target, mat, junc) = unsafe {
        (
            std::slice::from_raw_parts(job.query, qlen as usize),
            std::slice::from_raw_parts(job.target, tlen as usize),
            std::slice::from_raw_parts(job.mat, (m * m) as usize),
            if job.junc.is_null() { None } else { Some(std::slice::from_raw_parts(job.junc, tlen as usize)) },
        )
    };
    let with_cigar = flag & F_SCORE_ONLY == 0;
    let approx_max = flag & F_APPROX_MAX != 0;
    let qe = qi + ei;
    let k = K { q, q2, qe: qe as i8 };
    let sc_mch = mat[0];
    let sc_mis = mat[1];
    let sc_n: i8 = if mat[(m * m - 1) as usize] == 0 { (-ei) as i8 } else { mat[(m * m - 1) as usize] };
    let m1 = (m - 1) as u8;

    let tlen_ = (tlen + 15) / 16;
    let n_col_ = ((if qlen < tlen { qlen } else { tlen }) + 15) / 16 + 1;
    let qlen_ = (qlen + 15) / 16;
    let mut min_sc = mat[1] as i32;
    for &v in &mat[1..] {
        min_sc = min_sc.min(v as i32);
    }
    if -min_sc > 2 * qe {
        return finish(&ez, &[], out);
    }
    let mut long_thres = (q2i - qi) / ei - 1;
    if q2i > qi + ei + long_thres * ei {
        long_thres += 1;
    }
    let long_diff = long_thres * ei - (q2i - qi);
    let bnd = |r: i32| -> i8 {
        (if r == 0 {
            -qi - ei
        } else if r < long_thres {
            -ei
        } else if r == long_thres {
            long_diff
        } else {
            0
        }) as i8
    };

    let tt16 = (tlen_ * 16) as usize;
    let neg_qe = (-qi - ei) as i8;
    let neg_q2 = (-q2i) as i8;
    let (mut don, mut acc) = (vec![0i8; tt16], vec![0i8; tt16]);
    splice_signals(flag, target, junc, job.noncan, job.junc_bonus, job.junc_pen, &mut don, &mut acc);
    let mut d = Diff {
        u: vec![neg_qe; tt16],
        v: vec![neg_qe; PAD + tt16],
        x: vec![neg_qe; PAD + tt16],
        y: vec![neg_qe; tt16],
        x2: vec![neg_q2; PAD + tt16],
        don,
        acc,
    };
    // s[], sf[] and qr[] as one image, as in the kcalloc block (qr has qlen_*16 bytes plus the 16 of the `+ 1`).
    let sf_off = tt16;
    let qr_off = 2 * tt16;
    let mut img = vec![0u8; qr_off + qlen_ as usize * 16 + 16];
    img[sf_off..sf_off + tlen as usize].copy_from_slice(target);
    for t in 0..qlen as usize {
        img[qr_off + t] = query[qlen as usize - 1 - t];
    }
    let mut h: Vec<i32> = if approx_max { Vec::new() } else { vec![NEG_INF; tt16] };
    let n_row = (qlen + tlen - 1) as usize;
    let row_bytes = n_col_ as usize * 16;
    let (mut p, mut off, mut off_end) = if with_cigar {
        (take_traceback(n_row * row_bytes + 16), vec![0i32; n_row], vec![0i32; n_row])
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    let (mut h0, mut last_h0_t) = (0i32, 0i32);
    let generic = flag & F_GENERIC_SC != 0;

    let (mut last_st, mut last_en) = (-1i32, -1i32);
    for r in 0..qlen + tlen - 1 {
        let mut st = 0i32;
        let mut en = tlen - 1;
        if st < r - qlen + 1 {
            st = r - qlen + 1;
        }
        if en > r {
            en = r;
        }
        let (st0, en0) = (st, en);
        st = st / 16 * 16;
        en = (en + 16) / 16 * 16 - 1;
        let (x1, x21, v1);
        if st > 0 {
            if st - 1 >= last_st && st - 1 <= last_en {
                let i = PAD + (st - 1) as usize;
                x1 = d.x[i];
                x21 = d.x2[i];
                v1 = d.v[i];
            } else {
                x1 = neg_qe;
                x21 = neg_q2;
                v1 = neg_qe;
            }
        } else {
            x1 = neg_qe;
            x21 = neg_q2;
            v1 = bnd(r);
        }
        if en >= r {
            let ru = r as usize;
            d.y[ru] = neg_qe;
            d.u[ru] = bnd(r);
        }
        // loop fission: scores first, into the s[]/sf[]/qr[] image
        // upstream's qr + (qlen - 1 - r) points before qr once r >= qlen (an offset, not a wrap-around)
        let qrr = (qr_off as isize + (qlen - 1 - r) as isize) as usize;
        if !generic {
            score_row(&mut img, sf_off, qrr, st0, en0, m1, sc_n, sc_mch, sc_mis);
        } else {
            for t in st0 as usize..=en0 as usize {
                img[t] = mat[img[sf_off + t] as usize * m as usize + img[qrr + t] as usize] as u8;
            }
        }
        let (st_, en_) = ((st / 16) as usize, (en / 16) as usize);
        assert!(en_ - st_ < n_col_ as usize);
        let (stu, enu) = (st as usize, en as usize);
        let s = &img[..tt16];
        if !with_cigar {
            core::<0>(&mut d, s, &mut [], stu, enu, x1, x21, v1, k);
        } else {
            let row = &mut p[r as usize * row_bytes..(r as usize + 1) * row_bytes];
            off[r as usize] = st;
            off_end[r as usize] = en;
            if flag & F_RIGHT == 0 {
                core::<1>(&mut d, s, row, stu, enu, x1, x21, v1, k);
            } else {
                core::<2>(&mut d, s, row, stu, enu, x1, x21, v1, k);
            }
        }
        let (u8a, v8a) = (&d.u[..], &d.v[PAD..]);
        if !approx_max {
            let (max_h, max_t);
            if r > 0 {
                (max_h, max_t) = exact_max(&mut h, u8a, v8a, st0, en0);
            } else {
                h[0] = v8a[0] as i32 - qe;
                max_h = h[0];
                max_t = 0;
            }
            if en0 == tlen - 1 && h[en0 as usize] > ez.mte {
                ez.mte = h[en0 as usize];
                ez.mte_q = r - en0;
            }
            if r - st0 == qlen - 1 && h[st0 as usize] > ez.mqe {
                ez.mqe = h[st0 as usize];
                ez.mqe_t = st0;
            }
            if ez.apply_zdrop(max_h, r, max_t, job.zdrop, 0) {
                break;
            }
            if r == qlen + tlen - 2 && en0 == tlen - 1 {
                ez.score = h[(tlen - 1) as usize];
            }
        } else {
            if r > 0 {
                approx_step(&mut h0, &mut last_h0_t, u8a, v8a, st0, en0);
            } else {
                h0 = v8a[0] as i32 - qe;
                last_h0_t = 0;
            }
            if flag & F_APPROX_DROP != 0 && ez.apply_zdrop(h0, r, last_h0_t, job.zdrop, 0) {
                break;
            }
            if r == qlen + tlen - 2 && en0 == tlen - 1 {
                ez.score = h0;
            }
        }
        last_st = st;
        last_en = en;
    }
    let mut cigar = Vec::new();
    if with_cigar {
        let rev = flag & F_REV_CIGAR != 0;
        if !ez.zdropped && flag & F_EXTZ_ONLY == 0 {
            cigar = backtrack(rev, long_thres, &p, &off, &off_end, row_bytes, tlen - 1, qlen - 1);
        } else if !ez.zdropped && flag & F_EXTZ_ONLY != 0 && ez.mqe.wrapping_add(job.end_bonus) > ez.max as i32 {
            ez.reach_end = 1;
            cigar = backtrack(rev, long_thres, &p, &off, &off_end, row_bytes, ez.mqe_t, qlen - 1);
        } else if ez.max_t >= 0 && ez.max_q >= 0 {
            cigar = backtrack(rev, long_thres, &p, &off, &off_end, row_bytes, ez.max_t, ez.max_q);
        }
        give_traceback(p);
    }
    finish(&ez, &cigar, out)
}
