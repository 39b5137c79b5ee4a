//! What the ksw twins share, as kernels/ksw.cu shares it through its template: [`extend`], everything of
//! ksw2's functions from the allocations on (band, boundary, scores, the 16-lane core loop, the exact or
//! approximate max with z-drop, the backtrack), and the pieces the twins' prologues have in common. A twin
//! keeps upstream's prologue and brings its cells ([`Cells`]): the initial and boundary values of its
//! difference arrays, its per-cell recurrence and how a stored difference adds to H.

use crate::ksw::flag::{APPROX_DROP, APPROX_MAX, EXTZ_ONLY, GENERIC_SC, REV_CIGAR, RIGHT, SCORE_ONLY};
use crate::ksw::KswResult;
use crate::memory::{malloc_copy, try_push, try_resize, try_vec, try_zeroed, OutOfMemory};

const NEG_INF: i32 = -0x4000_0000;

/// Front padding of the x-side arrays: cell t lives at index `PAD + t`, so that `t - 1` exists for t = 0.
const PAD: usize = 16;

/// `ksw_reset_extz`: the twins' first step, and all of the answer where upstream returns early.
pub(super) fn reset(out: &mut KswResult) {
    *out = KswResult {
        max: 0,
        zdropped: 0,
        max_q: -1,
        max_t: -1,
        mqe: NEG_INF,
        mqe_t: -1,
        mte: NEG_INF,
        mte_q: -1,
        score: NEG_INF,
        reach_end: 0,
        n_cigar: 0,
        cigar: std::ptr::null_mut(),
    };
}

/// `ksw_apply_zdrop` with is_rot = 1. `max` is a `uint32_t:31` bit-field: it promotes to `int`.
#[inline]
fn apply_zdrop(ez: &mut KswResult, h: i32, r: i32, t: i32, zdrop: i32, e: i8) -> bool {
    if h > ez.max as i32 {
        ez.max = (h as u32) & 0x7fff_ffff;
        ez.max_t = t;
        ez.max_q = r - t;
    } else if t >= ez.max_t && r - t >= ez.max_q {
        let tl = t - ez.max_t;
        let ql = (r - t) - ez.max_q;
        let l = if tl > ql { tl - ql } else { ql - tl };
        if zdrop >= 0 && (ez.max as i32).wrapping_sub(h) > zdrop.wrapping_add(l.wrapping_mul(e as i32)) {
            ez.zdropped = 1;
            return true;
        }
    }
    false
}

/// A job's query, target and `m * m` matrix.
///
/// # Safety
/// The pointers cover `qlen`, `tlen` and `m * m` elements (all three positive).
pub(super) unsafe fn slices<'a>(query: *const u8, qlen: i32, target: *const u8, tlen: i32, mat: *const i8, m: i32) -> (&'a [u8], &'a [u8], &'a [i8]) {
    // SAFETY: as the caller guarantees.
    unsafe {
        (
            std::slice::from_raw_parts(query, qlen as usize),
            std::slice::from_raw_parts(target, tlen as usize),
            std::slice::from_raw_parts(mat, (m * m) as usize),
        )
    }
}

/// ksw2's `min_sc`: the least of `mat[1..]`, starting from `mat[1]` (extz2 reads it also when m == 1).
pub(super) fn min_sc(mat1: i8, mat: &[i8]) -> i32 {
    mat.iter().skip(1).fold(mat1 as i32, |a, &v| a.min(v as i32))
}

/// What upstream's prologue of a dual-affine call (extd2, exts2) derives from its gap costs and matrix before
/// its allocations: the twins run on it, and the GPU host (ksw/gpu.rs) gives the kernel the same values.
pub(crate) struct Gaps {
    /// The gap costs as the core uses them: extd2's after its swap; exts2's with `e2 = 0` (no intron extension).
    pub q: i8,
    pub e: i8,
    pub q2: i8,
    pub e2: i8,
    /// `q + e` where H starts (extd2: before the swap).
    pub qe_h: i32,
    /// `sc_N`: a base against N.
    pub sc_n: i8,
    pub long_thres: i32,
    pub long_diff: i32,
    /// The backtrack's (extd2: 0; exts2: `long_thres`).
    pub min_intron_len: i32,
}

/// The first row's `u` and first column's `v` of the dual-affine twins at anti-diagonal r, as int8: `-q - e`
/// at r == 0, `-e` below `long_thres`, `long_diff` at it, then `tail` (extd2: `-e2`; exts2: 0).
pub(super) struct LongEdge {
    pub qe: i32,
    pub e: i32,
    pub long_thres: i32,
    pub long_diff: i32,
    pub tail: i32,
}

impl LongEdge {
    #[inline(always)]
    pub fn at(&self, r: i32) -> i8 {
        (if r == 0 {
            -self.qe
        } else if r < self.long_thres {
            -self.e
        } else if r == self.long_thres {
            self.long_diff
        } else {
            self.tail
        }) as i8
    }
}

/// One twin's cells: what its function does unlike the others inside [`extend`]. The difference arrays come
/// in two sides: `NX` read at t - 1 (`v x x2`, `v` first) and `NY` read at t (`u y y2`, `u` first); `NR` more
/// are only read, at t (exts2's donor and acceptor signals).
pub(super) trait Cells<const NX: usize, const NY: usize, const NR: usize> {
    /// With APPROX_MAX | APPROX_DROP, whether the z-drop test runs at r == 0 too (extz2 runs it for r > 0 only).
    const APPROX_DROP_AT_0: bool = true;

    /// The initial values of both sides (upstream's `memset`, or kcalloc's zeros), which are also the boundary
    /// values of a cell the last anti-diagonal did not compute.
    fn init(&self) -> ([i8; NX], [i8; NY]);

    /// The first column's `v` and the first row's `u` on anti-diagonal r.
    fn first(&self, r: i32) -> i8;

    /// What a stored `u`/`v` byte adds to H: the int8 difference itself (extz2 overrides: biased, unsigned).
    #[inline(always)]
    fn dh(&self, b: i8) -> i32 {
        b as i32
    }

    /// Upstream's first block of the shifted x side, where it differs from the plain load of `st - 1` (extz2).
    #[inline(always)]
    fn first_block(&self, _x: &mut [[i8; 16]; NX], _edge: [i8; NX]) {}

    /// One cell from `s[t]`, the x side at t - 1, the y side and the read-only arrays at t: the new x and y
    /// sides at t and the traceback byte (MODE as in [`core()`]).
    fn cell<const MODE: u8>(&self, s: u8, x: [i8; NX], y: [i8; NY], ro: [i8; NR]) -> ([i8; NX], [i8; NY], u8);
}

/// ksw2's tie rule: `a > b`, or `a >= b` with right-aligned gaps (MODE 2).
#[inline(always)]
pub(super) fn beats<const MODE: u8>(a: i8, b: i8) -> bool {
    if MODE == 2 {
        a >= b
    } else {
        a > b
    }
}

/// One candidate `c` of a cell's max `z` (signed): the direction `dir` goes into `d` when `c` beats `z`
/// (MODE 0 keeps no direction).
#[inline(always)]
pub(super) fn take<const MODE: u8>(z: &mut i8, d: &mut u8, c: i8, dir: u8) {
    if MODE != 0 && beats::<MODE>(c, *z) {
        *d = dir;
    }
    *z = (*z).max(c);
}

/// Raw views of `a[from..from + n]`, one per array, for the core loop to read and write through: bounds-checked
/// once per anti-diagonal, here. Slices checked per block instead cost a compare and branch per array and block
/// (LLVM does not carry their lengths through the array) and made extd2 several percent slower.
#[inline(always)]
fn views<const N: usize>(a: &mut [Vec<i8>; N], from: usize, n: usize) -> [*mut i8; N] {
    let mut v = [std::ptr::null_mut(); N];
    for (v, a) in v.iter_mut().zip(a) {
        *v = a[from..][..n].as_mut_ptr();
    }
    v
}

/// The 16 bytes at `b` of each view.
///
/// # Safety
/// They lie inside the views.
#[inline(always)]
unsafe fn load<const N: usize>(views: &[*mut i8; N], b: usize) -> [[i8; 16]; N] {
    let mut o = [[0; 16]; N];
    for (o, &v) in o.iter_mut().zip(views) {
        *o = unsafe { v.add(b).cast::<[i8; 16]>().read_unaligned() };
    }
    o
}

/// Stores `x` at `b` of each view; safety as [`load`].
#[inline(always)]
unsafe fn store<const N: usize>(views: &[*mut i8; N], b: usize, x: [[i8; 16]; N]) {
    for (&v, x) in views.iter().zip(x) {
        unsafe { v.add(b).cast::<[i8; 16]>().write_unaligned(x) };
    }
}

/// Lane `l` of each block.
#[inline(always)]
fn lane<const N: usize>(blocks: &[[i8; 16]; N], l: usize) -> [i8; N] {
    let mut o = [0; N];
    for (o, v) in o.iter_mut().zip(blocks) {
        *o = v[l];
    }
    o
}

/// ksw2's core loop over one anti-diagonal: the padded band `[st, en]` (16-aligned, whole blocks). MODE: 0
/// score only, 1 left-aligned gaps, 2 right-aligned gaps (then `p` is this anti-diagonal's traceback row,
/// from `st`).
///
/// Cell t reads the old x side at t - 1 and the old y side at t, and writes both at t. The SSE code walks
/// blocks upwards and carries lane 15 of each old block into lane 0 of the next (starting from the boundary
/// `edge`). Here the blocks are walked downwards instead, so that `t - 1` still holds the old value and the
/// shifted vectors are plain unaligned loads; `edge` is written to `st - 1` first, a cell no later
/// anti-diagonal reads (its band starts at or after `st`, and `st - 1` is outside `[last_st, last_en]`
/// whenever `st` stays). Same values, same order of operations per cell.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn core<C: Cells<NX, NY, NR>, const NX: usize, const NY: usize, const NR: usize, const MODE: u8>(
    c: &C,
    xs: &mut [Vec<i8>; NX],
    ys: &mut [Vec<i8>; NY],
    ro: &mut [Vec<i8>; NR],
    s: &[u8],
    p: &mut [u8],
    st: usize,
    en: usize,
    edge: [i8; NX],
) {
    for (a, e) in xs.iter_mut().zip(edge) {
        a[PAD + st - 1] = e;
    }
    let nblk = (en + 1 - st) / 16;
    let n = nblk * 16;
    // cell st + i lives at [i] of the y-side, read-only, `s` and `p` views and at [i + 1] of the x-side views
    let (x, y, ro) = (views(xs, PAD + st - 1, n + 1), views(ys, st, n), views(ro, st, n));
    let s = &s[st..][..n];
    let p = if MODE != 0 { &mut p[..n] } else { p };
    for bi in (0..nblk).rev() {
        let b = bi * 16;
        // SAFETY: b + 16 <= n: the blocks at b (and at b + 1 of the x side) lie inside the views.
        let (mut xo, yo, rv) = unsafe { (load(&x, b), load(&y, b), load(&ro, b)) };
        if bi == 0 {
            c.first_block(&mut xo, edge);
        }
        // SAFETY: as above (`s` and `p` hold n bytes).
        let sz: [u8; 16] = unsafe { s.as_ptr().add(b).cast::<[u8; 16]>().read_unaligned() };
        let (mut xn, mut yn, mut dn) = ([[0i8; 16]; NX], [[0i8; 16]; NY], [0u8; 16]);
        for l in 0..16 {
            let (xc, yc, d) = c.cell::<MODE>(sz[l], lane(&xo, l), lane(&yo, l), lane(&rv, l));
            for (v, c) in xn.iter_mut().zip(xc) {
                v[l] = c;
            }
            for (v, c) in yn.iter_mut().zip(yc) {
                v[l] = c;
            }
            dn[l] = d;
        }
        // SAFETY: as above.
        unsafe {
            store(&x, b + 1, xn);
            store(&y, b, yn);
        }
        if MODE != 0 {
            // SAFETY: as above.
            unsafe { p.as_mut_ptr().add(b).cast::<[u8; 16]>().write_unaligned(dn) };
        }
    }
}

/// The scalar inputs of [`extend`], as a twin derives them from its job.
pub(super) struct Setup<'a> {
    pub query: &'a [u8],
    pub target: &'a [u8],
    pub mat: &'a [i8],
    pub m: i32,
    /// `sc_mch`, `sc_mis` and `sc_N` of the default scoring.
    pub sc: [i8; 3],
    /// The band width (negative: as wide as the matrix); `None`: no band (exts2).
    pub w: Option<i32>,
    pub flag: i32,
    pub zdrop: i32,
    /// The gap extension `ksw_apply_zdrop` weighs the distance between diagonals with.
    pub zdrop_e: i8,
    pub end_bonus: i32,
    /// `H[0] = dh(v[0]) - qe` on the first anti-diagonal.
    pub qe: i32,
    /// `ksw_backtrack`'s: > 0 turns the intron state (and a long leading deletion) into N.
    pub min_intron_len: i32,
}

/// Everything of ksw2's functions from the allocation of the DP arrays on, around the cells `c` (`ro`: the
/// read-only arrays, 16 * ceil(tlen / 16) entries each): fills `out` as upstream fills `ez`, its CIGAR, when
/// `n_cigar > 0`, `malloc`ed in ksw2's `len<<4|op` encoding. An allocation refused leaves `out` as it came.
///
/// The score array `s[]` keeps its bytes across anti-diagonals: the default scoring stores 16 bytes at a time
/// from `st0`, so lanes in `[st, st0)` keep stale scores of earlier anti-diagonals (or the kcalloc zero) and
/// lanes past `en0` are scored from the bases past the band; both feed later cells and the traceback. `s`,
/// `sf` (target) and `qr` (reversed query) are one zeroed image laid out as in the C allocation.
///
/// `out` holds `ksw_reset_extz`'s values on entry. Runs in an AVX2 or SSE4.1 instantiation picked at run time:
/// the integer results do not depend on the instruction set, only how well LLVM vectorises the 16-lane loops.
pub(super) fn extend<C: Cells<NX, NY, NR>, const NX: usize, const NY: usize, const NR: usize>(c: &C, ro: [Vec<i8>; NR], k: &Setup, out: &mut KswResult) -> Result<(), OutOfMemory> {
    #[cfg(target_arch = "x86_64")]
    {
        if std::arch::is_x86_feature_detected!("avx2") {
            // SAFETY: the CPU has AVX2.
            return unsafe { extend_avx2(c, ro, k, out) };
        }
        if std::arch::is_x86_feature_detected!("sse4.1") {
            // SAFETY: the CPU has SSE4.1.
            return unsafe { extend_sse41(c, ro, k, out) };
        }
    }
    walk(c, ro, k, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn extend_avx2<C: Cells<NX, NY, NR>, const NX: usize, const NY: usize, const NR: usize>(c: &C, ro: [Vec<i8>; NR], k: &Setup, out: &mut KswResult) -> Result<(), OutOfMemory> {
    walk(c, ro, k, out)
}

#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "sse4.1")]
unsafe fn extend_sse41<C: Cells<NX, NY, NR>, const NX: usize, const NY: usize, const NR: usize>(c: &C, ro: [Vec<i8>; NR], k: &Setup, out: &mut KswResult) -> Result<(), OutOfMemory> {
    walk(c, ro, k, out)
}

/// [`extend`] proper, instantiated per instruction set.
#[inline(always)]
fn walk<C: Cells<NX, NY, NR>, const NX: usize, const NY: usize, const NR: usize>(c: &C, ro: [Vec<i8>; NR], k: &Setup, out: &mut KswResult) -> Result<(), OutOfMemory> {
    // upstream's `ez`, as a local copy that goes to `out` at the end
    let mut ez = KswResult { ..*out };
    let (query, target, mat, m, flag) = (k.query, k.target, k.mat, k.m, k.flag);
    let (qlen, tlen) = (query.len() as i32, target.len() as i32);
    let [sc_mch, sc_mis, sc_n] = k.sc;
    let m1 = (m - 1) as u8;
    let with_cigar = flag & SCORE_ONLY == 0;
    let approx_max = flag & APPROX_MAX != 0;
    let generic = flag & GENERIC_SC != 0;
    let w = k.w.map(|w| if w < 0 { tlen.max(qlen) } else { w });
    let tlen_ = (tlen + 15) / 16;
    let mut n_col_ = qlen.min(tlen);
    if let Some(w) = w {
        n_col_ = n_col_.min(w + 1);
    }
    n_col_ = (n_col_ + 15) / 16 + 1;
    let qlen_ = (qlen + 15) / 16;

    let tt16 = (tlen_ * 16) as usize;
    let (x_init, y_init) = c.init();
    let mut xs = filled(x_init, PAD + tt16)?;
    let mut ys = filled(y_init, tt16)?;
    let mut ro = ro;
    // s[], sf[] and qr[] as one image, as in the kcalloc block (qr has qlen_*16 bytes plus the 16 of the `+ 1`):
    // the default scoring's last store of a row may run past `s[]` into `sf[]`, as upstream's does
    let sf_off = tt16;
    let qr_off = 2 * tt16;
    let mut img = try_zeroed::<u8>(qr_off + qlen_ as usize * 16 + 16)?;
    img[sf_off..sf_off + tlen as usize].copy_from_slice(target);
    for t in 0..qlen as usize {
        img[qr_off + t] = query[qlen as usize - 1 - t];
    }
    let mut h: Vec<i32> = if approx_max { Vec::new() } else { try_vec(NEG_INF, tt16)? };
    let n_row = (qlen + tlen - 1) as usize;
    let row_bytes = n_col_ as usize * 16;
    let (mut p, mut off, mut off_end) = if with_cigar {
        (take_traceback(n_row * row_bytes + 16)?, try_zeroed::<i32>(n_row)?, try_zeroed::<i32>(n_row)?)
    } else {
        (Vec::new(), Vec::new(), Vec::new())
    };
    let (mut h0, mut last_h0_t) = (0i32, 0i32);

    let (mut last_st, mut last_en) = (-1i32, -1i32);
    for r in 0..qlen + tlen - 1 {
        // find the boundaries
        let mut st = 0i32;
        let mut en = tlen - 1;
        if st < r - qlen + 1 {
            st = r - qlen + 1;
        }
        if en > r {
            en = r;
        }
        if let Some(w) = w {
            if st < (r - w + 1) >> 1 {
                st = (r - w + 1) >> 1; // take the ceil
            }
            if en > (r + w) >> 1 {
                en = (r + w) >> 1; // take the floor
            }
            if st > en {
                ez.zdropped = 1;
                break;
            }
        }
        let (st0, en0) = (st, en);
        st = st / 16 * 16;
        en = (en + 16) / 16 * 16 - 1;
        // set boundary conditions: the x side at st - 1, the y side at r
        let mut edge = x_init;
        if st > 0 && st - 1 >= last_st && st - 1 <= last_en {
            // (r-1,s-1) calculated in the last round
            for (e, a) in edge.iter_mut().zip(&xs) {
                *e = a[PAD + st as usize - 1];
            }
        } else if st == 0 {
            edge[0] = c.first(r);
        }
        if en >= r {
            let mut e = y_init;
            e[0] = c.first(r);
            for (a, e) in ys.iter_mut().zip(e) {
                a[r as usize] = e;
            }
        }
        // loop fission: scores first, into the s[]/sf[]/qr[] image
        // upstream's qr + (qlen - 1 - r) points before qr once r >= qlen (an offset, not a wrap-around)
        let qrr = (qr_off as isize + (qlen - 1 - r) as isize) as usize;
        if !generic {
            score_row(&mut img, sf_off, qrr, st0, en0, m1, sc_n, sc_mch, sc_mis);
        } else {
            score_row_generic(&mut img, sf_off, qrr, st0 as usize, en0 as usize, mat, m as usize);
        }
        // core loop
        let (st_, en_) = ((st / 16) as usize, (en / 16) as usize);
        assert!(en_ - st_ < n_col_ as usize);
        let (stu, enu) = (st as usize, en as usize);
        let s = &img[..tt16];
        if !with_cigar {
            core::<C, NX, NY, NR, 0>(c, &mut xs, &mut ys, &mut ro, s, &mut [], stu, enu, edge);
        } else {
            let row = &mut p[r as usize * row_bytes..(r as usize + 1) * row_bytes];
            off[r as usize] = st;
            off_end[r as usize] = en;
            if flag & RIGHT == 0 {
                core::<C, NX, NY, NR, 1>(c, &mut xs, &mut ys, &mut ro, s, row, stu, enu, edge);
            } else {
                core::<C, NX, NY, NR, 2>(c, &mut xs, &mut ys, &mut ro, s, row, stu, enu, edge);
            }
        }
        let (u8a, v8a) = (&ys[0][..], &xs[0][PAD..]);
        let dh = |b: i8| c.dh(b);
        if !approx_max {
            let (max_h, max_t);
            if r > 0 {
                (max_h, max_t) = exact_max(&mut h, u8a, v8a, st0, en0, dh);
            } else {
                h[0] = dh(v8a[0]) - k.qe;
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
            if apply_zdrop(&mut ez, max_h, r, max_t, k.zdrop, k.zdrop_e) {
                break;
            }
            if r == qlen + tlen - 2 && en0 == tlen - 1 {
                ez.score = h[(tlen - 1) as usize];
            }
        } else {
            if r > 0 {
                approx_step(&mut h0, &mut last_h0_t, u8a, v8a, st0, en0, dh);
            } else {
                h0 = dh(v8a[0]) - k.qe;
                last_h0_t = 0;
            }
            if flag & APPROX_DROP != 0 && (r > 0 || C::APPROX_DROP_AT_0) && apply_zdrop(&mut ez, h0, r, last_h0_t, k.zdrop, k.zdrop_e) {
                break;
            }
            if r == qlen + tlen - 2 && en0 == tlen - 1 {
                ez.score = h0;
            }
        }
        last_st = st;
        last_en = en;
    }
    if with_cigar {
        let rev = flag & REV_CIGAR != 0;
        let bt = |i0, j0| backtrack(rev, k.min_intron_len, &p, &off, &off_end, row_bytes, i0, j0);
        let mut cigar = Ok(Vec::new());
        if ez.zdropped == 0 && flag & EXTZ_ONLY == 0 {
            cigar = bt(tlen - 1, qlen - 1);
        } else if ez.zdropped == 0 && flag & EXTZ_ONLY != 0 && ez.mqe.wrapping_add(k.end_bonus) > ez.max as i32 {
            ez.reach_end = 1;
            cigar = bt(ez.mqe_t, qlen - 1);
        } else if ez.max_t >= 0 && ez.max_q >= 0 {
            cigar = bt(ez.max_t, ez.max_q);
        }
        give_traceback(p);
        set_cigar(&mut ez, &cigar?)?;
    }
    *out = ez;
    Ok(())
}

/// One array per initial value, `len` of it each (the difference arrays of one side).
fn filled<const N: usize>(init: [i8; N], len: usize) -> Result<[Vec<i8>; N], OutOfMemory> {
    let mut arrays: [Vec<i8>; N] = std::array::from_fn(|_| Vec::new());
    for (a, v) in arrays.iter_mut().zip(init) {
        *a = try_vec(v, len)?;
    }
    Ok(arrays)
}

/// The exact max of one anti-diagonal r > 0 (ksw2's `!approx_max` block): updates `h[st0..=en0]` from the
/// new `u8a`/`v8a`, each byte adding `d(byte)`, and returns `(max_H, max_t)` with the SSE code's tie-break.
#[inline(always)]
fn exact_max(h: &mut [i32], u8a: &[i8], v8a: &[i8], st0: i32, en0: i32, d: impl Fn(i8) -> i32) -> (i32, i32) {
    let (s0, e0) = (st0 as usize, en0 as usize);
    let en1 = s0 + (e0 - s0) / 4 * 4;
    let mut mh = if e0 > 0 { h[e0 - 1].wrapping_add(d(u8a[e0])) } else { h[e0].wrapping_add(d(v8a[e0])) };
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

/// One step (r > 0) of ksw2's approximate max: follows one greedy path `(h0, last_h0_t)`; the two candidate
/// increments are compared after `d`, as upstream does.
#[inline(always)]
fn approx_step(h0: &mut i32, last_h0_t: &mut i32, u8a: &[i8], v8a: &[i8], st0: i32, en0: i32, d: impl Fn(i8) -> i32) {
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
fn push_cigar(c: &mut Vec<u32>, op: u32, len: i32) -> Result<(), OutOfMemory> {
    match c.last_mut() {
        Some(last) if *last & 0xf == op => *last = last.wrapping_add((len as u32) << 4),
        _ => try_push(c, (len as u32) << 4 | op)?,
    }
    Ok(())
}

/// The default scoring's row of `s[]` (ksw2's non-generic branch): cells `st0..=en0` in blocks of 16 from
/// `st0`, each from the target at `sf_off + t` and the reversed query at `qrr + t` of the image (`m1`: the
/// ambiguous base). The last block may run past `en0` and past `s[]` into `sf[]`, as upstream's stores do.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
fn score_row(img: &mut [u8], sf_off: usize, qrr: usize, st0: i32, en0: i32, m1: u8, sc_n: i8, sc_mch: i8, sc_mis: i8) {
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

/// GENERIC_SC's row of `s[]`: `s[t] = mat[sf[t] * m + qrr[t]]` over `[st0, en0]` only. Out of line: a scalar
/// lookup that gains nothing from the vector instantiations, and inlined into them it had to reload its
/// operands from the stack every cell.
#[inline(never)]
fn score_row_generic(img: &mut [u8], sf_off: usize, qrr: usize, st0: usize, en0: usize, mat: &[i8], m: usize) {
    let (a, b) = (st0, en0 + 1);
    let (s, rest) = img.split_at_mut(sf_off);
    let (sf, qr) = (&rest[a..b], &rest[qrr - sf_off + a..qrr - sf_off + b]);
    for ((o, &tb), &qb) in s[a..b].iter_mut().zip(sf).zip(qr) {
        *o = mat[tb as usize * m + qb as usize] as u8;
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
fn take_traceback(len: usize) -> Result<Vec<u8>, OutOfMemory> {
    let mut p = TRACEBACK.with(|t| t.take());
    if p.len() < len {
        if let Err(e) = try_resize(&mut p, len, 0) {
            give_traceback(p);
            return Err(e);
        }
    }
    Ok(p)
}

/// Gives the matrix back for the thread's next job (dropped when over `TRACEBACK_KEEP_MAX`).
fn give_traceback(p: Vec<u8>) {
    if p.capacity() <= TRACEBACK_KEEP_MAX {
        TRACEBACK.with(|t| *t.borrow_mut() = p);
    }
}

/// `ksw_backtrack` with is_rot = 1 and off_end given; `min_intron_len > 0` turns state 3 (and a leading
/// deletion of at least that length) into N (extd2 and extz2 pass 0, exts2 its `long_thres`).
#[allow(clippy::too_many_arguments)]
fn backtrack(rev: bool, min_intron_len: i32, p: &[u8], off: &[i32], off_end: &[i32], n_col: usize, i0: i32, j0: i32) -> Result<Vec<u32>, OutOfMemory> {
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
            push_cigar(&mut cigar, 0, 1)?;
            i -= 1;
            j -= 1;
        } else if state == 1 || (state == 3 && min_intron_len <= 0) {
            push_cigar(&mut cigar, 2, 1)?;
            i -= 1;
        } else if state == 3 {
            push_cigar(&mut cigar, 3, 1)?;
            i -= 1;
        } else {
            push_cigar(&mut cigar, 1, 1)?;
            j -= 1;
        }
    }
    if i >= 0 {
        push_cigar(&mut cigar, if min_intron_len > 0 && i >= min_intron_len { 3 } else { 2 }, i + 1)?;
    }
    if j >= 0 {
        push_cigar(&mut cigar, 1, j + 1)?;
    }
    if !rev {
        cigar.reverse();
    }
    Ok(cigar)
}

/// Hands the CIGAR over in a fresh `malloc` block of exactly `n_cigar` entries (none when empty).
fn set_cigar(out: &mut KswResult, cigar: &[u32]) -> Result<(), OutOfMemory> {
    out.cigar = malloc_copy(cigar)?;
    out.n_cigar = cigar.len() as i32;
    Ok(())
}
