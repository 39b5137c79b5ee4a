//! Helpers shared by the ksw twins: `ksw_extz_t` bookkeeping, z-drop, the exact and approximate
//! per-anti-diagonal max, `ksw_backtrack` and the result hand-off.

use crate::ksw::KswResult;

pub(super) const NEG_INF: i32 = -0x4000_0000;
pub(super) const F_SCORE_ONLY: i32 = 0x01;
pub(super) const F_RIGHT: i32 = 0x02;
pub(super) const F_GENERIC_SC: i32 = 0x04;
pub(super) const F_APPROX_MAX: i32 = 0x08;
pub(super) const F_APPROX_DROP: i32 = 0x10;
pub(super) const F_EXTZ_ONLY: i32 = 0x40;
pub(super) const F_REV_CIGAR: i32 = 0x80;

/// `ksw_extz_t` without the CIGAR buffer.
pub(super) struct Ez {
    pub max: u32,
    pub zdropped: bool,
    pub max_q: i32,
    pub max_t: i32,
    pub mqe: i32,
    pub mqe_t: i32,
    pub mte: i32,
    pub mte_q: i32,
    pub score: i32,
    pub reach_end: i32,
}

impl Ez {
    /// `ksw_reset_extz`.
    pub fn reset() -> Ez {
        Ez { max: 0, zdropped: false, max_q: -1, max_t: -1, mqe: NEG_INF, mqe_t: -1, mte: NEG_INF, mte_q: -1, score: NEG_INF, reach_end: 0 }
    }

    /// `ksw_apply_zdrop` with is_rot = 1. `max` is a `uint32_t:31` bit-field: it promotes to `int`.
    #[inline]
    pub fn apply_zdrop(&mut self, h: i32, r: i32, t: i32, zdrop: i32, e: i8) -> bool {
        if h > self.max as i32 {
            self.max = (h as u32) & 0x7fff_ffff;
            self.max_t = t;
            self.max_q = r - t;
        } else if t >= self.max_t && r - t >= self.max_q {
            let tl = t - self.max_t;
            let ql = (r - t) - self.max_q;
            let l = if tl > ql { tl - ql } else { ql - tl };
            if zdrop >= 0 && (self.max as i32).wrapping_sub(h) > zdrop.wrapping_add(l.wrapping_mul(e as i32)) {
                self.zdropped = true;
                return true;
            }
        }
        false
    }
}

/// Front padding of `x`, `v` and `x2`: cell t lives at index `PAD + t`, so that `t - 1` exists for t = 0.
pub(super) const PAD: usize = 16;

#[inline(always)]
pub(super) fn ld(a: &[i8], b: usize) -> [i8; 16] {
    a[b..b + 16].try_into().unwrap()
}

/// The exact max of one anti-diagonal r > 0 (ksw2's `!approx_max` block): updates `h[st0..=en0]` from the
/// new `u8a`/`v8a` and returns `(max_H, max_t)` with the SSE code's tie-break.
#[inline(always)]
pub(super) fn exact_max(h: &mut [i32], u8a: &[i8], v8a: &[i8], st0: i32, en0: i32) -> (i32, i32) {
    let (s0, e0) = (st0 as usize, en0 as usize);
    let en1 = s0 + (e0 - s0) / 4 * 4;
    let mut mh = if e0 > 0 { h[e0 - 1].wrapping_add(u8a[e0] as i32) } else { h[e0].wrapping_add(v8a[e0] as i32) };
    h[e0] = mh;
    let mut mt = e0;
    // the 4-lane epi32 scan over [st0, en1): lane c holds t = st0 + c (mod 4); each lane keeps its
    // first strict maximum above the initial H[en0]; lanes are then reduced in order 0..3 with a
    // strict `<`. Equivalent: the lowest lane holding the overall maximum M (if M > H[en0]), at its
    // first t with H[t] == M. Computed as a vectorisable add+max pass and a short search.
    let mut acc = [mh; 16];
    {
        let hb = &mut h[s0..en1];
        let vb = &v8a[s0..en1];
        let n16 = hb.len() / 16 * 16;
        let mut i = 0;
        while i < n16 {
            let hv: [i32; 16] = hb[i..i + 16].try_into().unwrap();
            let vv: [i8; 16] = vb[i..i + 16].try_into().unwrap();
            let mut nv = [0i32; 16];
            for l in 0..16 {
                nv[l] = hv[l].wrapping_add(vv[l] as i32);
                acc[l] = acc[l].max(nv[l]);
            }
            hb[i..i + 16].copy_from_slice(&nv);
            i += 16;
        }
        while i < hb.len() {
            for l in 0..4 {
                let v = hb[i + l].wrapping_add(vb[i + l] as i32);
                hb[i + l] = v;
                acc[l] = acc[l].max(v);
            }
            i += 4;
        }
    }
    let mut hh = [mh; 4];
    for l in 0..16 {
        hh[l & 3] = hh[l & 3].max(acc[l]);
    }
    for c in 0..4 {
        if mh < hh[c] {
            mh = hh[c];
            let mut tc = s0 + c;
            while h[tc] != mh {
                tc += 4;
            }
            mt = tc;
        }
    }
    let mut t = en1;
    while t < e0 {
        let v = h[t].wrapping_add(v8a[t] as i32);
        h[t] = v;
        if v > mh {
            mh = v;
            mt = t;
        }
        t += 1;
    }
    (mh, mt as i32)
}

/// One step (r > 0) of ksw2's approximate max: follows one greedy path `(h0, last_h0_t)`.
#[inline(always)]
pub(super) fn approx_step(h0: &mut i32, last_h0_t: &mut i32, u8a: &[i8], v8a: &[i8], st0: i32, en0: i32) {
    let l = *last_h0_t;
    if l >= st0 && l <= en0 && l + 1 >= st0 && l + 1 <= en0 {
        let d0 = v8a[l as usize] as i32;
        let d1 = u8a[l as usize + 1] as i32;
        if d0 > d1 {
            *h0 = h0.wrapping_add(d0);
        } else {
            *h0 = h0.wrapping_add(d1);
            *last_h0_t += 1;
        }
    } else if l >= st0 && l <= en0 {
        *h0 = h0.wrapping_add(v8a[l as usize] as i32);
    } else {
        *last_h0_t += 1;
        *h0 = h0.wrapping_add(u8a[*last_h0_t as usize] as i32);
    }
}

/// [`exact_max`] with the per-cell increment given by `d`: extz2 keeps its differences biased by `q + e` in
/// `uint8_t` and adds `(int32_t)u8[t] - qe` (extd2/exts2 add the `int8_t` difference itself). Same scan, same
/// tie-break (the lowest lane holding the maximum, at its first t).
#[inline(always)]
pub(super) fn exact_max_by<T: Copy>(h: &mut [i32], u8a: &[T], v8a: &[T], st0: i32, en0: i32, d: impl Fn(T) -> i32 + Copy) -> (i32, i32) {
    let (s0, e0) = (st0 as usize, en0 as usize);
    let en1 = s0 + (e0 - s0) / 4 * 4;
    let mut mh = if e0 > 0 { h[e0 - 1].wrapping_add(d(u8a[e0])) } else { h[e0].wrapping_add(d(v8a[e0])) };
    h[e0] = mh;
    let mut mt = e0;
    let mut acc = [mh; 16];
    {
        let hb = &mut h[s0..en1];
        let vb = &v8a[s0..en1];
        let n16 = hb.len() / 16 * 16;
        let mut i = 0;
        while i < n16 {
            let hv: [i32; 16] = hb[i..i + 16].try_into().unwrap();
            let vv: [T; 16] = vb[i..i + 16].try_into().unwrap();
            let mut nv = [0i32; 16];
            for l in 0..16 {
                nv[l] = hv[l].wrapping_add(d(vv[l]));
                acc[l] = acc[l].max(nv[l]);
            }
            hb[i..i + 16].copy_from_slice(&nv);
            i += 16;
        }
        while i < hb.len() {
            for l in 0..4 {
                let v = hb[i + l].wrapping_add(d(vb[i + l]));
                hb[i + l] = v;
                acc[l] = acc[l].max(v);
            }
            i += 4;
        }
    }
    let mut hh = [mh; 4];
    for l in 0..16 {
        hh[l & 3] = hh[l & 3].max(acc[l]);
    }
    for c in 0..4 {
        if mh < hh[c] {
            mh = hh[c];
            let mut tc = s0 + c;
            while h[tc] != mh {
                tc += 4;
            }
            mt = tc;
        }
    }
    let mut t = en1;
    while t < e0 {
        let v = h[t].wrapping_add(d(v8a[t]));
        h[t] = v;
        if v > mh {
            mh = v;
            mt = t;
        }
        t += 1;
    }
    (mh, mt as i32)
}

/// [`approx_step`] with the per-cell increment given by `d` (see [`exact_max_by`]); the two candidate
/// increments are compared after `d` (`d0 > d1`), as upstream does.
#[inline(always)]
pub(super) fn approx_step_by<T: Copy>(h0: &mut i32, last_h0_t: &mut i32, u8a: &[T], v8a: &[T], st0: i32, en0: i32, d: impl Fn(T) -> i32) {
    let l = *last_h0_t;
    if l >= st0 && l <= en0 && l + 1 >= st0 && l + 1 <= en0 {
        let d0 = d(v8a[l as usize]);
        let d1 = d(u8a[l as usize + 1]);
        if d0 > d1 {
            *h0 = h0.wrapping_add(d0);
        } else {
            *h0 = h0.wrapping_add(d1);
            *last_h0_t += 1;
        }
    } else if l >= st0 && l <= en0 {
        *h0 = h0.wrapping_add(d(v8a[l as usize]));
    } else {
        *last_h0_t += 1;
        *h0 = h0.wrapping_add(d(u8a[*last_h0_t as usize]));
    }
}

/// `ksw_push_cigar` (growth policy irrelevant: the result is copied into an exact-size `malloc` block).
#[inline]
fn push_cigar(c: &mut Vec<u32>, op: u32, len: i32) {
    match c.last_mut() {
        Some(last) if *last & 0xf == op => *last = last.wrapping_add((len as u32) << 4),
        _ => c.push((len as u32) << 4 | op),
    }
}

/// The default scoring's row of `s[]` (ksw2's non-generic branch): cells `st0..=en0` in blocks of 16 from
/// `st0`, each from the target at `sf_off + t` and the reversed query at `qrr + t` of the image (`m1`: the
/// ambiguous base). The last block may run past `en0` and past `s[]` into `sf[]`, as upstream's stores do.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub(super) fn score_row(img: &mut [u8], sf_off: usize, qrr: usize, st0: i32, en0: i32, m1: u8, sc_n: i8, sc_mch: i8, sc_mis: i8) {
    // one bounds check for the whole row (the blocks end at or before `end`); the stores go through a raw
    // pointer since the last one may land in sf[]
    let end = st0 as usize + (en0 - st0) as usize / 16 * 16 + 16;
    assert!(sf_off + end <= img.len() && qrr + end <= img.len());
    let base = img.as_mut_ptr();
    let mut t = st0 as usize;
    while t as i32 <= en0 {
        // SAFETY: t + 16 <= end, and the assert above bounds both reads and the store (t + 16 <= sf_off + end).
        let sq = unsafe { base.add(sf_off + t).cast::<[u8; 16]>().read_unaligned() };
        let sr = unsafe { base.add(qrr + t).cast::<[u8; 16]>().read_unaligned() };
        let mut sc = [0u8; 16];
        for l in 0..16 {
            let v = if sq[l] == m1 || sr[l] == m1 {
                sc_n
            } else if sq[l] == sr[l] {
                sc_mch
            } else {
                sc_mis
            };
            sc[l] = v as u8;
        }
        unsafe { base.add(t).cast::<[u8; 16]>().write_unaligned(sc) };
        t += 16;
    }
}

/// A thread's traceback matrix, reused between jobs: a fresh allocation of a large one costs page faults
/// that take longer than filling it. Kept up to this size (upstream's km arena keeps its memory too).
const TRACEBACK_KEEP_MAX: usize = 256 << 20;

thread_local! {
    static TRACEBACK: std::cell::RefCell<Vec<u8>> = const { std::cell::RefCell::new(Vec::new()) };
}

/// This thread's traceback matrix, at least `len` bytes. Not cleared between jobs (zeroing it was 6% of the
/// CPU path's time): the core loop writes each row over the whole band it computes, and `backtrack` reads a
/// row only inside that band, as upstream does with its uninitialised `kmalloc`.
pub(super) fn take_traceback(len: usize) -> Vec<u8> {
    let mut p = TRACEBACK.with(|t| t.take());
    if p.len() < len {
        p.resize(len, 0);
    }
    p
}

/// Gives the matrix back for the thread's next job (dropped when over `TRACEBACK_KEEP_MAX`).
pub(super) fn give_traceback(p: Vec<u8>) {
    if p.capacity() <= TRACEBACK_KEEP_MAX {
        TRACEBACK.with(|t| *t.borrow_mut() = p);
    }
}

/// `ksw_backtrack` with is_rot = 1 and off_end given; `min_intron_len > 0` turns state 3 (and a leading
/// deletion of at least that length) into N (extd2 passes 0, exts2 its `long_thres`).
pub(super) fn backtrack(rev: bool, min_intron_len: i32, p: &[u8], off: &[i32], off_end: &[i32], n_col: usize, i0: i32, j0: i32) -> Vec<u32> {
    let mut cigar = Vec::new();
    let (mut i, mut j, mut state) = (i0, j0, 0u32);
    while i >= 0 && j >= 0 {
        let r = (i + j) as usize;
        let mut force: i32 = -1;
        if i < off[r] {
            force = 2;
        }
        if i > off_end[r] {
            force = 1;
        }
        let tmp: u32 = if force < 0 { p[r * n_col + (i - off[r]) as usize] as u32 } else { 0 };
        if state == 0 {
            state = tmp & 7;
        } else if (tmp >> (state + 2)) & 1 == 0 {
            state = 0;
        }
        if state == 0 {
            state = tmp & 7;
        }
        if force >= 0 {
            state = force as u32;
        }
        if state == 0 {
            push_cigar(&mut cigar, 0, 1);
            i -= 1;
            j -= 1;
        } else if state == 1 || (state == 3 && min_intron_len <= 0) {
            push_cigar(&mut cigar, 2, 1);
            i -= 1;
        } else if state == 3 {
            push_cigar(&mut cigar, 3, 1);
            i -= 1;
        } else {
            push_cigar(&mut cigar, 1, 1);
            j -= 1;
        }
    }
    if i >= 0 {
        push_cigar(&mut cigar, if min_intron_len > 0 && i >= min_intron_len { 3 } else { 2 }, i + 1);
    }
    if j >= 0 {
        push_cigar(&mut cigar, 1, j + 1);
    }
    if !rev {
        cigar.reverse();
    }
    cigar
}

pub(super) fn finish(ez: &Ez, cigar: &[u32], out: &mut KswResult) {
    let mut cp: *mut u32 = std::ptr::null_mut();
    if !cigar.is_empty() {
        // SAFETY: a fresh block of exactly n_cigar u32s, filled below; the caller frees it with free().
        unsafe {
            cp = libc::malloc(cigar.len() * 4) as *mut u32;
            assert!(!cp.is_null(), "out of memory");
            std::ptr::copy_nonoverlapping(cigar.as_ptr(), cp, cigar.len());
        }
    }
    *out = KswResult {
        max: ez.max,
        zdropped: ez.zdropped as i32,
        max_q: ez.max_q,
        max_t: ez.max_t,
        mqe: ez.mqe,
        mqe_t: ez.mqe_t,
        mte: ez.mte,
        mte_q: ez.mte_q,
        score: ez.score,
        reach_end: ez.reach_end,
        n_cigar: cigar.len() as i32,
        cigar: cp,
    };
}
