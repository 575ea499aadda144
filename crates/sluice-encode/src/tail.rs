//! sluice tail JSON lines: to be moved here from sluice-cli.
