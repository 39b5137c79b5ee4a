//! `warpalign-kernels DIR ARCH...`: compiles every kernel for each ARCH (e.g. sm_90) into DIR, named as the
//! runtime's disk cache names them. A tool reads them from `warpalign-kernels/` beside its executable (what
//! `make tools` fills), so its first run on a machine compiles nothing. Needs NVRTC, as the runtime does:
//! without it the exit status is 3 (the build goes on, the tools compile at their first run), while a kernel
//! that does not compile is an error (status 1).

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: warpalign-kernels DIR ARCH...   (e.g. warpalign-kernels target/tools/warpalign-kernels sm_90)");
        std::process::exit(2);
    }
    if !warpalign::gpu::nvrtc_present() {
        eprintln!("warpalign-kernels: NVRTC (libnvrtc.so) not found on the library path");
        std::process::exit(3);
    }
    match warpalign::gpu::precompile(std::path::Path::new(&args[0]), &args[1..]) {
        Ok(n) => eprintln!("warpalign-kernels: {n} cubins in {} ({})", args[0], args[1..].join(" ")),
        Err(e) => {
            eprintln!("warpalign-kernels: {e}");
            std::process::exit(1);
        }
    }
}
