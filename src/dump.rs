//! Dump mode, the parts the engines share: the file framing, the sink that writes it and the reader that
//! walks it. Each engine (ksw: src/ksw/dump.rs, chain: src/chain/dump.rs, ydrop: src/ydrop/dump.rs) has its
//! own variable, magic, version and record layout, and encodes and decodes its records itself.
//!
//! With the engine's variable set to a path (`WARPALIGN_KSW_DUMP`, `WARPALIGN_CHAIN_DUMP`,
//! `WARPALIGN_YDROP_DUMP`), every batch the engine takes (after its argument check) is appended to that
//! file, so real workloads can be replayed (tests/*_dumps.rs) and benchmarked (bench/). The variable is read
//! once per process; unset (or empty), the hook costs one atomic load per batch call.
//!
//! The file is opened once, in append mode (created when missing); the header is written only when the
//! file is empty at open, so several runs (or processes, one after the other) may share one file, and dumps
//! concatenated with `cat` read back as one. Each batch call's records are written with one call under a
//! mutex, so records from concurrent threads never interleave. A file that cannot be opened is reported
//! once on stderr and nothing is dumped.
//!
//! # Framing (all integers little-endian)
//!
//! ```text
//! header:  8 bytes  magic (per engine)
//!          u32      version
//!          u32      reserved (0)
//! then records (the engine's layout), among which the header may appear again (concatenated files)
//! ```

use crate::env::PathVar;
use std::fs::File;
use std::io::{self, Write};
use std::sync::{Mutex, OnceLock};

/// Bytes of a header.
pub const HEADER_LEN: usize = 16;

/// One engine's dump format: what its header holds and which versions its reader takes.
#[derive(Debug, Clone, Copy)]
pub struct Framing {
    /// Names the format in errors ("ksw", "chain", "ydrop").
    pub name: &'static str,
    pub magic: &'static [u8; 8],
    /// The version the writer writes, the newest the reader takes.
    pub version: u32,
    /// The oldest version the reader takes.
    pub oldest: u32,
}

impl Framing {
    /// The header the writer puts at the start of an empty file.
    pub fn header(&self) -> [u8; HEADER_LEN] {
        let mut h = [0u8; HEADER_LEN];
        h[..8].copy_from_slice(self.magic);
        h[8..12].copy_from_slice(&self.version.to_le_bytes());
        h
    }

    /// Walks a dump: skips each header (checking its version) and hands every record to `decode` with the
    /// version of the header before it; `decode` gets the bytes from the record's start to the end of
    /// `data` and returns the record's length (at least 1), or what is wrong with it. A malformed header or
    /// record, or records before any header, are an `InvalidData` error that names the byte offset.
    pub fn read(&self, data: &[u8], mut decode: impl FnMut(&[u8], u32) -> Result<usize, String>) -> io::Result<()> {
        let mut p = 0usize;
        let mut version = None;
        while p < data.len() {
            if data[p..].starts_with(self.magic) {
                if data.len() - p < HEADER_LEN {
                    return Err(bad(format!("truncated header at byte {p}")));
                }
                let v = u32::from_le_bytes(data[p + 8..p + 12].try_into().unwrap());
                if !(self.oldest..=self.version).contains(&v) {
                    let knows = if self.oldest == self.version { self.version.to_string() } else { format!("{} to {}", self.oldest, self.version) };
                    return Err(bad(format!("{} dump version {v} at byte {p}, this reader knows {knows}", self.name)));
                }
                p += HEADER_LEN;
                version = Some(v);
                continue;
            }
            let Some(v) = version else {
                let magic = String::from_utf8_lossy(self.magic);
                return Err(bad(format!("not a warpalign {} dump (no {magic} header)", self.name)));
            };
            match decode(&data[p..], v) {
                Ok(used) if used > 0 && used <= data.len() - p => p += used,
                Ok(used) => return Err(bad(format!("record of {used} bytes at byte {p}"))),
                Err(e) => return Err(bad(format!("{e} at byte {p}"))),
            }
        }
        Ok(())
    }

    /// The records of a dump whose records decode one by one (`decode` returns one and its length).
    pub fn read_all<T>(&self, data: &[u8], decode: fn(&[u8]) -> Result<(T, usize), String>) -> io::Result<Vec<T>> {
        let mut out = Vec::new();
        self.read(data, |rec, _| {
            let (t, used) = decode(rec)?;
            out.push(t);
            Ok(used)
        })?;
        Ok(out)
    }
}

fn bad(what: String) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what)
}

struct Open<S> {
    file: File,
    state: S,
}

/// An engine's dump file, opened on first use when its variable names one. `S` is state the engine keeps
/// between batches under the same lock as the file (ydrop: the last matrix written).
pub struct Sink<S = ()> {
    var: &'static PathVar,
    framing: Framing,
    open: OnceLock<Option<Mutex<Open<S>>>>,
}

impl<S: Default + Send> Sink<S> {
    pub const fn new(var: &'static PathVar, framing: Framing) -> Self {
        Sink { var, framing, open: OnceLock::new() }
    }

    fn open(&self) -> Option<Mutex<Open<S>>> {
        let path = self.var.get()?;
        let open = || -> io::Result<File> {
            let mut f = std::fs::OpenOptions::new().create(true).append(true).open(&path)?;
            if f.metadata()?.len() == 0 {
                f.write_all(&self.framing.header())?;
            }
            Ok(f)
        };
        match open() {
            Ok(file) => Some(Mutex::new(Open { file, state: S::default() })),
            Err(e) => {
                // A dump was asked for and cannot be made: say so once and run on without it.
                eprintln!("[WARNING] warpalign: {}={}: {e}; not dumping", self.var.name, path.display());
                None
            }
        }
    }

    fn get(&self) -> Option<&Mutex<Open<S>>> {
        self.open.get_or_init(|| self.open()).as_ref()
    }

    /// Whether dump mode is on (opens the file on the first call).
    pub fn enabled(&self) -> bool {
        self.get().is_some()
    }

    /// When dump mode is on: `encode` appends a batch's records to a buffer, with the sink's state, under
    /// the lock, and the buffer is written in one call. Off: nothing (`encode` does not run).
    pub fn append_with(&self, encode: impl FnOnce(&mut S, &mut Vec<u8>)) -> crate::Result<()> {
        let Some(m) = self.get() else { return Ok(()) };
        let mut o = m.lock().unwrap_or_else(|p| p.into_inner());
        let mut buf = Vec::new();
        encode(&mut o.state, &mut buf);
        self.write(&mut o.file, &buf)
    }

    fn write(&self, f: &mut File, buf: &[u8]) -> crate::Result<()> {
        if buf.is_empty() {
            return Ok(());
        }
        f.write_all(buf).map_err(|e| crate::Error::Internal(format!("{}: writing: {e}", self.var.name)))
    }
}

impl Sink<()> {
    /// When dump mode is on, appends the records of `jobs` (`encode` appends one job's to a buffer; it runs
    /// outside the lock, the write under it). Off: nothing.
    pub fn append<J>(&self, jobs: &[J], mut encode: impl FnMut(&mut Vec<u8>, &J)) -> crate::Result<()> {
        let Some(m) = self.get() else { return Ok(()) };
        let mut buf = Vec::new();
        for j in jobs {
            encode(&mut buf, j);
        }
        self.write(&mut m.lock().unwrap_or_else(|p| p.into_inner()).file, &buf)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F: Framing = Framing { name: "test", magic: b"WATSTDMP", version: 2, oldest: 1 };

    /// Records of this test format: a u8 length then that many bytes; version 1 records hold one byte less.
    fn decode(rec: &[u8], v: u32) -> Result<usize, String> {
        let n = *rec.first().ok_or("empty")? as usize + (v >= 2) as usize;
        if rec.len() < 1 + n {
            return Err("truncated record".into());
        }
        Ok(1 + n)
    }

    #[test]
    fn reader_skips_repeated_headers_and_checks_versions() {
        let mut d = F.header().to_vec();
        d.extend_from_slice(&[2, 9, 9, 9]);
        d.extend_from_slice(&Framing { version: 1, ..F }.header());
        d.extend_from_slice(&[1, 7, 1, 5]);
        let mut lens = Vec::new();
        F.read(&d, |r, v| decode(r, v).inspect(|&n| lens.push((n, v)))).unwrap();
        assert_eq!(lens, [(4, 2), (2, 1), (2, 1)]);

        let err = |d: &[u8]| F.read(d, decode).unwrap_err().to_string();
        assert_eq!(err(&[2, 9]), "not a warpalign test dump (no WATSTDMP header)");
        assert_eq!(err(&d[..12]), "truncated header at byte 0");
        assert_eq!(err(&d[..18]), "truncated record at byte 16");
        let mut v3 = d.clone();
        v3[8] = 3;
        assert_eq!(err(&v3), "test dump version 3 at byte 0, this reader knows 1 to 2");
        assert_eq!(F.read(&d, |_, _| Ok(0)).unwrap_err().to_string(), "record of 0 bytes at byte 16");
        assert!(F.read(&[], decode).is_ok());
    }

    #[test]
    fn sink_appends_under_one_header() {
        // variables no other test or tool reads
        static VAR: PathVar = PathVar { name: "WA_UNIT_TEST_DUMP_SINK" };
        static UNSET: PathVar = PathVar { name: "WA_UNIT_TEST_DUMP_UNSET" };
        let path = std::env::temp_dir().join(format!("warpalign_dump_sink.{}", std::process::id()));
        let _ = std::fs::remove_file(&path);
        std::env::set_var(VAR.name, &path);
        for _ in 0..2 {
            // a second process's sink: its own open, no second header
            let s: Sink = Sink::new(&VAR, F);
            assert!(s.enabled());
            s.append(&[3u8, 1], |b, &n| b.extend(std::iter::once(n - 1).chain(std::iter::repeat(n).take(n as usize)))).unwrap();
        }
        let st: Sink<u32> = Sink::new(&VAR, F);
        st.append_with(|k, b| {
            *k += 1;
            b.extend_from_slice(&[0, *k as u8]);
        })
        .unwrap();
        let data = std::fs::read(&path).unwrap();
        let _ = std::fs::remove_file(&path);
        let mut n = 0;
        F.read(&data, |r, v| decode(r, v).inspect(|_| n += 1)).unwrap();
        assert_eq!((n, data.len()), (5, 16 + 2 * (4 + 2) + 2));

        let off: Sink = Sink::new(&UNSET, F);
        assert!(!off.enabled());
        off.append(&[1u8], |_, _| unreachable!()).unwrap();
    }
}
