//! Twin of minimap2 2.31 `ksw_extd2_sse` (ksw2_extd2_sse.c, SSE4.1 build), bit-exact.
//!
//! The model follows the vector code line by line:
//! - the six int8 difference arrays `u v x y x2 y2` (16 * ceil(tlen/16) bytes each) with wrap-around
//!   `add/sub_epi8` and signed `max/min_epi8`, computed over the whole *padded* band
//!   `[st, en] = [st0 & !15, (en0 & !15) + 15]` with the boundary values x1/x21/v1 chosen as the C code does
//!   (see `core` for the block order);
//! - the score array `s[]` keeps its bytes across anti-diagonals: the default scoring stores 16 bytes at a
//!   time from `st0` (unaligned), so lanes in `[st, st0)` keep stale scores of earlier anti-diagonals (or the
//!   kcalloc zero) and lanes past `en0` are scored from the bases past the band; both feed later cells and the
//!   traceback. `s`, `sf` (target) and `qr` (reversed query) are one zeroed image laid out as in the C
//!   allocation (stores past the end of `s` land in `sf[0..15]` as in C; tests show that what lanes at
//!   t >= tlen or j < 0 read does not matter, but the image makes it exact anyway);
//! - GENERIC_SC scores only `[st0, en0]`, one byte at a time;
//! - the exact per-anti-diagonal max reproduces the 4-lane `epi32` scan and its lane-order tie-break;
//! - `q + e` of the *unswapped* gap costs is used for `H` at r == 0 (`qe` is initialised before the swap);
//! - `min_sc` is taken over `mat[1..]` only; early return when `-min_sc > 2 (q + e)` (after the swap);
//! - band exhaustion (`st0 > en0`) is reported as a z-drop; z-drop uses `e2` (after the swap); `max` is the
//!   31-bit field of `ksw_extz_t` (promoted to int in `max - H`).
//!
//! Integer results do not depend on the instruction set; `extd2` picks an AVX2 or SSE4.1 instantiation of
//! the same code at run time only so that LLVM vectorises the 16-lane loops well.

use super::common::{
    approx_step, backtrack, exact_max, finish, give_traceback, ld, score_row, take_traceback, Ez, F_APPROX_DROP, F_APPROX_MAX, F_EXTZ_ONLY, F_GENERIC_SC, F_REV_CIGAR,
    F_RIGHT, F_SCORE_ONLY, NEG_INF, PAD,
};
use crate::ksw::{KswExtd2Job, KswResult};

/// Per-call constants of the core loop, as the `__m128i` broadcasts hold them (int8).
#[derive(Clone, Copy)]
struct K {
    q: i8,
    q2: i8,
    qe: i8,
    qe2: i8,
    mch: i8,
}

/// The six difference arrays of one call.
struct Diff {
    u: Vec<i8>,
    v: Vec<i8>,
    x: Vec<i8>,
    y: Vec<i8>,
    x2: Vec<i8>,
    y2: Vec<i8>,
}

/// One anti-diagonal of the core loop over the padded band `[st, en]` (16-aligned, whole blocks). MODE: 0 score
/// only, 1 left-aligned gaps, 2 right-aligned gaps (then `p` is this diagonal's traceback row, from `st`).
///
/// Cell t reads the old `x, x2, v` at t - 1 and the old `u, y, y2` at t, and writes all six at t. The SSE code
/// walks blocks upwards and carries lane 15 of each old block into lane 0 of the next (starting from the
/// boundary values x1, x21, v1). Here the blocks are walked downwards instead, so that `t - 1` still holds the
/// old value and the shifted vectors are plain unaligned loads; the boundary values are written to `st - 1`
/// first, a cell no later anti-diagonal reads (its band starts at or after `st`, and `st - 1` is outside
/// `[last_st, last_en]` whenever `st` stays). Same values, same order of operations per cell.
#[inline(always)]
fn core<const MODE: u8>(d: &mut Diff, s: &[u8], p: &mut [u8], st: usize, en: usize, x1: i8, x21: i8, v1: i8, k: K) {
    d.x[PAD + st - 1] = x1;
    d.x2[PAD + st - 1] = x21;
    d.v[PAD + st - 1] = v1;
    let nblk = (en + 1 - st) / 16;
    // n as a multiple of 16 lets the compiler prove every block in bounds (en + 1 - st is one already)
    let n = nblk * 16;
    // the band as local slices: cell st + i lives at [i] of the `u y y2 s` views and at [i + 1] of the
    // `x x2 v` views (which start at st - 1); keeps the array bases in registers and the bounds checks hoisted
    let (x, x2, v) = (&mut d.x[PAD + st - 1..][..n + 1], &mut d.x2[PAD + st - 1..][..n + 1], &mut d.v[PAD + st - 1..][..n + 1]);
    let (u, y, y2) = (&mut d.u[st..][..n], &mut d.y[st..][..n], &mut d.y2[st..][..n]);
    let s = &s[st..][..n];
    let p = if MODE != 0 { &mut p[..n] } else { p };
    for bi in (0..nblk).rev() {
        let b = bi * 16;
        let xt1 = ld(x, b);
        let x2t1 = ld(x2, b);
        let vt1 = ld(v, b);
        let uo = ld(u, b);
        let yo = ld(y, b);
        let y2o = ld(y2, b);
        let sz: [u8; 16] = s[b..b + 16].try_into().unwrap();
        let mut un = [0i8; 16];
        let mut vn = [0i8; 16];
        let mut xn = [0i8; 16];
        let mut yn = [0i8; 16];
        let mut x2n = [0i8; 16];
        let mut y2n = [0i8; 16];
        let mut dn = [0u8; 16];
        for l in 0..16 {
            let mut z = sz[l] as i8;
            let mut a = xt1[l].wrapping_add(vt1[l]);
            let mut bb = yo[l].wrapping_add(uo[l]);
            let mut a2 = x2t1[l].wrapping_add(vt1[l]);
            let mut b2 = y2o[l].wrapping_add(uo[l]);
            let mut dd: u8 = 0;
            if MODE == 0 {
                z = z.max(a).max(bb).max(a2).max(b2);
            } else if MODE == 1 {
                dd = if a > z { 1 } else { 0 };
                z = z.max(a);
                dd = if bb > z { 2 } else { dd };
                z = z.max(bb);
                dd = if a2 > z { 3 } else { dd };
                z = z.max(a2);
                dd = if b2 > z { 4 } else { dd };
                z = z.max(b2);
            } else {
                dd = if z > a { 0 } else { 1 };
                z = z.max(a);
                dd = if z > bb { dd } else { 2 };
                z = z.max(bb);
                dd = if z > a2 { dd } else { 3 };
                z = z.max(a2);
                dd = if z > b2 { dd } else { 4 };
                z = z.max(b2);
            }
            z = z.min(k.mch);
            un[l] = z.wrapping_sub(vt1[l]);
            vn[l] = z.wrapping_sub(uo[l]);
            let tq = z.wrapping_sub(k.q);
            a = a.wrapping_sub(tq);
            bb = bb.wrapping_sub(tq);
            let tq2 = z.wrapping_sub(k.q2);
            a2 = a2.wrapping_sub(tq2);
            b2 = b2.wrapping_sub(tq2);
            xn[l] = a.max(0).wrapping_sub(k.qe);
            yn[l] = bb.max(0).wrapping_sub(k.qe);
            x2n[l] = a2.max(0).wrapping_sub(k.qe2);
            y2n[l] = b2.max(0).wrapping_sub(k.qe2);
            if MODE == 1 {
                dd |= ((a > 0) as u8) << 3 | ((bb > 0) as u8) << 4 | ((a2 > 0) as u8) << 5 | ((b2 > 0) as u8) << 6;
            } else if MODE == 2 {
                dd |= ((a >= 0) as u8) << 3 | ((bb >= 0) as u8) << 4 | ((a2 >= 0) as u8) << 5 | ((b2 >= 0) as u8) << 6;
            }
            dn[l] = dd;
        }
        u[b..b + 16].copy_from_slice(&un);
        v[b + 1..b + 17].copy_from_slice(&vn);
        x[b + 1..b + 17].copy_from_slice(&xn);
        y[b..b + 16].copy_from_slice(&yn);
        x2[b + 1..b + 17].copy_from_slice(&x2n);
        y2[b..b + 16].copy_from_slice(&y2n);
        if MODE != 0 {
            p[b..b + 16].copy_from_slice(&dn);
        }
    }
}

/// Bit-exact twin of `ksw_extd2_sse` (SSE4.1 build). `out` is overwritten (not freed first); its CIGAR,
/// when `n_cigar > 0`, is `malloc`ed in ksw2's `len<<4|op` encoding.
pub fn extd2(job: &KswExtd2Job, out: &mut KswResult) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { extd2_avx2(job, out) };
        }
        if std::arch::is_x86_feature_detected!("sse4.1") {
            // SAFETY: the CPU has SSE4.1.
            return unsafe { extd2_sse41(job, out) };
        }
    }
    extd2_body(job, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn extd2_avx2(job: &KswExtd2Job, out: &mut KswResult) {
    extd2_body(job, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
unsafe fn extd2_sse41(job: &KswExtd2Job, out: &mut KswResult) {
    extd2_body(job, out)
}

/// The twin proper; instantiated per instruction set (the integer results do not depend on it).
#[inline(always)]
fn extd2_body(job: &KswExtd2Job, out: &mut KswResult) {
    let mut ez = Ez::reset();
    let (qlen, tlen, m) = (job.qlen, job.tlen, job.m as i32);
    if m <= 1 || qlen <= 0 || tlen <= 0 {
        return finish(&ez, &[], out);
    }
    // SAFETY: the caller guarantees the job's pointers cover qlen, tlen and m*m elements.
    let (query, target, mat) = unsafe {
        (
            std::slice::from_raw_parts(job.query, qlen as usize),
            std::slice::from_raw_parts(job.target, tlen as usize),
            std::slice::from_raw_parts(job.mat, (m * m) as usize),
        )
    };
    let flag = job.flag;
    let (mut q, mut e, mut q2, mut e2) = (job.q, job.e, job.q2, job.e2);
    let qe_h = q as i32 + e as i32; // `qe = q + e` is initialised before the swap
    let with_cigar = flag & F_SCORE_ONLY == 0;
    let approx_max = flag & F_APPROX_MAX != 0;
    if (q2 as i32 + e2 as i32) < q as i32 + e as i32 {
        std::mem::swap(&mut q, &mut q2);
        std::mem::swap(&mut e, &mut e2);
    }
    let (qi, ei, q2i, e2i) = (q as i32, e as i32, q2 as i32, e2 as i32);
    let k = K { q, q2, qe: (qi + ei) as i8, qe2: (q2i + e2i) as i8, mch: mat[0] };
    let sc_mis = mat[1];
    let sc_n: i8 = if mat[(m * m - 1) as usize] == 0 { (-e2i) as i8 } else { mat[(m * m - 1) as usize] };
    let m1 = (m - 1) as u8;

    let mut w = job.w;
    if w < 0 {
        w = if tlen > qlen { tlen } else { qlen };
    }
    let (wl, wr) = (w, w);
    let tlen_ = (tlen + 15) / 16;
    let mut n_col_ = if qlen < tlen { qlen } else { tlen };
    n_col_ = ((if n_col_ < w + 1 { n_col_ } else { w + 1 }) + 15) / 16 + 1;
    let qlen_ = (qlen + 15) / 16;
    let mut min_sc = mat[1] as i32;
    for &v in &mat[1..] {
        min_sc = min_sc.min(v as i32);
    }
    if -min_sc > 2 * (qi + ei) {
        return finish(&ez, &[], out);
    }
    let mut long_thres = if ei != e2i { (q2i - qi) / (ei - e2i) - 1 } else { 0 };
    if q2i + e2i + long_thres * e2i > qi + ei + long_thres * ei {
        long_thres += 1;
    }
    let long_diff = long_thres * (ei - e2i) - (q2i - qi) - e2i;
    let bnd = |r: i32| -> i8 {
        (if r == 0 {
            -qi - ei
        } else if r < long_thres {
            -ei
        } else if r == long_thres {
            long_diff
        } else {
            -e2i
        }) as i8
    };

    let tt16 = (tlen_ * 16) as usize;
    let neg_qe = (-qi - ei) as i8;
    let neg_qe2 = (-q2i - e2i) as i8;
    let mut d = Diff {
        u: vec![neg_qe; tt16],
        v: vec![neg_qe; PAD + tt16],
        x: vec![neg_qe; PAD + tt16],
        y: vec![neg_qe; tt16],
        x2: vec![neg_qe2; PAD + tt16],
        y2: vec![neg_qe2; tt16],
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
        if st < (r - wr + 1) >> 1 {
            st = (r - wr + 1) >> 1;
        }
        if en > (r + wl) >> 1 {
            en = (r + wl) >> 1;
        }
        if st > en {
            ez.zdropped = true;
            break;
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
                x21 = neg_qe2;
                v1 = neg_qe;
            }
        } else {
            x1 = neg_qe;
            x21 = neg_qe2;
            v1 = bnd(r);
        }
        if en >= r {
            let ru = r as usize;
            d.y[ru] = neg_qe;
            d.y2[ru] = neg_qe2;
            d.u[ru] = bnd(r);
        }
        // loop fission: scores first, into the s[]/sf[]/qr[] image
        // upstream's qr + (qlen - 1 - r) points before qr once r >= qlen (an offset, not a wrap-around)
        let qrr = (qr_off as isize + (qlen - 1 - r) as isize) as usize;
        if !generic {
            score_row(&mut img, sf_off, qrr, st0, en0, m1, sc_n, k.mch, sc_mis);
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
                h[0] = v8a[0] as i32 - qe_h;
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
            if ez.apply_zdrop(max_h, r, max_t, job.zdrop, e2) {
                break;
            }
            if r == qlen + tlen - 2 && en0 == tlen - 1 {
                ez.score = h[(tlen - 1) as usize];
            }
        } else {
            if r > 0 {
                approx_step(&mut h0, &mut last_h0_t, u8a, v8a, st0, en0);
            } else {
                h0 = v8a[0] as i32 - qe_h;
                last_h0_t = 0;
            }
            if flag & F_APPROX_DROP != 0 && ez.apply_zdrop(h0, r, last_h0_t, job.zdrop, e2) {
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
            cigar = backtrack(rev, 0, &p, &off, &off_end, row_bytes, tlen - 1, qlen - 1);
        } else if !ez.zdropped && flag & F_EXTZ_ONLY != 0 && ez.mqe.wrapping_add(job.end_bonus) > ez.max as i32 {
            ez.reach_end = 1;
            cigar = backtrack(rev, 0, &p, &off, &off_end, row_bytes, ez.mqe_t, qlen - 1);
        } else if ez.max_t >= 0 && ez.max_q >= 0 {
            cigar = backtrack(rev, 0, &p, &off, &off_end, row_bytes, ez.max_t, ez.max_q);
        }
        give_traceback(p);
    }
    finish(&ez, &cigar, out)
}
