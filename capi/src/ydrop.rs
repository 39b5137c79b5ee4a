//! C entry points of the ydrop engine (in progress).
