//! The traceback of `ydrop_one_sided_align`: from the recorded end back to the anchor, building the edit
//! script as LASTZ's `edit_script_add` does (one op per step, merged into the tail run).

use super::sweep::{Scratch, D_EXTEND, FROM_D, FROM_I, I_EXTEND};
use crate::memory::{try_push, OutOfMemory};
use crate::ydrop::op;

/// Appends one step of `kind` to a script in LASTZ's editop encoding (`run << 2 | op`).
fn add_step(ops: &mut Vec<u32>, kind: u32) -> Result<(), OutOfMemory> {
    match ops.last_mut() {
        Some(tail) if op::kind(*tail) == kind && op::run(*tail) < op::MAX_RUN => *tail += 1 << 2,
        _ => try_push(ops, 1 << 2 | kind)?,
    }
    Ok(())
}

/// The ops from (end1, end2) to (0, 0), in traceback order: a link's extend bit is followed only when the
/// step before it came through the same gap. An error when `ops` cannot grow.
pub(crate) fn trace(s: &Scratch, end1: u32, end2: u32, ops: &mut Vec<u32>) -> Result<(), OutOfMemory> {
    ops.clear();
    let (mut row, mut col) = (end1, end2);
    let mut prev = 0u8;
    while row >= 1 || col > 0 {
        let link = s.link(s.tb_row[row as usize].wrapping_add(col as usize));
        let mut step = link & (FROM_I | FROM_D);
        if prev == FROM_I && link & I_EXTEND != 0 {
            step = FROM_I;
        }
        if prev == FROM_D && link & D_EXTEND != 0 {
            step = FROM_D;
        }
        match step {
            FROM_I => {
                col -= 1;
                add_step(ops, op::INS)?;
            }
            FROM_D => {
                row -= 1;
                add_step(ops, op::DEL)?;
            }
            _ => {
                row -= 1;
                col -= 1;
                add_step(ops, op::SUB)?;
            }
        }
        prev = step;
    }
    Ok(())
}
