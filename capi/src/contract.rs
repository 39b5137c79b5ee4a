//! The argument contract of the C API's jobs, checked before any work: whatever would make upstream's
//! arithmetic undefined (and the twins panic or index out of bounds) is refused as an invalid argument.
//! The Rust library itself accepts more (degenerate sizes answered as upstream answers them); C callers
//! get a status instead. The accepted ranges are documented on the job types.

use warpalign::ksw::{flag, KswExtd2Job, KswExts2Job, KswExtz2Job};
use warpalign::ydrop::YdropJob;
use warpalign::{Error, Result};

/// What the ksw functions need whatever their kind; `band` is the band upstream walks (`w`, or
/// `max(qlen, tlen)` for a negative `w`; exts2 has none).
#[allow(clippy::too_many_arguments)]
fn ksw_common(qlen: i32, query: *const u8, tlen: i32, target: *const u8, m: i8, mat: *const i8, band: Option<i32>, zdrop: i32, end_bonus: i32, flag: i32) -> std::result::Result<(), String> {
    if qlen < 0 || tlen < 0 {
        return Err(format!("negative length (qlen {qlen}, tlen {tlen})"));
    }
    if (qlen > 0 && query.is_null()) || (tlen > 0 && target.is_null()) {
        return Err("null sequence with a positive length".into());
    }
    if m < 2 || mat.is_null() {
        return Err(format!("alphabet size {m} (needs 2 or more) or null score matrix"));
    }
    let (q, t) = (qlen as i64, tlen as i64);
    let band = band.map_or(0, |w| if w < 0 { q.max(t) } else { w as i64 });
    // the anti-diagonal loop's `r + w` and the 16-aligned `tlen + 15` stay in int
    if q + t + band > i32::MAX as i64 - 15 {
        return Err(format!("qlen + tlen + band ({q} + {t} + {band}) over INT32_MAX - 15"));
    }
    // upstream sizes its int32 score row as `tlen_ * 16 * 4` in int
    if t > MAX_TLEN {
        return Err(format!("tlen {t} over {MAX_TLEN}"));
    }
    // the z-drop test's `zdrop + l * e` and the end test's `mqe + end_bonus`: |l * e|, |score| <= 128 (qlen + tlen)
    let reach = 128 * (q + t);
    if zdrop >= 0 && zdrop as i64 + reach > i32::MAX as i64 {
        return Err(format!("zdrop {zdrop} over INT32_MAX - 128 (qlen + tlen)"));
    }
    if (end_bonus as i64) < -(1 << 30) || end_bonus as i64 + reach > i32::MAX as i64 {
        return Err(format!("end_bonus {end_bonus} outside [-2^30, INT32_MAX - 128 (qlen + tlen)]"));
    }
    if flag & flag::GENERIC_SC != 0 {
        // SAFETY: the caller's contract: the sequences cover their lengths (checked non-null above).
        let (qs, ts) = unsafe { (slice(query, qlen), slice(target, tlen)) };
        if qs.iter().chain(ts).any(|&b| b as i32 >= m as i32) {
            return Err(format!("GENERIC_SC with a base of {m} or more (indexes past the m*m matrix)"));
        }
    }
    Ok(())
}

/// `tlen_ * 64 <= INT32_MAX` (`tlen_ = ceil(tlen / 16)`).
const MAX_TLEN: i64 = (i32::MAX as i64 / 64) * 16;

/// # Safety
/// `n` readable bytes at `p` when `n > 0`.
unsafe fn slice<'a>(p: *const u8, n: i32) -> &'a [u8] {
    if n <= 0 {
        &[]
    } else {
        // SAFETY: as the caller guarantees.
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

pub(crate) fn extd2(j: &KswExtd2Job) -> std::result::Result<(), String> {
    ksw_common(j.qlen, j.query, j.tlen, j.target, j.m, j.mat, Some(j.w), j.zdrop, j.end_bonus, j.flag)
}

pub(crate) fn extz2(j: &KswExtz2Job) -> std::result::Result<(), String> {
    ksw_common(j.qlen, j.query, j.tlen, j.target, j.m, j.mat, Some(j.w), j.zdrop, j.end_bonus, j.flag)
}

pub(crate) fn exts2(j: &KswExts2Job) -> std::result::Result<(), String> {
    ksw_common(j.qlen, j.query, j.tlen, j.target, j.m, j.mat, None, j.zdrop, j.end_bonus, j.flag)?;
    if j.e == 0 {
        return Err("e = 0 (ksw_exts2_sse divides by it)".into());
    }
    if j.flag & flag::SPLICE_FOR != 0 && j.flag & flag::SPLICE_REV != 0 {
        return Err("SPLICE_FOR and SPLICE_REV both set".into());
    }
    Ok(())
}

/// LASTZ's `negInfinity` (-0.9 * 2^31) leaves this much room below it: a gap penalty taken from it must fit.
const YDROP_GAP_MAX: i64 = (1 << 31) - 1_932_735_283;

pub(crate) fn ydrop(j: &YdropJob) -> std::result::Result<(), String> {
    let (go, ge, yd) = (j.gap_open as i64, j.gap_extend as i64, j.y_drop as i64);
    if ge < 0 || go + ge < 0 || ge > YDROP_GAP_MAX || go + ge > YDROP_GAP_MAX {
        return Err(format!("gap_open {go}, gap_extend {ge}: needs 0 <= gap_extend, gap_open + gap_extend <= {YDROP_GAP_MAX}"));
    }
    // `bestScore - yDrop`, and `yDrop / gapE + 6` (yDropTail) in int
    if yd < 0 || (ge > 0 && yd / ge + 6 > i32::MAX as i64) {
        return Err(format!("y_drop {yd}: needs 0 <= y_drop and y_drop / gap_extend + 6 <= INT32_MAX"));
    }
    Ok(())
}

/// Checks every job of a batch, naming the first bad one as the library names its own refusals.
pub(crate) fn all<J>(kind: &str, jobs: &[J], check: fn(&J) -> std::result::Result<(), String>) -> Result<()> {
    match jobs.iter().enumerate().find_map(|(i, j)| check(j).err().map(|e| (i, e))) {
        Some((i, e)) => Err(Error::InvalidArgument(format!("{kind} job {i}: {e}"))),
        None => Ok(()),
    }
}
