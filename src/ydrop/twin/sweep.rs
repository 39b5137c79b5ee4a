//! The DP fill of `ydrop_one_sided_align` (gapped_extend.c, LASTZ 1.04.52): row 0, then one row-major sweep
//! per row with y-drop pruning, the trailing pull-in or insertion prolongation, and the terminator cell.
//!
//! The port keeps LASTZ's storage on purpose: one array of cells updated in place, read at `dp` (the row
//! above, indexed from the previous row's left bound) and written at `dq` (this row, indexed from this
//! row's left bound, never ahead of `dp`), and one traceback link per visited cell in visiting order (two a
//! byte, where LASTZ stores one: see [`Scratch::tb`]; LASTZ's byte count, which its memory limit reads, is
//! kept as it counts). The values it leaves in pruned and off-path cells are LASTZ's (e.g. a leading prune
//! keeps the running `i`), so nothing depends on an argument that the difference could never matter.

use super::Constraints;
use crate::memory::{try_push, try_reserve, try_resize, OutOfMemory};

/// LASTZ's `negInfinity` for `score_type=I`: `(s32)(0.9 * INT32_MIN)`.
pub(crate) const NEG_INF: i32 = -1_932_735_283;

/// Traceback link bits (LASTZ's `cFromC`, `cFromI`, `cFromD`, `iExtend`, `dExtend`).
pub(crate) const FROM_C: u8 = 0;
pub(crate) const FROM_I: u8 = 1;
pub(crate) const FROM_D: u8 = 2;
pub(crate) const I_EXTEND: u8 = 4;
pub(crate) const D_EXTEND: u8 = 8;

/// With a zero gap extension LASTZ bounds `yDropTail` by the sequence length, and by this.
const MAX_Y_DROP_TAIL_E0: u32 = 500 * 1000;

/// Scoring and limits of one call, as `ydrop_one_sided_align` reads them from `alignio`.
pub(crate) struct Params<'a> {
    /// 256x256 row-major (`[a byte][b byte]`).
    pub sub: &'a [i32],
    pub gap_open: i32,
    pub gap_extend: i32,
    pub y_drop: i32,
    pub trim_to_peak: bool,
    /// `tb->size`, read into an `int` as LASTZ does.
    pub tb_len: i32,
}

/// `yDropTail`: the traceback cells reserved beyond the current row's width.
pub(crate) fn y_drop_tail(gap_extend: i32, y_drop: i32, n: u32) -> i32 {
    if gap_extend != 0 {
        y_drop.wrapping_div(gap_extend).wrapping_add(6)
    } else if n < MAX_Y_DROP_TAIL_E0 {
        n.wrapping_add(1) as i32
    } else {
        MAX_Y_DROP_TAIL_E0 as i32
    }
}

#[derive(Clone, Copy, Default)]
struct Cell {
    /// C of this row at the cell's column.
    c: i32,
    /// D of the next row at the cell's column.
    d: i32,
}

/// Per-thread memory reused across calls.
#[derive(Default)]
pub(crate) struct Scratch {
    cells: Vec<Cell>,
    /// Traceback links in visiting order (LASTZ's `tb->space`), two a byte: link `k` in the low half of byte
    /// `k / 2` when `k` is even, else in its high half. A link needs 4 bits, and halving the bytes halves what
    /// the pool's workers hold in flight ([`super::TB_FLIGHT_MAX`]). Each row starts at an even link, so that a
    /// vector chunk's links fill whole bytes; `tb.len()` is always `(at + 1) / 2`.
    pub tb: Vec<u8>,
    /// `tb_row[r] + col` is the position of (r, col)'s link in `tb` (LASTZ's `tbRow`, wrapping arithmetic).
    pub tb_row: Vec<usize>,
    /// The traceback bytes LASTZ would have used (one a visited cell): what its limit, `tb_len`, reads.
    pub used: usize,
    /// The next link's position in `tb` (`used` plus the rows' padding to even starts).
    pub at: usize,
    /// A pool worker's grant of traceback bytes for the call it runs ([`super::TB_FLIGHT_MAX`]); None for
    /// other threads, whose calls run to LASTZ's own limit.
    pub flight: Option<usize>,
}

/// How the start of a row went, in LASTZ's order: the bounds' rows first, then the traceback memory.
pub(crate) enum RowStart {
    /// The row's cells fit: this many traceback bytes at most (`ry - ly + yDropTail`).
    Entered(i32),
    BeyondBounds,
    Truncated,
}

/// Row 0's cells (C, and D for row 1) from column 0, as both sweeps store them: C[0][0] = 0, then an
/// insertion run while the PREVIOUS C is within y-drop, so the first C below -yDrop is stored too (LASTZ's
/// notes 8, 10, 13).
pub(crate) fn row0(n: u32, gap_e: i32, gap_oe: i32, y_drop: i32) -> impl Iterator<Item = (i32, i32)> {
    let insertions = (1..=n).scan((gap_oe.wrapping_neg(), 0), move |(c, c_prev), _| {
        (*c_prev >= y_drop.wrapping_neg()).then(|| {
            let cell = (*c, c.wrapping_sub(gap_oe));
            (*c_prev, *c) = (*c, c.wrapping_sub(gap_e));
            cell
        })
    });
    std::iter::once((0, gap_oe.wrapping_neg())).chain(insertions)
}

impl Scratch {
    /// Frees the buffers other than the traceback that hold more than `max` bytes.
    pub(crate) fn trim(&mut self, max: usize) {
        super::free_past(&mut self.cells, max);
        super::free_past(&mut self.tb_row, max);
    }

    /// Starts a fill's traceback with row 0's `len` links: none from its first cell, insertions after it.
    pub(crate) fn start_fill(&mut self, len: u32) -> Result<(), OutOfMemory> {
        self.tb.clear();
        self.tb_row.clear();
        self.tb_row.push(0);
        let len = len as usize;
        try_resize(&mut self.tb, len.div_ceil(2), FROM_I << 4 | FROM_I)?;
        if let Some(first) = self.tb.first_mut() {
            *first &= 0xF0;
        }
        (self.at, self.used) = (len, len);
        Ok(())
    }

    /// The link at position `k` of `tb`.
    #[inline(always)]
    pub(crate) fn link(&self, k: usize) -> u8 {
        self.tb[k / 2] >> (4 * (k & 1)) & 0x0F
    }

    /// Appends one link to the current row.
    pub(crate) fn push_link(&mut self, link: u8) -> Result<(), OutOfMemory> {
        if self.at % 2 == 0 {
            try_push(&mut self.tb, link)?;
        } else if let Some(last) = self.tb.last_mut() {
            // (the high half may hold what a vector chunk wrote past its row's end)
            *last = (*last & 0x0F) | link << 4;
        }
        self.at += 1;
        self.used += 1;
        Ok(())
    }

    /// Starts `row` (both sweeps): lets `bounds` move `[ly, ry)`, widens an empty range to `ly`, checks that
    /// the row fits the traceback memory, makes room for its links and records where they start. An error
    /// when that room cannot be allocated.
    #[inline(always)]
    pub(crate) fn start_row<K: Constraints>(&mut self, bounds: &mut K, p: &Params, y_drop_tail: i32, row: u32, ly: &mut u32, ry: &mut u32) -> Result<RowStart, OutOfMemory> {
        if !bounds.enter_row(row, ly, ry) {
            return Ok(RowStart::BeyondBounds);
        }
        if *ry < *ly {
            *ry = *ly;
        }
        let tb_needed = (*ry - *ly).wrapping_add(y_drop_tail as u32) as i32;
        if self.used as i64 + tb_needed as i64 >= p.tb_len as i64 {
            return Ok(RowStart::Truncated);
        }
        // the row's first link at an even position (the last byte's high half, if free, stays unused)
        let start = self.at.next_multiple_of(2);
        let room = (tb_needed.max(0) as usize).div_ceil(2);
        if let Some(granted) = &mut self.flight {
            super::grant_traceback(granted, start / 2 + room)?;
        }
        // (LASTZ allocates its traceback whole: here the most this row may take is asked for before it runs)
        try_reserve(&mut self.tb, room)?;
        self.at = start;
        try_push(&mut self.tb_row, start.wrapping_sub(*ly as usize))?;
        Ok(RowStart::Entered(tb_needed))
    }

    /// Makes cell `k` writable (LASTZ sizes its row array per row; growing on demand gives the same cells).
    fn cell(&mut self, k: usize) -> Result<&mut Cell, OutOfMemory> {
        if k >= self.cells.len() {
            try_resize(&mut self.cells, k + 1, Cell::default())?;
        }
        Ok(&mut self.cells[k])
    }
}

/// Where a sweep ended, kept as it runs (both sweeps): the best substitution-ended score and, with
/// `--noytrim`, the best boundary score, the cell that set the end last, how the sweep stopped and what it read.
pub(crate) struct Fill {
    pub best: i32,
    pub boundary: i32,
    pub end1: u32,
    pub end2: u32,
    pub end_is_boundary: bool,
    /// The traceback memory ran out before some row (LASTZ's truncation report case).
    pub truncated: bool,
    /// The sweep reached a row its bounds do not serve (nothing else is set).
    pub beyond_bounds: bool,
    /// Bases of `a` and bytes of `b` the sweep read (prefixes): all a dump must keep to replay the call.
    pub a_read: u32,
    pub b_read: u32,
}

impl Fill {
    /// Before row 1.
    pub(crate) const START: Fill = Fill {
        best: 0,
        boundary: NEG_INF,
        end1: 0,
        end2: 0,
        end_is_boundary: false,
        truncated: false,
        beyond_bounds: false,
        a_read: 0,
        b_read: 0,
    };

    pub(crate) fn score(&self) -> i32 {
        if self.end_is_boundary {
            self.boundary
        } else {
            self.best
        }
    }

    /// The traceback bytes an entered row may take, or None where the sweep stops (noted here).
    #[inline(always)]
    pub(crate) fn enter(&mut self, start: RowStart) -> Option<i32> {
        match start {
            RowStart::Entered(tb_needed) => Some(tb_needed),
            RowStart::BeyondBounds => {
                self.beyond_bounds = true;
                None
            }
            RowStart::Truncated => {
                self.truncated = true;
                None
            }
        }
    }
}

/// Runs the sweep over `a` (rows, `m = a.len()`) and `b` (columns; `b.len() == n + 1`: LASTZ reads the
/// byte after the last base, and the last proposal of a row uses it before it is thrown away). The caller
/// has checked that `yDropTail` fits `tb_len` and that both sequences are non-empty. An error when the
/// sweep's memory cannot be allocated.
pub(crate) fn fill<K: Constraints>(a: &[u8], b: &[u8], p: &Params, bounds: &mut K, s: &mut Scratch) -> Result<Fill, OutOfMemory> {
    let m = a.len() as u32;
    let n = (b.len() - 1) as u32;
    let gap_e = p.gap_extend;
    let gap_oe = p.gap_open.wrapping_add(gap_e);
    let y_drop = p.y_drop;
    let y_drop_tail = y_drop_tail(gap_e, y_drop, n);

    let mut ry: u32 = 0;
    for (c, d) in row0(n, gap_e, gap_oe, y_drop) {
        *s.cell(ry as usize)? = Cell { c, d };
        ry += 1;
    }
    s.start_fill(ry)?;

    let mut ly: u32 = 0;
    let mut f = Fill::START;
    // (the end in locals while the cells run: registers)
    let Fill { mut best, mut boundary, mut end1, mut end2, mut end_is_boundary, .. } = f;
    // cells below this are pruned: `best - yDrop`, kept with `best`
    let mut floor = best.wrapping_sub(y_drop);

    for row in 1..=m {
        let prev_ly = ly;
        let Some(tb_needed) = f.enter(s.start_row(bounds, p, y_drop_tail, row, &mut ly, &mut ry)?) else { break };
        if s.cells.len() < tb_needed.max(0) as usize {
            try_resize(&mut s.cells, tb_needed as usize, Cell::default())?;
        }

        let sub: &[i32; 256] = p.sub[a[row as usize - 1] as usize * 256..][..256].try_into().unwrap();
        f.a_read = row;
        let mut dq: usize = 0;
        let mut dp: usize = (ly - prev_ly) as usize;
        let mut np_col = ly;
        let mut i = NEG_INF;
        let mut c = NEG_INF;

        // every visited cell gets one link, 0 when pruned (the zero fill); the row starts at an even link
        let (first, stop) = (ly, ry.min(n + 1));
        let visited = stop.saturating_sub(first) as usize;
        let tb_start = s.at / 2;
        try_resize(&mut s.tb, tb_start + visited.div_ceil(2), 0)?;
        (s.at, s.used) = (s.at + visited, s.used + visited);
        let tb = &mut s.tb[tb_start..];
        let cells = &mut s.cells[..];
        let b_row = if first < stop { &b[first as usize..stop as usize] } else { &[] };

        for ((k, col), &b_col) in (first..stop).enumerate().zip(b_row) {
            // the row above's cell (this row writes at dq <= dp, after reading it); a stored cell's link
            // comes with the D it passes to the next row
            let above = cells[dp];
            let d = above.d;
            let stored = if bounds.masked(row, col) {
                None
            } else if d > c || i > c {
                // C is entered by a gap; D is preferred on a tie, and no gap opens from a gap-ended C
                // (the default build has no back-to-back gaps)
                let link = if d >= i {
                    c = d;
                    FROM_D | I_EXTEND | D_EXTEND
                } else {
                    c = i;
                    FROM_I | I_EXTEND | D_EXTEND
                };
                if c < floor {
                    None
                } else {
                    i = i.wrapping_sub(gap_e);
                    Some((link, d.wrapping_sub(gap_e)))
                }
            } else if c < floor {
                None
            } else {
                // only substitution-ended cells move the end: the latest cell wins a tie, and with
                // --noytrim a boundary cell recorded after it in the same cell wins over it
                if c >= best {
                    best = c;
                    floor = best.wrapping_sub(y_drop);
                    (end1, end2) = (row, col);
                    end_is_boundary = false;
                }
                if !p.trim_to_peak && c >= boundary && (row == m || col == n) {
                    boundary = c;
                    (end1, end2) = (row, col);
                    end_is_boundary = true;
                }
                let c_open = c.wrapping_sub(gap_oe);
                let d_ext = d.wrapping_sub(gap_e);
                // strict: a tie records the extension
                let (mut link, d_next) = if c_open > d_ext { (FROM_C, c_open) } else { (FROM_C | D_EXTEND, d_ext) };
                i = i.wrapping_sub(gap_e);
                if c_open > i {
                    i = c_open;
                } else {
                    link |= I_EXTEND;
                }
                Some((link, d_next))
            };

            // the diagonal proposal for col+1 is formed from the row above in every case
            let next = above.c.wrapping_add(sub[b_col as usize]);
            dp += 1;
            match stored {
                Some((link, d_next)) => {
                    np_col = col;
                    cells[dq] = Cell { c, d: d_next };
                    dq += 1;
                    tb[k / 2] |= link << (4 * (k & 1));
                }
                // a leading prune only moves the left bound: nothing is stored and `i` is kept
                None if col == ly => ly += 1,
                None => {
                    i = NEG_INF;
                    cells[dq] = Cell { c: NEG_INF, d: NEG_INF };
                    dq += 1;
                }
            }
            c = next;
        }
        f.b_read = f.b_read.max(stop);

        if ly >= ry {
            break;
        }
        let nn = bounds.right_limit(n);
        let ry_tested = ry;
        if ry > np_col + 1 {
            ry = np_col + 1;
        } else {
            // the row reached its right bound: prolong it with insertions for the row above's overhang
            while i >= floor && ry as i64 <= nn {
                *s.cell(dq)? = Cell { c: i, d: i.wrapping_sub(gap_oe) };
                dq += 1;
                i = i.wrapping_sub(gap_e);
                s.push_link(FROM_I)?;
                ry += 1;
            }
        }
        // the terminator: a dead cell nothing steps from, with no traceback byte
        bounds.limit_tested(ry_tested.min(ry), ry);
        if ry as i64 <= nn {
            *s.cell(dq)? = Cell { c: NEG_INF, d: NEG_INF };
            ry += 1;
        }
    }

    Ok(Fill { best, boundary, end1, end2, end_is_boundary, ..f })
}
