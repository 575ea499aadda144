//! Fixed paths over an in-memory binlog, run once each so that
//! `scripts/bench-callgrind` can count their instructions: decoding every
//! value, `sluice tail`'s JSON lines, Canal entries serialised. Each reads
//! the file's events from its start and stops at the first transaction end
//! after a given number of row changes, so the same file and number always
//! do the same work.

use std::ops::ControlFlow;

use anyhow::{bail, Result};
use prost::bytes::Bytes;
use prost::Message as _;
use sluice_binlog::{walk_file, Cell, EventData, Value};
use std::collections::HashMap;
use std::sync::Arc;

use sluice_binlog::BinlogPosition;
use sluice_encode::canal::CanalEncoder;
use sluice_encode::debezium::{DebeziumEncoder, DebeziumOptions};
use sluice_encode::mq::{MqRouter, RouteConfig};
use sluice_encode::tail::TailEncoder;
use sluice_events::{ChangeBuilder, ChangeEvent, ColumnInfo, Encoder, Position};
use sluice_schema::catalog::{ApplyContext, Catalog};
use sluice_schema::lexer::LexOptions;

/// A path to count.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Path {
    /// Frame, decode and read every value of every row.
    Decode,
    /// Change events encoded by `TailEncoder` into JSON lines.
    Tail,
    /// Change events encoded by `CanalEncoder` into entries, each serialised.
    Canal,
    /// As `Canal`, then each event's entries routed by `MqRouter` as MQ mode
    /// does by default: FlatMessage JSON, rows placed by primary key over
    /// three partitions (`canal.mq.partitionHash = .*\\..*:$pk$`).
    Mq,
    /// Change events encoded by `DebeziumEncoder` into records (the
    /// embedded engine's encoding): the table described as the schema
    /// tracker describes it, `converter.schemas.enable=false`,
    /// `tombstones.on.delete=false`, as the engine benchmark runs it.
    Debezium,
}

impl Path {
    pub const ALL: [Path; 5] = [
        Path::Decode,
        Path::Tail,
        Path::Canal,
        Path::Mq,
        Path::Debezium,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Path::Decode => "decode",
            Path::Tail => "tail",
            Path::Canal => "canal",
            Path::Mq => "mq",
            Path::Debezium => "debezium",
        }
    }

    pub fn parse(name: &str) -> Option<Path> {
        Path::ALL.into_iter().find(|p| p.name() == name)
    }
}

/// What a path did: output bytes and a fold of its output, so that none of
/// the work can be left out.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct Done {
    pub output_bytes: u64,
    pub fold: u64,
}

/// The slice the paths run over: the file's events up to `end` (the offset
/// after the first transaction end at or after the row changes asked for),
/// holding `rows` row changes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Slice {
    pub end: u64,
    pub rows: u64,
}

/// The slice of `buf` from its start to the first transaction end at or
/// after `rows` row changes.
pub fn slice(file: &str, buf: &[u8], rows: u64) -> Result<Slice> {
    let mut seen = 0u64;
    let mut end = None;
    let mut failed = None;
    let walked = walk_file(file, buf, |at, _, data| {
        match data {
            EventData::Rows(r) => {
                for row in r.rows() {
                    if let Err(e) = row {
                        failed = Some(anyhow::Error::from(e).context(format!("{file}:{}", at.pos)));
                        return ControlFlow::Break(());
                    }
                    seen += 1;
                }
            }
            EventData::Xid(_) if seen >= rows => {
                end = Some(at.next_pos);
                return ControlFlow::Break(());
            }
            _ => {}
        }
        ControlFlow::Continue(())
    });
    if let Some(e) = failed {
        return Err(e);
    }
    match (end, walked) {
        (Some(end), _) => Ok(Slice { end, rows: seen }),
        (None, Err(e)) => Err(e.into()),
        (None, Ok(())) => bail!("{file} holds only {seen} row changes in whole transactions"),
    }
}

impl Done {
    fn add(&mut self, x: u64) {
        self.fold = (self.fold ^ x).wrapping_mul(0x0100_0000_01b3);
    }
}

/// Runs `path` over the events of the binlog file `buf` (named `file`) that
/// end at or before `end`. `scripts/bench-callgrind` counts the
/// instructions of this function only (not reading the file).
#[inline(never)]
pub fn measured(path: Path, file: &str, buf: &[u8], end: u64) -> Result<Done> {
    let mut done = Done::default();
    let mut builder = ChangeBuilder::new();
    let mut tail = TailEncoder::new();
    let mut canal = CanalEncoder::new(false);
    let mut lines: Vec<u8> = Vec::new();
    let mut entries = Vec::new();
    let mut serialised: Vec<Bytes> = Vec::new();
    let router = MqRouter::new(RouteConfig {
        topic: "bench".into(),
        partitions_num: Some(3),
        partition_hash: r".*\..*:$pk$".into(),
        ..RouteConfig::default()
    })?;
    let mut batch: Vec<Bytes> = Vec::new();
    let mut records = Vec::new();
    let mut debezium = DebeziumEncoder::new(DebeziumOptions {
        schemas_enable: false,
        tombstones_on_delete: false,
        ..DebeziumOptions::new("bench")
    });
    let mut debezium_records = Vec::new();
    // Tables as the schema tracker describes them: from the file's DDL.
    let mut catalog = Catalog::new();
    let mut described: HashMap<(String, String), Arc<[ColumnInfo]>> = HashMap::new();
    let mut failed: Option<anyhow::Error> = None;
    let walked = walk_file(file, buf, |at, raw, data| {
        let mut step = || -> Result<()> {
            if path == Path::Decode {
                return decode_values(data, &mut done);
            }
            let position = Position::at(file, at.pos, at.next_pos, &raw.header);
            let mut info = None;
            if path == Path::Debezium {
                info = describe(&mut catalog, &mut described, file, at.pos, data)?;
            }
            let Some(change) = builder.on_event(position, data, info.as_deref()) else {
                return Ok(());
            };
            if path == Path::Tail {
                tail.encode(&change, &mut lines)?;
                done.output_bytes += lines.len() as u64;
                done.add(lines.len() as u64 ^ u64::from(lines.last().copied().unwrap_or(0)));
                lines.clear();
            } else if path == Path::Debezium {
                debezium.encode(&change, &mut debezium_records)?;
                for r in debezium_records.drain(..) {
                    let value = r.value.as_deref().unwrap_or("");
                    let key = r.key.as_deref().unwrap_or("");
                    done.output_bytes += (value.len() + key.len()) as u64;
                    done.add(value.len() as u64 ^ (key.len() as u64) << 32);
                }
            } else {
                if let ChangeEvent::Rows(rows) = &change {
                    // As the server builds a rows event's entry: serialised
                    // in place, on a thread of its pool.
                    let (_, bytes) =
                        CanalEncoder::serialised_rows_entry_on_this_thread(false, rows)?;
                    serialised.push(bytes);
                } else {
                    canal.encode(&change, &mut entries)?;
                    for built in entries.drain(..) {
                        serialised.push(built.entry.encode_to_vec().into());
                    }
                }
                for bytes in serialised.drain(..) {
                    done.output_bytes += bytes.len() as u64;
                    done.add(bytes.len() as u64);
                    if path == Path::Mq {
                        batch.push(bytes);
                    }
                }
                if path == Path::Mq {
                    router.messages(1, &batch, 0, &mut records)?;
                    for r in records.drain(..) {
                        done.output_bytes += r.payload.len() as u64;
                        done.add(r.payload.len() as u64 ^ r.partition.unwrap_or(-1) as u64);
                    }
                    batch.clear();
                }
            }
            Ok(())
        };
        if let Err(e) = step() {
            failed = Some(e.context(format!("{file}:{}", at.pos)));
            return ControlFlow::Break(());
        }
        if at.next_pos >= end {
            ControlFlow::Break(())
        } else {
            ControlFlow::Continue(())
        }
    });
    if let Some(e) = failed {
        return Err(e);
    }
    walked?;
    Ok(done)
}

/// For the Debezium path: applies a statement's DDL to `catalog`, and gives
/// a rows event's table the column descriptions the schema tracker would.
fn describe(
    catalog: &mut Catalog,
    described: &mut HashMap<(String, String), Arc<[ColumnInfo]>>,
    file: &str,
    pos: u64,
    data: &EventData<'_>,
) -> Result<Option<Arc<[ColumnInfo]>>> {
    match data {
        EventData::Query(q) => {
            let ctx = ApplyContext {
                current_db: String::from_utf8_lossy(q.schema).into_owned(),
                server_collation: None,
                lex: LexOptions::default(),
            };
            let sql = q.query_text();
            if !matches!(sql.trim(), "BEGIN" | "COMMIT") {
                // Statements that are not DDL change nothing.
                let _ = catalog.apply_ddl(&ctx, &sql, &BinlogPosition::new(file, pos));
                described.clear();
            }
            Ok(None)
        }
        EventData::Rows(ev) => {
            let name = (ev.table.schema.clone(), ev.table.table.clone());
            if let Some(info) = described.get(&name) {
                return Ok(Some(Arc::clone(info)));
            }
            let Some(t) = catalog.table(&name.0, &name.1) else {
                return Ok(None);
            };
            let info = sluice_instance::schema_hook::column_infos(t);
            described.insert(name, Arc::clone(&info));
            Ok(Some(info))
        }
        _ => Ok(None),
    }
}

fn decode_values(data: &EventData<'_>, done: &mut Done) -> Result<()> {
    let EventData::Rows(ev) = data else {
        return Ok(());
    };
    for row in ev.rows() {
        let row = row?;
        for image in [&row.before, &row.after].into_iter().flatten() {
            for cell in image.cells() {
                match cell? {
                    Cell::Present(Value::Null) => done.add(1),
                    Cell::Present(v) => {
                        std::hint::black_box(&v);
                        done.add(2)
                    }
                    Cell::Absent => done.add(3),
                }
            }
        }
    }
    Ok(())
}
