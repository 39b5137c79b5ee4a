//! Dump mode: with `WARPALIGN_CHAIN_DUMP=<path>` set, every job submitted to [`super::dp_batch`] (after
//! the argument check; the patched minimap2 submits one per `mg_lchain_dp` call) is appended to `<path>`,
//! so real anchor sets can be replayed (tests/chain/dumps.rs) and benchmarked (bench/, binary `chain
//! --dump`). The file conventions (read once per process, append, header only in an empty file,
//! concatenable, one locked write per batch, an unopenable file reported once) and the framing are those
//! of [`crate::dump`]; this module has the records.
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
use crate::dump::{Framing, Sink};
use std::io;
use std::path::Path;

pub const MAGIC: &[u8; 8] = b"WACHNDMP";
pub const VERSION: u32 = 1;
const FRAMING: Framing = Framing { name: "chain", magic: MAGIC, version: VERSION, oldest: VERSION };
const FIXED: usize = 52;

/// One dumped `mg_lchain_dp` call, owning its anchors.
#[derive(Debug, Clone, PartialEq)]
pub struct DumpedJob {
    /// The scalar arguments; `n_anchors` 0 and `anchors` null here ([`Self::job`] sets them).
    pub job: ChainDpJob,
    pub anchors: Vec<Anchor>,
}

impl DumpedJob {
    /// The job as submitted, pointing into `self` (which must outlive it and keep its anchors unchanged).
    pub fn job(&self) -> ChainDpJob {
        ChainDpJob {
            n_anchors: self.anchors.len() as i64,
            anchors: if self.anchors.is_empty() { std::ptr::null() } else { self.anchors.as_ptr() },
            ..self.job
        }
    }

    /// A proxy for the query length: the largest anchor end on the query (`q_pos + q_span`, from `y`).
    pub fn query_span(&self) -> u64 {
        self.anchors.iter().map(|a| (a.y & 0xffff_ffff) + (a.y >> 32 & 0xff)).max().unwrap_or(0)
    }
}

// ---- writer ---------------------------------------------------------------------------------------------

static SINK: Sink = Sink::new(&crate::env::CHAIN_DUMP, FRAMING);

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
    SINK.append(jobs, encode)
}

// ---- reader ---------------------------------------------------------------------------------------------

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
    let job = ChainDpJob {
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
        n_anchors: 0,
        anchors: std::ptr::null(),
    };
    let job = DumpedJob { job, anchors };
    Ok((job, FIXED + body))
}

/// Parses a dump (see the module doc); a truncated or malformed record is an `InvalidData` error.
pub fn parse_dump(data: &[u8]) -> io::Result<Vec<DumpedJob>> {
    FRAMING.read_all(data, decode_record)
}

/// Reads a dump file written in dump mode (see the module doc).
pub fn read_dump(path: impl AsRef<Path>) -> io::Result<Vec<DumpedJob>> {
    parse_dump(&std::fs::read(path)?)
}
