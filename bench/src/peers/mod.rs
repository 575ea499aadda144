//! Peer clients: what a user would otherwise run to do the same work.

pub mod mysql_common_reader;
