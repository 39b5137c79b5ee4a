//! Dump mode: with `WARPALIGN_YDROP_DUMP=<path>` set, every ydrop job submitted to the engine
//! (`one_sided_batch`, after the argument check) is appended to `<path>` with the result the engine
//! returned, so calls from real LASTZ runs can be replayed against the oracle (tests/ydrop/dumps.rs). The
//! file conventions (read once per process, append, header only in an empty file, concatenable, one locked
//! write per batch) and the framing are those of [`crate::dump`]; this module has the records.
//!
//! A call may start anywhere in a chromosome, so `m` and `n` can be millions while the DP reads a few
//! thousand bases: a record keeps only the prefixes the call read (the twin reports them, [`Extent`]) and
//! the true lengths; a replay pads the rest (see [`DumpedJob::sequences`]). The matrix (256 KiB) is written
//! once, before the first job that uses it.
//!
//! A constrained job's bounds block ([`YdropBounds`]) is written whole, just before the job.
//!
//! # Format (version 3, all integers little-endian; a reader also takes version 1, which has no bounds, and 2, whose bounds have no `rows`: all)
//!
//! ```text
//! header:  8 bytes  magic "WAYDRDMP"
//!          u32      version (3)
//!          u32      reserved (0)
//! records, each starting with a u8 kind:
//!   1  matrix: 65536 i32, `sub` of the jobs that follow
//!   2  job:    u32 m, u32 n, i32 gap_open, gap_extend, y_drop, trim_to_peak, reversed, u32 tb_size,
//!              u32 a_len, u32 b_len, then a_len bytes of a, b_len bytes of b (prefixes; b_len <= n + 1),
//!              then the result: i32 score, u32 end1, u32 end2, i32 truncated, u32 n_ops, n_ops u32 ops
//!   3  bounds of the next job (which is constrained): u32 anchor1, anchor2, left_align, right_align,
//!              left_seg, right_seg, above_list, below_list, rows, n_segments, n_alignments, then the
//!              segments (6 u32 each, YdropSegment's field order) and the alignments (14 u32 each,
//!              YdropAlignment's)
//! ```

use super::twin::Extent;
use super::{YdropAlignment, YdropBounds, YdropJob, YdropResult, YdropSegment};
use crate::dump::{Framing, Sink};
use std::io;
use std::path::Path;
use std::sync::Arc;

pub const MAGIC: &[u8; 8] = b"WAYDRDMP";
pub const VERSION: u32 = 3;
const FRAMING: Framing = Framing { name: "ydrop", magic: MAGIC, version: VERSION, oldest: 1 };
const MATRIX: u8 = 1;
const JOB: u8 = 2;
const BOUNDS: u8 = 3;
const CELLS: usize = 256 * 256;

/// One dumped call: its arguments (sequences as the prefixes it read) and the result it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpedJob {
    /// The scalar arguments (`m` and `n` the true lengths); its pointers null here ([`Self::job`] sets them).
    pub job: YdropJob,
    pub sub: Arc<Vec<i32>>,
    /// The first bases of `a`, of `b` (with `b[n]` when it was read).
    pub a: Vec<u8>,
    pub b: Vec<u8>,
    pub score: i32,
    pub end1: u32,
    pub end2: u32,
    pub truncated: i32,
    pub ops: Vec<u32>,
    /// A constrained job's bounds.
    pub bounds: Option<DumpedBounds>,
}

/// A dumped bounds block: [`YdropBounds`] with its arrays owned.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpedBounds {
    /// anchor1, anchor2, left_align, right_align, left_seg, right_seg, above_list, below_list.
    pub header: [u32; 8],
    /// The rows the block serves ([`YdropBounds::rows`]).
    pub rows: u32,
    pub segments: Vec<YdropSegment>,
    pub alignments: Vec<YdropAlignment>,
}

impl DumpedBounds {
    /// The block, pointing into `self`, which must outlive it.
    pub fn block(&self) -> YdropBounds {
        let [anchor1, anchor2, left_align, right_align, left_seg, right_seg, above_list, below_list] = self.header;
        YdropBounds {
            anchor1,
            anchor2,
            segments: self.segments.as_ptr(),
            n_segments: self.segments.len() as u32,
            alignments: self.alignments.as_ptr(),
            n_alignments: self.alignments.len() as u32,
            left_align,
            right_align,
            left_seg,
            right_seg,
            above_list,
            below_list,
            rows: self.rows,
        }
    }
}

/// A dumped job's sequences at full length: the recorded prefixes, then bytes the call never read (0); and
/// its bounds block, pointing into the job.
pub struct Sequences {
    a: Vec<u8>,
    b: Vec<u8>,
    bounds: Option<YdropBounds>,
}

impl DumpedJob {
    pub fn sequences(&self) -> Sequences {
        let pad = |v: &[u8], len: usize| {
            let mut s = v.to_vec();
            s.resize(len.max(v.len()), 0);
            s
        };
        Sequences {
            a: pad(&self.a, self.job.m as usize),
            b: pad(&self.b, self.job.n as usize + 1),
            bounds: self.bounds.as_ref().map(DumpedBounds::block),
        }
    }

    /// The job as submitted, pointing into `seq` (from [`Self::sequences`]) and `self`, which must outlive it.
    pub fn job(&self, seq: &Sequences) -> YdropJob {
        YdropJob {
            a: seq.a.as_ptr(),
            b: seq.b.as_ptr(),
            sub: self.sub.as_ptr(),
            bounds: seq.bounds.as_ref().map_or(std::ptr::null(), |b| b),
            ..self.job
        }
    }
}

// ---- writer ---------------------------------------------------------------------------------------------

/// The sink's state: the matrix of the last job written (None: none yet in this process).
static SINK: Sink<Option<Vec<i32>>> = Sink::new(&crate::env::YDROP_DUMP, FRAMING);

/// Whether dump mode is on.
pub(super) fn enabled() -> bool {
    SINK.enabled()
}

fn put_u32s(buf: &mut Vec<u8>, xs: impl IntoIterator<Item = u32>) {
    for x in xs {
        buf.extend_from_slice(&x.to_le_bytes());
    }
}

/// Appends the jobs, the prefixes they read and their results.
pub(super) fn record(jobs: &[YdropJob], results: &[YdropResult], extents: &[Extent]) -> crate::Result<()> {
    SINK.append_with(|matrix, buf| encode(matrix, buf, jobs, results, extents))
}

fn encode(matrix: &mut Option<Vec<i32>>, buf: &mut Vec<u8>, jobs: &[YdropJob], results: &[YdropResult], extents: &[Extent]) {
    for ((j, r), e) in jobs.iter().zip(results).zip(extents) {
        // SAFETY: checked by the batch entry: a 256x256 matrix, and the prefixes the call just read.
        let (sub, a, b) = unsafe {
            (
                std::slice::from_raw_parts(j.sub, CELLS),
                std::slice::from_raw_parts(j.a, e.a as usize),
                std::slice::from_raw_parts(j.b, e.b as usize),
            )
        };
        if matrix.as_deref() != Some(sub) {
            buf.push(MATRIX);
            put_u32s(buf, sub.iter().map(|&x| x as u32));
            *matrix = Some(sub.to_vec());
        }
        if !j.bounds.is_null() {
            // SAFETY: checked by the batch entry: a live, well-formed block.
            let b = unsafe { &*j.bounds };
            buf.push(BOUNDS);
            put_u32s(buf, [b.anchor1, b.anchor2, b.left_align, b.right_align, b.left_seg, b.right_seg]);
            put_u32s(buf, [b.above_list, b.below_list, b.rows, b.n_segments, b.n_alignments]);
            for s in b.segments() {
                put_u32s(buf, [s.kind, s.b1, s.b2, s.e1, s.e2, s.owner]);
            }
            for a in b.alignments() {
                put_u32s(buf, [a.pos1, a.end1, a.first_seg, a.last_seg]);
                put_u32s(buf, [a.left_align1, a.right_align1, a.left_align2, a.right_align2]);
                put_u32s(buf, [a.left_seg1, a.right_seg1, a.left_seg2, a.right_seg2, a.next, a.prev]);
            }
        }
        buf.push(JOB);
        put_u32s(buf, [j.m, j.n]);
        put_u32s(buf, [j.gap_open, j.gap_extend, j.y_drop, j.trim_to_peak, j.reversed].map(|x| x as u32));
        put_u32s(buf, [j.tb_size, e.a, e.b]);
        buf.extend_from_slice(a);
        buf.extend_from_slice(b);
        put_u32s(buf, [r.score as u32, r.end1, r.end2, r.truncated as u32, r.n_ops]);
        put_u32s(buf, r.ops().iter().copied());
    }
}

// ---- reader ---------------------------------------------------------------------------------------------

/// One record's bytes (to the end of the data), read from the front.
struct Reader<'a> {
    data: &'a [u8],
    p: usize,
    /// The version of the header before the record.
    version: u32,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> Result<&[u8], String> {
        if self.data.len() - self.p < n {
            return Err("truncated record".into());
        }
        self.p += n;
        Ok(&self.data[self.p - n..self.p])
    }

    fn u32(&mut self) -> Result<u32, String> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn i32(&mut self) -> Result<i32, String> {
        Ok(self.u32()? as i32)
    }

    fn u32s<const K: usize>(&mut self) -> Result<[u32; K], String> {
        let mut out = [0; K];
        for x in out.iter_mut() {
            *x = self.u32()?;
        }
        Ok(out)
    }

    fn bounds(&mut self) -> Result<DumpedBounds, String> {
        let header = self.u32s::<8>()?;
        let rows = if self.version >= 3 { self.u32()? } else { u32::MAX };
        let [n_segments, n_alignments] = self.u32s::<2>()?;
        // 24 and 56 bytes each: a length the data cannot hold is a bad record, not a huge allocation
        if (n_segments as u64 * 24 + n_alignments as u64 * 56) > (self.data.len() - self.p) as u64 {
            return Err("truncated record".into());
        }
        let segments = (0..n_segments)
            .map(|_| {
                let [kind, b1, b2, e1, e2, owner] = self.u32s()?;
                Ok(YdropSegment { kind, b1, b2, e1, e2, owner })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let alignments = (0..n_alignments)
            .map(|_| {
                let [pos1, end1, first_seg, last_seg, left_align1, right_align1, left_align2, right_align2] = self.u32s()?;
                let [left_seg1, right_seg1, left_seg2, right_seg2, next, prev] = self.u32s()?;
                Ok(YdropAlignment {
                    pos1,
                    end1,
                    first_seg,
                    last_seg,
                    left_align1,
                    right_align1,
                    left_align2,
                    right_align2,
                    left_seg1,
                    right_seg1,
                    left_seg2,
                    right_seg2,
                    next,
                    prev,
                })
            })
            .collect::<Result<Vec<_>, String>>()?;
        let b = DumpedBounds { header, rows, segments, alignments };
        b.block().check().map_err(|e| format!("bounds ({e})"))?;
        Ok(b)
    }

    /// A job record's fields after its kind byte, with the matrix and bounds records before it.
    fn job(&mut self, sub: Arc<Vec<i32>>, bounds: Option<DumpedBounds>) -> Result<DumpedJob, String> {
        let (m, n) = (self.u32()?, self.u32()?);
        let (gap_open, gap_extend, y_drop, trim_to_peak, reversed) = (self.i32()?, self.i32()?, self.i32()?, self.i32()?, self.i32()?);
        let (tb_size, a_len, b_len) = (self.u32()?, self.u32()?, self.u32()?);
        if a_len > m || b_len as u64 > n as u64 + 1 {
            return Err("prefixes longer than the sequences".into());
        }
        let a = self.take(a_len as usize)?.to_vec();
        let b = self.take(b_len as usize)?.to_vec();
        let (score, end1, end2, truncated, n_ops) = (self.i32()?, self.u32()?, self.u32()?, self.i32()?, self.u32()?);
        let ops = (0..n_ops).map(|_| self.u32()).collect::<Result<Vec<u32>, String>>()?;
        use std::ptr::null;
        let job = YdropJob { a: null(), m, b: null(), n, sub: null(), gap_open, gap_extend, y_drop, trim_to_peak, reversed, tb_size, bounds: null() };
        Ok(DumpedJob { job, sub, a, b, score, end1, end2, truncated, ops, bounds })
    }
}

/// Parses a dump (see the module doc); a truncated or malformed record is an `InvalidData` error.
pub fn parse_dump(data: &[u8]) -> io::Result<Vec<DumpedJob>> {
    let mut jobs = Vec::new();
    let mut matrix: Option<Arc<Vec<i32>>> = None;
    let mut bounds: Option<DumpedBounds> = None;
    FRAMING.read(data, |rec, version| {
        let mut r = Reader { data: rec, p: 1, version };
        match rec[0] {
            MATRIX => {
                let cells = r.take(4 * CELLS)?;
                matrix = Some(Arc::new(cells.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()));
            }
            BOUNDS => bounds = Some(r.bounds()?),
            JOB => {
                let sub = matrix.clone().ok_or("job before any matrix")?;
                jobs.push(r.job(sub, bounds.take())?);
            }
            k => return Err(format!("unknown record kind {k}")),
        }
        Ok(r.p)
    })?;
    Ok(jobs)
}

/// Reads a dump file written in dump mode (see the module doc).
pub fn read_dump(path: impl AsRef<Path>) -> io::Result<Vec<DumpedJob>> {
    parse_dump(&std::fs::read(path)?)
}
