//! The sweep of [`super::sweep`] with each row's columns 8 (AVX2) or 16 (AVX-512) at a time in vector
//! lanes: the two-scan form of kernels/ydrop_one_sided.cu (its header says why it is exact; a cell's insertion
//! score below the y-drop floor may differ from the sweep's, which changes only bits off every path), plus
//! what the kernel leaves out: an earlier
//! alignment's masked cells split a row into runs, and a masked cell resets the insertion score exactly as
//! the sweep does (so no argument about pruned values is needed there). Rows live in two arrays indexed from
//! each row's left bound as it began (the sweep's in-place array holds the same values where a later row
//! reads them). Row 0, the prolongation, the terminator and the constraint queries are the sweep's, in the
//! sweep's order; the score, end, truncation and every traceback byte on a path are the sweep's
//! (tests/ydrop_twin.rs, tests/ydrop_dumps.rs and `ydrop_fuzz vector` compare them, envelopes too).
//!
//! A call whose values could leave the scans' int32 range (the limits the GPU kernel's host admits) gives
//! up with None, before or during the sweep, and runs on the sweep.

use super::sweep::{y_drop_tail, Fill, Params, RowStart, Scratch, FROM_I, NEG_INF};
use super::Constraints;

const SUB_ABS_MAX: u32 = 1 << 27;
const GAP_OE_MAX: i64 = 1 << 24;
const Y_DROP_MAX: i32 = 1 << 30;
const BEST_MAX: i32 = 1 << 30;
/// A row at most this many gap extensions wide: the sweep's insertion score, reset to NEG_INF, cannot wrap.
const ROW_GAP_MAX: i64 = 1 << 24;
/// Cells before a row's first column in its array: the diagonal load at `col - 1` stays inside.
const PAD: usize = 16;
/// Cells after the last column a row visits: a chunk of 16 may write 15 past it.
const TAIL: usize = 16;
/// No such column in a row (RowOut).
const NO_POS: usize = usize::MAX;

/// Per-thread rows reused across calls.
#[derive(Default)]
pub(crate) struct Rows {
    prev_c: Vec<i32>,
    prev_d: Vec<i32>,
    cur_c: Vec<i32>,
    cur_d: Vec<i32>,
    /// Substitution profiles of b: `profiles[slot_of[x]][k]` is the score of byte x of a against `b[k]`,
    /// filled for `k < filled[slot]` as the sweep moves right (its columns only grow).
    profiles: Vec<Vec<i32>>,
    filled: Vec<usize>,
    slot_of: Vec<u8>,
    masks: Vec<u32>,
}

/// Whether this CPU has `lanes`-wide vectors for the sweep (8: AVX2, 16: AVX-512).
pub(crate) fn available(lanes: usize) -> bool {
    #[cfg(target_arch = "x86_64")]
    {
        match lanes {
            8 => std::arch::is_x86_feature_detected!("avx2"),
            16 => std::arch::is_x86_feature_detected!("avx512f"),
            _ => false,
        }
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = lanes;
        false
    }
}

fn grow(v: &mut Vec<i32>, len: usize) {
    if v.len() < len {
        v.resize(len, NEG_INF);
    }
}

/// [`super::sweep::fill`] in `lanes` (8 or 16) lanes, or None (the constraints may have been queried) when the
/// CPU lacks them or the call is not one the vector sweep can do exactly.
pub(crate) fn fill<K: Constraints>(
    a: &[u8],
    b: &[u8],
    p: &Params,
    bounds: &mut K,
    s: &mut Scratch,
    v: &mut Rows,
    lanes: usize,
) -> Option<Fill> {
    #[cfg(target_arch = "x86_64")]
    {
        let m = a.len() as u32;
        let n = (b.len() - 1) as u32;
        let admitted = available(lanes)
            && m.max(n) <= i32::MAX as u32 - 2
            && p.gap_open >= 0
            && p.gap_extend >= 0
            && (0..=Y_DROP_MAX).contains(&p.y_drop)
            && p.gap_open as i64 + p.gap_extend as i64 <= GAP_OE_MAX;
        if !admitted {
            return None;
        }
        fill_admitted(a, b, p, bounds, s, v, lanes == 16)
    }
    #[cfg(not(target_arch = "x86_64"))]
    {
        let _ = (a, b, p, bounds, s, v, lanes);
        None
    }
}

#[cfg(target_arch = "x86_64")]
fn fill_admitted<K: Constraints>(
    a: &[u8],
    b: &[u8],
    p: &Params,
    bounds: &mut K,
    s: &mut Scratch,
    v: &mut Rows,
    wide: bool,
) -> Option<Fill> {
    let m = a.len() as u32;
    let n = (b.len() - 1) as u32;
    let gap_e = p.gap_extend;
    let gap_oe = p.gap_open + gap_e;
    let y_drop = p.y_drop;
    let y_drop_tail = y_drop_tail(gap_e, y_drop, n);
    // the profile slot of each byte of a seen so far; its matrix row's 256 entries fit the scans
    const NO_SLOT: u8 = u8::MAX;
    v.slot_of.clear();
    v.slot_of.resize(256, NO_SLOT);
    v.filled.clear();

    s.tb.clear();
    s.tb_row.clear();
    s.tb_row.push(0);

    // row 0 as the sweep stores it
    v.prev_c.clear();
    v.prev_d.clear();
    v.prev_c.resize(PAD, NEG_INF);
    v.prev_d.resize(PAD, NEG_INF);
    v.prev_c.push(0);
    v.prev_d.push(gap_oe.wrapping_neg());
    s.tb.push(0);
    let mut c = gap_oe.wrapping_neg();
    let mut c_prev = 0;
    let mut col: u32 = 1;
    while col <= n && c_prev >= y_drop.wrapping_neg() {
        v.prev_c.push(c);
        v.prev_d.push(c.wrapping_sub(gap_oe));
        c_prev = c;
        c = c.wrapping_sub(gap_e);
        s.tb.push(FROM_I);
        col += 1;
    }
    let mut prev_base: u32 = 0;

    let mut ly: u32 = 0;
    let mut ry: u32 = col;
    let (mut end1, mut end2) = (0u32, 0u32);
    let mut best: i32 = 0;
    let mut boundary: i32 = NEG_INF;
    let mut end_is_boundary = false;
    let mut truncated = false;
    let mut beyond_bounds = false;
    let (mut a_read, mut b_read) = (0u32, 0u32);

    for row in 1..=m {
        match s.start_row(bounds, p, y_drop_tail, row, &mut ly, &mut ry) {
            RowStart::Entered(_) => {}
            RowStart::BeyondBounds => {
                beyond_bounds = true;
                break;
            }
            RowStart::Truncated => {
                truncated = true;
                break;
            }
        }
        let x = a[row as usize - 1] as usize;
        let srow: &[i32; 256] = p.sub[x * 256..][..256].try_into().unwrap();
        if v.slot_of[x] == NO_SLOT {
            if !srow.iter().all(|v| v.unsigned_abs() <= SUB_ABS_MAX) || v.filled.len() >= NO_SLOT as usize {
                return None;
            }
            v.slot_of[x] = v.filled.len() as u8;
            v.filled.push(0);
            if v.profiles.len() < v.filled.len() {
                v.profiles.push(Vec::new());
            }
        }
        let slot = v.slot_of[x] as usize;
        if best > BEST_MAX {
            return None;
        }
        a_read = row;

        let ly0 = ly;
        let stop = ry.min(n + 1);
        let width = stop.saturating_sub(ly0) as usize;
        if width as i64 * gap_e as i64 > ROW_GAP_MAX {
            return None;
        }
        grow(&mut v.prev_c, PAD + (stop.max(ly0) - prev_base) as usize + TAIL);
        grow(&mut v.prev_d, PAD + (stop.max(ly0) - prev_base) as usize + TAIL);
        grow(&mut v.cur_c, PAD + width + TAIL);
        grow(&mut v.cur_d, PAD + width + TAIL);
        let mut i_end = NEG_INF;
        let mut np_col = ly0;
        let mut first_live = None;
        if width > 0 {
            // column col's diagonal reads b[col - 1]: the row needs b[ly0 .. stop - 1]
            let (profile, filled) = (&mut v.profiles[slot], &mut v.filled[slot]);
            let need = stop as usize - 1;
            if *filled < need {
                if profile.len() < need + TAIL {
                    profile.resize((need + TAIL).max(2 * profile.len()), 0);
                }
                for (k, &bc) in b[*filled..need].iter().enumerate() {
                    profile[*filled + k] = srow[bc as usize];
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
            let tb_at = s.tb.len();
            s.tb.reserve(width + TAIL);
            let pb = (ly0 - prev_base) as usize + PAD;
            // SAFETY: AVX2 or AVX-512 (`wide`) is present (`available`); the rows hold PAD cells before column ly0 and TAIL after
            // the row's last column (grown above), the profile holds scores up to b[stop - 2] and TAIL
            // more (ly0 >= 1 where offset -1 is read), tb has width + TAIL spare bytes, and the masks are
            // ascending columns in ly0..stop.
            let scan_row = if wide { scan_row16 } else { scan_row8 };
            let out = unsafe {
                scan_row(
                    v.prev_c.as_ptr().add(pb),
                    v.prev_d.as_ptr().add(pb),
                    v.cur_c.as_mut_ptr().add(PAD),
                    v.cur_d.as_mut_ptr().add(PAD),
                    v.profiles[slot].as_ptr().wrapping_add(ly0 as usize).wrapping_sub(1),
                    s.tb.as_mut_ptr().add(tb_at),
                    width,
                    &v.masks,
                    ly0,
                    &k,
                    best,
                    boundary,
                )
            };
            // SAFETY: scan_row wrote the row's width bytes.
            unsafe { s.tb.set_len(tb_at + width) };
            i_end = out.i_end;
            if out.first_live != NO_POS {
                first_live = Some(ly0 + out.first_live as u32);
                np_col = ly0 + out.last_live as u32;
            }
            best = out.best;
            boundary = out.boundary;
            let pos = |e: usize| if e == NO_POS { -1 } else { e as i64 };
            let (eb, ebb) = (pos(out.ev_best), pos(out.ev_bnd));
            if eb >= 0 || ebb >= 0 {
                end1 = row;
                end_is_boundary = ebb >= eb;
                end2 = ly0 + eb.max(ebb) as u32;
            }
        }
        b_read = b_read.max(stop);
        ly = first_live.unwrap_or(stop.max(ly0));

        if ly >= ry {
            break;
        }
        let floor = best.wrapping_sub(y_drop);
        let nn = bounds.right_limit(n);
        let ry_tested = ry;
        let mut i = i_end;
        if ry > np_col + 1 {
            ry = np_col + 1;
        } else {
            // the row reached its right bound: prolong it with insertions for the row above's overhang
            while i >= floor && ry as i64 <= nn {
                let k = PAD + (ry - ly0) as usize;
                grow(&mut v.cur_c, k + 1);
                grow(&mut v.cur_d, k + 1);
                v.cur_c[k] = i;
                v.cur_d[k] = i.wrapping_sub(gap_oe);
                i = i.wrapping_sub(gap_e);
                s.tb.push(FROM_I);
                ry += 1;
            }
        }
        bounds.limit_tested(ry_tested.min(ry), ry);
        if ry as i64 <= nn {
            let k = PAD + (ry - ly0) as usize;
            grow(&mut v.cur_c, k + 1);
            grow(&mut v.cur_d, k + 1);
            v.cur_c[k] = NEG_INF;
            v.cur_d[k] = NEG_INF;
            ry += 1;
        }
        std::mem::swap(&mut v.prev_c, &mut v.cur_c);
        std::mem::swap(&mut v.prev_d, &mut v.cur_d);
        prev_base = ly0;
    }

    let score = if end_is_boundary { boundary } else { best };
    Some(Fill { score, end1, end2, truncated, beyond_bounds, a_read, b_read })
}

/// A row's scoring and which of its cells may be boundary ends (`--noytrim`).
struct RowConsts {
    gap_e: i32,
    gap_oe: i32,
    y_drop: i32,
    /// Every cell of the row (the last row).
    bnd_all: bool,
    /// The cell at this offset (column n); usize::MAX for none.
    bnd_col: usize,
}

/// What a row's scan leaves (offsets from the row's first column; NO_POS for none).
struct RowOut {
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

/// Inclusive prefix max over the 8 lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn incl_max(v: __m256i, min: __m256i) -> __m256i {
    // within each 128-bit half: shift up by 1 then 2 lanes (filling with min); then the low half's last
    // lane into the high half
    let v = _mm256_max_epi32(v, _mm256_alignr_epi8::<12>(v, min));
    let v = _mm256_max_epi32(v, _mm256_alignr_epi8::<8>(v, min));
    let t = _mm256_permutevar8x32_epi32(v, _mm256_set1_epi32(3));
    _mm256_max_epi32(v, _mm256_blend_epi32::<0x0F>(t, min))
}

/// The lanes shifted up by one, `first` in lane 0.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn shift_in(v: __m256i, first: __m256i) -> __m256i {
    let t = _mm256_permutevar8x32_epi32(v, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6));
    _mm256_blend_epi32::<0x01>(t, first)
}

#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn bits(m: __m256i) -> u32 {
    _mm256_movemask_ps(_mm256_castsi256_ps(m)) as u32
}

/// What a chunk of 8 columns computes before the carries: its scores and its insertion scan.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct ChunkHead8 {
    valid: usize,
    act: __m256i,
    s: __m256i,
    d: __m256i,
    d_gt_s: __m256i,
    zi: __m256i,
}

#[cfg(target_arch = "x86_64")]
impl Default for ChunkHead8 {
    fn default() -> Self {
        // SAFETY: AVX zeros: a value never read (no chunk follows).
        let z = unsafe { std::mem::zeroed() };
        ChunkHead8 { valid: 0, act: z, s: z, d: z, d_gt_s: z, zi: z }
    }
}

/// The chunk at offset `j` of a run ending at `seg_end` (see [`scan_row8`]'s pointers).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx2")]
unsafe fn chunk_head8(
    pc: *const i32,
    pd: *const i32,
    sub: *const i32,
    j: usize,
    seg_end: usize,
    oev: __m256i,
    e_l1: __m256i,
) -> ChunkHead8 {
    let min = _mm256_set1_epi32(i32::MIN);
    let valid = (seg_end - j).min(8);
    let act = _mm256_cmpgt_epi32(_mm256_set1_epi32(valid as i32), _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7));
    let cl = _mm256_loadu_si256(pc.offset(j as isize - 1) as *const __m256i);
    let d = _mm256_loadu_si256(pd.add(j) as *const __m256i);
    let s = if j == 0 {
        // no diagonal into the row's first column (and no score to read when it is column 0)
        let first = _mm256_loadu_si256(sub.wrapping_add(1) as *const __m256i);
        _mm256_blend_epi32::<0x01>(
            _mm256_add_epi32(cl, _mm256_permutevar8x32_epi32(first, _mm256_setr_epi32(0, 0, 1, 2, 3, 4, 5, 6))),
            _mm256_set1_epi32(NEG_INF),
        )
    } else {
        _mm256_add_epi32(cl, _mm256_loadu_si256(sub.add(j) as *const __m256i))
    };
    let d_gt_s = _mm256_cmpgt_epi32(d, s);
    // an insertion opens only from a substitution-ended cell: S >= D decides it (gapOpen >= 0)
    let opens = _mm256_andnot_si256(d_gt_s, act);
    let z = _mm256_blendv_epi8(min, _mm256_add_epi32(_mm256_sub_epi32(s, oev), e_l1), opens);
    ChunkHead8 { valid, act, s, d, d_gt_s, zi: incl_max(z, min) }
}

/// One row: columns `ly0 .. ly0 + width` at offsets 0.. of `pc`/`pd` (the row above, valid from offset -1),
/// `cc`/`cd` (this row), `sub` (the diagonal's substitution score, read from offset 1 on) and `tb`; `masks`
/// (ascending columns) are pruned unconditionally.
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx2")]
unsafe fn scan_row8(
    pc: *const i32,
    pd: *const i32,
    cc: *mut i32,
    cd: *mut i32,
    sub: *const i32,
    tb: *mut u8,
    width: usize,
    masks: &[u32],
    ly0: u32,
    k: &RowConsts,
    best: i32,
    boundary: i32,
) -> RowOut {
    let lane = _mm256_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7);
    let min = _mm256_set1_epi32(i32::MIN);
    let neg = _mm256_set1_epi32(NEG_INF);
    let ev = _mm256_set1_epi32(k.gap_e);
    let oev = _mm256_set1_epi32(k.gap_oe);
    let ydv = _mm256_set1_epi32(k.y_drop);
    // E * lane and E * (lane + 1): the insertion scan runs on open + E * (offset + 1)
    let e_l = _mm256_mullo_epi32(ev, lane);
    let e_l1 = _mm256_add_epi32(e_l, ev);
    let e_8 = _mm256_set1_epi32(k.gap_e * 8);
    let link_d_ext = _mm256_set1_epi32(8);
    let link_i_ext = _mm256_set1_epi32(4);
    let link_gap_d = _mm256_set1_epi32(14); // FROM_D | I_EXTEND | D_EXTEND

    let mut out = RowOut {
        first_live: NO_POS,
        last_live: NO_POS,
        ev_best: NO_POS,
        ev_bnd: NO_POS,
        best,
        boundary,
        i_end: NEG_INF,
    };
    let last = _mm256_set1_epi32(7);
    // carries in every lane: the insertion score entering the next column (never below NEG_INF: see the
    // kernel), the best and the boundary so far
    let mut ic = neg;
    let mut best_v = _mm256_set1_epi32(best);
    let mut bnd_v = _mm256_set1_epi32(boundary);
    let mut seg = 0usize;
    let mut next_mask = 0usize;
    loop {
        let seg_end = match masks.get(next_mask) {
            Some(&x) => (x - ly0) as usize,
            None => width,
        };
        let mut j = seg;
        // (each chunk's loads and insertion scan, which need no carry, are done one chunk ahead: the
        // scans' latency then overlaps the chunk before)
        let mut next =
            if j < seg_end { chunk_head8(pc, pd, sub, j, seg_end, oev, e_l1) } else { ChunkHead8::default() };
        while j < seg_end {
            let ChunkHead8 { valid, act, s, d, d_gt_s, zi } = next;
            if j + 8 < seg_end {
                next = chunk_head8(pc, pd, sub, j + 8, seg_end, oev, e_l1);
            }
            let zx = _mm256_max_epi32(shift_in(zi, min), ic);
            let iv = _mm256_max_epi32(neg, _mm256_sub_epi32(zx, e_l));
            let gap = _mm256_or_si256(d_gt_s, _mm256_cmpgt_epi32(iv, s));
            let c = _mm256_max_epi32(s, _mm256_max_epi32(d, iv));
            // the best before each cell: substitution-ended cells only
            let sub_ended = _mm256_andnot_si256(gap, act);
            // (no substitution-ended cell reaching the best so far: the best before each cell is it)
            let reaches = _mm256_andnot_si256(_mm256_cmpgt_epi32(best_v, s), sub_ended);
            let (bx, best_next) = if _mm256_testz_si256(reaches, reaches) != 0 {
                (best_v, best_v)
            } else {
                let bi = incl_max(_mm256_blendv_epi8(min, s, sub_ended), min);
                (
                    _mm256_max_epi32(shift_in(bi, min), best_v),
                    _mm256_max_epi32(best_v, _mm256_permutevar8x32_epi32(bi, last)),
                )
            };
            let pruned = _mm256_and_si256(act, _mm256_cmpgt_epi32(_mm256_sub_epi32(bx, ydv), c));
            let live = _mm256_andnot_si256(pruned, act);
            let live_sub = _mm256_andnot_si256(pruned, sub_ended);
            // a later cell wins a tie
            let raises = _mm256_andnot_si256(_mm256_cmpgt_epi32(bx, s), live_sub);

            let dme = _mm256_sub_epi32(d, ev);
            let o = _mm256_sub_epi32(c, oev);
            let dn = _mm256_blendv_epi8(_mm256_max_epi32(o, dme), dme, gap);
            _mm256_storeu_si256(cc.add(j) as *mut __m256i, _mm256_blendv_epi8(c, neg, pruned));
            _mm256_storeu_si256(cd.add(j) as *mut __m256i, _mm256_blendv_epi8(dn, neg, pruned));
            // gap-ended: FROM_D (tie) or FROM_I, both extend bits; substitution-ended: the extend bit of
            // each gap that does not open here
            let link_gap = _mm256_add_epi32(link_gap_d, _mm256_cmpgt_epi32(iv, d));
            let link_sub = _mm256_or_si256(
                _mm256_andnot_si256(_mm256_cmpgt_epi32(o, dme), link_d_ext),
                _mm256_andnot_si256(_mm256_cmpgt_epi32(o, _mm256_sub_epi32(iv, ev)), link_i_ext),
            );
            let link = _mm256_andnot_si256(pruned, _mm256_blendv_epi8(link_sub, link_gap, gap));
            let p16 = _mm256_packs_epi32(link, link);
            // bytes 0-3 of each half hold the half's 4 links
            let p8 =
                _mm256_permutevar8x32_epi32(_mm256_packus_epi16(p16, p16), _mm256_setr_epi32(0, 4, 0, 0, 0, 0, 0, 0));
            _mm_storel_epi64(tb.add(j) as *mut __m128i, _mm256_castsi256_si128(p8));

            // (selects, not branches: these bits follow the data)
            let live_bits = bits(live);
            let first = if live_bits != 0 { j + live_bits.trailing_zeros() as usize } else { NO_POS };
            out.first_live = out.first_live.min(first);
            out.last_live = if live_bits != 0 { j + 31 - live_bits.leading_zeros() as usize } else { out.last_live };
            let raise_bits = bits(raises);
            out.ev_best = if raise_bits != 0 { j + 31 - raise_bits.leading_zeros() as usize } else { out.ev_best };
            if k.bnd_all || (k.bnd_col >= j && k.bnd_col < j + valid) {
                let cand = if k.bnd_all {
                    live_sub
                } else {
                    _mm256_and_si256(live_sub, _mm256_cmpeq_epi32(lane, _mm256_set1_epi32((k.bnd_col - j) as i32)))
                };
                let bbi = incl_max(_mm256_blendv_epi8(min, s, cand), min);
                let bbx = _mm256_max_epi32(shift_in(bbi, min), bnd_v);
                let bnd_bits = bits(_mm256_andnot_si256(_mm256_cmpgt_epi32(bbx, s), cand));
                if bnd_bits != 0 {
                    out.ev_bnd = j + 31 - bnd_bits.leading_zeros() as usize;
                }
                bnd_v = _mm256_max_epi32(bnd_v, _mm256_permutevar8x32_epi32(bbi, last));
            }
            best_v = best_next;
            let zmax = _mm256_max_epi32(_mm256_permutevar8x32_epi32(zi, last), ic);
            ic = if valid == 8 {
                _mm256_max_epi32(neg, _mm256_sub_epi32(zmax, e_8))
            } else {
                _mm256_max_epi32(neg, _mm256_sub_epi32(zmax, _mm256_set1_epi32(k.gap_e * valid as i32)))
            };
            j += 8;
        }
        if seg_end >= width {
            break;
        }
        // a masked cell: pruned whatever its scores, and the insertion run stops
        *cc.add(seg_end) = NEG_INF;
        *cd.add(seg_end) = NEG_INF;
        *tb.add(seg_end) = 0;
        ic = neg;
        seg = seg_end + 1;
        next_mask += 1;
    }
    out.best = _mm256_cvtsi256_si32(best_v);
    out.boundary = _mm256_cvtsi256_si32(bnd_v);
    out.i_end = _mm256_cvtsi256_si32(ic);
    out
}

/// Inclusive prefix max over the 16 lanes.
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn incl_max16(v: __m512i, min: __m512i) -> __m512i {
    // shifted up by 1, 2, 4, 8 lanes, filling with min
    let v = _mm512_max_epi32(v, _mm512_alignr_epi32::<15>(v, min));
    let v = _mm512_max_epi32(v, _mm512_alignr_epi32::<14>(v, min));
    let v = _mm512_max_epi32(v, _mm512_alignr_epi32::<12>(v, min));
    _mm512_max_epi32(v, _mm512_alignr_epi32::<8>(v, min))
}

/// What a chunk of 16 columns computes before the carries: its scores and its insertion scan.
#[cfg(target_arch = "x86_64")]
#[derive(Clone, Copy)]
struct ChunkHead16 {
    valid: usize,
    act: __mmask16,
    s: __m512i,
    d: __m512i,
    d_gt_s: __mmask16,
    zi: __m512i,
}

#[cfg(target_arch = "x86_64")]
impl Default for ChunkHead16 {
    fn default() -> Self {
        // SAFETY: AVX-512 zeros: a value never read (no chunk follows).
        let z = unsafe { std::mem::zeroed() };
        ChunkHead16 { valid: 0, act: 0, s: z, d: z, d_gt_s: 0, zi: z }
    }
}

/// The chunk at offset `j` of a run ending at `seg_end` (see [`scan_row16`]'s pointers).
#[cfg(target_arch = "x86_64")]
#[inline]
#[target_feature(enable = "avx512f")]
unsafe fn chunk_head16(
    pc: *const i32,
    pd: *const i32,
    sub: *const i32,
    j: usize,
    seg_end: usize,
    oev: __m512i,
    e_l1: __m512i,
) -> ChunkHead16 {
    let min = _mm512_set1_epi32(i32::MIN);
    let valid = (seg_end - j).min(16);
    let act: __mmask16 = if valid == 16 { 0xFFFF } else { (1u16 << valid) - 1 };
    let cl = _mm512_loadu_si512(pc.offset(j as isize - 1) as *const __m512i);
    let d = _mm512_loadu_si512(pd.add(j) as *const __m512i);
    let s = if j == 0 {
        // no diagonal into the row's first column (and no score to read when it is column 0)
        _mm512_mask_mov_epi32(
            _mm512_add_epi32(cl, _mm512_maskz_loadu_epi32(0xFFFE, sub)),
            1,
            _mm512_set1_epi32(NEG_INF),
        )
    } else {
        _mm512_add_epi32(cl, _mm512_loadu_si512(sub.add(j) as *const __m512i))
    };
    let d_gt_s = _mm512_cmpgt_epi32_mask(d, s);
    // an insertion opens only from a substitution-ended cell: S >= D decides it (gapOpen >= 0)
    let z = _mm512_mask_add_epi32(min, act & !d_gt_s, _mm512_sub_epi32(s, oev), e_l1);
    ChunkHead16 { valid, act, s, d, d_gt_s, zi: incl_max16(z, min) }
}

/// [`scan_row8`] with 16 lanes (AVX-512).
#[cfg(target_arch = "x86_64")]
#[allow(clippy::too_many_arguments)]
#[target_feature(enable = "avx512f")]
unsafe fn scan_row16(
    pc: *const i32,
    pd: *const i32,
    cc: *mut i32,
    cd: *mut i32,
    sub: *const i32,
    tb: *mut u8,
    width: usize,
    masks: &[u32],
    ly0: u32,
    k: &RowConsts,
    best: i32,
    boundary: i32,
) -> RowOut {
    let lane = _mm512_setr_epi32(0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15);
    let min = _mm512_set1_epi32(i32::MIN);
    let neg = _mm512_set1_epi32(NEG_INF);
    let ev = _mm512_set1_epi32(k.gap_e);
    let oev = _mm512_set1_epi32(k.gap_oe);
    let ydv = _mm512_set1_epi32(k.y_drop);
    let e_l = _mm512_mullo_epi32(ev, lane);
    let e_l1 = _mm512_add_epi32(e_l, ev);
    let e_16 = _mm512_set1_epi32(k.gap_e * 16);
    let last = _mm512_set1_epi32(15);
    let (link_d_ext, link_i_ext) = (_mm512_set1_epi32(8), _mm512_set1_epi32(4));
    let (link_gap_i, link_gap_d) = (_mm512_set1_epi32(13), _mm512_set1_epi32(14));

    let mut out = RowOut {
        first_live: NO_POS,
        last_live: NO_POS,
        ev_best: NO_POS,
        ev_bnd: NO_POS,
        best,
        boundary,
        i_end: NEG_INF,
    };
    let mut ic = neg;
    let mut best_v = _mm512_set1_epi32(best);
    let mut bnd_v = _mm512_set1_epi32(boundary);
    let mut seg = 0usize;
    let mut next_mask = 0usize;
    loop {
        let seg_end = match masks.get(next_mask) {
            Some(&x) => (x - ly0) as usize,
            None => width,
        };
        let mut j = seg;
        // (each chunk's loads and insertion scan, which need no carry, are done one chunk ahead: the
        // scans' latency then overlaps the chunk before)
        let mut next =
            if j < seg_end { chunk_head16(pc, pd, sub, j, seg_end, oev, e_l1) } else { ChunkHead16::default() };
        while j < seg_end {
            let ChunkHead16 { valid, act, s, d, d_gt_s, zi } = next;
            if j + 16 < seg_end {
                next = chunk_head16(pc, pd, sub, j + 16, seg_end, oev, e_l1);
            }
            let zx = _mm512_max_epi32(_mm512_alignr_epi32::<15>(zi, min), ic);
            let iv = _mm512_max_epi32(neg, _mm512_sub_epi32(zx, e_l));
            let gap = d_gt_s | _mm512_cmpgt_epi32_mask(iv, s);
            let c = _mm512_max_epi32(s, _mm512_max_epi32(d, iv));
            let sub_ended = act & !gap;
            // (no substitution-ended cell reaching the best so far: the best before each cell is it)
            let (bx, best_next) = if sub_ended & !_mm512_cmpgt_epi32_mask(best_v, s) == 0 {
                (best_v, best_v)
            } else {
                let bi = incl_max16(_mm512_mask_mov_epi32(min, sub_ended, s), min);
                (
                    _mm512_max_epi32(_mm512_alignr_epi32::<15>(bi, min), best_v),
                    _mm512_max_epi32(best_v, _mm512_permutexvar_epi32(last, bi)),
                )
            };
            let pruned = act & _mm512_cmpgt_epi32_mask(_mm512_sub_epi32(bx, ydv), c);
            let live = act & !pruned;
            let live_sub = sub_ended & !pruned;
            let raises = live_sub & !_mm512_cmpgt_epi32_mask(bx, s);

            let dme = _mm512_sub_epi32(d, ev);
            let o = _mm512_sub_epi32(c, oev);
            let dn = _mm512_mask_mov_epi32(_mm512_max_epi32(o, dme), gap, dme);
            _mm512_storeu_si512(cc.add(j) as *mut __m512i, _mm512_mask_mov_epi32(c, pruned, neg));
            _mm512_storeu_si512(cd.add(j) as *mut __m512i, _mm512_mask_mov_epi32(dn, pruned, neg));
            let link_gap = _mm512_mask_mov_epi32(link_gap_d, _mm512_cmpgt_epi32_mask(iv, d), link_gap_i);
            let link_sub = _mm512_or_si512(
                _mm512_maskz_mov_epi32(!_mm512_cmpgt_epi32_mask(o, dme), link_d_ext),
                _mm512_maskz_mov_epi32(!_mm512_cmpgt_epi32_mask(o, _mm512_sub_epi32(iv, ev)), link_i_ext),
            );
            let link = _mm512_maskz_mov_epi32(!pruned, _mm512_mask_mov_epi32(link_sub, gap, link_gap));
            _mm_storeu_si128(tb.add(j) as *mut __m128i, _mm512_cvtepi32_epi8(link));

            // (selects, not branches: these bits follow the data)
            let live_bits = live as u32;
            let first = if live_bits != 0 { j + live_bits.trailing_zeros() as usize } else { NO_POS };
            out.first_live = out.first_live.min(first);
            out.last_live = if live_bits != 0 { j + 31 - live_bits.leading_zeros() as usize } else { out.last_live };
            let raise_bits = raises as u32;
            out.ev_best = if raise_bits != 0 { j + 31 - raise_bits.leading_zeros() as usize } else { out.ev_best };
            if k.bnd_all || (k.bnd_col >= j && k.bnd_col < j + valid) {
                let cand = if k.bnd_all { live_sub } else { live_sub & (1u16 << (k.bnd_col - j)) };
                let bbi = incl_max16(_mm512_mask_mov_epi32(min, cand, s), min);
                let bbx = _mm512_max_epi32(_mm512_alignr_epi32::<15>(bbi, min), bnd_v);
                let bnd_bits = cand & !_mm512_cmpgt_epi32_mask(bbx, s);
                if bnd_bits != 0 {
                    out.ev_bnd = j + 31 - (bnd_bits as u32).leading_zeros() as usize;
                }
                bnd_v = _mm512_max_epi32(bnd_v, _mm512_permutexvar_epi32(last, bbi));
            }
            best_v = best_next;
            let zmax = _mm512_max_epi32(_mm512_permutexvar_epi32(last, zi), ic);
            ic = if valid == 16 {
                _mm512_max_epi32(neg, _mm512_sub_epi32(zmax, e_16))
            } else {
                _mm512_max_epi32(neg, _mm512_sub_epi32(zmax, _mm512_set1_epi32(k.gap_e * valid as i32)))
            };
            j += 16;
        }
        if seg_end >= width {
            break;
        }
        // a masked cell: pruned whatever its scores, and the insertion run stops
        *cc.add(seg_end) = NEG_INF;
        *cd.add(seg_end) = NEG_INF;
        *tb.add(seg_end) = 0;
        ic = neg;
        seg = seg_end + 1;
        next_mask += 1;
    }
    out.best = _mm512_cvtsi512_si32(best_v);
    out.boundary = _mm512_cvtsi512_si32(bnd_v);
    out.i_end = _mm512_cvtsi512_si32(ic);
    out
}
