//! Batched 2-bit sequence packing, on the CPU and on the GPU (kernels/pack.cu).

use super::GpuRuntime;
use cudarc::driver::{LaunchConfig, PushKernelArg};

/// A packed sequence: 16 bases per word (2 bits each, A/C/G/T = 0..3), and per 32 bases a mask word
/// whose set bits mark bytes that are not A/C/G/T (packed as 0).
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct Packed {
    pub len: usize,
    pub words: Vec<u32>,
    pub masks: Vec<u32>,
}

fn nt2(c: u8) -> Option<u32> {
    match c | 0x20 {
        b'a' => Some(0),
        b'c' => Some(1),
        b'g' => Some(2),
        b't' => Some(3),
        _ => None,
    }
}

pub fn pack2bit_cpu(seq: &[u8]) -> Packed {
    let mut p = Packed { len: seq.len(), words: vec![0; seq.len().div_ceil(16)], masks: vec![0; seq.len().div_ceil(32)] };
    for (i, &c) in seq.iter().enumerate() {
        match nt2(c) {
            Some(v) => p.words[i / 16] |= v << (2 * (i % 16)),
            None => p.masks[i / 32] |= 1 << (i % 32),
        }
    }
    p
}

/// A fixed batch covering empty, short, unaligned and long sequences, both cases and non-ACGT bytes.
pub(super) fn self_check_batch() -> Vec<Vec<u8>> {
    let mut x: u32 = 12345;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let alphabet = b"ACGTacgtNnRY-*";
    [0usize, 1, 15, 16, 17, 31, 33, 1000, 4099]
        .iter()
        .map(|&len| (0..len).map(|_| alphabet[(next() % alphabet.len() as u32) as usize]).collect())
        .collect()
}

impl GpuRuntime {
    /// Packs a batch of sequences on the GPU in one launch.
    pub fn pack2bit_batch(&self, seqs: &[&[u8]]) -> Result<Vec<Packed>, String> {
        if seqs.is_empty() {
            return Ok(Vec::new());
        }
        let err = |what: &str, e: cudarc::driver::DriverError| format!("pack2bit {what}: {e:?}");
        let mut base_off = vec![0u64];
        let mut word_off = vec![0u64];
        let mut mask_off = vec![0u64];
        let mut bases = Vec::new();
        for s in seqs {
            bases.extend_from_slice(s);
            base_off.push(bases.len() as u64);
            word_off.push(word_off.last().unwrap() + s.len().div_ceil(16) as u64);
            mask_off.push(mask_off.last().unwrap() + s.len().div_ceil(32) as u64);
        }
        // Keep device buffers non-empty so that every pointer argument is valid.
        bases.push(0);
        let n_words = (*word_off.last().unwrap() as usize).max(1);
        let n_masks = (*mask_off.last().unwrap() as usize).max(1);
        let st = self.lease_stream()?;
        let d_bases = st.clone_htod(&bases).map_err(|e| err("upload", e))?;
        let d_base_off = st.clone_htod(&base_off).map_err(|e| err("upload", e))?;
        let d_word_off = st.clone_htod(&word_off).map_err(|e| err("upload", e))?;
        let d_mask_off = st.clone_htod(&mask_off).map_err(|e| err("upload", e))?;
        let mut d_words = st.alloc_zeros::<u32>(n_words).map_err(|e| err("alloc", e))?;
        let mut d_masks = st.alloc_zeros::<u32>(n_masks).map_err(|e| err("alloc", e))?;
        let f = self.module("pack")?.load_function("pack2bit").map_err(|e| err("load", e))?;
        let n_seq = seqs.len() as i32;
        let cfg = LaunchConfig { grid_dim: (seqs.len() as u32, 1, 1), block_dim: (128, 1, 1), shared_mem_bytes: 0 };
        let mut launch = st.launch_builder(&f);
        launch.arg(&d_bases).arg(&d_base_off).arg(&d_word_off).arg(&d_mask_off).arg(&mut d_words).arg(&mut d_masks).arg(&n_seq);
        // SAFETY: argument types and buffer sizes match kernels/pack.cu's signature and indexing.
        unsafe { launch.launch(cfg) }.map_err(|e| err("launch", e))?;
        let words = st.clone_dtoh(&d_words).map_err(|e| err("download", e))?;
        let masks = st.clone_dtoh(&d_masks).map_err(|e| err("download", e))?;
        Ok(seqs
            .iter()
            .enumerate()
            .map(|(i, s)| Packed {
                len: s.len(),
                words: words[word_off[i] as usize..word_off[i + 1] as usize].to_vec(),
                masks: masks[mask_off[i] as usize..mask_off[i + 1] as usize].to_vec(),
            })
            .collect())
    }
}
