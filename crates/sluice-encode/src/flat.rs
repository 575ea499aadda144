//! Canal FlatMessage JSON: to be written.
