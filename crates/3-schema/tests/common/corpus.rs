//! Reading the DDL corpus and measuring how much of it each parser reads.

use std::collections::BTreeMap;
use std::path::PathBuf;

use sluice_schema::ddl::DdlStatement;
use sluice_schema::lexer::LexOptions;
use sluice_schema::read_ddl::{with_fallback, with_sqlparser};

pub fn corpus_dir() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/ddl-corpus")
}

/// `(origin, statements)` for every corpus file, in name order.
pub fn load() -> Vec<(String, Vec<String>)> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(corpus_dir())
        .expect("corpus dir")
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|e| e == "sql"))
        .collect();
    files.sort();
    files
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).expect("corpus file");
            let origin = p.file_stem().unwrap().to_string_lossy().into_owned();
            let stmts = split(&text);
            (origin, stmts)
        })
        .collect()
}

/// Statements end with a line holding only `;;`; `-- file:` lines name the
/// source file.
pub fn split(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut cur = String::new();
    for line in text.lines() {
        if line == ";;" {
            let s = cur.trim().to_string();
            if !s.is_empty() {
                out.push(s);
            }
            cur.clear();
        } else if line.starts_with("-- file: ") && cur.trim().is_empty() {
            continue;
        } else {
            cur.push_str(line);
            cur.push('\n');
        }
    }
    out
}

/// The statement kind by its leading words.
pub fn kind(sql: &str) -> String {
    let words: Vec<String> = sql
        .split_whitespace()
        .take(4)
        .map(|w| w.to_ascii_uppercase())
        .collect();
    let w = |i: usize| words.get(i).map(String::as_str).unwrap_or("");
    match w(0) {
        "CREATE" => {
            let mut i = 1;
            while matches!(
                w(i),
                "OR" | "REPLACE" | "TEMPORARY" | "UNIQUE" | "FULLTEXT" | "SPATIAL"
            ) {
                i += 1;
            }
            match w(i) {
                "TABLE" => "CREATE TABLE".into(),
                "INDEX" => "CREATE INDEX".into(),
                "DATABASE" | "SCHEMA" => "CREATE DATABASE".into(),
                _ => "CREATE (other)".into(),
            }
        }
        "ALTER" => match w(1) {
            "TABLE" | "ONLINE" | "IGNORE" => "ALTER TABLE".into(),
            _ => "ALTER (other)".into(),
        },
        "DROP" => match w(1) {
            "TABLE" | "TEMPORARY" | "TABLES" => "DROP TABLE".into(),
            "INDEX" => "DROP INDEX".into(),
            "DATABASE" | "SCHEMA" => "DROP DATABASE".into(),
            _ => "DROP (other)".into(),
        },
        "RENAME" => "RENAME TABLE".into(),
        "TRUNCATE" => "TRUNCATE".into(),
        other => other.to_string(),
    }
}

/// The kind under which CREATE ... SELECT statements are counted apart.
pub const SELECT_KIND: &str = "CREATE TABLE ... SELECT";

#[derive(Debug, Default, Clone, Copy)]
pub struct Counts {
    pub total: usize,
    pub sqlparser: usize,
    pub fallback: usize,
    pub combined: usize,
}

pub struct Report {
    pub by_kind: BTreeMap<String, Counts>,
    pub by_origin: BTreeMap<String, Counts>,
    pub failures: Vec<(String, String, String)>,
    /// Statements both parsers read with different meanings.
    pub disagreements: Vec<(String, String, String)>,
}

pub fn measure() -> Report {
    let opts = LexOptions::default();
    let mut by_kind: BTreeMap<String, Counts> = BTreeMap::new();
    let mut by_origin: BTreeMap<String, Counts> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut disagreements = Vec::new();
    for (origin, stmts) in load() {
        for sql in stmts {
            let sp = with_sqlparser(&sql, opts);
            let fb = with_fallback(&sql, opts);
            let mut k = kind(&sql);
            // CREATE ... SELECT: recognised, but its columns come from the
            // query's result types, which the text does not give.
            let incomplete = |r: &Result<DdlStatement, _>| {
                matches!(
                    r,
                    Ok(DdlStatement::CreateTable {
                        with_select: true,
                        ..
                    })
                )
            };
            if incomplete(&sp) || incomplete(&fb) {
                k = SELECT_KIND.to_string();
            }
            let ok_sp = sp.is_ok();
            let ok_fb = fb.is_ok();
            for c in [
                by_kind.entry(k.clone()).or_default(),
                by_origin.entry(origin.clone()).or_default(),
            ] {
                c.total += 1;
                c.sqlparser += ok_sp as usize;
                c.fallback += ok_fb as usize;
                c.combined += (ok_sp || ok_fb) as usize;
            }
            if let (Ok(a), Ok(b)) = (&sp, &fb) {
                if !same_meaning(a, b) {
                    disagreements.push((
                        origin.clone(),
                        sql.clone(),
                        format!("sqlparser: {a:?}\nfallback: {b:?}"),
                    ));
                }
            }
            if !ok_sp && !ok_fb {
                let e = fb.err().map(|e| e.to_string()).unwrap_or_default();
                failures.push((origin.clone(), sql.clone(), e));
            }
        }
    }
    Report {
        by_kind,
        by_origin,
        failures,
        disagreements,
    }
}

/// Same effect on the schema (NoChange kinds may be named differently;
/// expressions may differ in case and spacing, as sqlparser re-renders them).
pub fn same_meaning(a: &DdlStatement, b: &DdlStatement) -> bool {
    match (a, b) {
        (DdlStatement::NoChange(_), DdlStatement::NoChange(_)) => true,
        _ => canonical(a) == canonical(b),
    }
}

fn squash(s: &str) -> String {
    s.chars()
        .filter(|c| !c.is_whitespace() && *c != '`')
        .flat_map(char::to_lowercase)
        .collect()
}

fn canonical(s: &DdlStatement) -> DdlStatement {
    use sluice_schema::ddl::{AlterOp, ColumnDefinition};
    use sluice_schema::model::Generated;
    fn col(c: &ColumnDefinition) -> ColumnDefinition {
        let mut c = c.clone();
        c.default = c.default.as_deref().map(squash);
        c.generated = c.generated.map(|g| match g {
            Generated::Virtual { expr } => Generated::Virtual {
                expr: squash(&expr),
            },
            Generated::Stored { expr } => Generated::Stored {
                expr: squash(&expr),
            },
            other => other,
        });
        c
    }
    let mut s = s.clone();
    match &mut s {
        DdlStatement::CreateTable { columns, .. } => {
            for c in columns.iter_mut() {
                *c = col(c);
            }
        }
        DdlStatement::AlterTable { ops, .. } => {
            for op in ops.iter_mut() {
                match op {
                    AlterOp::AddColumn { column, .. } | AlterOp::ChangeColumn { column, .. } => {
                        *column = col(column)
                    }
                    AlterOp::SetDefault { default, .. } => {
                        *default = default.as_deref().map(squash)
                    }
                    _ => {}
                }
            }
        }
        _ => {}
    }
    s
}

pub fn pct(n: usize, d: usize) -> f64 {
    if d == 0 {
        100.0
    } else {
        100.0 * n as f64 / d as f64
    }
}

/// The figures as a Markdown table.
pub fn markdown(r: &Report) -> String {
    let mut s = String::new();
    let total = r
        .by_kind
        .iter()
        .filter(|(k, _)| *k != SELECT_KIND)
        .map(|(_, c)| c)
        .fold(Counts::default(), |mut a, c| {
            a.total += c.total;
            a.sqlparser += c.sqlparser;
            a.fallback += c.fallback;
            a.combined += c.combined;
            a
        });
    s.push_str("| statement kind | statements | sqlparser alone | fallback alone | sqlparser + fallback |\n");
    s.push_str("|---|---:|---:|---:|---:|\n");
    let mut row = |name: &str, c: &Counts| {
        s.push_str(&format!(
            "| {name} | {} | {:.1} % | {:.1} % | {:.2} % |\n",
            c.total,
            pct(c.sqlparser, c.total),
            pct(c.fallback, c.total),
            pct(c.combined, c.total)
        ));
    };
    for (k, c) in &r.by_kind {
        if k != SELECT_KIND {
            row(k, c);
        }
    }
    row("**all (without CREATE ... SELECT)**", &total);
    s.push_str("\n| origin | statements | sqlparser alone | sqlparser + fallback |\n|---|---:|---:|---:|\n");
    for (o, c) in &r.by_origin {
        s.push_str(&format!(
            "| {o} | {} | {:.1} % | {:.2} % |\n",
            c.total,
            pct(c.sqlparser, c.total),
            pct(c.combined, c.total)
        ));
    }
    if let Some(c) = r.by_kind.get(SELECT_KIND) {
        s.push_str(&format!(
            "\n{} statements are CREATE TABLE ... SELECT (sqlparser reads {}, the fallback {}): \
             recognised, but their columns come from the query's result types, which no \
             statement text gives. Row-format binlogs never carry them in this form (the \
             server writes an explicit CREATE TABLE, checked by `tests/mariadb_ddl.rs`); in \
             statement-format binlogs they go to the unparseable-DDL policy.\n",
            c.total, c.sqlparser, c.fallback
        ));
    }
    s
}

/// Totals over every kind but CREATE ... SELECT.
pub fn totals(r: &Report) -> Counts {
    r.by_kind
        .iter()
        .filter(|(k, _)| *k != SELECT_KIND)
        .fold(Counts::default(), |mut a, (_, c)| {
            a.total += c.total;
            a.sqlparser += c.sqlparser;
            a.fallback += c.fallback;
            a.combined += c.combined;
            a
        })
}
