//! The GPU and the process's exit. The CUDA driver registers exit handlers when it loads and again in
//! `cuInit`, NVRTC when it loads and at its first compile; a handler registered after a tool's own runs
//! before it, so no exit handler can be sure to run first. An `exit()` in one thread while another is
//! inside CUDA (a GPU still starting when a run on empty input ends, a batch when a tool dies on bad input)
//! tears the driver down under that thread: it hangs, aborts or crashes. So every use of CUDA holds a
//! [`Pass`], and a tool calls [`close`] (C: `warpalign_shutdown`) before it exits: that waits for the passes
//! other threads hold and refuses new ones, so that later batches run on the CPU, silently. A GPU start
//! (with its kernels' loading) is the one use that may be abandoned instead: [`close_for_exit`].

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
    /// Of `passes`, those taken by [`Gate::enter_start`].
    starts: usize,
    closed: bool,
}

/// What [`Gate::close_for_exit`] leaves the exiting thread to do.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Exit {
    /// No other thread is inside CUDA: exit as usual.
    Clean,
    /// A GPU start is still in flight on another thread: end the process without exit handlers.
    Abandon,
}

thread_local! {
    /// Passes this thread holds (of any gate): `close` on a thread holding one must not wait for itself.
    static HELD: Cell<usize> = const { Cell::new(0) };
}

/// Leave to use CUDA until dropped, on the thread that took it.
#[must_use]
pub struct Pass<'a> {
    gate: &'a Gate,
    start: bool,
    not_send: PhantomData<*const ()>,
}

impl Gate {
    pub const fn new() -> Self {
        Gate { state: Mutex::new(State { passes: 0, starts: 0, closed: false }), released: Condvar::new() }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A pass, or None once the gate is closed.
    pub fn enter(&self) -> Option<Pass<'_>> {
        self.take(false)
    }

    /// A pass for starting the GPU or loading its kernels: work whose results no output depends on, which
    /// an exiting process may abandon ([`Gate::close_for_exit`]).
    pub fn enter_start(&self) -> Option<Pass<'_>> {
        self.take(true)
    }

    fn take(&self, start: bool) -> Option<Pass<'_>> {
        let mut st = self.lock();
        if st.closed {
            return None;
        }
        st.passes += 1;
        st.starts += start as usize;
        HELD.with(|h| h.set(h.get() + 1));
        Some(Pass { gate: self, start, not_send: PhantomData })
    }

    /// Closes the gate and waits until no other thread holds a pass. Idempotent.
    pub fn close(&self) {
        drop(self.close_waiting_while(|st, mine| st.passes > mine));
    }

    /// Closes the gate for a process about to exit: waits for the passes of other threads' batches, but not
    /// for a start's (cuInit and the kernels' loading take up to a second, and a run on a small input
    /// would wait for a GPU it never used), and says whether one is still in flight.
    pub fn close_for_exit(&self) -> Exit {
        let st = self.close_waiting_while(|st, mine| st.passes - st.starts > mine);
        if st.starts > 0 {
            Exit::Abandon
        } else {
            Exit::Clean
        }
    }

    fn close_waiting_while(&self, busy: impl Fn(&State, usize) -> bool) -> MutexGuard<'_, State> {
        let mine = HELD.with(|h| h.get());
        let mut st = self.lock();
        st.closed = true;
        while busy(&st, mine) {
            st = self.released.wait(st).unwrap_or_else(|p| p.into_inner());
        }
        st
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
        let mut st = self.gate.lock();
        st.passes -= 1;
        st.starts -= self.start as usize;
        drop(st);
        self.gate.released.notify_all();
    }
}

/// The process's gate, which every CUDA use in this crate goes through.
pub static GATE: Gate = Gate::new();

pub fn enter() -> Option<Pass<'static>> {
    GATE.enter()
}

pub fn enter_start() -> Option<Pass<'static>> {
    GATE.enter_start()
}

pub fn close() {
    GATE.close()
}

pub fn close_for_exit() -> Exit {
    GATE.close_for_exit()
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
    fn close_for_exit_waits_for_batches_but_not_for_a_start() {
        let gate = Arc::new(Gate::new());
        let (entered_tx, entered_rx) = std::sync::mpsc::channel();
        let (finish_tx, finish_rx) = std::sync::mpsc::channel::<()>();
        let released = Arc::new(AtomicBool::new(false));
        let starter = {
            let (gate, entered_tx) = (Arc::clone(&gate), entered_tx.clone());
            std::thread::spawn(move || {
                let pass = gate.enter_start().expect("open");
                entered_tx.send(()).unwrap();
                finish_rx.recv().unwrap();
                drop(pass);
            })
        };
        let batch = {
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
        entered_rx.recv().unwrap();
        assert_eq!(gate.close_for_exit(), Exit::Abandon);
        assert!(released.load(Ordering::SeqCst), "close_for_exit returned while a batch held a pass");
        finish_tx.send(()).unwrap();
        starter.join().unwrap();
        batch.join().unwrap();
        assert_eq!(gate.close_for_exit(), Exit::Clean);
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
