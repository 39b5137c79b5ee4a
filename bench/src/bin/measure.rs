//! `measure`: runs a command and appends one CSV line `wall_s,user_s,sys_s,max_rss_kb,exit` to a file, from
//! wait4's rusage (GNU time may be missing on the GPU machine). The command inherits stdin, stdout and
//! stderr; `measure` exits with its status (128 + signal when killed).
//!
//! usage: measure CSV COMMAND [ARG...]

use std::ffi::CString;
use std::io::Write;
use std::time::Instant;

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    if args.len() < 2 {
        eprintln!("usage: measure CSV COMMAND [ARG...]");
        std::process::exit(2);
    }
    let argv: Vec<CString> = args[1..].iter().map(|a| CString::new(a.as_str()).expect("NUL in argument")).collect();
    let mut ptrs: Vec<*const libc::c_char> = argv.iter().map(|a| a.as_ptr()).collect();
    ptrs.push(std::ptr::null());
    let t0 = Instant::now();
    let pid = unsafe { libc::fork() };
    if pid < 0 {
        eprintln!("measure: fork: {}", std::io::Error::last_os_error());
        std::process::exit(2);
    }
    if pid == 0 {
        unsafe { libc::execvp(ptrs[0], ptrs.as_ptr()) };
        // Only async-signal-safe calls between fork and _exit.
        let msg = b"measure: cannot execute the command\n";
        unsafe {
            libc::write(2, msg.as_ptr().cast(), msg.len());
            libc::_exit(127)
        };
    }
    let mut status = 0;
    let mut ru: libc::rusage = unsafe { std::mem::zeroed() };
    while unsafe { libc::wait4(pid, &mut status, 0, &mut ru) } < 0 {
        let e = std::io::Error::last_os_error();
        if e.kind() != std::io::ErrorKind::Interrupted {
            eprintln!("measure: wait4: {e}");
            std::process::exit(2);
        }
    }
    let wall = t0.elapsed().as_secs_f64();
    let secs = |t: libc::timeval| t.tv_sec as f64 + t.tv_usec as f64 / 1e6;
    let code = if libc::WIFEXITED(status) { libc::WEXITSTATUS(status) } else { 128 + libc::WTERMSIG(status) };
    let line = format!("{wall:.3},{:.3},{:.3},{},{code}\n", secs(ru.ru_utime), secs(ru.ru_stime), ru.ru_maxrss);
    let written = std::fs::OpenOptions::new().create(true).append(true).open(&args[0]).and_then(|mut f| f.write_all(line.as_bytes()));
    if let Err(e) = written {
        eprintln!("measure: {}: {e}", args[0]);
        std::process::exit(2);
    }
    std::process::exit(code);
}
