//! Dump mode: with `WARPALIGN_DUMP=<path>` set, every ydrop job submitted to the engine (`one_sided_batch`,
//! after the argument check) is appended to `<path>` with the result the engine returned, so calls from real
//! LASTZ runs can be replayed against the oracle (tests/ydrop_dumps.rs). The variable is read once per
//! process; unset (or empty), the hook costs one atomic load per batch call. The file conventions (append,
//! header only in an empty file, concatenable, one locked write per batch) are those of `ksw::dump`. Each
//! tool uses one engine (minimap2 ksw, LASTZ ydrop); a process using both would mix the two formats in one
//! file, which neither reader accepts.
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
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Arc, Mutex, OnceLock};

pub const MAGIC: &[u8; 8] = b"WAYDRDMP";
pub const VERSION: u32 = 3;
const MATRIX: u8 = 1;
const JOB: u8 = 2;
const BOUNDS: u8 = 3;
const CELLS: usize = 256 * 256;

/// One dumped call: its arguments (sequences as the prefixes it read) and the result it got.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DumpedJob {
    pub m: u32,
    pub n: u32,
    pub sub: Arc<Vec<i32>>,
    pub gap_open: i32,
    pub gap_extend: i32,
    pub y_drop: i32,
    pub trim_to_peak: i32,
    pub reversed: i32,
    pub tb_size: u32,
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
            a: pad(&self.a, self.m as usize),
            b: pad(&self.b, self.n as usize + 1),
            bounds: self.bounds.as_ref().map(DumpedBounds::block),
        }
    }

    /// The job as submitted, pointing into `seq` (from [`Self::sequences`]) and `self`, which must outlive it.
    pub fn job(&self, seq: &Sequences) -> YdropJob {
        YdropJob {
            a: seq.a.as_ptr(),
            m: self.m,
            b: seq.b.as_ptr(),
            n: self.n,
            sub: self.sub.as_ptr(),
            gap_open: self.gap_open,
            gap_extend: self.gap_extend,
            y_drop: self.y_drop,
            trim_to_peak: self.trim_to_peak,
            reversed: self.reversed,
            tb_size: self.tb_size,
            bounds: seq.bounds.as_ref().map_or(std::ptr::null(), |b| b),
        }
    }
}

// ---- writer ---------------------------------------------------------------------------------------------

struct Sink {
    file: File,
    /// The matrix of the last job written (None: none yet in this process).
    matrix: Option<Vec<i32>>,
}

static SINK: OnceLock<Option<Mutex<Sink>>> = OnceLock::new();

fn open_sink() -> Option<Mutex<Sink>> {
    let path = std::env::var_os("WARPALIGN_DUMP").filter(|p| !p.is_empty())?;
    let open = || -> io::Result<File> {
        let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
        if f.metadata()?.len() == 0 {
            let mut h = Vec::with_capacity(16);
            h.extend_from_slice(MAGIC);
            h.extend_from_slice(&VERSION.to_le_bytes());
            h.extend_from_slice(&0u32.to_le_bytes());
            f.write_all(&h)?;
        }
        Ok(f)
    };
    match open() {
        Ok(file) => Some(Mutex::new(Sink { file, matrix: None })),
        Err(e) => {
            // A dump was asked for and cannot be made: say so once and run on without it.
            eprintln!("[WARNING] warpalign: WARPALIGN_DUMP={}: {e}; not dumping", path.to_string_lossy());
            None
        }
    }
}

fn sink() -> Option<&'static Mutex<Sink>> {
    SINK.get_or_init(open_sink).as_ref()
}

/// Whether dump mode is on.
pub(super) fn enabled() -> bool {
    sink().is_some()
}

fn put_u32s(buf: &mut Vec<u8>, xs: impl IntoIterator<Item = u32>) {
    for x in xs {
        buf.extend_from_slice(&x.to_le_bytes());
    }
}

/// Appends the jobs, the prefixes they read and their results.
pub(super) fn record(jobs: &[YdropJob], results: &[YdropResult], extents: &[Extent]) -> crate::Result<()> {
    let Some(sink) = sink() else { return Ok(()) };
    let mut sink = sink.lock().unwrap_or_else(|p| p.into_inner());
    let mut buf = Vec::new();
    for ((j, r), e) in jobs.iter().zip(results).zip(extents) {
        // SAFETY: checked by the batch entry: a 256x256 matrix, and the prefixes the call just read.
        let (sub, a, b) = unsafe {
            (
                std::slice::from_raw_parts(j.sub, CELLS),
                std::slice::from_raw_parts(j.a, e.a as usize),
                std::slice::from_raw_parts(j.b, e.b as usize),
            )
        };
        if sink.matrix.as_deref() != Some(sub) {
            buf.push(MATRIX);
            put_u32s(&mut buf, sub.iter().map(|&x| x as u32));
            sink.matrix = Some(sub.to_vec());
        }
        if !j.bounds.is_null() {
            // SAFETY: checked by the batch entry: a live, well-formed block.
            let b = unsafe { &*j.bounds };
            buf.push(BOUNDS);
            put_u32s(&mut buf, [b.anchor1, b.anchor2, b.left_align, b.right_align, b.left_seg, b.right_seg]);
            put_u32s(&mut buf, [b.above_list, b.below_list, b.rows, b.n_segments, b.n_alignments]);
            for s in b.segments() {
                put_u32s(&mut buf, [s.kind, s.b1, s.b2, s.e1, s.e2, s.owner]);
            }
            for a in b.alignments() {
                put_u32s(&mut buf, [a.pos1, a.end1, a.first_seg, a.last_seg]);
                put_u32s(&mut buf, [a.left_align1, a.right_align1, a.left_align2, a.right_align2]);
                put_u32s(&mut buf, [a.left_seg1, a.right_seg1, a.left_seg2, a.right_seg2, a.next, a.prev]);
            }
        }
        buf.push(JOB);
        put_u32s(&mut buf, [j.m, j.n]);
        put_u32s(&mut buf, [j.gap_open, j.gap_extend, j.y_drop, j.trim_to_peak, j.reversed].map(|x| x as u32));
        put_u32s(&mut buf, [j.tb_size, e.a, e.b]);
        buf.extend_from_slice(a);
        buf.extend_from_slice(b);
        put_u32s(&mut buf, [r.score as u32, r.end1, r.end2, r.truncated as u32, r.n_ops]);
        put_u32s(&mut buf, r.ops().iter().copied());
    }
    sink.file.write_all(&buf).map_err(|e| crate::Error::Internal(format!("WARPALIGN_DUMP: writing: {e}")))
}

// ---- reader ---------------------------------------------------------------------------------------------

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

struct Reader<'a> {
    data: &'a [u8],
    p: usize,
    record: usize,
    /// The version of the header last read.
    version: u32,
}

impl Reader<'_> {
    fn take(&mut self, n: usize) -> io::Result<&[u8]> {
        if self.data.len() - self.p < n {
            return Err(bad(format!("truncated record at byte {}", self.record)));
        }
        self.p += n;
        Ok(&self.data[self.p - n..self.p])
    }

    fn u32(&mut self) -> io::Result<u32> {
        Ok(u32::from_le_bytes(self.take(4)?.try_into().unwrap()))
    }

    fn i32(&mut self) -> io::Result<i32> {
        Ok(self.u32()? as i32)
    }

    fn u32s<const K: usize>(&mut self) -> io::Result<[u32; K]> {
        let mut out = [0; K];
        for x in out.iter_mut() {
            *x = self.u32()?;
        }
        Ok(out)
    }

    fn bounds(&mut self) -> io::Result<DumpedBounds> {
        let header = self.u32s::<8>()?;
        let rows = if self.version >= 3 { self.u32()? } else { u32::MAX };
        let [n_segments, n_alignments] = self.u32s::<2>()?;
        // 24 and 56 bytes each: a length the data cannot hold is a bad record, not a huge allocation
        if (n_segments as u64 * 24 + n_alignments as u64 * 56) > (self.data.len() - self.p) as u64 {
            return Err(bad(format!("truncated record at byte {}", self.record)));
        }
        let segments = (0..n_segments)
            .map(|_| {
                let [kind, b1, b2, e1, e2, owner] = self.u32s()?;
                Ok(YdropSegment { kind, b1, b2, e1, e2, owner })
            })
            .collect::<io::Result<Vec<_>>>()?;
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
            .collect::<io::Result<Vec<_>>>()?;
        let b = DumpedBounds { header, rows, segments, alignments };
        b.block().check().map_err(|e| bad(format!("bounds at byte {}: {e}", self.record)))?;
        Ok(b)
    }
}

/// Parses a dump (see the module doc); a truncated or malformed record is an `InvalidData` error.
pub fn parse_dump(data: &[u8]) -> io::Result<Vec<DumpedJob>> {
    let mut jobs = Vec::new();
    let mut r = Reader { data, p: 0, record: 0, version: 0 };
    let mut seen_header = false;
    let mut matrix: Option<Arc<Vec<i32>>> = None;
    let mut bounds: Option<DumpedBounds> = None;
    while r.p < data.len() {
        r.record = r.p;
        if data[r.p..].starts_with(MAGIC) {
            r.take(8)?;
            let v = r.u32()?;
            if !(1..=VERSION).contains(&v) {
                return Err(bad(format!("dump version {v} at byte {}, this reader knows 1 to {VERSION}", r.record)));
            }
            r.u32()?;
            r.version = v;
            seen_header = true;
            continue;
        }
        if !seen_header {
            return Err(bad("not a warpalign ydrop dump (no WAYDRDMP header)".into()));
        }
        match r.take(1)?[0] {
            MATRIX => {
                let cells = r.take(4 * CELLS)?;
                matrix = Some(Arc::new(cells.chunks_exact(4).map(|c| i32::from_le_bytes(c.try_into().unwrap())).collect()));
            }
            BOUNDS => bounds = Some(r.bounds()?),
            JOB => {
                let sub = matrix.clone().ok_or_else(|| bad(format!("job before any matrix at byte {}", r.record)))?;
                let (m, n) = (r.u32()?, r.u32()?);
                let (gap_open, gap_extend, y_drop, trim_to_peak, reversed) = (r.i32()?, r.i32()?, r.i32()?, r.i32()?, r.i32()?);
                let (tb_size, a_len, b_len) = (r.u32()?, r.u32()?, r.u32()?);
                if a_len > m || b_len as u64 > n as u64 + 1 {
                    return Err(bad(format!("prefixes longer than the sequences at byte {}", r.record)));
                }
                let a = r.take(a_len as usize)?.to_vec();
                let b = r.take(b_len as usize)?.to_vec();
                let (score, end1, end2, truncated, n_ops) = (r.i32()?, r.u32()?, r.u32()?, r.i32()?, r.u32()?);
                let ops = (0..n_ops).map(|_| r.u32()).collect::<io::Result<Vec<u32>>>()?;
                jobs.push(DumpedJob {
                    m,
                    n,
                    sub,
                    gap_open,
                    gap_extend,
                    y_drop,
                    trim_to_peak,
                    reversed,
                    tb_size,
                    a,
                    b,
                    score,
                    end1,
                    end2,
                    truncated,
                    ops,
                    bounds: bounds.take(),
                });
            }
            k => return Err(bad(format!("unknown record kind {k} at byte {}", r.record))),
        }
    }
    Ok(jobs)
}

/// Reads a dump file written in dump mode (see the module doc).
pub fn read_dump(path: impl AsRef<Path>) -> io::Result<Vec<DumpedJob>> {
    parse_dump(&std::fs::read(path)?)
}
