//! `mirrorDb: true` mappings (canal-adapter's mirror of a whole database):
//! the rows of every table of the source database land in the table of
//! the same name in the target database (`targetDb`, the source's name by
//! default), keyed by the source's key columns, every column mapped; the
//! source's DDL of that database runs on the target, on a connection whose
//! default database is the target database (names qualified by the source
//! database are qualified by the target's, [`retarget`]), once every change
//! before it is committed, and its position is written right after.
//!
//! DDL cannot share a transaction with the position on MariaDB/MySQL (it
//! commits by itself), so a crash between a DDL and its position runs the
//! DDL again at the restart. Its second run fails in ways that say it was
//! applied already (a table or column that exists, one that is gone); those
//! errors are logged and passed ([`already_applied`]), any other stops the
//! apply and is retried, as a failed row is.
//!
//! A table's plan is made when its first row comes ([`MirrorAction::NewTable`])
//! and forgotten after each DDL of the database, so that the next row reads
//! the target table's columns as that DDL left them.

use sluice_binlog::BinlogPosition;
use sluice_canal::proto::{EntryType, EventType};
use sluice_canal::view::{EntryView, RowChangeView};

use crate::config::Mapping;
use crate::rows::is_after;
use crate::sql::{Origin, TablePlan};

/// What a `mirrorDb` mapping asks of the worker before an entry.
#[derive(Debug, PartialEq)]
pub enum MirrorAction {
    /// Nothing: the entry is no mirrored change, was applied already, or
    /// its table has a plan.
    None,
    /// Rows of a mirrored table that has no plan yet: make one from this
    /// mapping, counted under the mirror mapping `slot`.
    NewTable { slot: usize, mapping: Mapping },
    /// A DDL of a mirrored database, to run on the target.
    Ddl(MirrorDdl),
}

/// One DDL statement of a mirrored database.
#[derive(Debug, Clone, PartialEq)]
pub struct MirrorDdl {
    /// The mirror mapping's index.
    pub slot: usize,
    /// The database it runs in (the default database of its connection).
    pub target_db: String,
    pub sql: String,
    pub event: EventType,
    pub origin: Origin,
}

/// What `bytes` (one store entry) asks of the mirror mappings among
/// `mappings`, given the plans made so far and the positions applied per
/// mapping.
pub fn action(
    e: &EntryView<'_>,
    mappings: &[Mapping],
    plans: &[TablePlan],
    applied: &[Option<BinlogPosition>],
) -> Result<MirrorAction, String> {
    if e.entry_type != Some(EntryType::RowData as i32) {
        return Ok(MirrorAction::None);
    }
    let h = &e.header;
    let Some(slot) = mappings
        .iter()
        .position(|m| m.mirror_db && m.database == h.schema_name)
    else {
        return Ok(MirrorAction::None);
    };
    let origin = Origin::of(h);
    if !h.snapshot
        && !is_after(
            &origin.position(),
            applied.get(slot).and_then(Option::as_ref),
        )
    {
        return Ok(MirrorAction::None);
    }
    let change = RowChangeView::parse(e.store_value)
        .map_err(|err| format!("{origin}: the row change cannot be read: {err}"))?;
    let base = &mappings[slot];
    if change.is_ddl == Some(true) {
        let event = match change.event_type.or(h.event_type) {
            Some(t) if t == EventType::Create as i32 => EventType::Create,
            Some(t) if t == EventType::Alter as i32 => EventType::Alter,
            Some(t) if t == EventType::Erase as i32 => EventType::Erase,
            Some(t) if t == EventType::Rename as i32 => EventType::Rename,
            Some(t) if t == EventType::Truncate as i32 => EventType::Truncate,
            Some(t) if t == EventType::Cindex as i32 => EventType::Cindex,
            Some(t) if t == EventType::Dindex as i32 => EventType::Dindex,
            // Other statements (GRANT, views, routines…) and statements
            // on the database itself: the target database is the user's.
            _ => return Ok(MirrorAction::None),
        };
        if h.table_name.is_empty() || change.sql.trim().is_empty() {
            return Ok(MirrorAction::None);
        }
        let target_db = base.mirror_target_db();
        let sql = retarget(change.sql, &base.database, target_db)
            .unwrap_or_else(|| change.sql.to_string());
        return Ok(MirrorAction::Ddl(MirrorDdl {
            slot,
            target_db: target_db.to_string(),
            sql,
            event,
            origin,
        }));
    }
    if change.row_count == 0 {
        return Ok(MirrorAction::None);
    }
    if plans
        .iter()
        .any(|p| p.slot == slot && p.mapping.table == h.table_name)
    {
        return Ok(MirrorAction::None);
    }
    // The source's key columns key the target table, as canal-adapter's
    // mirror does (its pkNames): the first row's images carry them.
    let mut keys = Vec::new();
    if let Some(row) = change.rows().next() {
        let image = match row.after().next() {
            Some(_) => row.after(),
            None => row.before(),
        };
        for c in image {
            let c = c.map_err(|err| format!("{origin}: a row cannot be read: {err}"))?;
            if c.is_key {
                keys.push((c.name.to_string(), c.name.to_string()));
            }
        }
    }
    Ok(MirrorAction::NewTable {
        slot,
        mapping: Mapping {
            // A table without a key is applied by whole rows, in order
            // (`concurrent` would be refused for it, stopping the mirror).
            concurrent: base.concurrent && !keys.is_empty(),
            table: h.table_name.to_string(),
            target_schema: Some(base.mirror_target_db().to_string()),
            target_table: h.table_name.to_string(),
            target_pk: keys,
            mirror_db: false,
            target_db: None,
            // The mirror's file, name (its position), database, mapAll and
            // commitBatch.
            ..base.clone()
        },
    })
}

/// `sql` with every name qualified by the source database `from`
/// (`from.t`, `` `from`.`t` ``) qualified by `to` instead, so that a
/// mirror into another database keeps its DDL there; strings, comments
/// and other names are left as written. `None` when the statement cannot
/// be read (an unterminated string or comment): it is then run as written.
pub fn retarget(sql: &str, from: &str, to: &str) -> Option<String> {
    use sluice_schema::lexer::{tokenize, LexOptions, Tok};
    if from == to {
        return Some(sql.to_string());
    }
    let tokens = tokenize(sql, LexOptions::default()).ok()?;
    fn name(t: &Tok) -> Option<&str> {
        match t {
            Tok::Word(w) | Tok::Quoted(w) => Some(w.as_str()),
            _ => None,
        }
    }
    let mut out = String::with_capacity(sql.len() + to.len());
    let mut copied = 0;
    for (i, t) in tokens.iter().enumerate() {
        let qualifies = name(&t.tok) == Some(from)
            && tokens.get(i + 1).is_some_and(|d| d.tok.is_punct(".") && d.start == t.end)
            && tokens
                .get(i + 2)
                .is_some_and(|n| name(&n.tok).is_some() && n.start == t.end + 1)
            // `x.from.c`: a column of a table named `from`, not a database.
            && !(i > 0 && tokens[i - 1].tok.is_punct(".") && tokens[i - 1].end == t.start);
        if qualifies {
            out.push_str(&sql[copied..t.start]);
            out.push('`');
            out.push_str(&to.replace('`', "``"));
            out.push('`');
            copied = t.end;
        }
    }
    out.push_str(&sql[copied..]);
    Some(out)
}

/// Whether a DDL's failure with the server error `code` says it ran
/// before (a restart between the DDL and its position runs it again):
/// what it makes exists, or what it removes or renames is gone.
pub fn already_applied(event: EventType, code: u16) -> bool {
    // ER_TABLE_EXISTS_ERROR, ER_BAD_TABLE_ERROR (DROP of a missing table),
    // ER_DUP_FIELDNAME, ER_DUP_KEYNAME, ER_CANT_DROP_FIELD_OR_KEY.
    const ANY: [u16; 5] = [1050, 1051, 1060, 1061, 1091];
    ANY.contains(&code)
        // ER_BAD_FIELD_ERROR: a column renamed or changed already.
        || (code == 1054 && event == EventType::Alter)
        // ER_NO_SUCH_TABLE: the table renamed already.
        || (code == 1146 && event == EventType::Rename)
}

#[cfg(test)]
mod tests {
    use prost::Message;
    use sluice_canal::proto::{Column, Entry, Header, RowChange, RowData};

    use super::*;
    use crate::rows::read_entry;

    fn mirror(database: &str, target_db: Option<&str>) -> Mapping {
        Mapping::mirror_db(
            "rdb/m.yml".into(),
            "m".into(),
            false,
            database.into(),
            None,
            target_db.map(str::to_string),
        )
    }

    fn entry(schema: &str, table: &str, offset: i64, change: RowChange) -> Vec<u8> {
        Entry {
            header: Some(Header {
                logfile_name: Some("binlog.000001".into()),
                logfile_offset: Some(offset),
                schema_name: Some(schema.into()),
                table_name: Some(table.into()),
                event_type: change.event_type,
                ..Default::default()
            }),
            entry_type: Some(EntryType::RowData as i32),
            store_value: Some(change.encode_to_vec().into()),
        }
        .encode_to_vec()
    }

    fn ddl(event: EventType, sql: &str) -> RowChange {
        RowChange {
            event_type: Some(event as i32),
            is_ddl: Some(true),
            sql: Some(sql.into()),
            ..Default::default()
        }
    }

    fn insert(columns: &[(&str, bool)]) -> RowChange {
        RowChange {
            event_type: Some(EventType::Insert as i32),
            is_ddl: Some(false),
            row_datas: vec![RowData {
                after_columns: columns
                    .iter()
                    .map(|(name, key)| Column {
                        name: Some(name.to_string()),
                        is_key: Some(*key),
                        value: Some("1".into()),
                        ..Default::default()
                    })
                    .collect(),
                ..Default::default()
            }],
            ..Default::default()
        }
    }

    #[test]
    fn ddl_of_a_mirrored_database_runs_in_the_target_database() {
        let mappings = [mirror("w", Some("tgt"))];
        let e = entry(
            "w",
            "t",
            100,
            ddl(EventType::Create, "CREATE TABLE t (id INT)"),
        );
        let MirrorAction::Ddl(d) =
            action(&read_entry(&e).unwrap(), &mappings, &[], &[None]).unwrap()
        else {
            panic!("not a DDL");
        };
        assert_eq!((d.slot, d.target_db.as_str()), (0, "tgt"));
        assert_eq!(d.sql, "CREATE TABLE t (id INT)");
        assert_eq!(d.event, EventType::Create);
        // Applied already (the position is past it): nothing.
        let past = Some(BinlogPosition::new("binlog.000001", 100));
        assert_eq!(
            action(&read_entry(&e).unwrap(), &mappings, &[], &[past]).unwrap(),
            MirrorAction::None
        );
        // Another database, or a statement on the database itself: nothing.
        let other = entry(
            "x",
            "t",
            100,
            ddl(EventType::Create, "CREATE TABLE t (id INT)"),
        );
        assert_eq!(
            action(&read_entry(&other).unwrap(), &mappings, &[], &[None]).unwrap(),
            MirrorAction::None
        );
        let database = entry("w", "", 100, ddl(EventType::Query, "CREATE DATABASE w"));
        assert_eq!(
            action(&read_entry(&database).unwrap(), &mappings, &[], &[None]).unwrap(),
            MirrorAction::None
        );
    }

    #[test]
    fn the_first_rows_of_a_table_make_its_plan_keyed_as_the_source() {
        let mappings = [mirror("w", None)];
        let e = entry("w", "t", 200, insert(&[("id", true), ("a", false)]));
        let MirrorAction::NewTable { slot, mapping } =
            action(&read_entry(&e).unwrap(), &mappings, &[], &[None]).unwrap()
        else {
            panic!("no new table");
        };
        assert_eq!(slot, 0);
        assert_eq!(mapping.target_schema.as_deref(), Some("w"));
        assert_eq!(
            (mapping.table.as_str(), mapping.target_table.as_str()),
            ("t", "t")
        );
        assert_eq!(
            mapping.target_pk,
            vec![("id".to_string(), "id".to_string())]
        );
        assert!(mapping.map_all && !mapping.mirror_db);
        assert_eq!(mapping.name, "m", "counted under the mirror's position");
        // A keyless table of a concurrent mirror is applied in order.
        let mut concurrent = mirror("w", None);
        concurrent.concurrent = true;
        let keyless = entry("w", "k", 300, insert(&[("a", false)]));
        let MirrorAction::NewTable { mapping, .. } = action(
            &read_entry(&keyless).unwrap(),
            &[concurrent.clone()],
            &[],
            &[None],
        )
        .unwrap() else {
            panic!("no new table");
        };
        assert!(mapping.target_pk.is_empty() && !mapping.concurrent);
        let MirrorAction::NewTable { mapping, .. } =
            action(&read_entry(&e).unwrap(), &[concurrent], &[], &[None]).unwrap()
        else {
            panic!("no new table");
        };
        assert!(mapping.concurrent);
    }

    #[test]
    fn names_qualified_by_the_source_database_move_to_the_target_database() {
        let r = |sql: &str| retarget(sql, "w", "tgt").unwrap();
        assert_eq!(
            r("ALTER TABLE w.a ADD COLUMN z INT"),
            "ALTER TABLE `tgt`.a ADD COLUMN z INT"
        );
        assert_eq!(
            r("RENAME TABLE `w`.`b` TO `w`.b2, c TO d"),
            "RENAME TABLE `tgt`.`b` TO `tgt`.b2, c TO d"
        );
        // Strings, comments, other databases and columns stay as written.
        assert_eq!(
            r("ALTER TABLE x.w ADD COLUMN s VARCHAR(9) DEFAULT 'w.a' /* w.a */"),
            "ALTER TABLE x.w ADD COLUMN s VARCHAR(9) DEFAULT 'w.a' /* w.a */"
        );
        assert_eq!(r("CREATE INDEX i ON t (c)"), "CREATE INDEX i ON t (c)");
        // The same database: as written.
        assert_eq!(
            retarget("ALTER TABLE w.a", "w", "w").unwrap(),
            "ALTER TABLE w.a"
        );
    }

    #[test]
    fn errors_that_say_a_ddl_ran_before_are_told_apart() {
        assert!(already_applied(EventType::Create, 1050));
        assert!(already_applied(EventType::Alter, 1060));
        assert!(already_applied(EventType::Alter, 1054));
        assert!(already_applied(EventType::Rename, 1146));
        assert!(
            !already_applied(EventType::Alter, 1146),
            "a missing table is no replay of ALTER"
        );
        assert!(
            !already_applied(EventType::Create, 1064),
            "a syntax error is an error"
        );
    }
}
