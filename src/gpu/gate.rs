//! The GPU and the process's exit. The CUDA driver registers exit handlers when it loads and again in
//! `cuInit`, NVRTC when it loads and at its first compile; a handler registered after a tool's own runs
//! before it, so no exit handler can be sure to run first. An `exit()` in one thread while another is
//! inside CUDA (a GPU still starting when a run on empty input ends, a batch when a tool dies on bad input)
//! tears the driver down under that thread: it hangs, aborts or crashes. So every use of CUDA holds a
//! [`Pass`], and a tool calls [`close`] (C: `warpalign_shutdown`) before it exits: that waits for the passes
//! other threads hold and refuses new ones, so that later batches run on the CPU, silently.

use std::cell::Cell;
use std::marker::PhantomData;
use std::sync::{Condvar, Mutex, MutexGuard};

/// Passes held and whether the gate is closed; one per process ([`GATE`]), others in tests.
pub struct Gate {
    state: Mutex<State>,
    released: Condvar,
}

#[derive(Default)]
struct State {
    passes: usize,
    closed: bool,
}

thread_local! {
    /// Passes this thread holds (of any gate): `close` on a thread holding one must not wait for itself.
    static HELD: Cell<usize> = const { Cell::new(0) };
}

/// Leave to use CUDA until dropped, on the thread that took it.
#[must_use]
pub struct Pass<'a> {
    gate: &'a Gate,
    not_send: PhantomData<*const ()>,
}

impl Gate {
    pub const fn new() -> Self {
        Gate { state: Mutex::new(State { passes: 0, closed: false }), released: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A pass, or None once the gate is closed.
    pub fn enter(&self) -> Option<Pass<'_>> {
        let mut st = self.lock();
        if st.closed {
            return None;
        }
        st.passes += 1;
        HELD.with(|h| h.set(h.get() + 1));
        Some(Pass { gate: self, not_send: PhantomData })
    }

    /// Closes the gate and waits until no other thread holds a pass. Idempotent.
    pub fn close(&self) {
        let mine = HELD.with(|h| h.get());
        let mut st = self.lock();
        st.closed = true;
        while st.passes > mine {
            st = self.released.wait(st).unwrap_or_else(|p| p.into_inner());
        }
    }

    pub fn is_closed(&self) -> bool {
        self.lock().closed
    }
}

impl Default for Gate {
    fn default() -> Self {
        Self::new()
    }
}

impl Drop for Pass<'_> {
    fn drop(&mut self) {
        HELD.with(|h| h.set(h.get() - 1));
        self.gate.lock().passes -= 1;
        self.gate.released.notify_all();
    }
}

/// The process's gate, which every CUDA use in this crate goes through.
pub static GATE: Gate = Gate::new();

pub fn enter() -> Option<Pass<'static>> {
    GATE.enter()
}

pub fn close() {
    GATE.close()
}

/// Whether the process is on its way out: a GPU start in progress gives up between its steps.
pub fn is_closed() -> bool {
    GATE.is_closed()
}

/// Drops `value` (which owns CUDA resources) under a pass; once the gate is closed, leaks it instead: the
/// process is exiting, and freeing it would touch the driver.
pub fn dispose<T>(value: T) {
    match enter() {
        Some(_pass) => drop(value),
        None => std::mem::forget(value),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicBool, Ordering};
    use std::sync::Arc;
    use std::time::Duration;

    #[test]
    fn close_waits_for_a_pass_held_by_another_thread() {
        let gate = Arc::new(Gate::new());
        let (entered_tx, entered_rx) = std::sync::mpsc::channel();
        let released = Arc::new(AtomicBool::new(false));
        let holder = {
            let (gate, released) = (Arc::clone(&gate), Arc::clone(&released));
            std::thread::spawn(move || {
                let pass = gate.enter().expect("open");
                entered_tx.send(()).unwrap();
                std::thread::sleep(Duration::from_millis(100));
                released.store(true, Ordering::SeqCst);
                drop(pass);
            })
        };
        entered_rx.recv().unwrap();
        gate.close();
        assert!(released.load(Ordering::SeqCst), "close returned while another thread held a pass");
        assert!(gate.enter().is_none());
        holder.join().unwrap();
    }

    #[test]
    fn close_on_a_thread_holding_a_pass_does_not_wait_for_itself() {
        let gate = Gate::new();
        let pass = gate.enter().expect("open");
        gate.close();
        assert!(gate.is_closed());
        assert!(gate.enter().is_none());
        drop(pass);
        gate.close();
    }

    #[test]
    fn passes_after_close_are_refused_on_every_thread() {
        let gate = Arc::new(Gate::new());
        gate.close();
        let g = Arc::clone(&gate);
        assert!(std::thread::spawn(move || g.enter().is_none()).join().unwrap());
        assert!(gate.enter().is_none());
    }
}
