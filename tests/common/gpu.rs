//! The GPU tests' preconditions: a GPU for the comparisons, NVRTC for the compile checks. Where one is
//! missing the test prints "skipped: ..." and passes.

use warpalign::gpu::{self, GpuRuntime, KERNELS};

/// The GPU runtime, or None after printing "skipped: no GPU".
pub fn start_gpu() -> Option<GpuRuntime> {
    match GpuRuntime::start() {
        Ok(rt) => Some(rt),
        Err(e) => {
            println!("skipped: no GPU ({e})");
            None
        }
    }
}

/// Whether NVRTC is found; if not, prints "skipped: ...".
pub fn nvrtc_found() -> bool {
    let found = gpu::nvrtc_present();
    if !found {
        println!("skipped: NVRTC not found (pip install nvidia-cuda-nvrtc==13.0.88 and put its lib on LD_LIBRARY_PATH)");
    }
    found
}

/// The PTX of kernel source `name` (of `KERNELS`) for sm_90.
pub fn ptx_for_sm90(name: &str) -> String {
    let src = KERNELS.iter().find(|(n, _)| *n == name).unwrap_or_else(|| panic!("{name} not in KERNELS")).1;
    let ptx = gpu::ptx(name, src, "sm_90").unwrap_or_else(|e| panic!("{e}"));
    assert!(ptx.contains(".target sm_90"), "kernel {name}: PTX is not for sm_90");
    ptx
}
