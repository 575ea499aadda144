//! Seeds the fuzz corpora from real binlog files (scripts/fuzz runs it):
//!
//!     cargo run --example seed_corpus -- <binlog dir> <corpus dir>
//!
//! Writes into `<corpus dir>/<target>/`:
//! - `binlog_file`: each binlog file whole (large ones cut at an event
//!   boundary), including the broken ones;
//! - `binlog_events`: each event on its own after the selector of the
//!   closest known format (rows events with their TABLE_MAP_EVENT first);
//! - `rows`: each rows event with its TABLE_MAP_EVENT;
//! - `json`: each JSON cell value, and each partial JSON update with its
//!   before image;
//! - `zk_nodes`: the node contents Canal and Sluice write in ZooKeeper
//!   (running nodes, a cursor, history record headers and a record).
//!
//! Seed files are named by a hash of their content, so seeding twice adds nothing.

use std::collections::hash_map::DefaultHasher;
use std::collections::{HashMap, HashSet};
use std::error::Error;
use std::hash::{Hash, Hasher};
use std::io::Read;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};

use sluice_binlog::bytes::{bit, ByteReader};
use sluice_binlog::events::EventData;
use sluice_binlog::value::read_value;
use sluice_binlog::{
    walk_file, Cell, ColumnType, Decoder, EventFramer, EventType, FormatDescription, RowsEvent,
    RowsKind, TableMap, Value, BINLOG_MAGIC,
};
use sluice_binlog_fuzz::{closest_format, encode_json_diff, encode_json_render, RowsInput};

/// Whole-file seeds above this size are cut at the last event boundary below it.
const MAX_FILE_SEED: usize = 64 << 10;
/// Event-level seeds above this size are left out (they only slow the fuzzer).
const MAX_EVENT_SEED: usize = 16 << 10;
/// Seeds per file and event type (or table): enough variety, no flood.
const PER_KIND: usize = 24;

struct Seeds {
    dir: PathBuf,
    seen: HashSet<u64>,
    added: usize,
}

impl Seeds {
    fn new(root: &Path, target: &str) -> std::io::Result<Self> {
        let dir = root.join(target);
        std::fs::create_dir_all(&dir)?;
        Ok(Seeds {
            dir,
            seen: HashSet::new(),
            added: 0,
        })
    }

    fn add(&mut self, seed: &[u8]) -> std::io::Result<()> {
        let mut h = DefaultHasher::new();
        seed.hash(&mut h);
        let key = h.finish();
        if !self.seen.insert(key) {
            return Ok(());
        }
        let path = self.dir.join(format!("seed-{key:016x}"));
        if !path.exists() {
            std::fs::write(path, seed)?;
            self.added += 1;
        }
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let [src, out] = args.as_slice() else {
        return Err("usage: seed_corpus <binlog dir> <corpus dir>".into());
    };
    let mut files = Vec::new();
    collect(Path::new(src), &mut files)?;
    files.sort();
    let out = Path::new(out);
    let mut file_seeds = Seeds::new(out, "binlog_file")?;
    let mut event_seeds = Seeds::new(out, "binlog_events")?;
    let mut rows_seeds = Seeds::new(out, "rows")?;
    let mut json_seeds = Seeds::new(out, "json")?;
    let mut used = 0;
    for path in &files {
        let mut bytes = std::fs::read(path)?;
        if path.extension().is_some_and(|e| e == "gz") {
            let mut plain = Vec::new();
            flate2::read::GzDecoder::new(&bytes[..]).read_to_end(&mut plain)?;
            bytes = plain;
        }
        if !looks_like_binlog(&bytes) {
            continue;
        }
        used += 1;
        file_seeds.add(file_seed(&bytes))?;
        seed_events(&bytes, &mut event_seeds)?;
        seed_rows_and_json(&bytes, &mut rows_seeds, &mut json_seeds)?;
    }
    let mut zk_seeds = Seeds::new(out, "zk_nodes")?;
    for seed in ZK_NODE_SEEDS {
        zk_seeds.add(seed.as_bytes())?;
    }
    println!(
        "seeded from {used} binlog files in {src}: new seeds binlog_file {}, binlog_events {}, rows {}, json {}, zk_nodes {}",
        file_seeds.added, event_seeds.added, rows_seeds.added, json_seeds.added, zk_seeds.added
    );
    Ok(())
}

/// Node contents as Canal and Sluice write them in ZooKeeper.
const ZK_NODE_SEEDS: &[&str] = &[
    r#"{"active":true,"address":"10.0.0.5:11111"}"#,
    r#"{"active":true,"address":"172.17.1.181:11121","cid":1}"#,
    r#"{"active":false,"address":"10.0.0.5:11111"}"#,
    r#"{"active":true,"address":"10.0.0.9","clientId":1001}"#,
    r#"{"@type":"com.alibaba.otter.canal.protocol.position.LogPosition","identity":{"slaveId":-1,"sourceAddress":{"address":"main-db5","port":3306}},"postion":{"gtid":"","included":false,"journalName":"mysql-bin.000003","position":1790,"serverId":1,"timestamp":1729425993000}}"#,
    "pending\n",
    "abandoned\n",
    "zstd-chunks 3 1500000\n",
    r#"{"type":"ddl","position":{"file":"binlog.000001","offset":4},"db":"w","sql":"CREATE TABLE t (id INT)","kind":"create_table","deltas":[]}"#,
];

fn collect(dir: &Path, files: &mut Vec<PathBuf>) -> std::io::Result<()> {
    for entry in std::fs::read_dir(dir)? {
        let path = entry?.path();
        if path.is_dir() {
            collect(&path, files)?;
        } else {
            files.push(path);
        }
    }
    Ok(())
}

/// Binlog files, broken ones included (one corpus file went through a text
/// conversion that replaced the magic's first byte), but not text fixtures.
fn looks_like_binlog(b: &[u8]) -> bool {
    b.starts_with(&BINLOG_MAGIC) || b[..b.len().min(8)].windows(3).any(|w| w == b"bin")
}

fn file_seed(bytes: &[u8]) -> &[u8] {
    if bytes.len() <= MAX_FILE_SEED {
        return bytes;
    }
    let mut end = 0;
    if let Ok(framer) = EventFramer::for_file(bytes) {
        for raw in framer {
            match raw {
                Ok(raw) if raw.next_pos() as usize <= MAX_FILE_SEED => {
                    end = raw.next_pos() as usize
                }
                _ => break,
            }
        }
    }
    &bytes[..if end > 4 { end } else { MAX_FILE_SEED }]
}

/// `[selector] [TABLE_MAP_EVENT] event` for every event after the FDE.
fn seed_events(bytes: &[u8], seeds: &mut Seeds) -> std::io::Result<()> {
    let Ok(framer) = EventFramer::for_file(bytes) else {
        return Ok(());
    };
    let mut decoder = Decoder::new();
    let mut selector = None;
    let mut maps: HashMap<u64, &[u8]> = HashMap::new();
    let mut per_type: HashMap<u8, usize> = HashMap::new();
    for raw in framer {
        let Ok(raw) = raw else { break };
        let decoded = decoder.decode(&raw);
        let t = raw.header.event_type;
        if t == EventType::FORMAT_DESCRIPTION {
            if let Ok(EventData::FormatDescription(f)) = &decoded {
                selector = closest_format(f);
            }
            continue;
        }
        let Some(selector) = selector else { continue };
        let mut seed = vec![selector];
        match &decoded {
            Ok(EventData::TableMap(tm)) => {
                maps.insert(tm.table_id, raw.bytes);
            }
            Ok(EventData::Rows(ev)) => {
                if let Some(tm) = maps.get(&ev.table_id) {
                    seed.extend_from_slice(tm);
                }
            }
            _ => {}
        }
        let n = per_type.entry(t.0).or_default();
        *n += 1;
        seed.extend_from_slice(raw.bytes);
        if *n <= PER_KIND && seed.len() <= MAX_EVENT_SEED {
            seeds.add(&seed)?;
        }
    }
    Ok(())
}

/// Rows events with their table maps, and the JSON values in their rows.
fn seed_rows_and_json(bytes: &[u8], rows: &mut Seeds, json: &mut Seeds) -> std::io::Result<()> {
    let mut format = FormatDescription::default();
    let mut maps: HashMap<u64, Vec<u8>> = HashMap::new();
    let mut per_table: HashMap<u64, usize> = HashMap::new();
    let mut rows_out = Vec::new();
    let mut docs: Vec<Vec<u8>> = Vec::new();
    let mut diffs: Vec<(Vec<u8>, Vec<u8>)> = Vec::new();
    let _ = walk_file("seed", bytes, |_, raw, data| {
        match data {
            EventData::FormatDescription(f) => format = f.clone(),
            EventData::TableMap(tm) => {
                maps.insert(tm.table_id, raw.body.to_vec());
            }
            EventData::Rows(ev) => {
                let t = raw.header.event_type;
                let n = per_table.entry(ev.table_id).or_default();
                *n += 1;
                if let (Some(tm), Some(layout), true) =
                    (maps.get(&ev.table_id), t.rows_layout(), *n <= PER_KIND)
                {
                    let default = if layout.has_extra_data { 10 } else { 8 };
                    let input = RowsInput {
                        rows_type: t.0,
                        table_map_post_header: format.post_header_len(EventType::TABLE_MAP, 8)
                            as u8,
                        rows_post_header: format.post_header_len(t, default) as u8,
                        table_map: tm,
                        rows: raw.body,
                    };
                    if let Some(seed) = input.encode().filter(|s| s.len() <= MAX_EVENT_SEED) {
                        rows_out.push(seed);
                    }
                }
                docs.extend(json_cells(ev));
                if ev.kind == RowsKind::PartialUpdate {
                    diffs.extend(partial_json_updates(ev, raw.body).unwrap_or_default());
                }
            }
            _ => {}
        }
        ControlFlow::Continue(())
    });
    for s in rows_out {
        rows.add(&s)?;
    }
    for doc in &docs {
        json.add(&encode_json_render(doc))?;
    }
    // Each diff with its before image (empty when the image lacks the
    // column, as with binlog_row_image=MINIMAL), and with other documents.
    for (before, diff) in &diffs {
        for doc in std::iter::once(before).chain(docs.iter().take(PER_KIND)) {
            if let Some(seed) = encode_json_diff(doc, diff) {
                json.add(&seed)?;
            }
        }
    }
    Ok(())
}

/// The non-empty JSON values of a rows event, as binary JSON.
fn json_cells(ev: &RowsEvent<'_>) -> Vec<Vec<u8>> {
    let mut out = Vec::new();
    for row in ev.rows() {
        let Ok(row) = row else { break };
        for image in [row.before, row.after].into_iter().flatten() {
            for cell in image.cells() {
                match cell {
                    Ok(Cell::Present(Value::Json(b))) if !b.is_empty() => out.push(b.to_vec()),
                    Ok(_) => {}
                    Err(_) => break,
                }
            }
        }
    }
    out
}

/// The (before value, diff) pairs of a PARTIAL_UPDATE_ROWS_EVENT's JSON
/// columns (before value empty when NULL or not in the image). The decoder
/// applies diffs itself, so the raw diffs are read here from the row images.
fn partial_json_updates(ev: &RowsEvent<'_>, body: &[u8]) -> Option<Vec<(Vec<u8>, Vec<u8>)>> {
    let columns = &ev.table.columns;
    let data = ev.rows_data();
    let bitmap_len = ev.column_count.div_ceil(8);
    let head = body.len().checked_sub(data.len() + 2 * bitmap_len)?;
    let present_before = body.get(head..head + bitmap_len)?;
    let present_after = body.get(head + bitmap_len..head + 2 * bitmap_len)?;
    let json_columns: Vec<usize> = (0..columns.len())
        .filter(|&i| matches!(columns[i].column_type, ColumnType::Json { .. }))
        .collect();
    let mut r = ByteReader::new(data);
    let mut out = Vec::new();
    while !r.is_empty() {
        let before = image_values(&mut r, &ev.table, present_before)?;
        let options = r.packed_int().ok()?;
        let partial = if options & 1 != 0 {
            r.take(json_columns.len().div_ceil(8)).ok()?
        } else {
            &[]
        };
        let after = image_values(&mut r, &ev.table, present_after)?;
        for (j, &i) in json_columns.iter().enumerate() {
            if let (true, Some(Value::Json(diff))) = (bit(partial, j), &after[i]) {
                let old = match &before[i] {
                    Some(Value::Json(old)) => old.to_vec(),
                    _ => Vec::new(),
                };
                out.push((old, diff.to_vec()));
            }
        }
    }
    Some(out)
}

/// The non-NULL values of one row image, per column.
fn image_values<'a>(
    r: &mut ByteReader<'a>,
    table: &TableMap,
    present: &[u8],
) -> Option<Vec<Option<Value<'a>>>> {
    let columns = &table.columns;
    let n_present = (0..columns.len()).filter(|&i| bit(present, i)).count();
    let nulls = r.take(n_present.div_ceil(8)).ok()?;
    let mut k = 0;
    let mut values = Vec::with_capacity(columns.len());
    for (i, c) in columns.iter().enumerate() {
        if !bit(present, i) {
            values.push(None);
            continue;
        }
        let null = bit(nulls, k);
        k += 1;
        values.push(if null {
            None
        } else {
            Some(read_value(r, c).ok()?)
        });
    }
    Some(values)
}
