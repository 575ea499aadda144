//! What a QUERY event's statement is, from its first words.

/// What kind of statement a QUERY event holds, as far as its first words
/// tell (the kinds Canal's DDL parser reports).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StatementKind {
    CreateTable,
    AlterTable,
    DropTable,
    Truncate,
    /// `RENAME TABLE`, or `ALTER TABLE ... RENAME [TO]`.
    Rename,
    CreateIndex,
    DropIndex,
    /// DML written as a statement (statement or mixed binlog format).
    Insert,
    Update,
    Delete,
    /// Anything else (other DDL, `SET`, `GRANT`, ...).
    Other,
}

impl StatementKind {
    /// INSERT, UPDATE or DELETE written as a statement.
    pub fn is_dml(self) -> bool {
        matches!(self, Self::Insert | Self::Update | Self::Delete)
    }
}

/// What a statement is and which table it names.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StatementClass {
    pub kind: StatementKind,
    /// The database written in the statement (`db.t`), if any.
    pub schema: Option<String>,
    /// The table the statement changes (the new name of a rename).
    pub table: Option<String>,
}

impl StatementClass {
    pub fn is_dml(&self) -> bool {
        self.kind.is_dml()
    }
}

/// Classifies a statement the way Canal's DDL parser reports it.
pub fn classify_statement(sql: &str) -> StatementClass {
    let tokens = tokens(sql, 12);
    let up: Vec<String> = tokens.iter().map(|t| t.to_ascii_uppercase()).collect();
    let word = |i: usize| up.get(i).map(String::as_str).unwrap_or("");
    let mut class = StatementClass {
        kind: StatementKind::Other,
        schema: None,
        table: None,
    };
    // Position of the table name after `TABLE [IF [NOT] EXISTS]`.
    let name_after = |start: usize| -> Option<usize> {
        let mut i = start;
        if word(i) == "IF" {
            i += if word(i + 1) == "NOT" { 3 } else { 2 };
        }
        (i < tokens.len()).then_some(i)
    };
    let mut name_at = None;
    match (word(0), word(1)) {
        ("CREATE", _) => {
            let mut i = 1;
            while matches!(
                word(i),
                "OR" | "REPLACE" | "TEMPORARY" | "UNIQUE" | "FULLTEXT" | "SPATIAL"
            ) {
                i += 1;
            }
            match word(i) {
                "TABLE" => {
                    class.kind = StatementKind::CreateTable;
                    name_at = name_after(i + 1);
                }
                "INDEX" => {
                    class.kind = StatementKind::CreateIndex;
                    if let Some(on) = up.iter().position(|w| w == "ON") {
                        name_at = Some(on + 1);
                    }
                }
                _ => {}
            }
        }
        ("ALTER", "TABLE") | ("ALTER", "ONLINE") | ("ALTER", "IGNORE") => {
            let i = up.iter().position(|w| w == "TABLE").unwrap_or(1);
            name_at = name_after(i + 1);
            let rest = up.get(i + 2..).map(|r| r.join(" ")).unwrap_or_default();
            class.kind = if rest.starts_with("ADD INDEX")
                || rest.starts_with("ADD UNIQUE")
                || rest.starts_with("ADD KEY")
            {
                StatementKind::CreateIndex
            } else if rest.starts_with("DROP INDEX") || rest.starts_with("DROP KEY") {
                StatementKind::DropIndex
            } else if rest.starts_with("RENAME")
                && !rest.starts_with("RENAME COLUMN")
                && !rest.starts_with("RENAME INDEX")
                && !rest.starts_with("RENAME KEY")
            {
                StatementKind::Rename
            } else {
                StatementKind::AlterTable
            };
        }
        ("DROP", "TABLE") | ("DROP", "TEMPORARY") => {
            class.kind = StatementKind::DropTable;
            let i = up.iter().position(|w| w == "TABLE").unwrap_or(1);
            name_at = name_after(i + 1);
        }
        ("DROP", "INDEX") => {
            class.kind = StatementKind::DropIndex;
            if let Some(on) = up.iter().position(|w| w == "ON") {
                name_at = Some(on + 1);
            }
        }
        ("TRUNCATE", _) => {
            class.kind = StatementKind::Truncate;
            name_at = Some(if word(1) == "TABLE" { 2 } else { 1 });
        }
        ("RENAME", "TABLE") => {
            class.kind = StatementKind::Rename;
            // Canal reports the new name: `RENAME TABLE a TO b`.
            name_at = up.iter().position(|w| w == "TO").map(|p| p + 1);
        }
        ("INSERT", _) | ("REPLACE", _) => {
            class.kind = StatementKind::Insert;
        }
        ("UPDATE", _) => {
            class.kind = StatementKind::Update;
        }
        ("DELETE", _) => {
            class.kind = StatementKind::Delete;
        }
        _ => {}
    }
    if let Some(i) = name_at {
        if let Some(name) = tokens.get(i) {
            let (schema, table) = split_qualified(name);
            class.schema = schema;
            class.table = Some(table);
        }
    }
    class
}

/// The first `max` tokens: identifiers (backquotes removed, `db.t` kept
/// together) and keywords; comments and punctuation are skipped.
fn tokens(sql: &str, max: usize) -> Vec<String> {
    let mut out = Vec::new();
    let b = sql.as_bytes();
    let mut i = 0;
    while i < b.len() && out.len() < max {
        let c = b[i];
        if c.is_ascii_whitespace() || c == b',' || c == b';' || c == b'(' || c == b')' {
            i += 1;
        } else if c == b'/' && b.get(i + 1) == Some(&b'*') {
            // `/*!50100 ... */` version comments hold real syntax: keep their inside.
            if b.get(i + 2) == Some(&b'!') {
                i += 3;
                while i < b.len() && b[i].is_ascii_digit() {
                    i += 1;
                }
            } else {
                match sql[i + 2..].find("*/") {
                    Some(e) => i = i + 2 + e + 2,
                    None => break,
                }
            }
        } else if c == b'*' && b.get(i + 1) == Some(&b'/') {
            i += 2;
        } else if c == b'#' || (c == b'-' && b.get(i + 1) == Some(&b'-')) {
            match sql[i..].find('\n') {
                Some(e) => i += e + 1,
                None => break,
            }
        } else {
            let mut t = String::new();
            while i < b.len() {
                let c = b[i];
                if c == b'`' {
                    let end = sql[i + 1..].find('`').map(|e| i + 1 + e).unwrap_or(b.len());
                    t.push_str(&sql[i + 1..end.min(sql.len())]);
                    i = end + 1;
                } else if c.is_ascii_whitespace() || matches!(c, b',' | b';' | b'(' | b')') {
                    break;
                } else {
                    let ch_len = sql[i..].chars().next().map(|ch| ch.len_utf8()).unwrap_or(1);
                    t.push_str(&sql[i..i + ch_len]);
                    i += ch_len;
                }
            }
            if !t.is_empty() {
                out.push(t);
            }
        }
    }
    out
}

fn split_qualified(name: &str) -> (Option<String>, String) {
    match name.split_once('.') {
        Some((s, t)) => (Some(s.to_string()), t.to_string()),
        None => (None, name.to_string()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn statement_classes() {
        let c = classify_statement("CREATE TABLE IF NOT EXISTS `shop`.`orders` (id int)");
        assert_eq!(
            (c.kind, c.schema.as_deref(), c.table.as_deref()),
            (StatementKind::CreateTable, Some("shop"), Some("orders"))
        );
        assert_eq!(
            classify_statement("alter table t add index i (a)").kind,
            StatementKind::CreateIndex
        );
        assert_eq!(
            classify_statement("ALTER TABLE t DROP INDEX i").kind,
            StatementKind::DropIndex
        );
        assert_eq!(
            classify_statement("ALTER TABLE t ADD COLUMN c int").kind,
            StatementKind::AlterTable
        );
        assert_eq!(
            classify_statement("ALTER TABLE t RENAME TO u").kind,
            StatementKind::Rename
        );
        assert_eq!(
            classify_statement("ALTER TABLE t RENAME COLUMN a TO b").kind,
            StatementKind::AlterTable
        );
        let c = classify_statement("DROP TABLE IF EXISTS `t1` /* generated by server */");
        assert_eq!(
            (c.kind, c.table.as_deref()),
            (StatementKind::DropTable, Some("t1"))
        );
        let c = classify_statement("RENAME TABLE a TO db2.b");
        assert_eq!(
            (c.kind, c.schema.as_deref(), c.table.as_deref()),
            (StatementKind::Rename, Some("db2"), Some("b"))
        );
        assert_eq!(
            classify_statement("TRUNCATE TABLE t").table.as_deref(),
            Some("t")
        );
        assert_eq!(
            classify_statement("CREATE DATABASE d").kind,
            StatementKind::Other
        );
        assert_eq!(
            classify_statement("GRANT ALL ON *.* TO u").kind,
            StatementKind::Other
        );
        let c = classify_statement("insert into t values (1)");
        assert!(c.is_dml());
        let c = classify_statement("CREATE INDEX i ON db.t (a)");
        assert_eq!(
            (c.kind, c.table.as_deref()),
            (StatementKind::CreateIndex, Some("t"))
        );
    }
}
