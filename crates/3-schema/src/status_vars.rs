//! The status variables of a QUERY event that decide how its statement
//! reads: `sql_mode` (ANSI_QUOTES, NO_BACKSLASH_ESCAPES) and the server's
//! collation. It reads bytes only and stops at the first variable it does
//! not know (the ones it needs come first).

use crate::collation::collation_name;
use crate::lexer::LexOptions;

const MODE_ANSI_QUOTES: u64 = 1 << 2;
const MODE_NO_BACKSLASH_ESCAPES: u64 = 1 << 20;

/// What the status variables say.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct QueryStatus {
    pub sql_mode: Option<u64>,
    /// `collation_server` id (Q_CHARSET_CODE).
    pub collation_server: Option<u16>,
}

impl QueryStatus {
    /// Lexer options for the statement's `sql_mode`.
    pub fn lex_options(&self, mysql: bool) -> LexOptions {
        let mode = self.sql_mode.unwrap_or(0);
        LexOptions {
            ansi_quotes: mode & MODE_ANSI_QUOTES != 0,
            no_backslash_escapes: mode & MODE_NO_BACKSLASH_ESCAPES != 0,
            mysql,
        }
    }

    /// The server collation's name, when the id is one this crate knows.
    pub fn server_collation(&self) -> Option<String> {
        self.collation_server
            .and_then(|id| collation_name(id as u32))
            .map(str::to_string)
    }
}

/// Reads the status variables block of a QUERY event.
pub fn parse_status_vars(b: &[u8]) -> QueryStatus {
    let mut s = QueryStatus::default();
    let mut i = 0usize;
    let u8_at = |i: usize| b.get(i).copied().map(usize::from);
    while i < b.len() {
        let code = b[i];
        i += 1;
        let len = match code {
            0 => 4,
            1 => {
                if let Some(v) = b.get(i..i + 8) {
                    let mut a = [0u8; 8];
                    a.copy_from_slice(v);
                    s.sql_mode = Some(u64::from_le_bytes(a));
                }
                8
            }
            2 => match u8_at(i) {
                Some(n) => 1 + n + 1,
                None => break,
            },
            3 => 4,
            4 => {
                if let Some(v) = b.get(i + 4..i + 6) {
                    s.collation_server = Some(u16::from_le_bytes([v[0], v[1]]));
                }
                6
            }
            5 | 6 => match u8_at(i) {
                Some(n) => 1 + n,
                None => break,
            },
            7 | 8 => 2,
            9 => 8,
            10 => 4,
            11 => {
                let Some(u) = u8_at(i) else { break };
                let Some(h) = u8_at(i + 1 + u) else { break };
                1 + u + 1 + h
            }
            12 => {
                let Some(n) = u8_at(i) else { break };
                if n == 254 {
                    1
                } else {
                    let mut j = i + 1;
                    for _ in 0..n {
                        match b.get(j..).and_then(|r| r.iter().position(|&c| c == 0)) {
                            Some(z) => j += z + 1,
                            None => return s,
                        }
                    }
                    j - i
                }
            }
            13 => 3,
            16 | 19 | 20 | 130 => 1,
            17 | 129 => 8,
            18 => 2,
            128 => 3,
            _ => break,
        };
        i += len;
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reads_sql_mode_and_charset() {
        let mut b = vec![0u8, 0, 0, 0, 0];
        b.push(1);
        b.extend_from_slice(&(MODE_ANSI_QUOTES | 1).to_le_bytes());
        b.push(6);
        b.push(3);
        b.extend_from_slice(b"std");
        b.push(4);
        b.extend_from_slice(&[33, 0, 33, 0, 45, 0]);
        let s = parse_status_vars(&b);
        assert_eq!(s.sql_mode, Some(MODE_ANSI_QUOTES | 1));
        assert_eq!(s.collation_server, Some(45));
        assert!(s.lex_options(false).ansi_quotes);
        assert_eq!(s.server_collation().as_deref(), Some("utf8mb4_general_ci"));
    }
}
