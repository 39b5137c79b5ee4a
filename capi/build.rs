//! The shared library's SONAME, `libwarpalign.so.MAJOR.MINOR` (the Makefile installs it under that name):
//! without one, a program linked with it records the build's path-less file name and cannot find it.
fn main() {
    let (major, minor) = (env!("CARGO_PKG_VERSION_MAJOR"), env!("CARGO_PKG_VERSION_MINOR"));
    println!("cargo:rustc-cdylib-link-arg=-Wl,-soname,libwarpalign.so.{major}.{minor}");
}
