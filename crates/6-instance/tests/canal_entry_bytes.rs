//! The Canal entries built from binlog events are the same bytes from one
//! version of the code to the next: every event of the shared binlog corpus
//! and of the live type fixtures (`tests/data/live-types`: the binlogs the
//! decoder's MariaDB type test writes, every column type under each row
//! image and metadata setting) goes through the change builder and the
//! Canal encoder three ways, and the SHA-256 of everything built (entry
//! bytes, kind, positions, ack point, idempotency key) must equal the
//! digest recorded in `tests/data/canal-entry-digests.txt`.
//!
//! The digests were recorded by the entry builder as it was before the
//! change-event model existed; `SLUICE_BLESS_ENTRY_BYTES=1` records them
//! anew, which is only right when the Canal format is meant to change.

use std::collections::BTreeMap;
use std::ops::ControlFlow;
use std::path::Path;
use std::sync::Arc;

use prost::Message;
use sha2::{Digest, Sha256};
use sluice_binlog::events::EventData;
use sluice_binlog::TableMap;
use sluice_encode::canal::{BuiltEntry, CanalEncoder, EntryError};
use sluice_events::{ChangeBuilder, ColumnInfo, Position};
use sluice_instance::runner::{EventPlace, SchemaHook};
use sluice_instance::schema_hook::TrackedSchema;
use sluice_schema::{MemoryHistoryStore, SchemaTracker, TrackerOptions};

const DIGESTS: &str = "tests/data/canal-entry-digests.txt";

/// How the columns of rows events are described.
#[derive(Clone, Copy, Debug)]
enum Columns {
    /// From the binlog only, without GTIDs.
    Binlog,
    /// Made-up schema info (UNSIGNED, BINARY, keys), with GTIDs on.
    Synthetic,
    /// From a schema tracker following the file's DDL, as a live instance.
    Tracked,
}

/// Every binlog of the corpus and the live fixtures, by a name relative to
/// its folder.
fn binlogs() -> Vec<(String, Vec<u8>)> {
    let corpus = sluice_testkit::corpus::corpus_binlogs();
    let live = sluice_testkit::corpus::binlog_files(
        &Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/data/live-types"),
    );
    assert!(live.len() >= 6, "live type fixtures missing");
    let tagged = |tag: &str, files: Vec<(String, Vec<u8>)>| {
        files
            .into_iter()
            .map(|(name, bytes)| (format!("{tag}/{name}"), bytes))
            .collect::<Vec<_>>()
    };
    let mut out = tagged("corpus", corpus);
    out.extend(tagged("live", live));
    out
}

fn synthetic(table: &TableMap) -> Vec<ColumnInfo> {
    table
        .columns
        .iter()
        .enumerate()
        .map(|(i, c)| ColumnInfo {
            name: format!("col_{i}"),
            mysql_type: match i % 3 {
                0 => format!("{} unsigned", c.column_type.sql_name()),
                1 => "varbinary(16)".to_string(),
                _ => c.column_type.sql_name().to_string(),
            },
            is_key: i == 0,
            default: None,
        })
        .collect()
}

fn hash_built(h: &mut Sha256, b: &BuiltEntry) {
    h.update(b.entry.encode_to_vec());
    h.update(format!(
        "|{:?}|{:?}|{:?}|{}\n",
        b.kind, b.position, b.ack_point, b.idempotency_key
    ));
}

/// The digest of everything one file builds, the counted entries.
fn digest(name: &str, bytes: &[u8], columns: Columns) -> (String, usize) {
    let mut changes = ChangeBuilder::new();
    let mut encoder = CanalEncoder::new(matches!(columns, Columns::Synthetic));
    // The entries of one decoded event: its change event, if any, encoded.
    let mut build = |position: Position<'_>,
                     data: &EventData<'_>,
                     info: Option<&[ColumnInfo]>|
     -> Result<Vec<BuiltEntry>, EntryError> {
        match changes.on_event(position, data, info) {
            Some(event) => encoder.entries(&event),
            None => Ok(Vec::new()),
        }
    };
    let mut tracked = TrackedSchema::new(
        SchemaTracker::open(
            Box::new(MemoryHistoryStore::default()),
            TrackerOptions::default(),
        )
        .expect("an empty schema tracker"),
        None,
        sluice_canal::TableFilter::all(),
    );
    tracked
        .on_start("binlog.000001", 4)
        .expect("an empty schema tracker starts");
    let mut h = Sha256::new();
    let mut entries = 0;
    let walked = sluice_binlog::walk_file(name, bytes, |at, raw, data| {
        let position = Position::at("binlog.000001", at.pos, at.next_pos, &raw.header);
        let place = EventPlace {
            file: "binlog.000001",
            pos: at.pos,
            next_pos: at.next_pos,
            status_vars: &[],
        };
        let built = match (columns, data) {
            (Columns::Synthetic, EventData::Rows(rows)) => {
                let info = synthetic(&rows.table);
                build(position, data, Some(&info))
            }
            (Columns::Tracked, EventData::Rows(rows)) => {
                match tracked.describe(&place, &rows.table) {
                    Ok((table, info)) => {
                        let mut rows = rows.clone();
                        rows.table = Arc::clone(&table);
                        build(position, &EventData::Rows(rows), info.as_deref())
                    }
                    Err(e) => {
                        h.update(format!("schema error at {}: {e}\n", at.pos));
                        return ControlFlow::Continue(());
                    }
                }
            }
            (Columns::Tracked, EventData::Query(q)) => {
                let sql = q.query_text();
                let head = sql.trim().to_ascii_uppercase();
                if !head.starts_with("BEGIN") && !head.starts_with("COMMIT") {
                    let place = EventPlace {
                        status_vars: q.status_vars,
                        ..place
                    };
                    if let Err(e) = tracked.on_query(&place, &q.schema_text(), sql.trim()) {
                        h.update(format!("schema error at {}: {e}\n", at.pos));
                    }
                }
                build(position, data, None)
            }
            _ => build(position, data, None),
        };
        match built {
            Ok(list) => {
                for b in &list {
                    hash_built(&mut h, b);
                    entries += 1;
                }
            }
            Err(e) => h.update(format!("entry error: {e}\n")),
        }
        ControlFlow::Continue(())
    });
    if let Err(e) = walked {
        h.update(format!("walk error: {e}\n"));
    }
    let hex: String = h.finalize().iter().map(|b| format!("{b:02x}")).collect();
    (hex, entries)
}

#[test]
fn canal_entry_bytes_are_unchanged_for_the_corpus_and_the_live_types() {
    let mut got = BTreeMap::new();
    let mut total = 0;
    for (name, bytes) in binlogs() {
        for columns in [Columns::Binlog, Columns::Synthetic, Columns::Tracked] {
            let (hex, entries) = digest(&name, &bytes, columns);
            total += entries;
            got.insert(format!("{name} {columns:?}"), format!("{hex} {entries}"));
        }
    }
    assert!(total > 10_000, "only {total} entries built");
    let text: String = got.iter().map(|(k, v)| format!("{k} {v}\n")).collect();
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join(DIGESTS);
    if std::env::var_os("SLUICE_BLESS_ENTRY_BYTES").is_some() {
        std::fs::write(&path, &text).expect("writing the digests");
        return;
    }
    let recorded = std::fs::read_to_string(&path).expect("the recorded digests");
    let mut differ = Vec::new();
    let want: BTreeMap<&str, &str> = recorded
        .lines()
        .filter_map(|l| l.rsplitn(3, ' ').nth(2).map(|k| (k, l)))
        .collect();
    for (k, v) in &got {
        match want.get(k.as_str()) {
            Some(line) if *line == format!("{k} {v}") => {}
            Some(line) => differ.push(format!("{k}: recorded {line}, built {v}")),
            None => differ.push(format!("{k}: not recorded")),
        }
    }
    for k in want.keys() {
        if !got.contains_key(*k) {
            differ.push(format!("{k}: recorded but not built"));
        }
    }
    assert!(
        differ.is_empty(),
        "Canal entry bytes changed:\n{}",
        differ.join("\n")
    );
}
