//! Shared pieces of the fuzz targets in `fuzz_targets/`: decoding everything
//! a decoded event offers (every row, every cell, every rendered value), the
//! real format descriptions the event-level target starts from, and the
//! layouts of the structured inputs (also written by `examples/seed_corpus.rs`,
//! which seeds the corpora from real binlog files).

use std::hint::black_box;
use std::sync::OnceLock;

use sluice_binlog::events::EventData;
use sluice_binlog::{
    Cell, ChecksumAlg, Decoder, EventFramer, EventHeader, EventType, FormatDescription, RawEvent,
    RowsEvent, BINLOG_MAGIC,
};

/// The ceiling on inflated event content while fuzzing (every target sets
/// it): above any real event of the seeds, and low enough that inputs
/// inflating to it stay fast.
pub const FUZZ_MAX_EVENT: usize = 16 << 20;

pub fn limit_inflation() {
    sluice_binlog::compression::set_max_uncompressed(FUZZ_MAX_EVENT);
}

/// Decodes what a decoded event leaves undecoded: every row image, every
/// cell, every value rendered as text; table metadata; GTIDs as text.
pub fn exercise(data: &EventData<'_>) {
    match data {
        EventData::Rows(ev) => exercise_rows(ev),
        EventData::TableMap(tm) => {
            black_box(tm.column_names());
            for c in &tm.columns {
                black_box((c.column_type.sql_name(), c.charset(), c.is_primary_key()));
            }
        }
        EventData::Query(q) => {
            black_box(q.query_text());
            black_box(q.schema_text());
        }
        EventData::PreviousGtids(set) => {
            black_box(set.to_string());
        }
        EventData::Gtid(g) => {
            black_box(g.gtid.to_string());
        }
        EventData::MariadbGtid(g) => {
            black_box(g.gtid.to_string());
        }
        EventData::MariadbGtidList(list) => {
            for g in list {
                black_box(g.to_string());
            }
        }
        _ => {}
    }
}

/// Every row, every image, every cell; present values rendered.
pub fn exercise_rows(ev: &RowsEvent<'_>) {
    black_box(ev.is_statement_end());
    let mut out = String::new();
    let mut pieces = String::new();
    let mut scratch = String::new();
    for row in ev.rows() {
        // Both iterators end by themselves after an error they cannot resume from.
        let Ok(row) = row else { continue };
        for image in [&row.before, &row.after].into_iter().flatten() {
            black_box(image.is_full());
            let columns = &image.table().columns;
            let mut n = 0;
            for (i, cell) in image.cells().enumerate() {
                n += 1;
                match cell {
                    Ok(Cell::Present(v)) => {
                        out.clear();
                        let whole = v.render(&columns[i], &mut out);
                        // Rendered in pieces, the same text (or the same failure).
                        pieces.clear();
                        let in_pieces = v.render_pieces::<sluice_binlog::DecodeError>(
                            &columns[i],
                            &mut scratch,
                            &mut |p| {
                                pieces.push_str(p);
                                Ok(())
                            },
                        );
                        assert_eq!(whole.is_ok(), in_pieces.is_ok(), "{v:?}");
                        if whole.is_ok() {
                            assert_eq!(out, pieces, "{v:?}");
                            black_box(&out);
                        }
                    }
                    Ok(Cell::Absent) => assert!(!image.is_present(i)),
                    Err(_) => {}
                }
            }
            assert!(n <= columns.len(), "more cells than columns");
        }
    }
}

/// Frames and decodes every event of a binlog file like
/// [`sluice_binlog::walk_file`], but without verifying CRC32 checksums (so
/// mutated events get past framing) and carrying on after an event that fails
/// to decode. Events inside TRANSACTION_PAYLOAD_EVENTs are decoded too.
pub fn walk_unverified(buf: &[u8]) {
    limit_inflation();
    let Ok(framer) = EventFramer::for_file(buf) else {
        return;
    };
    let mut decoder = Decoder::new();
    for raw in framer.without_checksum_verification() {
        let Ok(raw) = raw else { return };
        assert!(raw.next_pos() <= buf.len() as u64, "event past the end");
        let Ok(data) = decoder.decode(&raw) else {
            continue;
        };
        exercise(&data);
        match &data {
            EventData::StartEncryption { .. } => return,
            EventData::TransactionPayload(p) => {
                let Ok(inner) = p.decompress() else { continue };
                let mut format = decoder.format().clone();
                format.checksum = ChecksumAlg::None;
                let mut inner_decoder = decoder.clone();
                for iev in EventFramer::for_events(&inner, format, raw.pos) {
                    let Ok(iev) = iev else { break };
                    if let Ok(idata) = inner_decoder.decode(&iev) {
                        exercise(&idata);
                    }
                }
                decoder = inner_decoder;
            }
            _ => {}
        }
    }
}

/// A format description as a real server wrote it: the event-level target
/// prefixes its input with one of these (after the magic bytes).
#[derive(Debug, Clone, Copy)]
pub struct KnownFormat {
    pub server_version: &'static str,
    /// Checksum algorithm byte; `None` for servers older than checksums
    /// (MySQL < 5.6.1), whose FDE has no algorithm byte at all.
    pub checksum: Option<u8>,
    /// Post-header length per event type (`type_code - 1`), as written.
    pub post_header_lens: &'static [u8],
}

const MYSQL_80_LENS: &[u8] = &[
    0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 98, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0, 10,
    10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0,
];
const MYSQL_57_LENS: &[u8] = &[
    56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 95, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0, 0,
    10, 10, 10, 42, 42, 0, 18, 52, 0,
];
const MARIADB_100_LENS: &[u8] = &{
    let mut l = [0u8; 163];
    let head: [u8; 32] = [
        56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 220, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0,
        0, 10, 10, 10,
    ];
    let mut i = 0;
    while i < head.len() {
        l[i] = head[i];
        i += 1;
    }
    // BINLOG_CHECKPOINT, GTID, GTID_LIST (types 161-163).
    l[160] = 4;
    l[161] = 19;
    l[162] = 4;
    l
};
const MARIADB_105_LENS: &[u8] = &{
    let mut l = [0u8; 171];
    let mut i = 0;
    while i < MARIADB_100_LENS.len() {
        l[i] = MARIADB_100_LENS[i];
        i += 1;
    }
    l[14] = 228;
    // START_ENCRYPTION, QUERY_COMPRESSED, then the compressed rows events (types 164-171).
    let tail: [u8; 8] = [0, 13, 8, 8, 8, 10, 10, 10];
    let mut j = 0;
    while j < tail.len() {
        l[163 + j] = tail[j];
        j += 1;
    }
    l
};

/// Format descriptions from the binlog corpus (one per distinct layout that
/// matters: server family, checksum, post-header lengths). The 8.0 NONE
/// entry is the 8.0 one with checksums off, which no corpus file has.
pub const FORMATS: &[KnownFormat] = &[
    KnownFormat {
        server_version: "8.0.40",
        checksum: Some(1),
        post_header_lens: MYSQL_80_LENS,
    },
    KnownFormat {
        server_version: "8.0.40",
        checksum: Some(0),
        post_header_lens: MYSQL_80_LENS,
    },
    KnownFormat {
        server_version: "9.6.0",
        checksum: Some(1),
        post_header_lens: &[
            0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 99, 0, 4, 26, 8, 0, 0, 0, 0, 0, 0, 2, 0, 0,
            0, 10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40, 0, 0,
        ],
    },
    KnownFormat {
        server_version: "8.0.26",
        checksum: Some(1),
        post_header_lens: &[
            0, 13, 0, 8, 0, 0, 0, 0, 4, 0, 4, 0, 0, 0, 97, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0, 0,
            0, 10, 10, 10, 42, 42, 0, 18, 52, 0, 10, 40,
        ],
    },
    KnownFormat {
        server_version: "5.7.21-log",
        checksum: Some(1),
        post_header_lens: MYSQL_57_LENS,
    },
    KnownFormat {
        server_version: "5.7.20-log",
        checksum: Some(0),
        post_header_lens: MYSQL_57_LENS,
    },
    KnownFormat {
        server_version: "5.6.35-log",
        checksum: Some(1),
        post_header_lens: &[
            56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 92, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0,
            0, 0, 10, 10, 10, 25, 25, 0,
        ],
    },
    KnownFormat {
        server_version: "5.6.4-m7-debug-log",
        checksum: Some(0),
        post_header_lens: &[
            56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 89, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0,
            0, 0, 10, 10, 10,
        ],
    },
    KnownFormat {
        server_version: "5.5.27-log",
        checksum: None,
        post_header_lens: &[
            56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 84, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2, 0,
        ],
    },
    KnownFormat {
        server_version: "5.1.43-debug-log",
        checksum: None,
        post_header_lens: &[
            56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 83, 0, 4, 26, 8, 0, 0, 0, 8, 8, 8, 2,
        ],
    },
    KnownFormat {
        server_version: "5.2.2-a_drop6p13-debug-log",
        checksum: None,
        post_header_lens: &[
            56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 79, 6, 6, 6, 6, 0, 4, 26,
        ],
    },
    KnownFormat {
        server_version: "5.0.86-debug-log",
        checksum: None,
        post_header_lens: &[56, 13, 0, 8, 0, 18, 0, 4, 4, 4, 4, 18, 0, 0, 75, 0, 4, 26],
    },
    KnownFormat {
        server_version: "10.5.15-MariaDB-log",
        checksum: Some(1),
        post_header_lens: MARIADB_105_LENS,
    },
    KnownFormat {
        server_version: "10.0.15-MariaDB-log",
        checksum: Some(0),
        post_header_lens: MARIADB_100_LENS,
    },
];

impl KnownFormat {
    /// The FORMAT_DESCRIPTION_EVENT, header included. Its checksum slot holds
    /// zeros: the event-level target does not verify checksums.
    pub fn event_bytes(&self) -> Vec<u8> {
        let mut body = Vec::with_capacity(64 + self.post_header_lens.len());
        body.extend(4u16.to_le_bytes());
        let mut version = [0u8; 50];
        version[..self.server_version.len()].copy_from_slice(self.server_version.as_bytes());
        body.extend(version);
        body.extend(0u32.to_le_bytes());
        body.push(19);
        body.extend(self.post_header_lens);
        if let Some(alg) = self.checksum {
            body.push(alg);
            body.extend([0u8; 4]);
        }
        let size = 19 + body.len() as u32;
        let mut ev = Vec::with_capacity(size as usize);
        ev.extend(0u32.to_le_bytes());
        ev.push(EventType::FORMAT_DESCRIPTION.0);
        ev.extend(1u32.to_le_bytes());
        ev.extend(size.to_le_bytes());
        ev.extend((4 + size).to_le_bytes());
        ev.extend(0u16.to_le_bytes());
        ev.extend(body);
        ev
    }

    pub fn checksum_alg(&self) -> ChecksumAlg {
        match self.checksum {
            Some(1) => ChecksumAlg::Crc32,
            _ => ChecksumAlg::None,
        }
    }

    pub fn is_mariadb(&self) -> bool {
        self.server_version.contains("MariaDB")
    }
}

/// Magic bytes and the FDE of `FORMATS[selector % FORMATS.len()]`.
pub fn file_prefix(selector: u8) -> &'static [u8] {
    static PREFIXES: OnceLock<Vec<Vec<u8>>> = OnceLock::new();
    let all = PREFIXES.get_or_init(|| {
        FORMATS
            .iter()
            .map(|f| {
                let mut v = BINLOG_MAGIC.to_vec();
                v.extend(f.event_bytes());
                v
            })
            .collect()
    });
    &all[selector as usize % all.len()]
}

/// The entry of [`FORMATS`] closest to a file's format description: same
/// checksum algorithm and server family; the same server version if there is
/// one (versions can change how event types are numbered), else the most
/// post-header lengths in common.
pub fn closest_format(f: &FormatDescription) -> Option<u8> {
    let candidates = FORMATS
        .iter()
        .enumerate()
        .filter(|(_, k)| k.checksum_alg() == f.checksum && k.is_mariadb() == f.is_mariadb());
    if let Some((i, _)) = candidates
        .clone()
        .find(|(_, k)| k.server_version == f.server_version)
    {
        return Some(i as u8);
    }
    candidates
        .max_by_key(|(_, k)| {
            let a = k.post_header_lens;
            let b = &f.post_header_lens;
            // Index 14 is the FDE's own post-header length, which every version changes.
            let same = (0..a.len().min(b.len()))
                .filter(|&i| i != 14 && a[i] == b[i])
                .count() as i64;
            (same, -(a.len().abs_diff(b.len()) as i64))
        })
        .map(|(i, _)| i as u8)
}

/// Event types with a rows layout; a `rows` input's type byte that is not
/// one of them is mapped onto them.
pub const ROWS_TYPES: [u8; 16] = [
    20, 21, 22, 23, 24, 25, 30, 31, 32, 39, 166, 167, 168, 169, 170, 171,
];

/// Input of the `rows` target:
/// `[rows type][TABLE_MAP post-header len][rows post-header len][u16 LE n][n bytes: TABLE_MAP body][rows body]`.
#[derive(Debug, Clone, Copy)]
pub struct RowsInput<'a> {
    pub rows_type: u8,
    pub table_map_post_header: u8,
    pub rows_post_header: u8,
    pub table_map: &'a [u8],
    pub rows: &'a [u8],
}

impl<'a> RowsInput<'a> {
    pub fn parse(data: &'a [u8]) -> Option<Self> {
        let (head, rest) = data.split_at_checked(5)?;
        let n = u16::from_le_bytes([head[3], head[4]]) as usize;
        let (table_map, rows) = rest.split_at(n.min(rest.len()));
        Some(RowsInput {
            rows_type: head[0],
            table_map_post_header: head[1],
            rows_post_header: head[2],
            table_map,
            rows,
        })
    }

    pub fn encode(&self) -> Option<Vec<u8>> {
        let n = u16::try_from(self.table_map.len()).ok()?;
        let mut v = vec![
            self.rows_type,
            self.table_map_post_header,
            self.rows_post_header,
        ];
        v.extend(n.to_le_bytes());
        v.extend(self.table_map);
        v.extend(self.rows);
        Some(v)
    }

    /// Decodes the table map, then the rows event against it (its table id
    /// set to the table map's), then every row and cell.
    pub fn decode(&self) {
        limit_inflation();
        let t = if EventType(self.rows_type).rows_layout().is_some() {
            self.rows_type
        } else {
            ROWS_TYPES[self.rows_type as usize % ROWS_TYPES.len()]
        };
        let mut lens = vec![0u8; 171];
        lens[EventType::TABLE_MAP.0 as usize - 1] = self.table_map_post_header;
        lens[t as usize - 1] = self.rows_post_header;
        let mut decoder = Decoder::with_format(FormatDescription {
            post_header_lens: lens,
            ..FormatDescription::default()
        });
        let tm_event = event(EventType::TABLE_MAP, self.table_map);
        let Ok(EventData::TableMap(tm)) = decoder.decode(&raw(&tm_event, 4)) else {
            return;
        };
        exercise(&EventData::TableMap(tm.clone()));
        let mut rows_event = event(EventType(t), self.rows);
        let id_len = if self.rows_post_header == 6 { 4 } else { 6 };
        if let Some(id) = rows_event.get_mut(19..19 + id_len) {
            id.copy_from_slice(&tm.table_id.to_le_bytes()[..id_len]);
        }
        let at = 4 + tm_event.len() as u64;
        if let Ok(data) = decoder.decode(&raw(&rows_event, at)) {
            exercise(&data);
        }
    }
}

/// A v4 event: common header and body, no checksum.
fn event(t: EventType, body: &[u8]) -> Vec<u8> {
    let size = (19 + body.len()) as u32;
    let mut ev = Vec::with_capacity(size as usize);
    ev.extend(0u32.to_le_bytes());
    ev.push(t.0);
    ev.extend(1u32.to_le_bytes());
    ev.extend(size.to_le_bytes());
    ev.extend(0u32.to_le_bytes());
    ev.extend(0u16.to_le_bytes());
    ev.extend(body);
    ev
}

fn raw(ev: &[u8], pos: u64) -> RawEvent<'_> {
    RawEvent {
        pos,
        header: EventHeader::parse(ev, 19).expect("a header built above"),
        body: &ev[19..],
        bytes: ev,
    }
}

/// Input of the `json` target: `[0]` + binary JSON to render, or
/// `[1][u16 LE n][n bytes: binary JSON before image][partial-update diff]`.
pub fn json_input(data: &[u8]) {
    let Some((&mode, rest)) = data.split_first() else {
        return;
    };
    if mode & 1 == 0 {
        let mut out = String::new();
        if sluice_binlog::json::render_json(rest, &mut out).is_ok() {
            black_box(&out);
        }
    } else {
        let Some((n, rest)) = rest.split_at_checked(2) else {
            return;
        };
        let n = u16::from_le_bytes([n[0], n[1]]) as usize;
        let (before, diff) = rest.split_at(n.min(rest.len()));
        let applied = sluice_binlog::json::apply_json_diff(before, diff);
        // Without a before image the diffs are kept and rendered as such.
        let diffs = sluice_binlog::json::JsonDiffs::parse(diff);
        if applied.is_ok() {
            assert!(diffs.is_ok(), "diffs that apply must parse: {diffs:?}");
        }
        if let Ok(d) = diffs {
            let mut out = String::new();
            d.render("@1", &mut out);
            black_box(out);
        }
        black_box(applied.ok());
    }
}

pub fn encode_json_render(bin: &[u8]) -> Vec<u8> {
    let mut v = vec![0];
    v.extend(bin);
    v
}

pub fn encode_json_diff(before: &[u8], diff: &[u8]) -> Option<Vec<u8>> {
    let n = u16::try_from(before.len()).ok()?;
    let mut v = vec![1];
    v.extend(n.to_le_bytes());
    v.extend(before);
    v.extend(diff);
    Some(v)
}
