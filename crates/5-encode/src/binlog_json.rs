//! `sluice binlog decode`'s JSON lines: one object per binlog event, with
//! its position, header fields and what its type carries (format in the
//! README). Pure: an event in, its line's bytes out.
//!
//! Rows and SQL of a big event are written as they are rendered rather than
//! built in memory first, so a value of a gigabyte is never copied whole.

use std::io::Write;

use serde_json::{json, Map, Value as Json};
use sluice_binlog::events::{EventData, GtidEvent, MariadbGtidEvent, PayloadEvent};
use sluice_binlog::{
    Cell, DecodeError, EventPosition, FormatDescription, RawEvent, RowImage, RowsEvent, RowsKind,
    TableMap,
};

use crate::tail::write_json_str;

/// An event whose rows or SQL take more bytes than this is written as it is
/// rendered, after a first pass that only checks it renders, rather than
/// built in memory first.
const STREAM_ABOVE: usize = 1 << 20;

/// Why an event's line could not be made.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Decode(#[from] DecodeError),
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error(transparent)]
    Json(#[from] serde_json::Error),
}

/// An event that could not be written: its line did not render (the
/// event's place and type are named), or the output failed.
#[derive(Debug, thiserror::Error)]
pub enum EventJsonError {
    #[error("{file}:{pos}: {event}")]
    Event {
        file: String,
        pos: u64,
        event: &'static str,
        #[source]
        source: RenderError,
    },
    #[error("writing the output")]
    Output(#[source] RenderError),
}

/// Writes events as JSON lines, reusing its buffers event to event.
#[derive(Debug, Default)]
pub struct BinlogJson {
    line: Vec<u8>,
    scratch: String,
}

impl BinlogJson {
    pub fn new() -> Self {
        Self::default()
    }

    /// Writes one event's line, ended by `\n`, to `out`. An error leaves
    /// `out` as it was unless the output itself failed: the event is
    /// rendered into a buffer first, or (when big) rendered once to check it
    /// before being written out as it renders.
    pub fn write_event(
        &mut self,
        out: &mut impl Write,
        file: &str,
        at: &EventPosition,
        raw: &RawEvent<'_>,
        data: &EventData<'_>,
    ) -> Result<(), EventJsonError> {
        let in_event = |source: RenderError| EventJsonError::Event {
            file: file.to_string(),
            pos: at.pos,
            event: raw.header.event_type.name(),
            source,
        };
        let (head, streamed) = event_json(file, at, raw, data).map_err(in_event)?;
        let scratch = &mut self.scratch;
        match streamed {
            None => {
                serde_json::to_writer(&mut *out, &Json::Object(head))
                    .map_err(|e| EventJsonError::Output(e.into()))?;
            }
            Some(body) if body.size() > STREAM_ABOVE => {
                write_line(&mut std::io::sink(), &head, &body, scratch).map_err(in_event)?;
                write_line(out, &head, &body, scratch).map_err(EventJsonError::Output)?;
            }
            Some(body) => {
                self.line.clear();
                write_line(&mut self.line, &head, &body, scratch).map_err(in_event)?;
                out.write_all(&self.line)
                    .map_err(|e| EventJsonError::Output(e.into()))?;
            }
        }
        out.write_all(b"\n")
            .map_err(|e| EventJsonError::Output(e.into()))
    }
}

/// The part of an event's line that can be large, written in pieces.
enum Streamed<'e> {
    /// `rows` of a rows event.
    Rows(&'e RowsEvent<'e>),
    /// `sql` of a QUERY event, then the fields that follow it.
    Sql(&'e [u8], Map<String, Json>),
}

impl Streamed<'_> {
    fn size(&self) -> usize {
        match self {
            Streamed::Rows(r) => r.rows_data().len(),
            Streamed::Sql(q, _) => q.len(),
        }
    }
}

/// `head`'s fields, then the streamed field (and those after it), as one
/// JSON object, without the line's end.
fn write_line(
    w: &mut dyn Write,
    head: &Map<String, Json>,
    body: &Streamed<'_>,
    scratch: &mut String,
) -> Result<(), RenderError> {
    let mut start = serde_json::to_vec(head)?;
    start.pop(); // the closing brace
    w.write_all(&start)?;
    if !head.is_empty() {
        w.write_all(b",")?;
    }
    match body {
        Streamed::Rows(r) => {
            w.write_all(b"\"rows\":")?;
            write_rows(w, r, scratch)?;
            w.write_all(b"}")?;
        }
        Streamed::Sql(sql, tail) => {
            w.write_all(b"\"sql\":\"")?;
            // Invalid UTF-8 as U+FFFD, as String::from_utf8_lossy gives it.
            for chunk in sql.utf8_chunks() {
                write_json_str(w, chunk.valid())?;
                if !chunk.invalid().is_empty() {
                    write_json_str(w, "\u{fffd}")?;
                }
            }
            w.write_all(b"\"")?;
            let rest = serde_json::to_vec(tail)?;
            match rest.get(1..) {
                Some(fields) if rest.len() > 2 => {
                    w.write_all(b",")?;
                    w.write_all(fields)?;
                }
                _ => w.write_all(b"}")?,
            }
        }
    }
    Ok(())
}

/// `[{"before": [...], "after": [...]}, ...]` (see the README).
fn write_rows(
    w: &mut dyn Write,
    r: &RowsEvent<'_>,
    scratch: &mut String,
) -> Result<(), RenderError> {
    w.write_all(b"[")?;
    for (k, row) in r.rows().enumerate() {
        let row = row?;
        w.write_all(if k == 0 { b"{" } else { b",{" })?;
        let mut first = true;
        for (key, img) in [("before", &row.before), ("after", &row.after)] {
            if let Some(img) = img {
                if !first {
                    w.write_all(b",")?;
                }
                first = false;
                write_image(w, &r.table, img, key, scratch)?;
            }
        }
        w.write_all(b"}")?;
    }
    w.write_all(b"]")?;
    Ok(())
}

/// `"KEY":[values]`, then `"absent_KEY"` and `"partial_KEY"` when there are
/// such columns: written as it renders.
fn write_image(
    w: &mut dyn Write,
    t: &TableMap,
    img: &RowImage<'_>,
    key: &str,
    scratch: &mut String,
) -> Result<(), RenderError> {
    let mut absent = Vec::new();
    let mut partial = Vec::new();
    write!(w, "\"{key}\":[")?;
    for (i, cell) in img.cells().enumerate() {
        if i > 0 {
            w.write_all(b",")?;
        }
        match cell? {
            Cell::Absent => {
                absent.push(i);
                w.write_all(b"null")?;
            }
            Cell::Present(v) if v.is_null() => w.write_all(b"null")?,
            Cell::Present(v) => {
                if v.is_partial_json() {
                    partial.push(i);
                }
                w.write_all(b"\"")?;
                v.render_pieces::<RenderError>(&t.columns[i], scratch, &mut |piece| {
                    write_json_str(w, piece).map_err(RenderError::from)
                })?;
                w.write_all(b"\"")?;
            }
        }
    }
    w.write_all(b"]")?;
    for (name, list) in [("absent", &absent), ("partial", &partial)] {
        if !list.is_empty() {
            write!(w, ",\"{name}_{key}\":")?;
            serde_json::to_writer(&mut *w, list)?;
        }
    }
    Ok(())
}

/// The fields of an event's line, and the part written in pieces, if any.
fn event_json<'e>(
    file: &str,
    at: &EventPosition,
    raw: &RawEvent<'_>,
    data: &'e EventData<'e>,
) -> Result<(Map<String, Json>, Option<Streamed<'e>>), RenderError> {
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
        EventData::FormatDescription(f) | EventData::StartV3(f) => format_fields(&mut o, f),
        EventData::Query(q) => {
            o.insert("schema".into(), text(q.schema));
            let mut tail = Map::new();
            tail.insert("thread_id".into(), json!(q.thread_id));
            tail.insert("exec_time".into(), json!(q.exec_time));
            tail.insert("error_code".into(), json!(q.error_code));
            return Ok((o, Some(Streamed::Sql(&q.query, tail))));
        }
        EventData::Xid(x) => {
            o.insert("xid".into(), json!(x));
        }
        EventData::Rotate(r) => {
            o.insert("next_file".into(), text(r.next_file));
            o.insert("position".into(), json!(r.position));
        }
        EventData::Stop => {}
        EventData::Intvar { .. } | EventData::Rand { .. } | EventData::UserVar(_) => {
            variable_fields(&mut o, data)
        }
        EventData::Heartbeat(hb) => {
            o.insert("log_file".into(), text(hb.log_file));
            o.insert(
                "position".into(),
                json!(hb.position.unwrap_or(h.log_pos as u64)),
            );
        }
        EventData::TableMap(t) => table_map_fields(&mut o, t),
        EventData::Rows(r) => {
            let t = &r.table;
            o.insert("table_id".into(), json!(r.table_id));
            o.insert("db".into(), json!(t.schema));
            o.insert("table".into(), json!(t.table));
            o.insert("columns".into(), column_names(t));
            if r.kind == RowsKind::PartialUpdate {
                o.insert("partial_json".into(), json!(true));
            }
            return Ok((o, Some(Streamed::Rows(r))));
        }
        EventData::Gtid(g) => gtid_fields(&mut o, g),
        EventData::PreviousGtids(s) => {
            o.insert("gtid_set".into(), json!(s.to_string()));
        }
        EventData::TransactionPayload(p) => payload_fields(&mut o, p),
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
        EventData::MariadbGtid(g) => mariadb_gtid_fields(&mut o, g),
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
    Ok((o, None))
}

/// A FORMAT_DESCRIPTION (or START_V3) event's fields.
fn format_fields(o: &mut Map<String, Json>, f: &FormatDescription) {
    o.insert("binlog_version".into(), json!(f.binlog_version));
    o.insert("server_version".into(), json!(f.server_version));
    o.insert(
        "checksum".into(),
        json!(format!("{:?}", f.checksum).to_uppercase()),
    );
}

/// An INTVAR, RAND or USER_VAR event's fields (other events: none).
fn variable_fields(o: &mut Map<String, Json>, data: &EventData<'_>) {
    match data {
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
        _ => {}
    }
}

/// A TABLE_MAP event's fields.
fn table_map_fields(o: &mut Map<String, Json>, t: &TableMap) {
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

/// A MySQL GTID event's fields.
fn gtid_fields(o: &mut Map<String, Json>, g: &GtidEvent) {
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

/// A TRANSACTION_PAYLOAD event's fields.
fn payload_fields(o: &mut Map<String, Json>, p: &PayloadEvent<'_>) {
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

/// A MariaDB GTID event's fields.
fn mariadb_gtid_fields(o: &mut Map<String, Json>, g: &MariadbGtidEvent<'_>) {
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

fn xid_text(x: &sluice_binlog::events::XaPrepareEvent<'_>) -> String {
    let mut s = String::new();
    sluice_binlog::value::push_hex(x.gtrid, &mut s);
    s.push(',');
    sluice_binlog::value::push_hex(x.bqual, &mut s);
    s.push(',');
    s.push_str(&x.format_id.to_string());
    s
}

fn text(b: &[u8]) -> Json {
    Json::String(String::from_utf8_lossy(b).into_owned())
}

/// Column names from the binlog, or `@1`, `@2`… when it does not carry them.
fn column_names(t: &TableMap) -> Json {
    Json::Array(
        t.columns
            .iter()
            .enumerate()
            .map(|(i, c)| match &c.name {
                Some(n) => json!(n),
                None => json!(format!("@{}", i + 1)),
            })
            .collect(),
    )
}
