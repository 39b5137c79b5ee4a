//! Twin of minimap2 2.31 `ksw_extz2_sse` (ksw2_extz2_sse.c, SSE4.1 build), bit-exact.
//!
//! Same frame as the extd2 twin (see extd2.rs: padded 16-lane band over `[st, en]`, stale `s[]` lanes in one
//! zeroed `s/sf/qr` image, the 4-lane argmax, band exhaustion reported as a z-drop, the traceback). The
//! differences of extz2 (single affine gap `q, e`), each visible below where extd2 does otherwise:
//! - **biased, unsigned differences.** `u v x y` hold the differences plus `q + e` (so that they are >= 0 in
//!   the intended range); they start at 0 (kcalloc, no fill), the boundary is `x1 = 0, v1 = r ? q : 0` and
//!   `y[r] = 0, u[r] = r ? q : 0`, and `s[t] + 2 (q + e)` enters the max (int8 wrap-around on all of them);
//! - **mixed signed/unsigned max.** Per cell `z = max_epi8(s + qe2, a)` (signed), then `max_epu8(z, b)` and
//!   `min_epu8(z, mat[0] + qe2)` (unsigned), while the traceback's `a > z`, `b > z`, `a > 0`, `b > 0` are
//!   signed compares; `x = max_epi8(a - (z - q), 0)`. Equal only while no byte reaches 128;
//! - **H in `int` from `uint8_t`.** `H += (uint8_t)v - qe` (and `(uint8_t)u - qe`), `H[0] = v[0] - 2 qe` at
//!   r == 0; the approximate max compares `v - qe` with `u - qe` on the same unsigned bytes;
//! - **sign-extended boundary.** extz2 passes `int8_t x1, v1` to `_mm_cvtsi32_si128` without the `(uint8_t)`
//!   cast that extd2/exts2 have: a negative `v1` (`v[st-1] >= 128`, or `q < 0` at st == 0) sign-extends and
//!   ORs 0xff into lanes 1..3 of the first block's shifted `v` (x is never negative: `x >= 0` by the max);
//! - `m <= 0` (not `m <= 1`) returns early, so m == 1 runs, and reads `mat[1]` (`sc_mis`, the first
//!   `min_sc`) past its 1-element matrix as upstream does; early return when `-min_sc > 2 (q + e)`;
//! - `sc_N = -e` when `mat[m*m-1] == 0`; z-drop uses `e`; with APPROX_MAX | APPROX_DROP the z-drop test runs
//!   only for r > 0 (extd2 runs it at r == 0 too), so `max_t/max_q` stay -1 after the first anti-diagonal.
//!
//! Integer results do not depend on the instruction set; `extz2` picks an AVX2 or SSE4.1 instantiation of
//! the same code at run time only so that LLVM vectorises the 16-lane loops well.

use super::common::{
    approx_step_by, backtrack, exact_max_by, finish, give_traceback, ld, score_row, take_traceback, Ez, F_APPROX_DROP, F_APPROX_MAX, F_EXTZ_ONLY, F_GENERIC_SC,
    F_REV_CIGAR, F_RIGHT, F_SCORE_ONLY, NEG_INF, PAD,
};
use crate::ksw::{KswExtz2Job, KswResult};

/// Per-call constants of the core loop, as the `__m128i` broadcasts hold them (int8).
#[derive(Clone, Copy)]
struct K {
    q: i8,
    /// `(q + e) * 2`, truncated to int8
    qe2: i8,
    /// `mat[0] + (q + e) * 2`, truncated; compared unsigned
    max_sc: u8,
}

/// The four (biased) difference arrays of one call.
struct Diff {
    u: Vec<i8>,
    v: Vec<i8>,
    x: Vec<i8>,
    y: Vec<i8>,
}

/// One anti-diagonal of the core loop over the padded band `[st, en]` (16-aligned, whole blocks). MODE: 0 score
/// only, 1 left-aligned gaps, 2 right-aligned gaps (then `p` is this diagonal's traceback row, from `st`).
/// Blocks are walked downwards with the boundary values written to `st - 1` first (see extd2.rs `core` for
/// why that is the same computation); the first block also gets upstream's sign-extended boundary lanes.
#[inline(always)]
fn core<const MODE: u8>(d: &mut Diff, s: &[u8], p: &mut [u8], st: usize, en: usize, x1: i8, v1: i8, k: K) {
    d.x[PAD + st - 1] = x1;
    d.v[PAD + st - 1] = v1;
    let nblk = (en + 1 - st) / 16;
    let n = nblk * 16;
    // cell st + i lives at [i] of the `u y s` views and at [i + 1] of the `x v` views (which start at st - 1)
    let (x, v) = (&mut d.x[PAD + st - 1..][..n + 1], &mut d.v[PAD + st - 1..][..n + 1]);
    let (u, y) = (&mut d.u[st..][..n], &mut d.y[st..][..n]);
    let s = &s[st..][..n];
    let p = if MODE != 0 { &mut p[..n] } else { p };
    for bi in (0..nblk).rev() {
        let b = bi * 16;
        let mut xt1 = ld(x, b);
        let mut vt1 = ld(v, b);
        if bi == 0 {
            // `xt1 = slli(x[t], 1) | _mm_cvtsi32_si128(x1)` with x1 an int8_t: negative, it fills lanes 1..3 too
            if x1 < 0 {
                xt1[1..4].fill(-1);
            }
            if v1 < 0 {
                vt1[1..4].fill(-1);
            }
        }
        let uo = ld(u, b);
        let yo = ld(y, b);
        let sz: [u8; 16] = s[b..b + 16].try_into().unwrap();
        let mut un = [0i8; 16];
        let mut vn = [0i8; 16];
        let mut xn = [0i8; 16];
        let mut yn = [0i8; 16];
        let mut dn = [0u8; 16];
        for l in 0..16 {
            let z0 = (sz[l] as i8).wrapping_add(k.qe2);
            let mut a = xt1[l].wrapping_add(vt1[l]);
            let ut = uo[l];
            let mut bb = yo[l].wrapping_add(ut);
            let mut dd: u8 = 0;
            let mut z = z0.max(a); // _mm_max_epi8 (signed)
            if MODE == 1 {
                dd = if a > z0 { 1 } else { 0 };
                dd = if bb > z { 2 } else { dd };
            } else if MODE == 2 {
                dd = if z0 > a { 0 } else { 1 };
                dd = if z > bb { dd } else { 2 };
            }
            // _mm_max_epu8, _mm_min_epu8 (unsigned)
            z = (z as u8).max(bb as u8).min(k.max_sc) as i8;
            un[l] = z.wrapping_sub(vt1[l]);
            vn[l] = z.wrapping_sub(ut);
            let zq = z.wrapping_sub(k.q);
            a = a.wrapping_sub(zq);
            bb = bb.wrapping_sub(zq);
            xn[l] = a.max(0);
            yn[l] = bb.max(0);
            if MODE == 1 {
                dd |= ((a > 0) as u8) << 3 | ((bb > 0) as u8) << 4;
            } else if MODE == 2 {
                dd |= ((a >= 0) as u8) << 3 | ((bb >= 0) as u8) << 4;
            }
            dn[l] = dd;
        }
        u[b..b + 16].copy_from_slice(&un);
        v[b + 1..b + 17].copy_from_slice(&vn);
        x[b + 1..b + 17].copy_from_slice(&xn);
        y[b..b + 16].copy_from_slice(&yn);
        if MODE != 0 {
            p[b..b + 16].copy_from_slice(&dn);
        }
    }
}

/// Bit-exact twin of `ksw_extz2_sse` (SSE4.1 build). `out` is overwritten (not freed first); its CIGAR,
/// when `n_cigar > 0`, is `malloc`ed in ksw2's `len<<4|op` encoding.
pub fn extz2(job: &KswExtz2Job, out: &mut KswResult) {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { extz2_avx2(job, out) };
        }
        if std::arch::is_x86_feature_detected!("sse4.1") {
            // SAFETY: the CPU has SSE4.1.
            return unsafe { extz2_sse41(job, out) };
        }
    }
    extz2_body(job, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn extz2_avx2(job: &KswExtz2Job, out: &mut KswResult) {
    extz2_body(job, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
unsafe fn extz2_sse41(job: &KswExtz2Job, out: &mut KswResult) {
    extz2_body(job, out)
}

/// The twin proper; instantiated per instruction set (the integer results do not depend on it).
#[inline(always)]
fn extz2_body(job: &KswExtz2Job, out: &mut KswResult) {
    let mut ez = Ez::reset();
    let (qlen, tlen, m) = (job.qlen, job.tlen, job.m as i32);
    if m <= 0 || qlen <= 0 || tlen <= 0 {
        return finish(&ez, &[], out);
    }
    // SAFETY: the caller guarantees the job's pointers cover qlen, tlen and m*m elements; `mat[1]` is read
    // as upstream reads it (sc_mis_, min_sc), also when m == 1.
    let (query, target, mat, mat1) = unsafe {
        (
            std::slice::from_raw_parts(job.query, qlen as usize),
            std::slice::from_raw_parts(job.target, tlen as usize),
            std::slice::from_raw_parts(job.mat, (m * m) as usize),
            *job.mat.add(1),
        )
    };
    let flag = job.flag;
    let (q, e) = (job.q, job.e);
    let (qi, ei) = (q as i32, e as i32);
    let qe = qi + ei; // int, not wrapped
    let with_cigar = flag & F_SCORE_ONLY == 0;
    let approx_max = flag & F_APPROX_MAX != 0;
    let k = K { q, qe2: (qe * 2) as i8, max_sc: (mat[0] as i32 + qe * 2) as u8 };
    let sc_mis = mat1;
    let sc_n: i8 = if mat[(m * m - 1) as usize] == 0 { (-ei) as i8 } else { mat[(m * m - 1) as usize] };
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
    let mut min_sc = mat1 as i32;
    for &v in &mat[1..] {
        min_sc = min_sc.min(v as i32);
    }
    if -min_sc > 2 * qe {
        return finish(&ez, &[], out);
    }

    let tt16 = (tlen_ * 16) as usize;
    // kcalloc: all four start at 0 (the bias makes 0 mean "difference -(q + e)")
    let mut d = Diff { u: vec![0; tt16], v: vec![0; PAD + tt16], x: vec![0; PAD + tt16], y: vec![0; tt16] };
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
    // the H increment of one biased byte: `(int32_t)((uint8_t*)v)[t] - qe`
    let dq = move |b: i8| b as u8 as i32 - qe;

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
        let (x1, v1): (i8, i8);
        if st > 0 {
            if st - 1 >= last_st && st - 1 <= last_en {
                let i = PAD + (st - 1) as usize;
                x1 = d.x[i];
                v1 = d.v[i];
            } else {
                x1 = 0;
                v1 = 0;
            }
        } else {
            x1 = 0;
            v1 = if r != 0 { q } else { 0 };
        }
        if en >= r {
            let ru = r as usize;
            d.y[ru] = 0;
            d.u[ru] = if r != 0 { q } else { 0 };
        }
        // loop fission: scores first, into the s[]/sf[]/qr[] image
        // upstream's qr + (qlen - 1 - r) points before qr once r >= qlen (an offset, not a wrap-around)
        let qrr = (qr_off as isize + (qlen - 1 - r) as isize) as usize;
        if !generic {
            score_row(&mut img, sf_off, qrr, st0, en0, m1, sc_n, mat[0], sc_mis);
        } else {
            // `s[t] = mat[sf[t] * m + qrr[t]]` over [st0, en0] only; s and sf/qr as disjoint slices of the image
            let (a, b) = (st0 as usize, en0 as usize + 1);
            let (s_img, rest) = img.split_at_mut(sf_off);
            let (sf, qr) = (&rest[a..b], &rest[qrr - sf_off + a..qrr - sf_off + b]);
            for ((o, &tb), &qb) in s_img[a..b].iter_mut().zip(sf).zip(qr) {
                *o = mat[tb as usize * m as usize + qb as usize] as u8;
            }
        }
        let (st_, en_) = ((st / 16) as usize, (en / 16) as usize);
        assert!(en_ - st_ < n_col_ as usize);
        let (stu, enu) = (st as usize, en as usize);
        let s = &img[..tt16];
        if !with_cigar {
            core::<0>(&mut d, s, &mut [], stu, enu, x1, v1, k);
        } else {
            let row = &mut p[r as usize * row_bytes..(r as usize + 1) * row_bytes];
            off[r as usize] = st;
            off_end[r as usize] = en;
            if flag & F_RIGHT == 0 {
                core::<1>(&mut d, s, row, stu, enu, x1, v1, k);
            } else {
                core::<2>(&mut d, s, row, stu, enu, x1, v1, k);
            }
        }
        let (u8a, v8a) = (&d.u[..], &d.v[PAD..]);
        if !approx_max {
            let (max_h, max_t);
            if r > 0 {
                (max_h, max_t) = exact_max_by(&mut h, u8a, v8a, st0, en0, dq);
            } else {
                h[0] = dq(v8a[0]) - qe;
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
            if ez.apply_zdrop(max_h, r, max_t, job.zdrop, e) {
                break;
            }
            if r == qlen + tlen - 2 && en0 == tlen - 1 {
                ez.score = h[(tlen - 1) as usize];
            }
        } else {
            if r > 0 {
                approx_step_by(&mut h0, &mut last_h0_t, u8a, v8a, st0, en0, dq);
                // unlike extd2, upstream tests the z-drop inside `r > 0`
                if flag & F_APPROX_DROP != 0 && ez.apply_zdrop(h0, r, last_h0_t, job.zdrop, e) {
                    break;
                }
            } else {
                h0 = dq(v8a[0]) - qe;
                last_h0_t = 0;
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
