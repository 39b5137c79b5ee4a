//! Dump mode: with `WARPALIGN_KSW_DUMP=<path>` set, every ksw job submitted to the engine (`extd2_batch`,
//! `exts2_batch`, `extz2_batch`, after the argument check) is appended to `<path>`, so real workloads can
//! be replayed (tests/ksw/dumps.rs) and benchmarked (bench/, binary `ksw`). The file conventions (read
//! once per process, append, header only in an empty file, concatenable, one locked write per batch) and
//! the framing are those of [`crate::dump`]; this module has the records.
//!
//! # Format (version 1, all integers little-endian)
//!
//! ```text
//! header:  8 bytes  magic "WAKSWDMP"
//!          u32      version (1)
//!          u32      reserved (0)
//! record (one per job), 34 fixed bytes then the variable part:
//!   u8   kind         1 = extd2 (ksw_extd2_sse), 2 = exts2 (ksw_exts2_sse), 3 = extz2 (ksw_extz2_sse)
//!   i8   m            alphabet size
//!   i8   q, e         gap open / extend
//!   i8   q2           extd2, exts2: second gap open (exts2: the intron open); extz2: 0
//!   i8   e2           extd2: second gap extend; else 0
//!   i8   noncan       exts2; else 0
//!   i8   junc_bonus   exts2; else 0
//!   i8   junc_pen     exts2; else 0
//!   u8   bits         bit 0: junc present (exts2 with a non-null junc); other bits 0
//!   i32  w            extd2, extz2: band width; exts2: 0
//!   i32  zdrop, end_bonus, flag
//!   i32  qlen, tlen   as submitted (may be <= 0)
//!   then query  max(qlen,0) bytes, target max(tlen,0) bytes,
//!        mat    m*m bytes when m > 0, else nothing,
//!        junc   max(tlen,0) bytes when bit 0 is set.
//! ```
//!
//! `junc` is `tlen` bytes: `ksw_exts2_sse` reads `junc[t]` for `t < tlen` and `junc[t+1]` for
//! `t < tlen-1`, and minimap2 allocates exactly the target span (align.c, `mm_get_junc`).
//!
//! A header may appear again between records (concatenated files); the reader skips it.

use super::{KswExtd2Job, KswExts2Job, KswExtz2Job};
use crate::dump::{Framing, Sink};
use std::io;
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"WAKSWDMP";
pub const VERSION: u32 = 1;
const FRAMING: Framing = Framing { name: "ksw", magic: MAGIC, version: VERSION, oldest: VERSION };
pub(super) const FIXED: usize = 34;

/// Which ksw2 function a dumped job is an argument list of.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DumpKind {
    Extd2 = 1,
    Exts2 = 2,
    Extz2 = 3,
}

impl DumpKind {
    pub fn name(self) -> &'static str {
        match self {
            DumpKind::Extd2 => "extd2",
            DumpKind::Exts2 => "exts2",
            DumpKind::Extz2 => "extz2",
        }
    }
}

/// One dumped job, owning its sequences, matrix and junction array.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpedJob {
    pub kind: DumpKind,
    pub m: i8,
    pub q: i8,
    pub e: i8,
    pub q2: i8,
    pub e2: i8,
    pub noncan: i8,
    pub junc_bonus: i8,
    pub junc_pen: i8,
    pub w: i32,
    pub zdrop: i32,
    pub end_bonus: i32,
    pub flag: i32,
    pub qlen: i32,
    pub tlen: i32,
    pub query: Vec<u8>,
    pub target: Vec<u8>,
    pub mat: Vec<i8>,
    pub junc: Option<Vec<u8>>,
}

fn ptr_u8(v: &[u8], len: i32) -> *const u8 {
    if len > 0 {
        v.as_ptr()
    } else {
        std::ptr::null()
    }
}

/// `$Job` as `$d` (a [`DumpedJob`]) was submitted, pointing into it: the fields all kinds have, then the
/// kind's own (`field: value` or `field`, ...).
macro_rules! submitted {
    ($d:expr, $Job:ident { $($field:ident $(: $value:expr)?),* $(,)? }) => {{
        let d: &DumpedJob = $d;
        $Job {
            qlen: d.qlen,
            query: ptr_u8(&d.query, d.qlen),
            tlen: d.tlen,
            target: ptr_u8(&d.target, d.tlen),
            m: d.m,
            mat: if d.m > 0 { d.mat.as_ptr() } else { std::ptr::null() },
            q: d.q,
            e: d.e,
            zdrop: d.zdrop,
            end_bonus: d.end_bonus,
            flag: d.flag,
            $($field $(: $value)?),*
        }
    }};
}

impl DumpedJob {
    /// The job as submitted, pointing into `self` (which must outlive it); None for another kind.
    pub fn extd2_job(&self) -> Option<KswExtd2Job> {
        (self.kind == DumpKind::Extd2).then(|| submitted!(self, KswExtd2Job { q2: self.q2, e2: self.e2, w: self.w }))
    }

    /// The job as submitted, pointing into `self` (which must outlive it); None for another kind.
    pub fn exts2_job(&self) -> Option<KswExts2Job> {
        (self.kind == DumpKind::Exts2).then(|| {
            let junc = self.junc.as_ref().map_or(std::ptr::null(), |j| j.as_ptr());
            submitted!(self, KswExts2Job { q2: self.q2, noncan: self.noncan, junc_bonus: self.junc_bonus, junc_pen: self.junc_pen, junc })
        })
    }

    /// The job as submitted, pointing into `self` (which must outlive it); None for another kind.
    pub fn extz2_job(&self) -> Option<KswExtz2Job> {
        (self.kind == DumpKind::Extz2).then(|| submitted!(self, KswExtz2Job { w: self.w }))
    }
}

// ---- writer ---------------------------------------------------------------------------------------------

static SINK: Sink = Sink::new(&crate::env::KSW_DUMP, FRAMING);

/// # Safety
/// `len` elements at `p` must be readable when `len > 0`.
unsafe fn put_bytes<T: Copy>(buf: &mut Vec<u8>, p: *const T, len: i64) {
    if len > 0 && !p.is_null() {
        let s = std::slice::from_raw_parts(p.cast::<u8>(), len as usize * std::mem::size_of::<T>());
        buf.extend_from_slice(s);
    }
}

#[allow(clippy::too_many_arguments)]
fn put_fixed(buf: &mut Vec<u8>, kind: DumpKind, m: i8, s8: [i8; 7], bits: u8, w: i32, zdrop: i32, end_bonus: i32, flag: i32, qlen: i32, tlen: i32) {
    buf.push(kind as u8);
    buf.push(m as u8);
    buf.extend(s8.iter().map(|&x| x as u8));
    buf.push(bits);
    for x in [w, zdrop, end_bonus, flag, qlen, tlen] {
        buf.extend_from_slice(&x.to_le_bytes());
    }
}

/// # Safety
/// The job's pointers cover its lengths (the batch entry checked them).
unsafe fn put_body(buf: &mut Vec<u8>, qlen: i32, query: *const u8, tlen: i32, target: *const u8, m: i8, mat: *const i8) {
    put_bytes(buf, query, qlen as i64);
    put_bytes(buf, target, tlen as i64);
    if m > 0 {
        put_bytes(buf, mat, m as i64 * m as i64);
    }
}

/// Appends the job's record (the format above) to `buf`.
///
/// # Safety
/// The job's pointers cover its lengths (as a batch entry's argument check guarantees).
pub(super) unsafe fn encode_extd2(buf: &mut Vec<u8>, j: &KswExtd2Job) {
    put_fixed(buf, DumpKind::Extd2, j.m, [j.q, j.e, j.q2, j.e2, 0, 0, 0], 0, j.w, j.zdrop, j.end_bonus, j.flag, j.qlen, j.tlen);
    put_body(buf, j.qlen, j.query, j.tlen, j.target, j.m, j.mat);
}

/// As [`encode_extd2`]; a non-null `junc` covers `tlen` bytes (what ksw_exts2_sse reads).
///
/// # Safety
/// As [`encode_extd2`].
pub(super) unsafe fn encode_exts2(buf: &mut Vec<u8>, j: &KswExts2Job) {
    let has_junc = !j.junc.is_null();
    let s8 = [j.q, j.e, j.q2, 0, j.noncan, j.junc_bonus, j.junc_pen];
    put_fixed(buf, DumpKind::Exts2, j.m, s8, has_junc as u8, 0, j.zdrop, j.end_bonus, j.flag, j.qlen, j.tlen);
    put_body(buf, j.qlen, j.query, j.tlen, j.target, j.m, j.mat);
    if has_junc {
        put_bytes(buf, j.junc, j.tlen as i64);
    }
}

/// As [`encode_extd2`].
///
/// # Safety
/// As [`encode_extd2`].
pub(super) unsafe fn encode_extz2(buf: &mut Vec<u8>, j: &KswExtz2Job) {
    put_fixed(buf, DumpKind::Extz2, j.m, [j.q, j.e, 0, 0, 0, 0, 0], 0, j.w, j.zdrop, j.end_bonus, j.flag, j.qlen, j.tlen);
    put_body(buf, j.qlen, j.query, j.tlen, j.target, j.m, j.mat);
}

/// Dumps a checked batch when dump mode is on.
pub(super) fn dump<J>(jobs: &[J], encode: unsafe fn(&mut Vec<u8>, &J)) -> crate::Result<()> {
    // SAFETY: the batch entry checked the jobs before dumping them.
    SINK.append(jobs, |buf, j| unsafe { encode(buf, j) })
}

// ---- reader ---------------------------------------------------------------------------------------------

/// A record's job pointing into the record's own bytes (no copy), for a caller that keeps them alive.
pub(super) enum RecordJob {
    Extd2(KswExtd2Job),
    Exts2(KswExts2Job),
    Extz2(KswExtz2Job),
}

/// The job of one whole, well-formed record made by `encode_*` (its sequences, matrix and junctions are
/// read in place); None if `data` is not exactly one record.
pub(super) fn record_job(data: &[u8]) -> Option<RecordJob> {
    if data.len() < FIXED {
        return None;
    }
    let s = |i: usize| data[1 + i] as i8;
    let (m, q, e, q2, e2, noncan, junc_bonus, junc_pen) = (s(0), s(1), s(2), s(3), s(4), s(5), s(6), s(7));
    let i = |k: usize| i32::from_le_bytes(data[10 + 4 * k..14 + 4 * k].try_into().unwrap());
    let (w, zdrop, end_bonus, flag, qlen, tlen) = (i(0), i(1), i(2), i(3), i(4), i(5));
    let (ql, tl, ml) = (qlen.max(0) as usize, tlen.max(0) as usize, if m > 0 { m as usize * m as usize } else { 0 });
    let has_junc = data[9] & 1 != 0;
    if data.len() != FIXED + ql + tl + ml + if has_junc { tl } else { 0 } {
        return None;
    }
    let at = |off: usize, len: usize| if len > 0 { data[off..].as_ptr() } else { std::ptr::null() };
    let (query, target, mat) = (at(FIXED, ql), at(FIXED + ql, tl), at(FIXED + ql + tl, ml).cast::<i8>());
    let junc = if has_junc { data[FIXED + ql + tl + ml..].as_ptr() } else { std::ptr::null() };
    Some(match data[0] {
        1 => RecordJob::Extd2(KswExtd2Job { qlen, query, tlen, target, m, mat, q, e, q2, e2, w, zdrop, end_bonus, flag }),
        2 => RecordJob::Exts2(KswExts2Job { qlen, query, tlen, target, m, mat, q, e, q2, noncan, zdrop, end_bonus, junc_bonus, junc_pen, flag, junc }),
        3 => RecordJob::Extz2(KswExtz2Job { qlen, query, tlen, target, m, mat, q, e, w, zdrop, end_bonus, flag }),
        _ => return None,
    })
}

/// Decodes the record at the start of `data` (no header), returning it and its length in bytes.
pub fn decode_record(data: &[u8]) -> Result<(DumpedJob, usize), String> {
    if data.len() < FIXED {
        return Err("truncated record".into());
    }
    let kind = match data[0] {
        1 => DumpKind::Extd2,
        2 => DumpKind::Exts2,
        3 => DumpKind::Extz2,
        k => return Err(format!("unknown job kind {k}")),
    };
    let s = |i: usize| data[1 + i] as i8;
    let (m, q, e, q2, e2, noncan, junc_bonus, junc_pen) = (s(0), s(1), s(2), s(3), s(4), s(5), s(6), s(7));
    let bits = data[9];
    let i = |k: usize| i32::from_le_bytes(data[10 + 4 * k..14 + 4 * k].try_into().unwrap());
    let (w, zdrop, end_bonus, flag, qlen, tlen) = (i(0), i(1), i(2), i(3), i(4), i(5));
    let mut p = FIXED;
    let mut take = |n: usize| -> Result<Vec<u8>, String> {
        if data.len() - p < n {
            return Err("truncated record".into());
        }
        let v = data[p..p + n].to_vec();
        p += n;
        Ok(v)
    };
    let query = take(qlen.max(0) as usize)?;
    let target = take(tlen.max(0) as usize)?;
    let mat = if m > 0 { take(m as usize * m as usize)?.into_iter().map(|x| x as i8).collect() } else { Vec::new() };
    let junc = if bits & 1 != 0 { Some(take(tlen.max(0) as usize)?) } else { None };
    let job = DumpedJob { kind, m, q, e, q2, e2, noncan, junc_bonus, junc_pen, w, zdrop, end_bonus, flag, qlen, tlen, query, target, mat, junc };
    Ok((job, p))
}

/// Parses a dump (see the module doc); a truncated or malformed record is an `InvalidData` error.
pub fn parse_dump(data: &[u8]) -> io::Result<Vec<DumpedJob>> {
    FRAMING.read_all(data, decode_record)
}

/// Reads a dump file written in dump mode (see the module doc).
pub fn read_dump(path: impl AsRef<Path>) -> io::Result<Vec<DumpedJob>> {
    parse_dump(&std::fs::read(path)?)
}
