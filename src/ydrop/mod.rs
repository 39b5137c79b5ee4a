//! ydrop engine: LASTZ's `ydrop_one_sided_align` as a batch call (in progress).
