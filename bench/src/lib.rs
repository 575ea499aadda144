//! Benchmark support for Sluice: the peer clients its benchmarks measure it
//! against, in the same run and on the same input.

pub mod paths;
pub mod peers;
