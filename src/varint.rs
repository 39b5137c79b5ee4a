//! LEB128 varints (7 bits a byte, low first) and zigzag (small negatives stay small), for what is kept
//! compactly between passes: packed anchors, the ksw cache's answers.

pub fn zigzag(v: i64) -> u64 {
    ((v << 1) ^ (v >> 63)) as u64
}

pub fn unzigzag(v: u64) -> i64 {
    ((v >> 1) ^ (v & 1).wrapping_neg()) as i64
}

pub fn put(out: &mut Vec<u8>, mut v: u64) {
    while v >= 0x80 {
        out.push(v as u8 | 0x80);
        v >>= 7;
    }
    out.push(v as u8);
}

/// The varint at `bytes[*at..]`, moving `at` past it; None if it is cut off or longer than 10 bytes.
pub fn take(bytes: &[u8], at: &mut usize) -> Option<u64> {
    let mut v = 0u64;
    for shift in (0..64).step_by(7) {
        let b = *bytes.get(*at)?;
        *at += 1;
        v |= ((b & 0x7f) as u64) << shift;
        if b < 0x80 {
            return Some(v);
        }
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn values_come_back() {
        let mut bytes = Vec::new();
        let values = [0, 1, 127, 128, 16383, 16384, u32::MAX as u64, u64::MAX - 1, u64::MAX];
        for &v in &values {
            put(&mut bytes, v);
        }
        let mut at = 0;
        for &v in &values {
            assert_eq!(take(&bytes, &mut at), Some(v));
        }
        assert_eq!((at, take(&bytes, &mut at)), (bytes.len(), None));
        for v in [0, 1, -1, 63, -64, i64::MAX, i64::MIN] {
            assert_eq!(unzigzag(zigzag(v)), v);
            assert!(zigzag(v) < 128 || !(-64..64).contains(&v));
        }
        assert_eq!(take(&[0xff; 11], &mut 0), None, "longer than 64 bits");
    }
}
