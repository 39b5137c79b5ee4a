//! LASTZ's own `ydrop_one_sided_align` (the oracle, `warpalign_ffi::lastz`) on a [`YdropJob`], to check the
//! twin against. That copy keeps file-static scratch (`tbRow`), so its calls are serialized by a lock.

use super::{YdropBounds, YdropJob, YdropResult};
use warpalign_ffi::lastz as c;

// the shim's flat bounds types are ours field for field
const _: () = assert!(std::mem::size_of::<YdropBounds>() == std::mem::size_of::<c::warpalign_oracle_lastz_ydrop_bounds>());
const _: () = assert!(
    std::mem::size_of::<super::YdropAlignment>() == std::mem::size_of::<c::warpalign_oracle_lastz_ydrop_alignment>()
);
const _: () =
    assert!(std::mem::size_of::<super::YdropSegment>() == std::mem::size_of::<c::warpalign_oracle_lastz_ydrop_segment>());

/// Same contract as [`super::twin::one_sided`].
pub fn one_sided(j: &YdropJob, out: &mut YdropResult) {
    // SAFETY: ydrop_out is plain data.
    let mut o: c::warpalign_oracle_lastz_ydrop_out = unsafe { std::mem::zeroed() };
    // The shim takes LASTZ's 1-based pointers (one byte before the first base); it never dereferences
    // A[0] or B[0], so wrapping_sub keeps this free of out-of-bounds pointer arithmetic on our side.
    // SAFETY: the job was checked; the shim locks its shared state, and ops is malloc'ed for us.
    unsafe {
        c::warpalign_oracle_lastz_ydrop_one_sided(
            j.a.wrapping_sub(1),
            j.b.wrapping_sub(1),
            j.m,
            j.n,
            j.reversed,
            j.trim_to_peak,
            j.sub,
            j.gap_open,
            j.gap_extend,
            j.y_drop,
            j.tb_size,
            j.bounds.cast(),
            &mut o,
        )
    };
    *out = YdropResult { score: o.score, end1: o.end1, end2: o.end2, truncated: o.truncated, n_ops: o.n_ops, ops: o.ops };
}
