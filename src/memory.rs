//! Fallible allocation of what a job's size decides (DP matrices, traceback, result arrays): a job too large
//! for the memory left fails its batch with [`crate::Error::OutOfMemory`] instead of aborting the process
//! that hosts the library. Allocations of a fixed size stay infallible.

use std::alloc::Layout;
use std::fmt;

/// An allocation the system refused, and the bytes it asked for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OutOfMemory {
    pub bytes: usize,
}

impl OutOfMemory {
    fn of<T>(n: usize) -> OutOfMemory {
        OutOfMemory { bytes: n.saturating_mul(std::mem::size_of::<T>()) }
    }

    /// The batch's error for its job `i` of kind `kind` ("ksw", "chain", "ydrop").
    pub fn in_job(self, kind: &str, i: usize) -> crate::Error {
        crate::Error::OutOfMemory(format!("{kind} job {i}: {self}"))
    }

    /// The error of an allocation not tied to one job of a batch, `what` naming it.
    pub fn in_batch(self, what: &str) -> crate::Error {
        crate::Error::OutOfMemory(format!("{what}: {self}"))
    }
}

impl fmt::Display for OutOfMemory {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{} bytes could not be allocated", self.bytes)
    }
}

impl From<OutOfMemory> for String {
    fn from(e: OutOfMemory) -> String {
        format!("out of memory: {e}")
    }
}

/// Element types whose all-zero bytes are the value 0.
///
/// # Safety
/// Every bit pattern of zeros is a valid value of the type.
pub unsafe trait Zeroed: Copy {}
// SAFETY: plain integers.
unsafe impl Zeroed for u8 {}
unsafe impl Zeroed for i8 {}
unsafe impl Zeroed for i32 {}
unsafe impl Zeroed for i64 {}
unsafe impl Zeroed for u32 {}
unsafe impl Zeroed for u64 {}

/// `vec![0; n]`, from zeroed memory as that takes it (fresh pages of a large block cost no writes).
pub fn try_zeroed<T: Zeroed>(n: usize) -> Result<Vec<T>, OutOfMemory> {
    let layout = Layout::array::<T>(n).map_err(|_| OutOfMemory::of::<T>(n))?;
    if layout.size() == 0 {
        return Ok(Vec::new());
    }
    // SAFETY: a non-empty layout; the block holds n zeroed Ts (valid: Zeroed) and was allocated by the global
    // allocator with the layout Vec<T> of capacity n has.
    unsafe {
        let p = std::alloc::alloc_zeroed(layout).cast::<T>();
        if p.is_null() {
            return Err(OutOfMemory::of::<T>(n));
        }
        Ok(Vec::from_raw_parts(p, n, n))
    }
}

/// `vec![value; n]`.
pub fn try_vec<T: Clone>(value: T, n: usize) -> Result<Vec<T>, OutOfMemory> {
    let mut v = try_with_capacity(n)?;
    v.resize(n, value);
    Ok(v)
}

/// `Vec::with_capacity(n)`.
pub fn try_with_capacity<T>(n: usize) -> Result<Vec<T>, OutOfMemory> {
    let mut v = Vec::new();
    v.try_reserve_exact(n).map_err(|_| OutOfMemory::of::<T>(n))?;
    Ok(v)
}

/// `(0..n).map(f).collect()`.
pub fn try_from_fn<T>(n: usize, f: impl FnMut(usize) -> T) -> Result<Vec<T>, OutOfMemory> {
    let mut v = try_with_capacity(n)?;
    v.extend((0..n).map(f));
    Ok(v)
}

/// `v.reserve(additional)`: room for `additional` more, growing as `push` grows.
pub fn try_reserve<T>(v: &mut Vec<T>, additional: usize) -> Result<(), OutOfMemory> {
    v.try_reserve(additional).map_err(|_| OutOfMemory::of::<T>(v.len().saturating_add(additional)))
}

/// `v.resize(len, value)`.
pub fn try_resize<T: Clone>(v: &mut Vec<T>, len: usize, value: T) -> Result<(), OutOfMemory> {
    if len > v.len() {
        try_reserve(v, len - v.len())?;
    }
    v.resize(len, value);
    Ok(())
}

/// `v.push(x)`.
#[inline(always)]
pub fn try_push<T>(v: &mut Vec<T>, x: T) -> Result<(), OutOfMemory> {
    if v.len() == v.capacity() {
        try_reserve(v, 1)?;
    }
    v.push(x);
    Ok(())
}

/// A `malloc`ed copy of `v` (null when empty), for a result its caller frees with `free()`.
pub fn malloc_copy<T: Copy>(v: &[T]) -> Result<*mut T, OutOfMemory> {
    if v.is_empty() {
        return Ok(std::ptr::null_mut());
    }
    let bytes = std::mem::size_of_val(v);
    // SAFETY: a fresh block of exactly v.len() Ts (malloc aligns for any scalar), filled here.
    unsafe {
        let p = libc::malloc(bytes).cast::<T>();
        if p.is_null() {
            return Err(OutOfMemory { bytes });
        }
        std::ptr::copy_nonoverlapping(v.as_ptr(), p, v.len());
        Ok(p)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn refusals_name_the_bytes() {
        assert_eq!(try_zeroed::<i32>(usize::MAX / 2), Err(OutOfMemory { bytes: usize::MAX }));
        assert_eq!(try_vec(7u8, isize::MAX as usize + 1).map(|v| v.len()), Err(OutOfMemory { bytes: isize::MAX as usize + 1 }));
        let mut v = vec![1i64; 3];
        assert_eq!(try_resize(&mut v, usize::MAX / 16, 0), Err(OutOfMemory { bytes: usize::MAX / 16 * 8 }));
        assert_eq!(v, [1, 1, 1], "a refused growth leaves the vector as it was");
        assert_eq!(OutOfMemory { bytes: 5 }.in_job("ksw", 2), crate::Error::OutOfMemory("ksw job 2: 5 bytes could not be allocated".into()));
    }

    #[test]
    fn granted_allocations_are_the_infallible_ones() {
        assert_eq!(try_zeroed::<i64>(5).unwrap(), vec![0i64; 5]);
        assert!(try_zeroed::<u8>(0).unwrap().is_empty());
        assert_eq!(try_vec(-3i32, 4).unwrap(), vec![-3; 4]);
        let mut v = Vec::new();
        try_push(&mut v, 9u32).unwrap();
        try_resize(&mut v, 3, 1).unwrap();
        assert_eq!(v, [9, 1, 1]);
        let p = malloc_copy(&v).unwrap();
        // SAFETY: three u32s malloc'ed above.
        assert_eq!(unsafe { std::slice::from_raw_parts(p, 3) }, [9, 1, 1]);
        unsafe { libc::free(p.cast()) };
        assert!(malloc_copy::<u32>(&[]).unwrap().is_null());
    }
}
