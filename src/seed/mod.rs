//! seed engine: minimap2 2.31's seeding (`mm_sketch`, the index lookups of `mm_idx_get`), for batches of reads.
//!
//! Minimizers use minimap2's encoding (`mm128_t`): `x = hash<<8 | span`, `y = rid<<32 | last_pos<<1 | strand`.
//! [`twin`] is the CPU twin of the upstream functions; [`index`] is a flat, uploadable view of an upstream index.

pub mod batch;
pub mod gpu;
pub mod index;
pub mod twin;

/// One minimizer, minimap2's `mm128_t` (the chain engine's anchors share the type).
pub type Minimizer = crate::chain::Anchor;
