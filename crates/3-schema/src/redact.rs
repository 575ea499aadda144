//! Credentials out of statement text: the binlog carries account statements
//! (`CREATE USER … IDENTIFIED BY 'secret'`) and table options with
//! passwords (`CONNECTION='mysql://user:secret@host/…'`), and every
//! statement this crate parses, logs, puts in an error or stores in the
//! history goes through [`redact`] first, so that no password reaches a log
//! line (the parser `sqlparser` logs whole statements at debug level), an
//! error message or the history file.

use std::borrow::Cow;

use crate::lexer::{tokenize, LexOptions, Tok};

/// What replaces a secret string literal.
pub const REDACTED: &str = "'***'";

/// Words whose next string literal (after an optional `=` or `(`) is a
/// secret in any statement.
const SECRET_BEFORE: &[&str] = &[
    "PASSWORD",
    "OLD_PASSWORD",
    "MASTER_PASSWORD",
    "SOURCE_PASSWORD",
    "CONNECTION",
];

/// Words whose next string literal is a secret once the statement has an
/// `IDENTIFIED` clause: `IDENTIFIED BY 'x'`, `IDENTIFIED WITH p AS 'hash'`,
/// MariaDB's `IDENTIFIED VIA p USING 'hash'`, MySQL's `… REPLACE 'old'`.
const SECRET_AFTER_IDENTIFIED: &[&str] = &["BY", "AS", "USING", "REPLACE"];

/// `sql` with the string literal of every credential replaced by `'***'`
/// (borrowed when there is none). Statements read with default lexical
/// rules; see [`redact_with`].
pub fn redact(sql: &str) -> Cow<'_, str> {
    redact_with(sql, LexOptions::default())
}

/// [`redact`] with the lexical rules the statement was written under
/// (ANSI_QUOTES, NO_BACKSLASH_ESCAPES). `/*M! */` comments are always read
/// as statement text, so a secret in one is redacted on MySQL too. A
/// statement that does not tokenize (an unterminated string, say) is cut at
/// its first credential keyword.
pub fn redact_with(sql: &str, opts: LexOptions) -> Cow<'_, str> {
    let opts = LexOptions {
        mysql: false,
        ..opts
    };
    let tokens = match tokenize(sql, opts) {
        Ok(t) => t,
        Err(_) => return cut_at_keyword(sql),
    };
    let set_password = tokens.first().is_some_and(|t| t.tok.is_kw("SET"))
        && tokens.get(1).is_some_and(|t| t.tok.is_kw("PASSWORD"));
    let mut identified = false;
    let mut after_equals = false;
    let mut secrets: Vec<(usize, usize)> = Vec::new();
    for (i, t) in tokens.iter().enumerate() {
        match &t.tok {
            Tok::Word(w) if w.eq_ignore_ascii_case("IDENTIFIED") => identified = true,
            Tok::Punct("=") => after_equals = true,
            Tok::Str(_) => {
                // `SET PASSWORD [FOR u] = 'hash'`: everything after `=`.
                let secret = (set_password && after_equals)
                    || previous_word(&tokens[..i]).is_some_and(|w| {
                        SECRET_BEFORE.iter().any(|k| k.eq_ignore_ascii_case(w))
                            || (identified
                                && SECRET_AFTER_IDENTIFIED
                                    .iter()
                                    .any(|k| k.eq_ignore_ascii_case(w)))
                    });
                if secret {
                    secrets.push((t.start, t.end));
                }
            }
            _ => {}
        }
    }
    if secrets.is_empty() {
        return Cow::Borrowed(sql);
    }
    let mut out = String::with_capacity(sql.len());
    let mut at = 0;
    for (start, end) in secrets {
        out.push_str(&sql[at..start]);
        out.push_str(REDACTED);
        at = end;
    }
    out.push_str(&sql[at..]);
    Cow::Owned(out)
}

/// The word before a literal, looking past `=` and `(`.
fn previous_word(before: &[crate::lexer::Token]) -> Option<&str> {
    before.iter().rev().find_map(|t| match &t.tok {
        Tok::Punct("=") | Tok::Punct("(") => None,
        Tok::Word(w) => Some(Some(w.as_str())),
        _ => Some(None),
    })?
}

/// For text that does not tokenize: everything from the first credential
/// keyword on becomes `***`.
fn cut_at_keyword(sql: &str) -> Cow<'_, str> {
    let upper = sql.to_ascii_uppercase();
    let first = ["IDENTIFIED", "PASSWORD", "CONNECTION"]
        .iter()
        .filter_map(|k| upper.find(k))
        .min();
    match first {
        // ASCII upper-casing keeps byte offsets, and the keyword is ASCII,
        // so `at` is a char boundary of `sql`.
        Some(at) => Cow::Owned(format!("{}***", &sql[..at])),
        None => Cow::Borrowed(sql),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn redacts_every_credential_form() {
        let cases = [
            "CREATE USER 'u'@'%' IDENTIFIED BY 'secret'",
            "CREATE USER u IDENTIFIED BY PASSWORD 'secret'",
            "ALTER USER u IDENTIFIED WITH caching_sha2_password BY 'secret' REPLACE 'secret'",
            "CREATE USER u IDENTIFIED WITH mysql_native_password AS 'secret'",
            "CREATE USER u IDENTIFIED VIA ed25519 USING PASSWORD('secret') OR unix_socket",
            "ALTER USER u IDENTIFIED VIA mysql_native_password USING 'secret'",
            "GRANT SELECT ON *.* TO u IDENTIFIED BY 'secret'",
            "SET PASSWORD FOR 'u'@'%' = PASSWORD('secret')",
            "SET PASSWORD FOR u = 'secret'",
            "SET PASSWORD = OLD_PASSWORD(\"secret\")",
            "CHANGE MASTER TO MASTER_HOST='h', MASTER_USER='r', MASTER_PASSWORD = 'secret'",
            "CHANGE REPLICATION SOURCE TO SOURCE_PASSWORD='secret'",
            "CREATE SERVER s FOREIGN DATA WRAPPER mysql OPTIONS (USER 'r', PASSWORD 'secret')",
            "CREATE TABLE f (a INT) ENGINE=FEDERATED CONNECTION='mysql://r:secret@h:3306/d/t'",
            "CREATE /*M! OR REPLACE */ USER u IDENTIFIED BY 'secret'",
            "CREATE USER u IDENTIFIED BY 'secret", // unterminated
        ];
        for sql in cases {
            let r = redact(sql);
            assert!(!r.contains("secret"), "{sql} -> {r}");
            assert!(r.contains("***"), "{sql} -> {r}");
        }
        let r = redact("CREATE USER u IDENTIFIED BY 'secret'");
        assert_eq!(r, "CREATE USER u IDENTIFIED BY '***'");
    }

    #[test]
    fn leaves_table_ddl_alone() {
        for sql in [
            "CREATE TABLE t (password VARCHAR(10) DEFAULT 'x', c ENUM('password','by'))",
            "ALTER TABLE t ALTER COLUMN password SET DEFAULT 'x', COMMENT 'password'",
            "CREATE TABLE t (a INT) PARTITION BY LIST (a) (PARTITION p VALUES IN (1))",
            "INSERT INTO t VALUES ('by', 'as')",
        ] {
            assert!(matches!(redact(sql), Cow::Borrowed(_)), "{sql}");
        }
    }
}
