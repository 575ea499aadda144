//! `sluice binlog decode`: events as JSON lines (format in the README).

use std::io::{BufWriter, Write};
use std::ops::ControlFlow;
use std::path::PathBuf;

use anyhow::{Context, Result};
use clap::Args;
use serde_json::{json, Map, Value as Json};
use sluice_binlog::events::EventData;
use sluice_binlog::{walk_file, BinlogFile, EventPosition, RawEvent, RowsKind};

use crate::render::{column_names, image_json, parse_event_size, text};

#[derive(Args)]
pub struct DecodeArgs {
    /// Binlog files, decoded in the order given.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,

    /// The largest size, in bytes, that a compressed event's content may
    /// inflate to (MariaDB compressed events, MySQL transaction payloads);
    /// a bigger one stops decoding with an error. Default 268435456 (256 MiB),
    /// at most 1073741824.
    #[arg(long, value_name = "BYTES", value_parser = parse_event_size)]
    pub max_event_size: Option<usize>,
}

pub fn run(args: &DecodeArgs) -> Result<()> {
    if let Some(n) = args.max_event_size {
        sluice_binlog::compression::set_max_uncompressed(n);
    }
    let stdout = std::io::stdout();
    let mut out = BufWriter::with_capacity(1 << 16, stdout.lock());
    for path in &args.files {
        let file = BinlogFile::open(path)
            .with_context(|| format!("cannot open binlog file {}", path.display()))?;
        let name = file.name();
        let mut write_error = None;
        let walked = walk_file(&name, file.bytes(), |at, raw, data| {
            match event_json(&name, at, raw, data) {
                Ok(obj) => {
                    if let Err(e) = serde_json::to_writer(&mut out, &obj)
                        .map_err(anyhow::Error::from)
                        .and_then(|_| out.write_all(b"\n").map_err(anyhow::Error::from))
                    {
                        write_error = Some(e);
                        return ControlFlow::Break(());
                    }
                    ControlFlow::Continue(())
                }
                Err(e) => {
                    write_error = Some(e.context(format!(
                        "{name}:{}: {}",
                        at.pos,
                        raw.header.event_type.name()
                    )));
                    ControlFlow::Break(())
                }
            }
        });
        out.flush().context("writing to standard output")?;
        if let Some(e) = write_error {
            return Err(e);
        }
        walked.with_context(|| {
            format!(
                "decoding stopped in {}; the events before the offset above were printed",
                path.display()
            )
        })?;
    }
    Ok(())
}

fn event_json(
    file: &str,
    at: &EventPosition,
    raw: &RawEvent<'_>,
    data: &EventData<'_>,
) -> Result<Json> {
    let h = &raw.header;
    let mut o = Map::new();
    o.insert("file".into(), json!(file));
    o.insert("pos".into(), json!(at.pos));
    o.insert("next_pos".into(), json!(at.next_pos));
    if let Some(i) = at.payload_index {
        o.insert("payload_index".into(), json!(i));
    }
    o.insert("event".into(), json!(h.event_type.name()));
    o.insert("server_id".into(), json!(h.server_id));
    o.insert("timestamp".into(), json!(h.timestamp));
    match data {
        EventData::FormatDescription(f) | EventData::StartV3(f) => {
            o.insert("binlog_version".into(), json!(f.binlog_version));
            o.insert("server_version".into(), json!(f.server_version));
            o.insert(
                "checksum".into(),
                json!(format!("{:?}", f.checksum).to_uppercase()),
            );
        }
        EventData::Query(q) => {
            o.insert("schema".into(), text(q.schema));
            o.insert("sql".into(), text(&q.query));
            o.insert("thread_id".into(), json!(q.thread_id));
            o.insert("exec_time".into(), json!(q.exec_time));
            o.insert("error_code".into(), json!(q.error_code));
        }
        EventData::Xid(x) => {
            o.insert("xid".into(), json!(x));
        }
        EventData::Rotate(r) => {
            o.insert("next_file".into(), text(r.next_file));
            o.insert("position".into(), json!(r.position));
        }
        EventData::Stop => {}
        EventData::Intvar { kind, value } => {
            o.insert(
                "kind".into(),
                json!(if *kind == 2 {
                    "INSERT_ID"
                } else {
                    "LAST_INSERT_ID"
                }),
            );
            o.insert("value".into(), json!(value.to_string()));
        }
        EventData::Rand { seed1, seed2 } => {
            o.insert("seed1".into(), json!(seed1.to_string()));
            o.insert("seed2".into(), json!(seed2.to_string()));
        }
        EventData::UserVar(u) => {
            o.insert("name".into(), text(u.name));
            o.insert(
                "value".into(),
                match &u.value {
                    None => Json::Null,
                    Some(v) if v.value_type == 0 => text(v.bytes),
                    Some(v) => {
                        let mut s = String::new();
                        sluice_binlog::value::push_hex(v.bytes, &mut s);
                        json!(s)
                    }
                },
            );
        }
        EventData::Heartbeat(hb) => {
            o.insert("log_file".into(), text(hb.log_file));
            o.insert(
                "position".into(),
                json!(hb.position.unwrap_or(h.log_pos as u64)),
            );
        }
        EventData::TableMap(t) => {
            o.insert("table_id".into(), json!(t.table_id));
            o.insert("db".into(), json!(t.schema));
            o.insert("table".into(), json!(t.table));
            o.insert("columns".into(), column_names(t));
            o.insert(
                "column_types".into(),
                json!(t
                    .columns
                    .iter()
                    .map(|c| c.column_type.sql_name())
                    .collect::<Vec<_>>()),
            );
        }
        EventData::Rows(r) => {
            let t = &r.table;
            o.insert("table_id".into(), json!(r.table_id));
            o.insert("db".into(), json!(t.schema));
            o.insert("table".into(), json!(t.table));
            o.insert("columns".into(), column_names(t));
            let mut rows = Vec::new();
            for row in r.rows() {
                let row = row?;
                let mut ro = Map::new();
                if let Some(img) = &row.before {
                    image_json(t, img, "before", &mut ro)?;
                }
                if let Some(img) = &row.after {
                    image_json(t, img, "after", &mut ro)?;
                }
                rows.push(Json::Object(ro));
            }
            if r.kind == RowsKind::PartialUpdate {
                o.insert("partial_json".into(), json!(true));
            }
            o.insert("rows".into(), Json::Array(rows));
        }
        EventData::Gtid(g) => {
            if g.anonymous {
                o.insert("gtid".into(), json!("ANONYMOUS"));
            } else {
                o.insert("gtid".into(), json!(g.gtid.to_string()));
            }
            if let Some(v) = g.last_committed {
                o.insert("last_committed".into(), json!(v));
            }
            if let Some(v) = g.sequence_number {
                o.insert("sequence_number".into(), json!(v));
            }
            if let Some(v) = g.immediate_commit_timestamp {
                o.insert("immediate_commit_timestamp".into(), json!(v));
            }
        }
        EventData::PreviousGtids(s) => {
            o.insert("gtid_set".into(), json!(s.to_string()));
        }
        EventData::TransactionPayload(p) => {
            o.insert(
                "compression".into(),
                json!(match p.compression {
                    0 => "ZSTD".to_string(),
                    255 => "NONE".to_string(),
                    n => n.to_string(),
                }),
            );
            o.insert("payload_size".into(), json!(p.payload.len()));
            if let Some(n) = p.uncompressed_size {
                o.insert("uncompressed_size".into(), json!(n));
            }
        }
        EventData::RowsQuery(q) => {
            o.insert("sql".into(), text(q));
        }
        EventData::Incident { kind, message } => {
            o.insert("incident".into(), json!(kind));
            o.insert("message".into(), text(message));
        }
        EventData::XaPrepare(x) => {
            o.insert("one_phase".into(), json!(x.one_phase));
            o.insert("xid".into(), json!(xid_text(x)));
        }
        EventData::MariadbGtid(g) => {
            o.insert("gtid".into(), json!(g.gtid.to_string()));
            o.insert("flags".into(), json!(g.flags));
            o.insert(
                "standalone".into(),
                json!(g.flags & sluice_binlog::events::mariadb_gtid_flags::STANDALONE != 0),
            );
            if let Some(c) = g.commit_id {
                o.insert("commit_id".into(), json!(c));
            }
            if let Some(x) = &g.xid {
                o.insert("xid".into(), json!(xid_text(x)));
            }
        }
        EventData::MariadbGtidList(l) => {
            o.insert(
                "gtid_list".into(),
                json!(l.iter().map(|g| g.to_string()).collect::<Vec<_>>()),
            );
        }
        EventData::BinlogCheckpoint(f) => {
            o.insert("binlog_file".into(), text(f));
        }
        EventData::StartEncryption {
            scheme,
            key_version,
        } => {
            o.insert("scheme".into(), json!(scheme));
            o.insert("key_version".into(), json!(key_version));
        }
        EventData::Other(b) | EventData::Ignorable(b) => {
            o.insert("body_size".into(), json!(b.len()));
        }
    }
    Ok(Json::Object(o))
}

fn xid_text(x: &sluice_binlog::events::XaPrepareEvent<'_>) -> String {
    let mut s = String::new();
    sluice_binlog::value::push_hex(x.gtrid, &mut s);
    s.push(',');
    sluice_binlog::value::push_hex(x.bqual, &mut s);
    s.push(',');
    s.push_str(&x.format_id.to_string());
    s
}
