//! The sweep of [`super::sweep`] with each row's columns 8 (AVX2) or 16 (AVX-512) at a time in vector
//! lanes: the two-scan form of kernels/ydrop_one_sided.cu (its header says why it is exact; a cell's insertion
//! score below the y-drop floor may differ from the sweep's, which changes only bits off every path), plus
//! what the kernel leaves out: an earlier
//! alignment's masked cells split a row into runs, and a masked cell resets the insertion score exactly as
//! the sweep does (so no argument about pruned values is needed there). Rows live in two arrays indexed from
//! each row's left bound as it began (the sweep's in-place array holds the same values where a later row
//! reads them). Row 0, the prolongation, the terminator and the constraint queries are the sweep's, in the
//! sweep's order; the score, end, truncation and every traceback byte on a path are the sweep's
//! (tests/ydrop/twin.rs, tests/ydrop/dumps.rs and `ydrop_fuzz vector` compare them, envelopes too).
//!
//! A call whose values could leave the scans' int32 range (the limits the GPU kernel's host admits) gives
//! up with None, before or during the sweep, and runs on the sweep.

use super::sweep::{row0, y_drop_tail, Fill, Params, Scratch, FROM_I, NEG_INF};
use super::Constraints;
use crate::memory::{try_push, try_reserve, try_resize, OutOfMemory};

const SUB_ABS_MAX: u32 = 1 << 27;
const GAP_OE_MAX: i64 = 1 << 24;
const Y_DROP_MAX: i32 = 1 << 30;
const BEST_MAX: i32 = 1 << 30;
/// A row at most this many gap extensions wide: the sweep's insertion score, reset to NEG_INF, cannot wrap.
const ROW_GAP_MAX: i64 = 1 << 24;
/// Cells before a row's first column in its array: the diagonal load at `col - 1` stays inside.
const PAD: usize = 32;
/// Cells after the last column a row visits: a chunk of 32 may write 31 past it.
const TAIL: usize = 32;
/// No such column in a row (RowOut).
const NO_POS: usize = usize::MAX;

/// Per-thread rows reused across calls, their scores held as `E`.
#[derive(Default)]
pub(crate) struct Rows<E> {
    prev_c: Vec<E>,
    prev_d: Vec<E>,
    cur_c: Vec<E>,
    cur_d: Vec<E>,
    /// Substitution profiles of b: `profiles[slot_of[x]][k]` is the score of byte x of a against `b[k]`,
    /// filled for `k < filled[slot]` as the sweep moves right (its columns only grow).
    profiles: Vec<Vec<E>>,
    filled: Vec<usize>,
    slot_of: Vec<u8>,
    masks: Vec<u32>,
}

impl<E> Rows<E> {
    /// Frees the buffers that hold more than `max` bytes (a profile holds 4 bytes a column of b, from column 0).
    pub(crate) fn trim(&mut self, max: usize) {
        for v in [&mut self.prev_c, &mut self.prev_d, &mut self.cur_c, &mut self.cur_d] {
            super::free_past(v, max);
        }
        for v in &mut self.profiles {
            super::free_past(v, max);
        }
    }
}

/// Whether this CPU has `lanes`-wide vectors for the sweep (8: AVX2, 16: AVX-512, 32: AVX-512BW).
pub(crate) fn available(lanes: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match lanes {
            8 => std::arch::is_x86_feature_detected!("avx2"),
            16 => std::arch::is_x86_feature_detected!("avx512f"),
            32 => std::arch::is_x86_feature_detected!("avx512bw"),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = lanes;
        false
    }
}

fn grow<E: Cell>(v: &mut Vec<E>, len: usize) -> Result<(), OutOfMemory> {
    if v.len() < len {
        try_resize(v, len, E::NEG)?;
    }
    Ok(())
}

/// How a sweep's rows hold scores: `i32`, LASTZ's own (8 and 16 lanes), or `i16` relative to the row's y-drop
/// floor as the row starts (32 lanes), with saturating arithmetic.
///
/// Why 16 bits decide every cell as LASTZ does: with `base` the floor at the row's start (the best so far less
/// the y-drop), a cell is live only at or above the floor, which only rises along the row; every score in the
/// row is at most the best so far plus the largest substitution score; and the next row's floor is at most that
/// much higher. So every score that decides a cell, a link on a path or a best lies within
/// `[-(gap open + extend) - largest substitution, y-drop + largest substitution + 32 extensions]` of `base`,
/// which [`fill`] admits only when it fits well inside 16 bits. Anything lower saturates at `i16::MIN`, where it
/// stays below every floor, as its true value does; a comparison between two such values decides only pruned
/// cells, whose links are 0.
pub(crate) trait Cell: Copy + 'static {
    const NEG: Self;
    /// Scores relative to the row's floor (else as they are).
    const RELATIVE: bool;
    /// `score` stored in a row whose floor is `base`.
    fn stored(score: i32, base: i32) -> Self;
    fn widen(self) -> i32;
    /// [`scan_row`] in `lanes` lanes of this type, the row above's scores read less `delta` (the floor's rise).
    ///
    /// # Safety
    /// As [`scan_row`]'s.
    unsafe fn scan(lanes: usize, io: RowIo<Self>, k: &RowConsts, best: i32, boundary: i32, delta: i32) -> RowOut;
}

impl Cell for i32 {
    const NEG: i32 = NEG_INF;
    const RELATIVE: bool = false;
    fn stored(score: i32, _: i32) -> i32 {
        score
    }
    fn widen(self) -> i32 {
        self
    }
    unsafe fn scan(lanes: usize, io: RowIo<i32>, k: &RowConsts, best: i32, boundary: i32, _: i32) -> RowOut {
        scan_row_in(lanes, io, k, best, boundary)
    }
}

impl Cell for i16 {
    const NEG: i16 = i16::MIN;
    const RELATIVE: bool = true;
    fn stored(score: i32, base: i32) -> i16 {
        (score as i64 - base as i64).clamp(i16::MIN as i64, i16::MAX as i64) as i16
    }
    fn widen(self) -> i32 {
        self as i32
    }
    unsafe fn scan(_: usize, io: RowIo<i16>, k: &RowConsts, best: i32, boundary: i32, delta: i32) -> RowOut {
        scan_row_narrow(io, k, best, boundary, delta)
    }
}

/// The 32-lane sweep's largest positive substitution score, and its bound on the other scores' span around a
/// row's floor (see [`Cell`]).
const NARROW_SUB_MAX: i32 = 1000;
const NARROW_SPAN_MAX: i64 = 30_000;

/// [`super::sweep::fill`] in `lanes` (8 or 16 with `i32` rows, 32 with `i16`) lanes, or None (the constraints
/// may have been queried) when the CPU lacks them or the call is not one the vector sweep can do exactly. An
/// error when the sweep's memory cannot be allocated.
pub(crate) fn fill<K: Constraints, E: Cell>(
    a: &[u8],
    b: &[u8],
    p: &Params,
    bounds: &mut K,
    s: &mut Scratch,
    v: &mut Rows<E>,
    lanes: usize,
) -> Result<Option<Fill>, OutOfMemory> {
    let m = a.len() as u32;
    let n = (b.len() - 1) as u32;
    let admitted = available(lanes)
        && m.max(n) <= i32::MAX as u32 - 2
        && p.gap_open >= 0
        && p.gap_extend >= 0
        && (0..=Y_DROP_MAX).contains(&p.y_drop)
        && p.gap_open as i64 + p.gap_extend as i64 <= GAP_OE_MAX
        && (!E::RELATIVE
            || p.y_drop as i64 + p.gap_open as i64 + 34 * p.gap_extend as i64 + 2 * NARROW_SUB_MAX as i64
                <= NARROW_SPAN_MAX);
    if !admitted {
        return Ok(None);
    }
    let gap_e = p.gap_extend;
    let gap_oe = p.gap_open + gap_e;
    let y_drop = p.y_drop;
    let y_drop_tail = y_drop_tail(gap_e, y_drop, n);
    // the profile slot of each byte of a seen so far; its matrix row's 256 entries fit the scans
    const NO_SLOT: u8 = u8::MAX;
    v.slot_of.clear();
    v.slot_of.resize(256, NO_SLOT);
    v.filled.clear();

    // row 0 as the sweep stores it
    v.prev_c.clear();
    v.prev_d.clear();
    v.prev_c.resize(PAD, E::NEG);
    v.prev_d.resize(PAD, E::NEG);
    // (relative rows: row 0's floor, the best 0 less the y-drop)
    let base_of = |best: i32| if E::RELATIVE { best.wrapping_sub(y_drop) } else { 0 };
    let mut prev_score_base = base_of(0);
    for (c, d) in row0(n, gap_e, gap_oe, y_drop) {
        try_push(&mut v.prev_c, E::stored(c, prev_score_base))?;
        try_push(&mut v.prev_d, E::stored(d, prev_score_base))?;
    }
    let mut ry = (v.prev_c.len() - PAD) as u32;
    s.start_fill(ry)?;
    let mut prev_base: u32 = 0;

    let mut ly: u32 = 0;
    let mut f = Fill::START;

    for row in 1..=m {
        if f.enter(s.start_row(bounds, p, y_drop_tail, row, &mut ly, &mut ry)?).is_none() {
            break;
        }
        let x = a[row as usize - 1] as usize;
        let srow: &[i32; 256] = p.sub[x * 256..][..256].try_into().unwrap();
        if v.slot_of[x] == NO_SLOT {
            if !srow.iter().all(|v| v.unsigned_abs() <= SUB_ABS_MAX && (!E::RELATIVE || *v <= NARROW_SUB_MAX))
                || v.filled.len() >= NO_SLOT as usize
            {
                return Ok(None);
            }
            v.slot_of[x] = v.filled.len() as u8;
            v.filled.push(0);
            if v.profiles.len() < v.filled.len() {
                v.profiles.push(Vec::new());
            }
        }
        let slot = v.slot_of[x] as usize;
        if f.best > BEST_MAX {
            return Ok(None);
        }
        f.a_read = row;
        // (relative rows: this row's scores less its floor as it starts)
        let score_base = base_of(f.best);

        let ly0 = ly;
        let stop = ry.min(n + 1);
        let width = stop.saturating_sub(ly0) as usize;
        if width as i64 * gap_e as i64 > ROW_GAP_MAX {
            return Ok(None);
        }
        grow(&mut v.prev_c, PAD + (stop.max(ly0) - prev_base) as usize + TAIL)?;
        grow(&mut v.prev_d, PAD + (stop.max(ly0) - prev_base) as usize + TAIL)?;
        grow(&mut v.cur_c, PAD + width + TAIL)?;
        grow(&mut v.cur_d, PAD + width + TAIL)?;
        let mut i_end = NEG_INF;
        let mut np_col = ly0;
        let mut first_live = None;
        if width > 0 {
            // column col's diagonal reads b[col - 1]: the row needs b[ly0 .. stop - 1]
            let (profile, filled) = (&mut v.profiles[slot], &mut v.filled[slot]);
            let need = stop as usize - 1;
            // (a chunk reads TAIL scores past the row whether or not the row reads any: a row of column 0
            // alone reads none, and an empty profile is no memory at all)
            if profile.len() < need + TAIL {
                try_resize(profile, (need + TAIL).max(2 * profile.len()), E::stored(0, 0))?;
            }
            if *filled < need {
                for (k, &bc) in b[*filled..need].iter().enumerate() {
                    profile[*filled + k] = E::stored(srow[bc as usize], 0);
                }
                *filled = need;
            }
            v.masks.clear();
            bounds.masks_in(row, ly0, stop, &mut v.masks);
            let k = RowConsts {
                gap_e,
                gap_oe,
                y_drop,
                bnd_all: !p.trim_to_peak && row == m,
                bnd_col: if !p.trim_to_peak && n >= ly0 && n < stop { (n - ly0) as usize } else { usize::MAX },
            };
            // (start_row put the row at an even link: tb holds whole bytes before it)
            let tb_at = s.at / 2;
            try_reserve(&mut s.tb, width.div_ceil(2) + TAIL)?;
            let pb = (ly0 - prev_base) as usize + PAD;
            let io = RowIo {
                pc: v.prev_c.as_ptr().wrapping_add(pb),
                pd: v.prev_d.as_ptr().wrapping_add(pb),
                cc: v.cur_c.as_mut_ptr().wrapping_add(PAD),
                cd: v.cur_d.as_mut_ptr().wrapping_add(PAD),
                sub: v.profiles[slot].as_ptr().wrapping_add(ly0 as usize).wrapping_sub(1),
                tb: s.tb.as_mut_ptr().wrapping_add(tb_at),
                width,
                masks: &v.masks,
                ly0,
            };
            // SAFETY: the lanes are present (`available`); the rows hold PAD cells before column ly0 and TAIL after
            // the row's last column (grown above), the profile holds scores up to b[stop - 2] and TAIL
            // more (ly0 >= 1 where offset -1 is read), tb has (width + 1) / 2 + TAIL spare bytes, and the masks
            // are ascending columns in ly0..stop.
            let (best, boundary) = (f.best.wrapping_sub(score_base), E::stored(f.boundary, score_base).widen());
            let out = unsafe { E::scan(lanes, io, &k, best, boundary, score_base.wrapping_sub(prev_score_base)) };
            // SAFETY: scan_row wrote the row's width links, two a byte.
            unsafe { s.tb.set_len(tb_at + width.div_ceil(2)) };
            (s.at, s.used) = (s.at + width, s.used + width);
            i_end = out.i_end.wrapping_add(score_base);
            if out.first_live != NO_POS {
                first_live = Some(ly0 + out.first_live as u32);
                np_col = ly0 + out.last_live as u32;
            }
            f.best = out.best.wrapping_add(score_base);
            // (a relative boundary no cell raised may have been clamped: it stays as it was)
            if !E::RELATIVE || out.ev_bnd != NO_POS {
                f.boundary = out.boundary.wrapping_add(score_base);
            }
            let pos = |e: usize| if e == NO_POS { -1 } else { e as i64 };
            let (eb, ebb) = (pos(out.ev_best), pos(out.ev_bnd));
            if eb >= 0 || ebb >= 0 {
                f.end1 = row;
                f.end_is_boundary = ebb >= eb;
                f.end2 = ly0 + eb.max(ebb) as u32;
            }
        }
        f.b_read = f.b_read.max(stop);
        ly = first_live.unwrap_or(stop.max(ly0));

        if ly >= ry {
            break;
        }
        let floor = f.best.wrapping_sub(y_drop);
        let nn = bounds.right_limit(n);
        let ry_tested = ry;
        let mut i = i_end;
        if ry > np_col + 1 {
            ry = np_col + 1;
        } else {
            // the row reached its right bound: prolong it with insertions for the row above's overhang
            while i >= floor && ry as i64 <= nn {
                let k = PAD + (ry - ly0) as usize;
                grow(&mut v.cur_c, k + 1)?;
                grow(&mut v.cur_d, k + 1)?;
                v.cur_c[k] = E::stored(i, score_base);
                v.cur_d[k] = E::stored(i.wrapping_sub(gap_oe), score_base);
                i = i.wrapping_sub(gap_e);
                s.push_link(FROM_I)?;
                ry += 1;
            }
        }
        bounds.limit_tested(ry_tested.min(ry), ry);
        if ry as i64 <= nn {
            let k = PAD + (ry - ly0) as usize;
            grow(&mut v.cur_c, k + 1)?;
            grow(&mut v.cur_d, k + 1)?;
            v.cur_c[k] = E::NEG;
            v.cur_d[k] = E::NEG;
            ry += 1;
        }
        std::mem::swap(&mut v.prev_c, &mut v.cur_c);
        std::mem::swap(&mut v.prev_d, &mut v.cur_d);
        prev_base = ly0;
        prev_score_base = score_base;
    }

    Ok(Some(f))
}

/// A row's scoring and which of its cells may be boundary ends (`--noytrim`).
pub(crate) struct RowConsts {
    gap_e: i32,
    gap_oe: i32,
    y_drop: i32,
    /// Every cell of the row (the last row).
    bnd_all: bool,
    /// The cell at this offset (column n); usize::MAX for none.
    bnd_col: usize,
}

/// What a row's scan leaves (offsets from the row's first column; NO_POS for none).
pub(crate) struct RowOut {
    first_live: usize,
    last_live: usize,
    ev_best: usize,
    ev_bnd: usize,
    best: i32,
    boundary: i32,
    /// The insertion score entering the column after the row.
    i_end: i32,
}

#[cfg(target_arch = "x86_64")]
use std::arch::x86_64::*;

#[derive(Clone, Copy)]
/// One row's memory for [`scan_row`]: columns `ly0 .. ly0 + width` at offsets 0.. of `pc`/`pd` (the row
/// above, valid from offset -1), `cc`/`cd` (this row), `sub` (the diagonal's substitution score, read from
/// offset 1 on) and `tb` (the row's links from an even position, two a byte); `masks` (ascending columns) are
/// pruned unconditionally.
pub(crate) struct RowIo<'a, E> {
    pc: *const E,
    pd: *const E,
    cc: *mut E,
    cd: *mut E,
    sub: *const E,
    tb: *mut u8,
    width: usize,
    masks: &'a [u32],
    ly0: u32,
}

/// 8 lanes (AVX2): `V` and the lane sets `M` are `__m256i` (a lane in the set is all ones).
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Avx2;

/// 16 lanes (AVX-512): `V` is `__m512i`, `M` a bit per lane.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Avx512;

/// 32 lanes of 16 bits (AVX-512BW): `V` is `__m512i`, `M` a bit per lane.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct Avx512Bw;

/// Declares [`Lanes`], one vector width of [`scan_row`], with each method's AVX2, AVX-512 and AVX-512BW bodies
/// side by side, and implements it for [`Avx2`], [`Avx512`] and [`Avx512Bw`]. Every method is
/// `#[inline(always)]`, so that it compiles inside [`scan_row8`], [`scan_row16`] or [`scan_row32`] with their
/// target feature. [`Avx512Bw`]'s lanes hold 16-bit scores relative to the row's floor ([`Cell`]): its
/// arithmetic saturates, and `splat` clamps.
macro_rules! lanes {
    ($($(#[doc = $doc:literal])* fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = $avx2:expr, $avx512:expr, $bw:expr;)*) => {
        /// # Safety
        /// The methods run only where the CPU has the width's feature; pointers are as [`RowIo`]'s.
        #[cfg(target_arch = "x86_64")]
        trait Lanes: Copy {
            const N: usize;
            type E: Cell;
            type V: Copy;
            type M: Copy;
            $($(#[doc = $doc])* unsafe fn $name($($arg: $ty),*) $(-> $ret)?;)*
        }

        lanes!(@impl Avx2, 8, i32, __m256i, __m256i; $(fn $name($($arg: $ty),*) $(-> $ret)? = $avx2;)*);
        lanes!(@impl Avx512, 16, i32, __m512i, __mmask16; $(fn $name($($arg: $ty),*) $(-> $ret)? = $avx512;)*);
        lanes!(@impl Avx512Bw, 32, i16, __m512i, __mmask32; $(fn $name($($arg: $ty),*) $(-> $ret)? = $bw;)*);
    };
    (@impl $width:ident, $n:literal, $e:ty, $v:ty, $m:ty; $(fn $name:ident($($arg:ident: $ty:ty),*) $(-> $ret:ty)? = $body:expr;)*) => {
        #[cfg(target_arch = "x86_64")]
        impl Lanes for $width {
            const N: usize = $n;
            type E = $e;
            type V = $v;
            type M = $m;
            $(#[inline(always)] unsafe fn $name($($arg: $ty),*) $(-> $ret)? { $body })*
        }
    };
}

#[rustfmt::skip]
lanes! {
    fn splat(x: i32) -> Self::V = _mm256_set1_epi32(x), _mm512_set1_epi32(x), _mm512_set1_epi16(narrow(x));
    /// Lane k holds k.
    fn index() -> Self::V =
        _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7),
        _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15),
        _mm512_loadu_si512(LANE_INDEX.as_ptr().cast());
    fn load(p: *const Self::E) -> Self::V = _mm256_loadu_si256(p.cast()), _mm512_loadu_si512(p.cast()), _mm512_loadu_si512(p.cast());
    /// Lanes 1.. from `p + 1..`; `p` itself is not read (it may lie before the profile).
    fn load_after_first(p: *const Self::E) -> Self::V =
        _mm256_permutevar8x32_epi32(_mm256_loadu_si256(p.wrapping_add(1).cast()), _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)),
        _mm512_maskz_loadu_epi32(0xFFFE, p),
        _mm512_maskz_loadu_epi16(0xFFFF_FFFE, p);
    fn store(p: *mut Self::E, v: Self::V) = _mm256_storeu_si256(p.cast(), v), _mm512_storeu_si512(p.cast(), v), _mm512_storeu_si512(p.cast(), v);
    /// The low byte of each lane, to `N` bytes at `p`.
    fn store_bytes(p: *mut u8, v: Self::V) = store_bytes8(p, v), _mm_storeu_si128(p.cast(), _mm512_cvtepi32_epi8(v)),
        _mm256_storeu_si256(p.cast(), _mm512_cvtepi16_epi8(v));
    /// Each lane's low 4 bits, two lanes a byte (the even lane's in the low half), to `N / 2` bytes at `p`.
    fn store_nibbles(p: *mut u8, v: Self::V) = store_nibbles8(p, v),
        _mm_storel_epi64(p.cast(), _mm512_cvtepi64_epi8(_mm512_or_si512(v, _mm512_srli_epi64::<28>(v)))),
        _mm_storeu_si128(p.cast(), _mm512_cvtepi32_epi8(_mm512_or_si512(v, _mm512_srli_epi32::<12>(v))));
    fn add(a: Self::V, b: Self::V) -> Self::V = _mm256_add_epi32(a, b), _mm512_add_epi32(a, b), _mm512_adds_epi16(a, b);
    fn sub(a: Self::V, b: Self::V) -> Self::V = _mm256_sub_epi32(a, b), _mm512_sub_epi32(a, b), _mm512_subs_epi16(a, b);
    fn mul(a: Self::V, b: Self::V) -> Self::V = _mm256_mullo_epi32(a, b), _mm512_mullo_epi32(a, b), _mm512_mullo_epi16(a, b);
    fn max(a: Self::V, b: Self::V) -> Self::V = _mm256_max_epi32(a, b), _mm512_max_epi32(a, b), _mm512_max_epi16(a, b);
    fn gt(a: Self::V, b: Self::V) -> Self::M = _mm256_cmpgt_epi32(a, b), _mm512_cmpgt_epi32_mask(a, b), _mm512_cmpgt_epi16_mask(a, b);
    /// `a` in the lanes of `m`, else `b`.
    fn select(m: Self::M, a: Self::V, b: Self::V) -> Self::V =
        _mm256_blendv_epi8(b, a, m), _mm512_mask_mov_epi32(b, m, a), _mm512_mask_mov_epi16(b, m, a);
    /// `v - 1` in the lanes of `m`, else `v` (FROM_D to FROM_I in a link).
    fn dec_where(m: Self::M, v: Self::V) -> Self::V =
        _mm256_add_epi32(v, m), _mm512_mask_sub_epi32(v, m, v, _mm512_set1_epi32(1)), _mm512_mask_sub_epi16(v, m, v, _mm512_set1_epi16(1));
    /// `v` outside the lanes of `m`, else 0.
    fn clear(m: Self::M, v: Self::V) -> Self::V = _mm256_andnot_si256(m, v), _mm512_maskz_mov_epi32(!m, v), _mm512_maskz_mov_epi16(!m, v);
    /// `v` with lane 0 from `x`.
    fn set_first(v: Self::V, x: Self::V) -> Self::V =
        _mm256_blend_epi32::<0x01>(v, x), _mm512_mask_mov_epi32(v, 1, x), _mm512_mask_mov_epi16(v, 1, x);
    /// The lanes moved up by one, lane 0 from `fill` (a splat).
    fn shift_in(v: Self::V, fill: Self::V) -> Self::V =
        _mm256_blend_epi32::<0x01>(_mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6)), fill),
        _mm512_alignr_epi32::<15>(v, fill),
        shift_in32(v, fill);
    /// Inclusive prefix max over the lanes (`min`: the splat of i32::MIN).
    fn incl_max(v: Self::V, min: Self::V) -> Self::V = incl_max8(v, min), incl_max16(v, min), incl_max32(v, min);
    /// The last lane in every lane.
    fn splat_last(v: Self::V) -> Self::V =
        _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(7)),
        _mm512_permutexvar_epi32(_mm512_set1_epi32(15), v),
        _mm512_permutexvar_epi16(_mm512_set1_epi16(31), v);
    fn first(v: Self::V) -> i32 = _mm256_cvtsi256_si32(v), _mm512_cvtsi512_si32(v), _mm512_cvtsi512_si32(v) as i16 as i32;
    /// Lanes `0..n`.
    fn below(n: usize) -> Self::M =
        _mm256_cmpgt_epi32(_mm256_set1_epi32(n as i32), Self::index()),
        if n == 16 { 0xFFFF } else { (1u16 << n) - 1 },
        if n == 32 { u32::MAX } else { (1u32 << n) - 1 };
    /// Lane `k` alone.
    fn only(k: usize) -> Self::M = _mm256_cmpeq_epi32(Self::index(), _mm256_set1_epi32(k as i32)), 1u16 << k, 1u32 << k;
    fn and(a: Self::M, b: Self::M) -> Self::M = _mm256_and_si256(a, b), a & b, a & b;
    fn or(a: Self::M, b: Self::M) -> Self::M = _mm256_or_si256(a, b), a | b, a | b;
    /// `b` without the lanes of `a`.
    fn andnot(a: Self::M, b: Self::M) -> Self::M = _mm256_andnot_si256(a, b), !a & b, !a & b;
    /// Bit k: lane k.
    fn bits(m: Self::M) -> u32 = _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32, m as u32, m;
}

/// 0..32 as 16-bit lanes.
#[cfg(target_arch = "x86_64")]
static LANE_INDEX: [i16; 32] = {
    let mut a = [0i16; 32];
    let mut k = 0;
    while k < 32 {
        a[k] = k as i16;
        k += 1;
    }
    a
};

/// `x` clamped into 16 bits.
#[inline(always)]
fn narrow(x: i32) -> i16 {
    x.clamp(i16::MIN as i32, i16::MAX as i32) as i16
}

/// [`Lanes::shift_in`] in 32 lanes of 16 bits.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn shift_in32(v: __m512i, fill: __m512i) -> __m512i {
    // lane k from lane k - 1 (lane 0 keeps `fill`)
    let down: __m512i = _mm512_loadu_si512(LANE_INDEX.as_ptr().cast());
    _mm512_mask_permutexvar_epi16(fill, 0xFFFF_FFFE, _mm512_sub_epi16(down, _mm512_set1_epi16(1)), v)
}

/// [`Lanes::incl_max`] in 32 lanes of 16 bits.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn incl_max32(v: __m512i, min: __m512i) -> __m512i {
    // shifted up by 1 lane, then by 2, 4, 8, 16 (whole 32-bit pairs), filling with min
    let v = _mm512_max_epi16(v, shift_in32(v, min));
    let v = _mm512_max_epi16(v, _mm512_alignr_epi32::<15>(v, min));
    let v = _mm512_max_epi16(v, _mm512_alignr_epi32::<14>(v, min));
    let v = _mm512_max_epi16(v, _mm512_alignr_epi32::<12>(v, min));
    _mm512_max_epi16(v, _mm512_alignr_epi32::<8>(v, min))
}

/// [`Lanes::incl_max`] in 8 lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn incl_max8(v: __m256i, min: __m256i) -> __m256i {
    // within each 128-bit half: shift up by 1 then 2 lanes (filling with min); then the low half's last
    // lane into the high half
    let v = _mm256_max_epi32(v, _mm256_alignr_epi8::<12>(v, min));
    let v = _mm256_max_epi32(v, _mm256_alignr_epi8::<8>(v, min));
    let t = _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(3));
    _mm256_max_epi32(v, _mm256_blend_epi32::<0x0F>(t, min))
}

/// [`Lanes::incl_max`] in 16 lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn incl_max16(v: __m512i, min: __m512i) -> __m512i {
    // shifted up by 1, 2, 4, 8 lanes, filling with min
    let v = _mm512_max_epi32(v, _mm512_alignr_epi32::<15>(v, min));
    let v = _mm512_max_epi32(v, _mm512_alignr_epi32::<14>(v, min));
    let v = _mm512_max_epi32(v, _mm512_alignr_epi32::<12>(v, min));
    _mm512_max_epi32(v, _mm512_alignr_epi32::<8>(v, min))
}

/// [`Lanes::store_bytes`] from 8 lanes.
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store_bytes8(p: *mut u8, v: __m256i) {
    let p16 = _mm256_packs_epi32(v, v);
    // bytes 0-3 of each half hold the half's 4 bytes
    let p8 = _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p16, p16), _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
    _mm_storel_epi64(p.cast(), _mm256_castsi256_si128(p8))
}

/// [`Lanes::store_nibbles`] from 8 lanes (links: each lane below 16).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn store_nibbles8(p: *mut u8, v: __m256i) {
    // each 64-bit lane's low byte: its even lane | its odd lane << 4; then those 4 bytes together
    let x = _mm256_or_si256(v, _mm256_srli_epi64::<28>(v));
    let y = _mm256_shuffle_epi8(x, _mm256_setr_epi8(0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, 0, 8, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1, -1));
    let (lo, hi) = (_mm256_extract_epi16::<0>(y) as u32 & 0xFFFF, _mm256_extract_epi16::<8>(y) as u32 & 0xFFFF);
    std::ptr::write_unaligned(p.cast::<u32>(), lo | hi << 16);
}

/// Writes link `l` at position `k` of a row's links (two a byte): an even position writes its whole byte (its
/// odd neighbour comes after it, left to right), an odd one keeps the even link beside it.
#[inline(always)]
unsafe fn put_link(tb: *mut u8, k: usize, l: u8) {
    let b = tb.add(k / 2);
    *b = if k % 2 == 0 { l } else { (*b & 0x0F) | l << 4 };
}

/// What a chunk of columns computes before the carries: its scores and its insertion scan.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct ChunkHead<L: Lanes> {
    valid: usize,
    act: L::M,
    s: L::V,
    d: L::V,
    d_gt_s: L::M,
    zi: L::V,
}

/// The chunk at offset `j` of a run ending at `seg_end` (see [`RowIo`]'s pointers).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn chunk_head<L: Lanes>(pc: *const L::E, pd: *const L::E, sub: *const L::E, j: usize, seg_end: usize, oev: L::V, e_l1: L::V, delta: L::V) -> ChunkHead<L> {
    let min = L::splat(i32::MIN);
    let valid = (seg_end - j).min(L::N);
    let act = L::below(valid);
    let (mut cl, mut d) = (L::load(pc.offset(j as isize - 1)), L::load(pd.add(j)));
    if <L::E as Cell>::RELATIVE {
        (cl, d) = (L::sub(cl, delta), L::sub(d, delta));
    }
    let s = if j == 0 {
        // no diagonal into the row's first column (and no score to read when it is column 0)
        L::set_first(L::add(cl, L::load_after_first(sub)), L::splat(NEG_INF))
    } else {
        L::add(cl, L::load(sub.add(j)))
    };
    let d_gt_s = L::gt(d, s);
    // an insertion opens only from a substitution-ended cell: S >= D decides it (gapOpen >= 0)
    let z = L::select(L::andnot(d_gt_s, act), L::add(L::sub(s, oev), e_l1), min);
    ChunkHead { valid, act, s, d, d_gt_s, zi: L::incl_max(z, min) }
}

/// One row in `L`'s lanes, from the best and boundary so far (relative rows: less the row's floor, and the row
/// above's scores read less `delta`).
#[cfg(target_arch = "x86_64")]
#[inline(always)]
unsafe fn scan_row<L: Lanes>(io: RowIo<L::E>, k: &RowConsts, best: i32, boundary: i32, delta: i32) -> RowOut {
    // (locals, not loads through `io` and `k`: the stores below could alias them)
    let RowIo { pc, pd, cc, cd, sub, tb, width, masks, ly0 } = io;
    let RowConsts { gap_e, gap_oe, y_drop, bnd_all, bnd_col } = *k;
    let min = L::splat(i32::MIN);
    let neg = L::splat(NEG_INF);
    let ev = L::splat(gap_e);
    let oev = L::splat(gap_oe);
    let ydv = L::splat(y_drop);
    // E * lane and E * (lane + 1): the insertion scan runs on open + E * (offset + 1)
    let e_l = L::mul(ev, L::index());
    let e_l1 = L::add(e_l, ev);
    let e_chunk = L::splat(gap_e * L::N as i32);
    let (link_d_ext, link_i_ext) = (L::splat(8), L::splat(4));
    let link_gap_d = L::splat(14); // FROM_D | I_EXTEND | D_EXTEND
    let delta = L::splat(delta);

    let mut out = RowOut {
        first_live: NO_POS,
        last_live: NO_POS,
        ev_best: NO_POS,
        ev_bnd: NO_POS,
        best,
        boundary,
        i_end: NEG_INF,
    };
    // carries in every lane: the insertion score entering the next column (never below NEG_INF: see the
    // kernel), the best and the boundary so far
    let mut ic = neg;
    let mut best_v = L::splat(best);
    let mut bnd_v = L::splat(boundary);
    let mut seg = 0usize;
    let mut next_mask = 0usize;
    loop {
        let seg_end = match masks.get(next_mask) {
            Some(&x) => (x - ly0) as usize,
            None => width,
        };
        let mut j = seg;
        // (each chunk's loads and insertion scan, which need no carry, are done one chunk ahead: the
        // scans' latency then overlaps the chunk before; zeros, plain data, stand for no chunk and are never read)
        let mut next = if j < seg_end { chunk_head::<L>(pc, pd, sub, j, seg_end, oev, e_l1, delta) } else { std::mem::zeroed() };
        while j < seg_end {
            let ChunkHead { valid, act, s, d, d_gt_s, zi } = next;
            if j + L::N < seg_end {
                next = chunk_head::<L>(pc, pd, sub, j + L::N, seg_end, oev, e_l1, delta);
            }
            let zx = L::max(L::shift_in(zi, min), ic);
            let iv = L::max(neg, L::sub(zx, e_l));
            let gap = L::or(d_gt_s, L::gt(iv, s));
            let c = L::max(s, L::max(d, iv));
            // the best before each cell: substitution-ended cells only
            let sub_ended = L::andnot(gap, act);
            // (no substitution-ended cell reaching the best so far: the best before each cell is it)
            let reaches = L::andnot(L::gt(best_v, s), sub_ended);
            let (bx, best_next) = if L::bits(reaches) == 0 {
                (best_v, best_v)
            } else {
                let bi = L::incl_max(L::select(sub_ended, s, min), min);
                (L::max(L::shift_in(bi, min), best_v), L::max(best_v, L::splat_last(bi)))
            };
            let pruned = L::and(act, L::gt(L::sub(bx, ydv), c));
            let live = L::andnot(pruned, act);
            let live_sub = L::andnot(pruned, sub_ended);
            // a later cell wins a tie
            let raises = L::andnot(L::gt(bx, s), live_sub);

            let dme = L::sub(d, ev);
            let o = L::sub(c, oev);
            let dn = L::select(gap, dme, L::max(o, dme));
            L::store(cc.add(j), L::select(pruned, neg, c));
            L::store(cd.add(j), L::select(pruned, neg, dn));
            // gap-ended: FROM_D (tie) or FROM_I, both extend bits; substitution-ended: the extend bit of
            // each gap that does not open here (two different bits: + is |)
            let link_gap = L::dec_where(L::gt(iv, d), link_gap_d);
            let link_sub = L::add(L::clear(L::gt(o, dme), link_d_ext), L::clear(L::gt(o, L::sub(iv, ev)), link_i_ext));
            let link = L::clear(pruned, L::select(gap, link_gap, link_sub));
            if j % 2 == 0 {
                L::store_nibbles(tb.add(j / 2), link);
            } else {
                // (a run after a masked cell may start at an odd column)
                let mut bytes = [0u8; 32];
                L::store_bytes(bytes.as_mut_ptr(), link);
                for (k, &l) in bytes[..L::N].iter().enumerate() {
                    put_link(tb, j + k, l);
                }
            }

            // (selects, not branches: these bits follow the data)
            let live_bits = L::bits(live);
            let first = if live_bits != 0 { j + live_bits.trailing_zeros() as usize } else { NO_POS };
            out.first_live = out.first_live.min(first);
            out.last_live = if live_bits != 0 { j + 31 - live_bits.leading_zeros() as usize } else { out.last_live };
            let raise_bits = L::bits(raises);
            out.ev_best = if raise_bits != 0 { j + 31 - raise_bits.leading_zeros() as usize } else { out.ev_best };
            if bnd_all || (bnd_col >= j && bnd_col < j + valid) {
                let cand = if bnd_all { live_sub } else { L::and(live_sub, L::only(bnd_col - j)) };
                let bbi = L::incl_max(L::select(cand, s, min), min);
                let bbx = L::max(L::shift_in(bbi, min), bnd_v);
                let bnd_bits = L::bits(L::andnot(L::gt(bbx, s), cand));
                if bnd_bits != 0 {
                    out.ev_bnd = j + 31 - bnd_bits.leading_zeros() as usize;
                }
                bnd_v = L::max(bnd_v, L::splat_last(bbi));
            }
            best_v = best_next;
            let zmax = L::max(L::splat_last(zi), ic);
            ic = if valid == L::N {
                L::max(neg, L::sub(zmax, e_chunk))
            } else {
                L::max(neg, L::sub(zmax, L::splat(gap_e * valid as i32)))
            };
            j += L::N;
        }
        if seg_end >= width {
            break;
        }
        // a masked cell: pruned whatever its scores, and the insertion run stops
        *cc.add(seg_end) = <L::E as Cell>::NEG;
        *cd.add(seg_end) = <L::E as Cell>::NEG;
        put_link(tb, seg_end, 0);
        ic = neg;
        seg = seg_end + 1;
        next_mask += 1;
    }
    out.best = L::first(best_v);
    out.boundary = L::first(bnd_v);
    out.i_end = L::first(ic);
    out
}

/// [`scan_row`] with AVX2.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2")]
unsafe fn scan_row8(io: RowIo<i32>, k: &RowConsts, best: i32, boundary: i32) -> RowOut {
    scan_row::<Avx2>(io, k, best, boundary, 0)
}

/// [`scan_row`] with AVX-512.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
unsafe fn scan_row16(io: RowIo<i32>, k: &RowConsts, best: i32, boundary: i32) -> RowOut {
    scan_row::<Avx512>(io, k, best, boundary, 0)
}

/// [`scan_row`] with AVX-512BW, 16-bit scores relative to the row's floor.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512bw")]
unsafe fn scan_row_narrow(io: RowIo<i16>, k: &RowConsts, best: i32, boundary: i32, delta: i32) -> RowOut {
    scan_row::<Avx512Bw>(io, k, best, boundary, delta)
}

/// [`scan_row`] in `lanes` (8 or 16) lanes, which the CPU has.
#[cfg(target_arch = "x86_64")]
unsafe fn scan_row_in(lanes: usize, io: RowIo<i32>, k: &RowConsts, best: i32, boundary: i32) -> RowOut {
    if lanes == 16 {
        scan_row16(io, k, best, boundary)
    } else {
        scan_row8(io, k, best, boundary)
    }
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn scan_row_in(_: usize, _: RowIo<i32>, _: &RowConsts, _: i32, _: i32) -> RowOut {
    unreachable!("no vector lanes on this CPU (`available`)")
}

#[cfg(not(target_arch = "x86_64"))]
unsafe fn scan_row_narrow(_: RowIo<i16>, _: &RowConsts, _: i32, _: i32, _: i32) -> RowOut {
    unreachable!("no vector lanes on this CPU (`available`)")
}
