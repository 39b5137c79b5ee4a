//! The constrained case of `ydrop_one_sided_align`: LASTZ's `update_LR_bounds`, `next_sweep_seg`,
//! `prev_sweep_seg`, `update_active_segs`, `build_active_seg`, `add_new_active` and `filter_active_segs`
//! (gapped_extend.c), over a [`YdropBounds`] block instead of LASTZ's pointers.
//!
//! Arithmetic is LASTZ's: positions are `unspos` (u32, wrapping) and column bounds `sgnpos` (i32 in the
//! default 31-bit build, wrapping where C would overflow), so even odd blocks give what the C gives.
//! Masks are kept by absolute column: LASTZ stores them in its row array at `col - prevLY`, which within one
//! row is the same column for the write and the DP's read, and a mask counts only in the row that wrote it.
//!
//! Quirks kept on purpose (each has a trap test in tests/ydrop/twin.rs):
//! - on a neighbour's entry segment the bound is the segment's own column (left inclusive, right
//!   exclusive); after a move to a later segment or a jump it is one column further off (`+1` / `-1`);
//! - a jump into a diagonal segment takes its column on the current row, into any other kind its `b2`
//!   (`e2` reversed) alone;
//! - the prolongation bound `NN` tests `rightSeg` even in reversed sweeps, where `R` comes from `leftSeg`;
//! - a horizontal segment masks its whole run of columns on the one row where the sweep enters it.

use super::Constraints;
use crate::ydrop::{seg, YdropAlignment, YdropBounds, YdropSegment, NONE};

/// LASTZ's `signed_difference(a, b)` for 31-bit positions.
fn sdiff(a: u32, b: u32) -> i32 {
    (a as i32).wrapping_sub(b as i32)
}

/// An `activeseg`: an earlier alignment's segment crossing the sweep row.
struct Active {
    seg: u32,
    x: u32,
    last_row: u32,
    kind: u32,
    finished: bool,
}

pub(crate) struct Bounded<'a> {
    block: &'a YdropBounds,
    n: u32,
    segs: &'a [YdropSegment],
    aligns: &'a [YdropAlignment],
    reversed: bool,
    anchor1: u32,
    anchor2: u32,
    left_seg: u32,
    right_seg: u32,
    left_align: u32,
    right_align: u32,
    l: i32,
    r: i32,
    active: Vec<Active>,
    /// Head of the alignments not yet reached (`aboveList` forward, `belowList` reversed).
    align_list: u32,
    /// `mask[col] == row`: (row, col) lies on an earlier alignment.
    mask: Vec<u32>,
    /// The columns masked on the current row.
    row_masks: Vec<u32>,
    /// The last row the block serves.
    rows: u32,
}

impl<'a> Bounded<'a> {
    /// The state `ydrop_one_sided_align` sets up before its first row, for a call with `n` columns.
    pub(crate) fn new(b: &'a YdropBounds, reversed: bool, n: u32) -> Bounded<'a> {
        let (segs, aligns) = (b.segments(), b.alignments());
        let column = |k: u32| {
            let s = &segs[k as usize];
            let c = sdiff(s.b2, b.anchor2);
            if s.kind == seg::DIAG {
                c.wrapping_sub(sdiff(s.b1, b.anchor1))
            } else {
                c
            }
        };
        let mut l = 0i32;
        let mut r = n.wrapping_add(1) as i32;
        if b.left_seg != NONE {
            l = column(b.left_seg);
        }
        if b.right_seg != NONE {
            r = column(b.right_seg);
        }
        // a reversed sweep sees the bounds mirrored (LASTZ's note 14)
        if reversed {
            match (b.left_seg != NONE, b.right_seg != NONE) {
                (false, true) => (l, r) = (r.wrapping_neg().wrapping_add(1), n.wrapping_add(1) as i32),
                (true, false) => (l, r) = (0, l.wrapping_neg().wrapping_sub(1)),
                (true, true) => (l, r) = (r.wrapping_neg().wrapping_add(1), l.wrapping_neg().wrapping_sub(1)),
                (false, false) => {}
            }
        }
        Bounded {
            block: b,
            n,
            segs,
            aligns,
            reversed,
            anchor1: b.anchor1,
            anchor2: b.anchor2,
            left_seg: b.left_seg,
            right_seg: b.right_seg,
            left_align: b.left_align,
            right_align: b.right_align,
            l,
            r,
            active: Vec::new(),
            align_list: if reversed { b.below_list } else { b.above_list },
            mask: Vec::new(),
            row_masks: Vec::new(),
            rows: b.rows,
        }
    }

    fn seg(&self, k: u32) -> &YdropSegment {
        &self.segs[k as usize]
    }

    /// `nextSeg` (`forward`) or `prevSeg` of segment `k`: its neighbour in its alignment's chain.
    fn chain_step(&self, k: u32, forward: bool) -> u32 {
        let owner = &self.aligns[self.seg(k).owner as usize];
        match forward {
            true if k < owner.last_seg => k + 1,
            false if k > owner.first_seg => k - 1,
            _ => NONE,
        }
    }

    /// `next_sweep_seg` (`forward`) or `prev_sweep_seg`: moves `*bp` to the next segment of the sweep
    /// direction, skipping a horizontal one, or past the alignment's end to the neighbour alignment `*mp`
    /// links to; returns the new segment's column on `row`, 0 when there is none.
    fn sweep_seg(&self, forward: bool, look_right: bool, bp: &mut u32, mp: &mut u32, row: u32) -> i32 {
        *bp = self.chain_step(*bp, forward);
        if *bp != NONE {
            if self.seg(*bp).kind == seg::HORZ {
                // a chain never ends with a horizontal segment (checked)
                *bp = self.chain_step(*bp, forward);
            }
            let s = self.seg(*bp);
            return if forward { sdiff(s.b2, self.anchor2) } else { sdiff(self.anchor2, s.e2) };
        }
        let m = &self.aligns[*mp as usize];
        (*bp, *mp) = match (forward, look_right) {
            (true, true) => (m.right_seg2, m.right_align2),
            (true, false) => (m.left_seg2, m.left_align2),
            (false, true) => (m.right_seg1, m.right_align1),
            (false, false) => (m.left_seg1, m.left_align1),
        };
        if *bp == NONE {
            return 0;
        }
        let s = self.seg(*bp);
        // where the new segment's near end meets the sweep row
        let (d2, d1) =
            if forward { (sdiff(s.b2, self.anchor2), sdiff(s.b1, self.anchor1)) } else { (sdiff(self.anchor2, s.e2), sdiff(self.anchor1, s.e1)) };
        if s.kind == seg::DIAG {
            (row as i32).wrapping_add(d2).wrapping_sub(d1)
        } else {
            d2
        }
    }

    /// `update_LR_bounds`.
    fn update_lr_bounds(&mut self, row: u32, ly: &mut u32, ry: &mut u32) {
        let special_min = |ry: u32, r: i32| if r <= 0 { 0 } else { (r as u32).min(ry) };
        // forward: leftSeg bounds the left, rightSeg the right; reversed, the other way round
        let (mut lo_seg, mut lo_align, mut hi_seg, mut hi_align) = if self.reversed {
            (self.right_seg, self.right_align, self.left_seg, self.left_align)
        } else {
            (self.left_seg, self.left_align, self.right_seg, self.right_align)
        };
        let forward = !self.reversed;
        let stays = |s: &YdropSegment| {
            if forward {
                s.e1 >= row.wrapping_add(self.anchor1)
            } else {
                s.b1 <= self.anchor1.wrapping_sub(row)
            }
        };
        if lo_seg != NONE {
            let s = self.seg(lo_seg);
            if stays(s) {
                if s.kind == seg::DIAG {
                    self.l = self.l.wrapping_add(1);
                }
            } else {
                self.l = self.sweep_seg(forward, self.reversed, &mut lo_seg, &mut lo_align, row).wrapping_add(1);
            }
        }
        if lo_seg != NONE {
            *ly = (*ly as i32).max(self.l) as u32;
        }
        if hi_seg != NONE {
            let s = self.seg(hi_seg);
            if stays(s) {
                if s.kind == seg::DIAG {
                    self.r = self.r.wrapping_add(1);
                }
            } else {
                self.r = self.sweep_seg(forward, forward, &mut hi_seg, &mut hi_align, row).wrapping_sub(1);
            }
        }
        if hi_seg != NONE {
            *ry = special_min(*ry, self.r);
        }
        if self.reversed {
            (self.right_seg, self.right_align, self.left_seg, self.left_align) = (lo_seg, lo_align, hi_seg, hi_align);
        } else {
            (self.left_seg, self.left_align, self.right_seg, self.right_align) = (lo_seg, lo_align, hi_seg, hi_align);
        }
    }

    fn set_mask(&mut self, col: u32, row: u32) {
        let k = col as usize;
        if k >= self.mask.len() {
            self.mask.resize(k + 1, 0);
        }
        self.mask[k] = row;
        self.row_masks.push(col);
    }

    /// `build_active_seg`: points `act` at its segment's entry on `row` and masks the cells it covers there.
    fn build_active_seg(&mut self, act: &mut Active, row: u32, ly: u32, ry: u32) {
        let s = *self.seg(act.seg);
        act.kind = s.kind;
        let horz_end;
        if !self.reversed {
            act.x = s.b2.wrapping_sub(self.anchor2);
            act.last_row = s.e1.wrapping_sub(self.anchor1);
            horz_end = s.e2.wrapping_sub(self.anchor2);
        } else {
            act.x = self.anchor2.wrapping_sub(s.e2);
            act.last_row = self.anchor1.wrapping_sub(s.b1);
            horz_end = self.anchor2.wrapping_sub(s.b2);
        }
        if act.kind != seg::HORZ {
            if act.x >= ly && act.x <= ry {
                self.set_mask(act.x, row);
            }
        } else {
            for col in ly.max(act.x)..=ry.min(horz_end) {
                self.set_mask(col, row);
            }
        }
    }

    /// `update_active_segs` (with `add_new_active` and `filter_active_segs`).
    fn update_active_segs(&mut self, row: u32, ly: u32, ry: u32) {
        let forward = !self.reversed;
        let mut active = std::mem::take(&mut self.active);
        for act in active.iter_mut() {
            // a horizontal segment is never left active: the chain rules out one at an end or two in a row
            if act.last_row >= row {
                if act.kind == seg::DIAG {
                    act.x = act.x.wrapping_add(1);
                }
                if act.x >= ly && act.x <= ry {
                    self.set_mask(act.x, row);
                }
            } else {
                act.seg = self.chain_step(act.seg, forward);
                if act.seg == NONE {
                    act.finished = true;
                    continue;
                }
                self.build_active_seg(act, row, ly, ry);
                if act.kind == seg::HORZ {
                    act.seg = self.chain_step(act.seg, forward);
                    self.build_active_seg(act, row, ly, ry);
                }
            }
        }
        // alignments the sweep row now reaches, entered from their near end
        while self.align_list != NONE {
            let a = self.aligns[self.align_list as usize];
            let reached = if forward { a.pos1.wrapping_sub(self.anchor1) } else { self.anchor1.wrapping_sub(a.end1) };
            if reached != row {
                break;
            }
            let first = if forward { a.first_seg } else { a.last_seg };
            let mut act = Active { seg: first, x: 0, last_row: 0, kind: seg::DIAG, finished: false };
            self.build_active_seg(&mut act, row, ly, ry);
            active.push(act);
            self.align_list = if forward { a.next } else { a.prev };
        }
        active.retain(|a| !a.finished);
        self.active = active;
    }
}

impl Constraints for Bounded<'_> {
    fn enter_row(&mut self, row: u32, ly: &mut u32, ry: &mut u32) -> bool {
        if row > self.rows {
            return false;
        }
        self.row_masks.clear();
        self.update_lr_bounds(row, ly, ry);
        self.update_active_segs(row, *ly, *ry);
        true
    }

    fn masked(&self, row: u32, col: u32) -> bool {
        !self.active.is_empty() && self.mask.get(col as usize) == Some(&row)
    }

    fn masks_in(&self, row: u32, lo: u32, hi: u32, out: &mut Vec<u32>) {
        let start = out.len();
        out.extend(self.row_masks.iter().copied().filter(|&c| c >= lo && c < hi && self.masked(row, c)));
        out[start..].sort_unstable();
        let mut w = start;
        for r in start..out.len() {
            if w == start || out[r] != out[w - 1] {
                out[w] = out[r];
                w += 1;
            }
        }
        out.truncate(w);
    }

    fn restart(&mut self) {
        *self = Bounded::new(self.block, self.reversed, self.n);
    }

    fn right_limit(&self, n: u32) -> i64 {
        // LASTZ tests rightSeg (not the segment bounding the right in a reversed sweep)
        if self.right_seg != NONE && self.r > 0 {
            (self.r - 1) as i64
        } else {
            n as i64
        }
    }
}
