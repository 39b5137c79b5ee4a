//! Dump mode: with `WARPALIGN_CHAIN_DUMP=<path>` set, every job submitted to [`super::dp_batch`] (after
//! the argument check; the patched minimap2 submits one per `mg_lchain_dp` call) is appended to `<path>`,
//! so real anchor sets can be replayed (tests/chain_dumps.rs) and benchmarked (bench/, binary `chain
//! --dump`). The variable is read once per process; unset (or empty), the hook costs one atomic load per
//! batch call.
//!
//! The conventions are those of the ksw dump (src/ksw/dump.rs): the file is opened once, in append mode
//! (created when missing); the header is written only when the file is empty at open, so several runs (or
//! processes, one after the other) may share one file, and dumps concatenated with `cat` read back as one.
//! Each batch call encodes its jobs into one buffer and writes it under a mutex, so records from concurrent
//! threads never interleave. A file that cannot be opened is reported once on stderr and nothing is dumped.
//!
//! # Format (version 1, all integers little-endian)
//!
//! ```text
//! header:  8 bytes  magic "WACHNDMP"
//!          u32      version (1)
//!          u32      reserved (0)
//! record (one per job), 52 fixed bytes then the anchors:
//!   i32  max_dist_x, max_dist_y, bw, max_skip, max_iter, min_cnt, min_sc
//!   f32  chn_pen_gap, chn_pen_skip    IEEE-754 bits, as submitted
//!   i32  is_cdna, n_seg
//!   i64  n_anchors                    >= 0
//!   then n_anchors anchors of 16 bytes: u64 x, u64 y (minimap2's mm128_t, see the chain module doc)
//! ```
//!
//! A header may appear again between records (concatenated files); the reader skips it.

use super::{Anchor, ChainDpJob};
use std::fs::File;
use std::io::{self, Write};
use std::path::Path;
use std::sync::{Mutex, OnceLock};

pub const MAGIC: &[u8; 8] = b"WACHNDMP";
pub const VERSION: u32 = 1;
const FIXED: usize = 52;

/// One dumped `mg_lchain_dp` call, owning its anchors.
#[derive(Debug, Clone, PartialEq)]
pub struct DumpedJob {
    pub max_dist_x: i32,
    pub max_dist_y: i32,
    pub bw: i32,
    pub max_skip: i32,
    pub max_iter: i32,
    pub min_cnt: i32,
    pub min_sc: i32,
    pub chn_pen_gap: f32,
    pub chn_pen_skip: f32,
    pub is_cdna: i32,
    pub n_seg: i32,
    pub anchors: Vec<Anchor>,
}

impl DumpedJob {
    /// The job as submitted, pointing into `self` (which must outlive it and keep its anchors unchanged).
    pub fn job(&self) -> ChainDpJob {
        ChainDpJob {
            max_dist_x: self.max_dist_x,
            max_dist_y: self.max_dist_y,
            bw: self.bw,
            max_skip: self.max_skip,
            max_iter: self.max_iter,
            min_cnt: self.min_cnt,
            min_sc: self.min_sc,
            chn_pen_gap: self.chn_pen_gap,
            chn_pen_skip: self.chn_pen_skip,
            is_cdna: self.is_cdna,
            n_seg: self.n_seg,
            n_anchors: self.anchors.len() as i64,
            anchors: if self.anchors.is_empty() { std::ptr::null() } else { self.anchors.as_ptr() },
        }
    }

    /// A proxy for the query length: the largest anchor end on the query (`q_pos + q_span`, from `y`).
    pub fn query_span(&self) -> u64 {
        self.anchors.iter().map(|a| (a.y & 0xffff_ffff) + (a.y >> 32 & 0xff)).max().unwrap_or(0)
    }
}

// ---- writer ---------------------------------------------------------------------------------------------

static SINK: OnceLock<Option<Mutex<File>>> = OnceLock::new();

fn open_sink() -> Option<Mutex<File>> {
    let path = std::env::var_os("WARPALIGN_CHAIN_DUMP").filter(|p| !p.is_empty())?;
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
        Ok(f) => Some(Mutex::new(f)),
        Err(e) => {
            // A dump was asked for and cannot be made: say so once and run on without it.
            eprintln!("[WARNING] warpalign: WARPALIGN_CHAIN_DUMP={}: {e}; not dumping", path.to_string_lossy());
            None
        }
    }
}

/// Appends the job's record (the format above) to `buf`.
pub fn encode(buf: &mut Vec<u8>, j: &ChainDpJob) {
    for x in [j.max_dist_x, j.max_dist_y, j.bw, j.max_skip, j.max_iter, j.min_cnt, j.min_sc] {
        buf.extend_from_slice(&x.to_le_bytes());
    }
    buf.extend_from_slice(&j.chn_pen_gap.to_bits().to_le_bytes());
    buf.extend_from_slice(&j.chn_pen_skip.to_bits().to_le_bytes());
    buf.extend_from_slice(&j.is_cdna.to_le_bytes());
    buf.extend_from_slice(&j.n_seg.to_le_bytes());
    let a = super::twin::job_anchors(j);
    buf.extend_from_slice(&(a.len() as i64).to_le_bytes());
    buf.reserve(a.len() * 16);
    for p in a {
        buf.extend_from_slice(&p.x.to_le_bytes());
        buf.extend_from_slice(&p.y.to_le_bytes());
    }
}

/// Dumps a checked batch when dump mode is on.
pub(super) fn dump(jobs: &[ChainDpJob]) -> crate::Result<()> {
    let Some(f) = SINK.get_or_init(open_sink) else { return Ok(()) };
    let mut buf = Vec::new();
    for j in jobs {
        encode(&mut buf, j);
    }
    if buf.is_empty() {
        return Ok(());
    }
    let mut f = f.lock().unwrap_or_else(|p| p.into_inner());
    f.write_all(&buf).map_err(|e| crate::Error::Internal(format!("WARPALIGN_CHAIN_DUMP: writing: {e}")))
}

// ---- reader ---------------------------------------------------------------------------------------------

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

/// Decodes the record at the start of `data` (no header), returning it and its length in bytes.
pub fn decode_record(data: &[u8]) -> Result<(DumpedJob, usize), String> {
    if data.len() < FIXED {
        return Err("truncated record".into());
    }
    let w = |k: usize| -> [u8; 4] { data[4 * k..4 * k + 4].try_into().unwrap() };
    let i = |k: usize| i32::from_le_bytes(w(k));
    let n = i64::from_le_bytes(data[44..52].try_into().unwrap());
    let len = usize::try_from(n).map_err(|_| format!("negative anchor count {n}"))?;
    let body = len.checked_mul(16).filter(|&b| b <= data.len() - FIXED).ok_or("truncated record")?;
    let u = |off: usize| u64::from_le_bytes(data[off..off + 8].try_into().unwrap());
    let anchors = (0..len).map(|k| Anchor { x: u(FIXED + 16 * k), y: u(FIXED + 16 * k + 8) }).collect();
    let job = DumpedJob {
        max_dist_x: i(0),
        max_dist_y: i(1),
        bw: i(2),
        max_skip: i(3),
        max_iter: i(4),
        min_cnt: i(5),
        min_sc: i(6),
        chn_pen_gap: f32::from_bits(u32::from_le_bytes(w(7))),
        chn_pen_skip: f32::from_bits(u32::from_le_bytes(w(8))),
        is_cdna: i(9),
        n_seg: i(10),
        anchors,
    };
    Ok((job, FIXED + body))
}

/// Parses a dump (see the module doc); a truncated or malformed record is an `InvalidData` error.
pub fn parse_dump(data: &[u8]) -> io::Result<Vec<DumpedJob>> {
    let mut jobs = Vec::new();
    let mut p = 0usize;
    let mut seen_header = false;
    while p < data.len() {
        if data[p..].starts_with(MAGIC) {
            if data.len() - p < 16 {
                return Err(bad(format!("truncated header at byte {p}")));
            }
            let v = u32::from_le_bytes(data[p + 8..p + 12].try_into().unwrap());
            if v != VERSION {
                return Err(bad(format!("chain dump version {v} at byte {p}, this reader knows {VERSION}")));
            }
            p += 16;
            seen_header = true;
            continue;
        }
        if !seen_header {
            return Err(bad("not a warpalign chain dump (no WACHNDMP header)".into()));
        }
        let (job, used) = decode_record(&data[p..]).map_err(|e| bad(format!("{e} at byte {p}")))?;
        jobs.push(job);
        p += used;
    }
    Ok(jobs)
}

/// Reads a dump file written in dump mode (see the module doc).
pub fn read_dump(path: impl AsRef<Path>) -> io::Result<Vec<DumpedJob>> {
    parse_dump(&std::fs::read(path)?)
}
