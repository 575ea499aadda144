//! Tests of the Canal entry writer: entries as prost decodes them, row
//! keys, select rows, and the serialised entry against prost's bytes.

use super::*;

use sluice_binlog::events::EventData;
use sluice_binlog::RowsKind;
use sluice_canal::proto::{Column, RowData};
use sluice_events::{ChangeBuilder, ColumnInfo};

impl CanalEncoder {
    /// The struct-building implementation `rows_entry` replaced, kept as
    /// the reference its bytes must equal.
    fn rows_entry_reference(&mut self, change: &RowsChange<'_>) -> Result<BuiltEntry, EntryError> {
        let at = &change.position;
        let txn = change.txn;
        let rows = change.event;
        let columns = change.table.info;
        let table = &rows.table;
        let event_type = match rows.kind {
            RowsKind::Write => EventType::Insert,
            RowsKind::Update | RowsKind::PartialUpdate => EventType::Update,
            RowsKind::Delete => EventType::Delete,
        };
        let err = |source| EntryError::Decode {
            file: at.file.to_string(),
            pos: at.offset,
            source,
        };
        let info = |i: usize| -> (String, String, bool) {
            match columns.and_then(|c| c.get(i)) {
                Some(c) => (c.name.clone(), c.mysql_type.clone(), c.is_key),
                None => {
                    let def = &table.columns[i];
                    (
                        def.name.clone().unwrap_or_default(),
                        def.column_type.sql_name().to_string(),
                        def.is_primary_key(),
                    )
                }
            }
        };
        let mut row_datas = Vec::new();
        for (row_index, row) in rows.rows().enumerate() {
            let row = row.map_err(err)?;
            let mut before_values: Vec<Option<Option<String>>> = Vec::new();
            let mut rd = RowData::default();
            if let Some(img) = &row.before {
                for (i, cell) in img.cells().enumerate() {
                    let cell = cell.map_err(err)?;
                    let Cell::Present(v) = cell else {
                        before_values.push(None);
                        continue;
                    };
                    let (name, mysql_type, is_key) = info(i);
                    let def = &table.columns[i];
                    let col = column(i, name, mysql_type, is_key, def, &v, false).map_err(err)?;
                    before_values.push(Some(
                        col.value.clone().filter(|_| col.is_null != Some(true)),
                    ));
                    rd.before_columns.push(col);
                }
            }
            if let Some(img) = &row.after {
                for (i, cell) in img.cells().enumerate() {
                    let cell = cell.map_err(err)?;
                    let Cell::Present(v) = cell else {
                        continue;
                    };
                    let (name, mysql_type, is_key) = info(i);
                    let def = &table.columns[i];
                    let mut col =
                        column(i, name, mysql_type, is_key, def, &v, true).map_err(err)?;
                    let now = col.value.clone().filter(|_| col.is_null != Some(true));
                    let updated = match before_values.get(i) {
                        Some(Some(before)) => *before != now,
                        _ => true,
                    };
                    col.updated = Some(updated);
                    rd.after_columns.push(col);
                }
            }
            rd.props.push(Pair::new(
                "sluiceRowKey",
                format!("{}:{}#{row_index}", at.file, at.offset),
            ));
            row_datas.push(rd);
        }
        let count = row_datas.len();
        let row_change = RowChange {
            table_id: Some(rows.table_id as i64),
            event_type: Some(event_type as i32),
            is_ddl: Some(false),
            row_datas,
            ..Default::default()
        };
        let mut header = self.header(txn, at, &table.schema, &table.table, Some(event_type));
        if count > 0 {
            header.props.push(Pair::new("rowsCount", count.to_string()));
        }
        Ok(self.built(
            txn,
            at,
            EntryKind::Row,
            Entry {
                header: Some(header),
                entry_type: Some(EntryType::RowData as i32),
                store_value: Some(row_change.encode_to_vec().into()),
            },
        ))
    }
}

fn column(
    index: usize,
    name: String,
    mysql_type: String,
    is_key: bool,
    def: &sluice_binlog::ColumnDef,
    value: &sluice_binlog::Value<'_>,
    _after: bool,
) -> Result<Column, sluice_binlog::DecodeError> {
    let mut c = Column {
        index: Some(index as i32),
        name: Some(name),
        is_key: Some(is_key),
        updated: Some(false),
        mysql_type: Some(mysql_type.clone()),
        ..Default::default()
    };
    if value.is_null() {
        c.is_null = Some(true);
        c.sql_type = Some(value::null_sql_type(def, &mysql_type));
    } else {
        let (text, sql_type) = value::render(value, def, &mysql_type)?;
        if value.is_partial_json() {
            c.props
                .push(Pair::new(PARTIAL_JSON_PROP.0, PARTIAL_JSON_PROP.1));
        }
        c.is_null = Some(false);
        c.sql_type = Some(sql_type);
        c.value = Some(text);
    }
    Ok(c)
}

/// Every binlog file of the shared corpus, read whole.
fn corpus_files() -> Vec<(String, Vec<u8>)> {
    sluice_testkit::corpus::corpus_binlogs()
}

/// Column infos as a schema tracker would give them, with UNSIGNED and
/// BINARY types and keys the binlog may not say, to exercise those paths.
fn tracked_like(table: &sluice_binlog::TableMap) -> Vec<ColumnInfo> {
    table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| ColumnInfo {
            name: format!("col_{i}"),
            mysql_type: match i % 3 {
                0 => format!("{} unsigned", c.column_type.sql_name()),
                1 => format!("var{}", "binary(16)"),
                _ => c.column_type.sql_name().to_string(),
            },
            is_key: i == 0,
            default: None,
        })
        .collect()
}

/// The bytes written straight from rows events equal prost's encoding of
/// the message structs, for every rows event of the corpus, with column
/// information from the binlog, from a schema, and from each in turn
/// (so that kept table layouts are both reused and found stale).
#[test]
fn direct_rows_encoding_matches_prost_over_the_corpus() {
    let mut events = 0;
    for (name, buf) in corpus_files() {
        for described in [Described::Binlog, Described::Schema, Described::InTurns] {
            let mut changes = ChangeBuilder::new();
            let mut b = CanalEncoder::new(false);
            let mut turn = false;
            let _ = sluice_binlog::walk_file(&name, &buf, |at, raw, data| {
                let position = Position::at("binlog.000001", at.pos, at.next_pos, &raw.header);
                if let EventData::Rows(rows) = data {
                    let infos = tracked_like(&rows.table);
                    turn = !turn;
                    let by_schema = match described {
                        Described::Binlog => false,
                        Described::Schema => true,
                        Described::InTurns => turn,
                    };
                    let columns = by_schema.then_some(infos.as_slice());
                    let change = RowsChange::new(position, changes.state(), rows, columns);
                    let new = b
                        .rows_entry_parts(&change, true, None, &[], None)
                        .map_err(Fill::into_entry_error);
                    let old = b.rows_entry_reference(&change);
                    match (new, old) {
                        (Ok((n, serialised)), Ok(o)) => {
                            let expected = o.entry.encode_to_vec();
                            assert_eq!(
                                n.entry.encode_to_vec(),
                                expected,
                                "{name}:{} {described:?}",
                                at.pos
                            );
                            // Written in place in front of the RowChange.
                            let serialised = serialised.expect("the head fits its room");
                            assert_eq!(serialised, expected, "{name}:{}", at.pos);
                            // And without room left for the head.
                            let plain = b.rows_entry(&change).expect("built once already");
                            assert_eq!(plain.entry.encode_to_vec(), expected);
                            // Extra props sit before rowsCount, in the
                            // serialised entry too.
                            let marker = [Pair::new("snapshot", "true")];
                            let (m, marked) = b
                                .rows_entry_parts(&change, true, None, &marker, None)
                                .map_err(Fill::into_entry_error)
                                .expect("built once already");
                            let marked = marked.expect("the head fits its room");
                            assert_eq!(marked, m.entry.encode_to_vec());
                            let props = &m.entry.header.as_ref().expect("a header").props;
                            let keys: Vec<_> = props
                                .iter()
                                .rev()
                                .take(2)
                                .map(|p| p.key.as_deref())
                                .collect();
                            assert_eq!(keys, [Some("rowsCount"), Some("snapshot")]);
                            events += 1;
                        }
                        (Err(_), Err(_)) => {}
                        (n, o) => panic!(
                            "{name}:{}: direct {:?}, reference {:?}",
                            at.pos,
                            n.err(),
                            o.err()
                        ),
                    }
                } else if let Some(event) = changes.on_event(position, data, None) {
                    let _ = b.entries(&event);
                }
                std::ops::ControlFlow::Continue(())
            });
        }
    }
    assert!(events > 300, "only {events} rows events compared");
}

/// Where the test's rows events take their column descriptions from.
#[derive(Debug, Clone, Copy)]
enum Described {
    Binlog,
    Schema,
    InTurns,
}

/// json.binlog.000001's PARTIAL_UPDATE_ROWS_EVENT (row image MINIMAL): the
/// JSON column's after value is the diff's text, flagged by a Column prop.
#[test]
fn partial_json_without_its_document_is_a_flagged_diff() {
    let (name, buf) = corpus_files()
        .into_iter()
        .find(|(n, _)| n.ends_with("json.binlog.000001"))
        .expect("json.binlog.000001 in the corpus");
    let mut b = CanalEncoder::new(false);
    let txn = TransactionState::default();
    let mut changes = Vec::new();
    let walked = sluice_binlog::walk_file(&name, &buf, |at, raw, data| {
        if let EventData::Rows(rows) = data {
            if at.pos == 3750 {
                let position = Position::at("json.binlog.000001", at.pos, at.next_pos, &raw.header);
                let change = RowsChange::new(position, &txn, rows, None);
                changes.push(b.rows_entry(&change).map(|built| built.entry));
            }
        }
        std::ops::ControlFlow::Continue(())
    });
    assert!(walked.is_ok(), "{walked:?}");
    let [Ok(entry)] = changes.as_slice() else {
        panic!("one entry expected at 3750: {changes:?}");
    };
    let change = RowChange::decode(entry.store_value.as_deref().unwrap_or(&[])).unwrap();
    assert_eq!(change.row_datas.len(), 6);
    let after = &change.row_datas[0].after_columns;
    let json = after.iter().find(|c| c.index == Some(1)).unwrap();
    assert_eq!(json.value.as_deref(), Some("JSON_REPLACE(@2, '$.age', 26)"));
    assert_eq!(json.mysql_type.as_deref(), Some("json"));
    assert_eq!(json.updated, Some(true));
    assert_eq!(json.props, vec![Pair::new("sluicePartialJson", "true")]);
    let plain = after.iter().find(|c| c.index == Some(2)).unwrap();
    assert_eq!(plain.value.as_deref(), Some("Joe"));
    assert!(plain.props.is_empty());
}

#[test]
fn entries_after_a_failover_carry_the_source_epoch_and_others_stay_as_canal_writes_them() {
    let b = CanalEncoder::new(false);
    let at = Position {
        file: "binlog.000002",
        offset: 120,
        next_offset: 200,
        server_id: 7,
        timestamp: 1_700_000_000,
    };
    let epoch_of = |txn: &TransactionState| {
        b.header(txn, &at, "s", "t", Some(EventType::Insert))
            .props
            .iter()
            .filter(|p| p.key.as_deref() == Some(sluice_canal::view::SOURCE_EPOCH_PROP))
            .map(|p| p.value.clone().unwrap_or_default())
            .collect::<Vec<_>>()
    };
    let first = TransactionState::default();
    assert!(epoch_of(&first).is_empty(), "no prop on the first server");
    let later = TransactionState {
        source_epoch: 2,
        ..Default::default()
    };
    assert_eq!(epoch_of(&later), ["2"]);
}
