//! GPU runtime: kernels compile for Hopper (wherever NVRTC is found), the pack kernel equals the CPU on a
//! GPU, and without a GPU the engine falls back to the CPU. Prints "skipped: ..." where a part cannot run.

mod common;

use common::gpu::{nvrtc_found, ptx_for_sm90, start_gpu};
use warpalign::gpu::{pack2bit_cpu, GpuRuntime, KERNELS};
use warpalign::{Backend, BackendChoice, Engine};

#[test]
fn kernels_compile_to_ptx_for_sm90() {
    if !nvrtc_found() {
        return;
    }
    for (name, _) in KERNELS {
        assert!(!ptx_for_sm90(name).contains("fma.rn.f32"), "kernel {name}: FMA contraction must be off");
        let src = KERNELS.iter().find(|(n, _)| n == name).expect("listed").1;
        let cubin = warpalign::gpu::compile(name, src, "sm_90").unwrap_or_else(|e| panic!("{e}"));
        assert!(cubin.starts_with(b"\x7fELF"), "kernel {name}: the cubin is not an ELF image");
    }
}

#[test]
fn pack_kernel_equals_cpu_on_a_gpu() {
    let Some(rt) = start_gpu() else { return };
    let mut x = 7u64;
    let seqs: Vec<Vec<u8>> = (0..2000usize)
        .map(|i| {
            (0..(i * 37) % 5000)
                .map(|_| {
                    x ^= x << 13;
                    x ^= x >> 7;
                    x ^= x << 17;
                    b"ACGTacgtNRY"[(x % 11) as usize]
                })
                .collect()
        })
        .collect();
    let refs: Vec<&[u8]> = seqs.iter().map(|s| s.as_slice()).collect();
    let packed = rt.pack2bit_batch(&refs).unwrap();
    for (i, s) in refs.iter().enumerate() {
        assert_eq!(packed[i], pack2bit_cpu(s), "sequence {i}");
    }
    println!("pack kernel on {} ({}): {} sequences equal to the CPU", rt.device_name(), rt.arch(), seqs.len());
}

#[test]
fn backend_choice_parses_env_values() {
    assert_eq!(BackendChoice::parse("CPU"), Some(BackendChoice::Cpu));
    assert_eq!(BackendChoice::parse("gpu"), Some(BackendChoice::Gpu));
    assert_eq!(BackendChoice::parse(""), Some(BackendChoice::Auto));
    assert_eq!(BackendChoice::parse("tpu"), None);
}

#[test]
fn gpu_request_without_a_gpu_falls_back_to_cpu() {
    let engine = Engine::new(BackendChoice::Gpu);
    if GpuRuntime::start().is_ok() {
        assert_eq!(engine.backend(), Backend::Gpu);
        println!("skipped: a GPU is present, no fallback to test");
    } else {
        assert_eq!(engine.backend(), Backend::Cpu);
    }
    assert_eq!(Engine::new(BackendChoice::Cpu).backend(), Backend::Cpu);
}

#[test]
fn pack_cpu_layout() {
    let p = pack2bit_cpu(b"ACGTN");
    assert_eq!(p.words, vec![0b11_10_01_00]);
    assert_eq!(p.masks, vec![1 << 4]);
}

/// The structs a kernel shares with the host are declared on both sides: the kernel's fields must be the
/// host's, in the same order (all `int`, so the offsets follow).
#[test]
fn kernel_structs_match_the_host() {
    let engines: [(&str, &[(&str, &[&str])]); 4] = [
        ("ksw", &warpalign::ksw::gpu::kernel_structs()),
        ("chain_dp", &warpalign::chain::gpu::kernel_structs()),
        ("ydrop_one_sided", &warpalign::ydrop::gpu::kernel_structs()),
        ("search", &warpalign::search::gpu::kernel_structs()),
    ];
    for (module, structs) in engines {
        let src = KERNELS.iter().find(|(n, _)| *n == module).unwrap_or_else(|| panic!("{module} in KERNELS")).1;
        for &(name, host) in structs {
            let start = src.find(&format!("struct {name} {{")).unwrap_or_else(|| panic!("kernels/{module}.cu declares no struct {name}"));
            let body = &src[start..][..src[start..].find("};").expect("struct ends")];
            let body = &body[body.find('{').expect("{") + 1..];
            // (comments inside the declaration are dropped)
            let body: String = body.lines().map(|l| l.split("//").next().unwrap_or("")).collect::<Vec<_>>().join(" ");
            assert!(body.trim_start().starts_with("int "), "struct {name}: every field an int");
            let fields: Vec<&str> = body.trim_start()[4..].split(',').map(|f| f.trim().trim_end_matches(';').trim()).collect();
            assert_eq!(fields, host, "struct {name}: the kernel's fields differ from the host's");
        }
    }
}

#[test]
fn staging_lanes_are_bounded_across_calls() {
    let Some(rt) = start_gpu() else { return };
    use std::sync::atomic::{AtomicUsize, Ordering::SeqCst};
    let (now, most) = (AtomicUsize::new(0), AtomicUsize::new(0));
    std::thread::scope(|s| {
        for _ in 0..4 * warpalign::gpu::STAGING_LANES {
            s.spawn(|| {
                let _slot = rt.lane_slot();
                let n = now.fetch_add(1, SeqCst) + 1;
                most.fetch_max(n, SeqCst);
                std::thread::sleep(std::time::Duration::from_millis(20));
                now.fetch_sub(1, SeqCst);
            });
        }
    });
    let most = most.load(SeqCst);
    assert!((1..=warpalign::gpu::STAGING_LANES).contains(&most), "{most} lanes at once");
}
