//! The JSON lines of `sluice tail`: one line per row change, with its
//! transaction's begin and commit lines around them, and one line per DDL
//! statement (format in the README).
//!
//! A transaction's lines are held until its commit and given whole then;
//! a transaction none of whose rows passed the filter gives nothing. JSON is
//! written straight into the output bytes, escaped as serde_json escapes it:
//! no value tree, and no allocation per row or value once the encoder's
//! buffers have grown.

use std::io::Write;

use sluice_events::{
    Cell, ChangeEvent, DecodeError, Encoder, Op, Position, RowImage, RowsChange, Statement, Table,
    TransactionState,
};

/// Which tables' changes `sluice tail` prints: a predicate on the full name
/// `db.table`.
pub type NameFilter = Box<dyn Fn(&str) -> bool + Send + Sync>;

/// Encodes change events as `sluice tail`'s JSON lines, each ended by `\n`.
#[derive(Default)]
pub struct TailEncoder {
    filter: Option<NameFilter>,
    /// The open transaction's begin line, empty when none is open.
    begin: Vec<u8>,
    /// The open transaction's row lines.
    lines: Vec<u8>,
    /// Whether a transaction is open (a begin seen, its end not yet).
    open: bool,
    /// Whether any of the open transaction's rows passed the filter.
    has_rows: bool,
    /// Reused: the `db.table` name given to the filter.
    name: String,
    /// Reused: one value's text.
    scratch: String,
    /// Reused: indexes of absent columns and of partial JSON values.
    absent: Vec<usize>,
    partial: Vec<usize>,
}

impl std::fmt::Debug for TailEncoder {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("TailEncoder")
            .field("filtered", &self.filter.is_some())
            .field("open", &self.open)
            .field("has_rows", &self.has_rows)
            .finish_non_exhaustive()
    }
}

/// A row the encoder could not read.
#[derive(Debug, thiserror::Error)]
pub enum TailError {
    #[error("rows event")]
    Rows(#[source] DecodeError),
}

impl TailEncoder {
    /// An encoder of every table's changes.
    pub fn new() -> Self {
        Self::default()
    }

    /// Keeps only changes of tables whose `db.table` passes `filter`; a DDL
    /// statement passes when it is a one-table CREATE/ALTER/DROP/TRUNCATE/
    /// RENAME TABLE whose table passes.
    pub fn with_filter(mut self, filter: NameFilter) -> Self {
        self.filter = Some(filter);
        self
    }

    fn passes(&mut self, schema: &str, table: &str) -> bool {
        let Some(filter) = &self.filter else {
            return true;
        };
        self.name.clear();
        self.name.push_str(schema);
        self.name.push('.');
        self.name.push_str(table);
        filter(&self.name)
    }

    fn begin(&mut self, position: &Position<'_>, txn: &TransactionState) {
        self.lines.clear();
        self.has_rows = false;
        self.open = true;
        let b = &mut self.begin;
        b.clear();
        // A MySQL transaction starts at its GTID event, before the BEGIN.
        let (offset, timestamp) = txn
            .gtid_event
            .unwrap_or((position.offset, position.timestamp));
        b.extend_from_slice(b"{\"type\":\"begin\",\"position\":");
        write_position(b, position.file, offset, txn.gtid.as_deref());
        b.extend_from_slice(b",\"timestamp\":");
        write_number(b, timestamp);
        b.push(b'}');
    }

    fn rows(&mut self, change: &RowsChange<'_>) -> Result<(), TailError> {
        let table = change.table;
        if !self.passes(table.schema(), table.name()) {
            return Ok(());
        }
        let op: &[u8] = match change.op {
            Op::Insert => b"insert",
            Op::Update => b"update",
            Op::Delete => b"delete",
        };
        for row in change.rows() {
            let row = row.map_err(TailError::Rows)?;
            let l = &mut self.lines;
            l.extend_from_slice(b"{\"type\":\"row\",\"op\":\"");
            l.extend_from_slice(op);
            l.extend_from_slice(b"\",\"db\":");
            write_str(l, table.schema());
            l.extend_from_slice(b",\"table\":");
            write_str(l, table.name());
            l.extend_from_slice(b",\"columns\":");
            write_column_names(l, &table);
            for (key, image) in [("before", &row.before), ("after", &row.after)] {
                match image {
                    Some(img) => self.image(&table, img, key)?,
                    None => {
                        let l = &mut self.lines;
                        l.extend_from_slice(b",\"");
                        l.extend_from_slice(key.as_bytes());
                        l.extend_from_slice(b"\":null");
                    }
                }
            }
            let l = &mut self.lines;
            l.extend_from_slice(b",\"position\":");
            let p = &change.position;
            write_position(l, p.file, p.offset, change.txn.gtid.as_deref());
            l.extend_from_slice(b"}\n");
            self.has_rows = true;
        }
        Ok(())
    }

    /// `,"KEY":[values]`, then `"absent_KEY"` and `"partial_KEY"` when the
    /// image leaves columns out or holds partial JSON updates (their diffs).
    fn image(&mut self, table: &Table<'_>, img: &RowImage<'_>, key: &str) -> Result<(), TailError> {
        self.absent.clear();
        self.partial.clear();
        let l = &mut self.lines;
        l.extend_from_slice(b",\"");
        l.extend_from_slice(key.as_bytes());
        l.extend_from_slice(b"\":[");
        // `at`: the value's place in the line's arrays, which leave out
        // the columns the table does not show.
        let mut at = 0;
        for (i, cell) in img.cells().enumerate() {
            let cell = cell.map_err(TailError::Rows)?;
            if !table.keeps(i) {
                continue;
            }
            if at > 0 {
                l.push(b',');
            }
            at += 1;
            match cell {
                Cell::Absent => {
                    self.absent.push(at - 1);
                    l.extend_from_slice(b"null");
                }
                Cell::Present(v) if v.is_null() => l.extend_from_slice(b"null"),
                Cell::Present(v) => {
                    if v.is_partial_json() {
                        self.partial.push(at - 1);
                    }
                    let def = table.map.columns.get(i).ok_or_else(|| {
                        TailError::Rows(DecodeError::Invalid {
                            what: "row image",
                            detail: format!("column {i} is not in the table map"),
                        })
                    })?;
                    self.scratch.clear();
                    v.render(def, &mut self.scratch).map_err(TailError::Rows)?;
                    write_str(l, &self.scratch);
                }
            }
        }
        l.push(b']');
        for (name, list) in [("absent_", &self.absent), ("partial_", &self.partial)] {
            if !list.is_empty() {
                l.extend_from_slice(b",\"");
                l.extend_from_slice(name.as_bytes());
                l.extend_from_slice(key.as_bytes());
                l.extend_from_slice(b"\":[");
                for (k, i) in list.iter().enumerate() {
                    if k > 0 {
                        l.push(b',');
                    }
                    write_number(l, *i);
                }
                l.push(b']');
            }
        }
        Ok(())
    }

    /// Ends the open transaction: its begin, rows and commit lines when it
    /// had rows; nothing otherwise.
    fn commit(
        &mut self,
        position: &Position<'_>,
        txn: &TransactionState,
        xid: Option<u64>,
        out: &mut Vec<u8>,
    ) {
        if self.has_rows {
            if !self.begin.is_empty() {
                out.extend_from_slice(&self.begin);
                out.push(b'\n');
            }
            out.extend_from_slice(&self.lines);
            out.extend_from_slice(b"{\"type\":\"commit\",\"position\":");
            write_position(
                out,
                position.file,
                position.next_offset,
                txn.gtid.as_deref(),
            );
            if let Some(x) = xid {
                out.extend_from_slice(b",\"xid\":");
                write_number(out, x);
            }
            out.extend_from_slice(b",\"timestamp\":");
            write_number(out, position.timestamp);
            if !txn.executed_gtid_set.is_empty() {
                out.extend_from_slice(b",\"gtid_state\":");
                write_str(out, &txn.executed_gtid_set);
            }
            out.extend_from_slice(b"}\n");
        } else {
            out.extend_from_slice(&self.lines);
        }
        self.begin.clear();
        self.lines.clear();
        self.has_rows = false;
        self.open = false;
    }

    fn statement(&mut self, st: &Statement<'_>, out: &mut Vec<u8>) {
        let head = st.sql.trim_start();
        let starts = |k: &str| {
            head.get(..k.len())
                .is_some_and(|h| h.eq_ignore_ascii_case(k))
        };
        if self.open && ends_transaction(head) {
            // Ends the transaction as a commit does, without an XID.
            self.commit(&st.position, st.txn, None, out);
            return;
        }
        // Statements inside a transaction (DML in statement format) are
        // not printed; nor are transaction control statements.
        if self.open
            || ["BEGIN", "COMMIT", "ROLLBACK", "XA "]
                .iter()
                .any(|k| starts(k))
        {
            return;
        }
        if self.filter.is_some() {
            let Some((db, table)) = ddl_table(&st.sql, &st.db) else {
                return;
            };
            if !self.passes(db, table) {
                return;
            }
        }
        out.extend_from_slice(b"{\"type\":\"ddl\",\"db\":");
        write_str(out, &st.db);
        out.extend_from_slice(b",\"sql\":");
        write_str(out, &st.sql);
        out.extend_from_slice(b",\"position\":");
        let p = &st.position;
        write_position(out, p.file, p.offset, st.txn.gtid.as_deref());
        out.extend_from_slice(b",\"timestamp\":");
        write_number(out, p.timestamp);
        out.extend_from_slice(b"}\n");
    }
}

impl Encoder for TailEncoder {
    type Output = u8;
    type Error = TailError;

    fn encode(&mut self, event: &ChangeEvent<'_>, out: &mut Vec<u8>) -> Result<(), TailError> {
        match event {
            ChangeEvent::Begin { position, txn, .. } => self.begin(position, txn),
            ChangeEvent::Rows(change) => self.rows(change)?,
            ChangeEvent::Commit { position, txn, xid } => self.commit(position, txn, *xid, out),
            ChangeEvent::Statement(st) => self.statement(st, out),
        }
        Ok(())
    }
}

/// The database and table of a simple one-table DDL statement (CREATE/
/// ALTER/DROP/TRUNCATE/RENAME TABLE), `default_db` when it names none;
/// `None` for anything else.
fn ddl_table<'s>(sql: &'s str, default_db: &'s str) -> Option<(&'s str, &'s str)> {
    let mut words = sql.split_whitespace();
    let verb = words.next()?.to_ascii_uppercase();
    if !matches!(
        verb.as_str(),
        "CREATE" | "ALTER" | "DROP" | "TRUNCATE" | "RENAME"
    ) {
        return None;
    }
    let mut saw_table = false;
    for w in words.by_ref() {
        let u = w.to_ascii_uppercase();
        if u == "TABLE" {
            saw_table = true;
            break;
        }
        if !matches!(
            u.as_str(),
            "TEMPORARY" | "OR" | "REPLACE" | "ONLINE" | "OFFLINE" | "IGNORE"
        ) {
            return None;
        }
    }
    if !saw_table {
        return None;
    }
    let mut name = words.next()?;
    while matches!(name.to_ascii_uppercase().as_str(), "IF" | "NOT" | "EXISTS") {
        name = words.next()?;
    }
    let name = name.split(['(', ',', ';']).next().unwrap_or(name);
    let mut parts = name.split('.').map(|p| p.trim_matches('`'));
    match (parts.next(), parts.next(), parts.next()) {
        (Some(t), None, None) => Some((default_db, t)),
        (Some(d), Some(t), None) => Some((d, t)),
        _ => None,
    }
}

/// Whether a statement met inside a transaction ends it: `ROLLBACK`
/// (not `ROLLBACK TO SAVEPOINT`, which stays inside).
fn ends_transaction(sql: &str) -> bool {
    let Some(rest) = sql
        .get(..8)
        .filter(|h| h.eq_ignore_ascii_case("ROLLBACK"))
        .and_then(|_| sql.get(8..))
    else {
        return false;
    };
    if rest.starts_with(|c: char| !c.is_whitespace()) {
        return false;
    }
    let rest = rest.trim_start();
    !rest.get(..2).is_some_and(|w| w.eq_ignore_ascii_case("TO"))
}

/// `{"file":F,"pos":P,"gtid":G}` (`null` without a GTID).
fn write_position(out: &mut Vec<u8>, file: &str, pos: u64, gtid: Option<&str>) {
    out.extend_from_slice(b"{\"file\":");
    write_str(out, file);
    out.extend_from_slice(b",\"pos\":");
    write_number(out, pos);
    out.extend_from_slice(b",\"gtid\":");
    match gtid {
        Some(g) => write_str(out, g),
        None => out.extend_from_slice(b"null"),
    }
    out.push(b'}');
}

/// The column names, `@1`, `@2`... for columns neither the schema nor the
/// binlog names.
fn write_column_names(out: &mut Vec<u8>, table: &Table<'_>) {
    out.push(b'[');
    let mut first = true;
    for i in 0..table.column_count() {
        if !table.keeps(i) {
            continue;
        }
        if !first {
            out.push(b',');
        }
        first = false;
        match table.column(i).map(|c| c.name).filter(|n| !n.is_empty()) {
            Some(name) => write_str(out, name),
            None => {
                out.extend_from_slice(b"\"@");
                write_number(out, i + 1);
                out.push(b'"');
            }
        }
    }
    out.push(b']');
}

fn write_number(out: &mut Vec<u8>, n: impl std::fmt::Display) {
    // Writing to a Vec cannot fail.
    let _ = write!(out, "{n}");
}

/// `s` as a JSON string.
fn write_str(out: &mut Vec<u8>, s: &str) {
    out.push(b'"');
    push_json_str(out, s);
    out.push(b'"');
}

/// Appends `s` as the inside of a JSON string, escaped as serde_json
/// escapes it (`"`, `\\`, control characters; nothing else).
fn push_json_str(out: &mut Vec<u8>, s: &str) {
    // Writing to a Vec cannot fail.
    let _ = write_json_str(out, s);
}

/// Writes `s` as the inside of a JSON string, escaped as serde_json escapes
/// it (`"`, `\\`, control characters; nothing else), so that a value can be
/// written in pieces.
pub fn write_json_str(w: &mut (impl Write + ?Sized), s: &str) -> std::io::Result<()> {
    const HEX: &[u8; 16] = b"0123456789abcdef";
    let bytes = s.as_bytes();
    let mut start = 0;
    while let Some(i) = crate::json_escape::next_escape(bytes, start) {
        let b = bytes[i];
        let short: &[u8] = match b {
            b'"' => b"\\\"",
            b'\\' => b"\\\\",
            b'\n' => b"\\n",
            b'\r' => b"\\r",
            b'\t' => b"\\t",
            0x08 => b"\\b",
            0x0c => b"\\f",
            _ => b"",
        };
        w.write_all(&bytes[start..i])?;
        if short.is_empty() {
            w.write_all(&[
                b'\\',
                b'u',
                b'0',
                b'0',
                HEX[(b >> 4) as usize],
                HEX[(b & 15) as usize],
            ])?;
        } else {
            w.write_all(short)?;
        }
        start = i + 1;
    }
    w.write_all(&bytes[start..])
}

#[cfg(test)]
mod tests {
    use std::ops::ControlFlow;

    use sluice_events::ChangeBuilder;

    use super::*;

    /// A file of the binlog corpus (`testdata/binlogs`).
    fn corpus_file(path: &str) -> (String, Vec<u8>) {
        let full = sluice_testkit::corpus::corpus_dir().join(path);
        let bytes = std::fs::read(&full)
            .unwrap_or_else(|e| panic!("{}: {e} (the binlog corpus)", full.display()));
        let name = path.rsplit('/').next().unwrap_or(path).to_string();
        (name, bytes)
    }

    /// What `encoder` gives for every event of a corpus file, as text.
    fn encode_file(path: &str, encoder: &mut TailEncoder) -> String {
        let (name, bytes) = corpus_file(path);
        let mut builder = ChangeBuilder::new();
        let mut out = Vec::new();
        sluice_binlog::walk_file(&name, &bytes, |at, raw, data| {
            let position = Position {
                file: &name,
                offset: at.pos,
                next_offset: at.next_pos,
                server_id: raw.header.server_id,
                timestamp: raw.header.timestamp,
            };
            if let Some(event) = builder.on_event(position, data, None) {
                encoder.encode(&event, &mut out).unwrap();
            }
            ControlFlow::Continue(())
        })
        .unwrap();
        String::from_utf8(out).unwrap()
    }

    fn types(text: &str) -> Vec<String> {
        text.lines()
            .map(|l| {
                let v: serde_json::Value = serde_json::from_str(l).unwrap();
                v["type"].as_str().unwrap().to_string()
            })
            .collect()
    }

    #[test]
    fn a_transaction_is_its_begin_rows_and_commit_lines() {
        let text = encode_file(
            "rust_mysql_common/mariadb-bin.000001",
            &mut TailEncoder::new(),
        );
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(
            types(&text),
            ["begin", "row", "commit", "begin", "row", "commit"]
        );
        assert_eq!(
            lines[0],
            r#"{"type":"begin","position":{"file":"mariadb-bin.000001","pos":330,"gtid":"0-1-1"},"timestamp":1650493084}"#
        );
        assert_eq!(
            lines[1],
            r#"{"type":"row","op":"insert","db":"toddy_test","table":"outbox","columns":["id","topic","event_type","event","created"],"before":null,"after":["62","foo","JSON","0x7b22666f6f223a317d","2022-04-20 22:18:04"],"position":{"file":"mariadb-bin.000001","pos":612,"gtid":"0-1-1"}}"#
        );
        // The commit's position is where the next transaction starts.
        assert_eq!(
            lines[2],
            r#"{"type":"commit","position":{"file":"mariadb-bin.000001","pos":702,"gtid":"0-1-1"},"xid":800,"timestamp":1650493084}"#
        );
        // Every line is JSON that serde_json writes back byte for byte.
        for line in lines {
            let v: serde_json::Value = serde_json::from_str(line).unwrap();
            assert_eq!(serde_json::to_string(&v).unwrap(), line);
        }
    }

    #[test]
    fn a_filtered_out_table_prints_nothing() {
        let mut encoder = TailEncoder::new().with_filter(Box::new(|name| name == "other.t"));
        let text = encode_file("rust_mysql_common/mariadb-bin.000001", &mut encoder);
        assert_eq!(text, "");
        let mut encoder =
            TailEncoder::new().with_filter(Box::new(|name| name == "toddy_test.outbox"));
        let text = encode_file("rust_mysql_common/mariadb-bin.000001", &mut encoder);
        assert_eq!(types(&text).len(), 6);
    }

    #[test]
    fn a_transaction_without_rows_prints_no_begin_or_commit() {
        // MySQL 5.0, statement format: BEGIN ... COMMIT around statements,
        // and DDL of its own.
        let text = encode_file(
            "rust_mysql_common/binlog_transaction.000001",
            &mut TailEncoder::new(),
        );
        let kinds = types(&text);
        assert!(!kinds.is_empty());
        assert!(kinds.iter().all(|k| k == "ddl"), "{text}");
        assert!(!text.contains("\"sql\":\"BEGIN\"") && !text.contains("\"sql\":\"COMMIT\""));
    }

    #[test]
    fn rows_of_mysql_carry_labels_and_every_image() {
        let text = encode_file(
            "rust_mysql_common/mysql-enum-string-set.000001",
            &mut TailEncoder::new(),
        );
        let kinds = types(&text);
        for op in ["insert", "update", "delete"] {
            assert!(text.contains(&format!("\"op\":\"{op}\"")), "{text}");
        }
        assert_eq!(kinds.iter().filter(|k| *k == "begin").count(), 3, "{text}");
        assert_eq!(kinds.iter().filter(|k| *k == "commit").count(), 3, "{text}");
        assert!(text.contains("\"before\":[") && text.contains("\"after\":null"));
    }

    #[test]
    fn strings_are_escaped_as_serde_json_escapes_them() {
        let mut all: String = (0u32..0x80).filter_map(char::from_u32).collect();
        all.push_str("é€😀\u{7f}\u{2028}</script>");
        for s in [all.as_str(), "", "plain", "\"", "\\\u{0}", "a\u{1}b\u{1f}c"] {
            let mut ours = Vec::new();
            write_str(&mut ours, s);
            assert_eq!(
                String::from_utf8(ours).unwrap(),
                serde_json::to_string(s).unwrap()
            );
        }
    }

    #[test]
    fn ddl_table_names() {
        assert_eq!(
            ddl_table("CREATE TABLE t (a int)", "shop"),
            Some(("shop", "t"))
        );
        assert_eq!(
            ddl_table("drop table if exists `x`.`y`", "shop"),
            Some(("x", "y"))
        );
        assert_eq!(
            ddl_table("ALTER ONLINE TABLE o ADD c INT", "s"),
            Some(("s", "o"))
        );
        assert_eq!(
            ddl_table("CREATE TABLE IF NOT EXISTS a.b(x int)", "s"),
            Some(("a", "b"))
        );
        assert_eq!(ddl_table("CREATE DATABASE shop", ""), None);
        assert_eq!(ddl_table("TRUNCATE t", "s"), None);
    }

    #[test]
    fn rollback_ends_a_transaction_but_not_to_a_savepoint() {
        assert!(ends_transaction("ROLLBACK"));
        assert!(ends_transaction("rollback "));
        assert!(!ends_transaction("ROLLBACK TO SAVEPOINT a"));
        assert!(!ends_transaction("ROLLBACK  to a"));
        assert!(!ends_transaction("ROLLBACKS"));
        assert!(!ends_transaction("COMMIT"));
    }
}
