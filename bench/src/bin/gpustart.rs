//! `gpustart`: what the GPU's start costs a process, step by step: wall time and resident memory after the
//! driver and context, after a second runtime's start, after every kernel module's load (from the disk cache when warm), and after one
//! page-locked staging buffer; then the mappings holding the most resident memory (from /proc/self/smaps).
//!
//! usage: gpustart [STAGING_MB]     (default 64, the ksw engine's launch image)

use std::time::Instant;
use warpalign::gpu::GpuRuntime;

fn rss_kb() -> u64 {
    let status = std::fs::read_to_string("/proc/self/status").unwrap_or_default();
    status.lines().find_map(|l| l.strip_prefix("VmRSS:")).and_then(|v| v.split_whitespace().next()?.parse().ok()).unwrap_or(0)
}

/// Resident kB by mapping name (anonymous mappings as "[anon]"), largest first.
fn rss_by_mapping() -> Vec<(String, u64)> {
    let smaps = std::fs::read_to_string("/proc/self/smaps").unwrap_or_default();
    let mut by: std::collections::HashMap<String, u64> = Default::default();
    let mut name = String::new();
    for l in smaps.lines() {
        let f: Vec<&str> = l.split_whitespace().collect();
        if f.first().is_some_and(|a| a.contains('-') && !a.ends_with(':')) {
            name = f.get(5).map_or("[anon]".into(), |s| s.rsplit('/').next().unwrap_or(s).to_string());
        } else if f.first() == Some(&"Rss:") {
            *by.entry(name.clone()).or_default() += f.get(1).and_then(|v| v.parse().ok()).unwrap_or(0);
        }
    }
    let mut v: Vec<_> = by.into_iter().collect();
    v.sort_by(|a, b| b.1.cmp(&a.1));
    v
}

fn main() {
    let staging_mb: usize = std::env::args().nth(1).map_or(64, |a| a.parse().expect("STAGING_MB: a number"));
    let t0 = Instant::now();
    let step = |what: &str| println!("{:>8.3} s {:>8} kB  {what}", t0.elapsed().as_secs_f64(), rss_kb());
    step("process");
    let rt = GpuRuntime::start().unwrap_or_else(|e| panic!("{e}"));
    step(&format!("context on {} and the pack kernel checked", rt.device_name()));
    // (a process with two runtimes on one device, as LASTZ's search and y-drop pool have, retains the same context)
    let second = GpuRuntime::start().unwrap_or_else(|e| panic!("{e}"));
    step("a second runtime: the context retained again, its pack kernel checked");
    second.dispose();
    for (name, _) in warpalign::gpu::KERNELS {
        rt.module(name).unwrap_or_else(|e| panic!("{e}"));
        step(&format!("module {name} loaded"));
    }
    let buf = rt.take_staging(staging_mb << 20, staging_mb << 20).unwrap_or_else(|e| panic!("{e}"));
    step(&format!("{staging_mb} MB staging buffer pinned"));
    rt.give_staging(buf);
    println!("resident memory by mapping (kB):");
    for (name, kb) in rss_by_mapping().into_iter().take(12) {
        println!("{kb:>10}  {name}");
    }
}
