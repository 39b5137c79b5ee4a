//! Anchors kept between passes (the rebuilt minimap2 saves each read's chained anchors after chaining and
//! resumes from them), packed: each anchor's `x` and `y` as their differences from the anchor before, zigzag
//! varints (`crate::varint`). A chain's anchors are close on both sequences and share `y`'s span and flags,
//! so most anchors take 2 or 3 bytes instead of 16.

use super::Anchor;
use crate::varint::{put, take, unzigzag, zigzag};

/// Appends the packed anchors to `out`.
pub fn pack_anchors(anchors: &[Anchor], out: &mut Vec<u8>) {
    let mut prev = Anchor::default();
    for a in anchors {
        put(out, zigzag(a.x.wrapping_sub(prev.x) as i64));
        put(out, zigzag(a.y.wrapping_sub(prev.y) as i64));
        prev = *a;
    }
}

/// Fills `out` with the anchors `packed` holds; None unless it holds exactly `out.len()` of them.
pub fn unpack_anchors(packed: &[u8], out: &mut [Anchor]) -> Option<()> {
    let (mut at, mut prev) = (0, Anchor::default());
    for a in out.iter_mut() {
        let x = prev.x.wrapping_add(unzigzag(take(packed, &mut at)?) as u64);
        let y = prev.y.wrapping_add(unzigzag(take(packed, &mut at)?) as u64);
        *a = Anchor { x, y };
        prev = *a;
    }
    (at == packed.len()).then_some(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn round_trip(anchors: &[Anchor]) -> Vec<u8> {
        let mut packed = Vec::new();
        pack_anchors(anchors, &mut packed);
        let mut back = vec![Anchor { x: 1, y: 1 }; anchors.len()];
        assert_eq!(unpack_anchors(&packed, &mut back), Some(()));
        assert_eq!(back, anchors);
        packed
    }

    #[test]
    fn anchors_come_back_exactly() {
        assert!(round_trip(&[]).is_empty());
        let extremes = [0, 1, 63, 64, 127, 128, u32::MAX as u64, 1 << 63, u64::MAX, u64::MAX - 1];
        let mut anchors = Vec::new();
        for &x in &extremes {
            for &y in &extremes {
                anchors.push(Anchor { x, y });
            }
        }
        round_trip(&anchors);
        anchors.reverse();
        round_trip(&anchors);
    }

    #[test]
    fn a_chain_takes_two_bytes_an_anchor() {
        // minimap2's encoding: x = rev<<63 | tid<<32 | tpos, y = flags<<40 | span<<32 | qpos
        let chain: Vec<Anchor> =
            (0..1000u64).map(|i| Anchor { x: 1 << 63 | 3 << 32 | (5_000_000 + 11 * i), y: 15 << 32 | (200 + 9 * i + i % 3) }).collect();
        let packed = round_trip(&chain);
        assert!(packed.len() < 2 * chain.len() + 16, "{} bytes", packed.len());
    }

    #[test]
    fn malformed_or_mismatched_input_is_refused() {
        let anchors = [Anchor { x: 5, y: 300 }, Anchor { x: 9, y: 200 }];
        let mut packed = Vec::new();
        pack_anchors(&anchors, &mut packed);
        let mut out = [Anchor::default(); 2];
        assert_eq!(unpack_anchors(&packed[..packed.len() - 1], &mut out), None, "truncated");
        assert_eq!(unpack_anchors(&packed, &mut out[..1]), None, "bytes left over");
        assert_eq!(unpack_anchors(&packed, &mut [Anchor::default(); 3]), None, "too few");
    }
}
