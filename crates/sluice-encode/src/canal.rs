//! Canal entries: to be moved here from sluice-instance::entry.
