//! Borrowed readers of serialised Canal entries: the fields of an `Entry`,
//! its `Header`, a `RowChange`, its `RowData`s and their `Column`s, read in
//! place from the bytes, without building [`crate::proto`] structs.
//!
//! Why by hand: an MQ worker turns every entry of the store back into rows
//! (FlatMessage JSON, partition hashes). Decoding with prost allocates a
//! `String` per column name, value and type and a `Vec` per row — about
//! four µs per row of twenty columns, more than building the entry took.
//! These readers allocate nothing; they read the same wire format prost
//! writes (proto2, the fields of `proto.rs`), skip fields they do not know,
//! and refuse malformed input with an error, never a panic.

/// Why bytes are not a well-formed message.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("malformed Canal {message} at byte {at}: {reason}")]
pub struct ViewError {
    pub message: &'static str,
    pub at: usize,
    pub reason: &'static str,
}

/// One field's payload on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Wire<'a> {
    Varint(u64),
    Fixed64,
    Bytes(&'a [u8]),
    Fixed32,
}

/// The fields of one message, in wire order. The first malformed field
/// ends the walk and is kept in `failed`: callers read every field with
/// plain values and ask [`finish`](Self::finish) once, which keeps the loop
/// free of `Result`s (this walk is most of an MQ worker's reading).
#[derive(Debug, Clone)]
struct Fields<'a> {
    message: &'static str,
    buf: &'a [u8],
    pos: usize,
    failed: Option<ViewError>,
}

impl<'a> Fields<'a> {
    fn new(message: &'static str, buf: &'a [u8]) -> Fields<'a> {
        Fields {
            message,
            buf,
            pos: 0,
            failed: None,
        }
    }

    /// Records the first error; the walk stops there.
    #[cold]
    fn fail(&mut self, reason: &'static str) {
        if self.failed.is_none() {
            self.failed = Some(ViewError {
                message: self.message,
                at: self.pos,
                reason,
            });
        }
        self.pos = self.buf.len();
    }

    /// `Ok` when every field read well.
    fn finish(self) -> Result<(), ViewError> {
        match self.failed {
            None => Ok(()),
            Some(e) => Err(e),
        }
    }

    #[inline(always)]
    fn varint(&mut self) -> Option<u64> {
        // Most keys, lengths and flags are one byte.
        if let Some(&b) = self.buf.get(self.pos) {
            if b < 0x80 {
                self.pos += 1;
                return Some(u64::from(b));
            }
        }
        self.varint_slow()
    }

    #[cold]
    fn varint_slow(&mut self) -> Option<u64> {
        let mut v = 0u64;
        for shift in (0..64).step_by(7) {
            let Some(&b) = self.buf.get(self.pos) else {
                self.fail("truncated varint");
                return None;
            };
            self.pos += 1;
            v |= u64::from(b & 0x7f) << shift;
            if b < 0x80 {
                return Some(v);
            }
        }
        self.fail("varint longer than 10 bytes");
        None
    }

    #[inline]
    fn take(&mut self, n: u64) -> Option<&'a [u8]> {
        let rest = self.buf.len() - self.pos;
        if n > rest as u64 {
            self.fail("field longer than its message");
            return None;
        }
        let bytes = &self.buf[self.pos..self.pos + n as usize];
        self.pos += n as usize;
        Some(bytes)
    }

    /// The next field, `None` at the end of the message or at the first
    /// malformed field (see [`finish`](Self::finish)).
    #[inline(always)]
    fn next_field(&mut self) -> Option<(u32, Wire<'a>)> {
        if self.pos >= self.buf.len() {
            return None;
        }
        let key = self.varint()?;
        let field = (key >> 3) as u32;
        if field == 0 {
            self.fail("field number 0");
            return None;
        }
        let wire = match key & 7 {
            0 => Wire::Varint(self.varint()?),
            2 => {
                let len = self.varint()?;
                Wire::Bytes(self.take(len)?)
            }
            1 => {
                self.take(8)?;
                Wire::Fixed64
            }
            5 => {
                self.take(4)?;
                Wire::Fixed32
            }
            _ => {
                self.fail("unsupported wire type");
                return None;
            }
        };
        Some((field, wire))
    }

    /// An integer field's value (0, and the walk failed, for another wire type).
    #[inline]
    fn int(&mut self, wire: Wire<'a>) -> u64 {
        match wire {
            Wire::Varint(v) => v,
            _ => {
                self.fail("an integer field is not a varint");
                0
            }
        }
    }

    /// A string or message field's bytes (empty, and the walk failed, for
    /// another wire type).
    #[inline]
    fn bytes(&mut self, wire: Wire<'a>) -> &'a [u8] {
        match wire {
            Wire::Bytes(b) => b,
            _ => {
                self.fail("a string or message field is not length-delimited");
                &[]
            }
        }
    }

    #[inline]
    fn str(&mut self, wire: Wire<'a>) -> &'a str {
        let bytes = self.bytes(wire);
        // Names, types and most values are ASCII: one vectorised check
        // instead of the general validation (measured: 9 % of an MQ
        // worker's CPU went to `from_utf8` on these short strings).
        match utf8(bytes) {
            Some(s) => s,
            None => {
                self.fail("a string is not UTF-8");
                ""
            }
        }
    }
}

/// A varint at `pos` and its length in bytes; `None` if it is truncated or
/// longer than 10 bytes.
#[inline(always)]
fn varint_at(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
    let first = *buf.get(pos)?;
    if first < 0x80 {
        return Some((u64::from(first), 1));
    }
    let mut v = 0u64;
    for (i, &b) in buf.get(pos..)?.iter().take(10).enumerate() {
        v |= u64::from(b & 0x7f) << (7 * i);
        if b < 0x80 {
            return Some((v, i + 1));
        }
    }
    None
}

/// A string's bytes as text, checked for ASCII first.
#[inline(always)]
fn utf8(bytes: &[u8]) -> Option<&str> {
    if bytes.is_ascii() {
        // SAFETY: ASCII bytes are valid UTF-8.
        return Some(unsafe { std::str::from_utf8_unchecked(bytes) });
    }
    std::str::from_utf8(bytes).ok()
}

/// An `Entry`: its header, type and stored value (a serialised
/// `RowChange`, `TransactionBegin` or `TransactionEnd`).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct EntryView<'a> {
    pub header: HeaderView<'a>,
    pub entry_type: Option<i32>,
    pub store_value: &'a [u8],
}

impl<'a> EntryView<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<EntryView<'a>, ViewError> {
        let mut entry = EntryView::default();
        let mut f = Fields::new("Entry", bytes);
        let mut header: &[u8] = &[];
        while let Some((field, wire)) = f.next_field() {
            match field {
                1 => header = f.bytes(wire),
                2 => entry.entry_type = Some(f.int(wire) as i32),
                3 => entry.store_value = f.bytes(wire),
                _ => {}
            }
        }
        f.finish()?;
        entry.header = HeaderView::parse(header)?;
        Ok(entry)
    }
}

/// The `Header` fields an entry's consumers read (props are skipped).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct HeaderView<'a> {
    pub logfile_name: &'a str,
    pub logfile_offset: i64,
    pub server_id: i64,
    pub execute_time: i64,
    pub schema_name: &'a str,
    pub table_name: &'a str,
    pub event_type: Option<i32>,
    pub gtid: &'a str,
}

impl<'a> HeaderView<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<HeaderView<'a>, ViewError> {
        let mut h = HeaderView::default();
        let mut f = Fields::new("Header", bytes);
        while let Some((field, wire)) = f.next_field() {
            match field {
                2 => h.logfile_name = f.str(wire),
                3 => h.logfile_offset = f.int(wire) as i64,
                4 => h.server_id = f.int(wire) as i64,
                6 => h.execute_time = f.int(wire) as i64,
                8 => h.schema_name = f.str(wire),
                9 => h.table_name = f.str(wire),
                11 => h.event_type = Some(f.int(wire) as i32),
                13 => h.gtid = f.str(wire),
                _ => {}
            }
        }
        f.finish()?;
        Ok(h)
    }
}

/// A `RowChange`; its rows are read one by one with [`rows`](Self::rows).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RowChangeView<'a> {
    pub table_id: i64,
    pub event_type: Option<i32>,
    pub is_ddl: Option<bool>,
    pub sql: &'a str,
    pub ddl_schema_name: &'a str,
    /// Rows (field 12) in the message.
    pub row_count: usize,
    bytes: &'a [u8],
}

impl<'a> RowChangeView<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<RowChangeView<'a>, ViewError> {
        let mut c = RowChangeView {
            bytes,
            ..Default::default()
        };
        let mut f = Fields::new("RowChange", bytes);
        while let Some((field, wire)) = f.next_field() {
            match field {
                1 => c.table_id = f.int(wire) as i64,
                2 => c.event_type = Some(f.int(wire) as i32),
                10 => c.is_ddl = Some(f.int(wire) != 0),
                11 => c.sql = f.str(wire),
                12 => {
                    f.bytes(wire);
                    c.row_count += 1;
                }
                14 => c.ddl_schema_name = f.str(wire),
                _ => {}
            }
        }
        f.finish()?;
        Ok(c)
    }

    /// The rows, in order. The message was checked by `parse`: only a row's
    /// own content can fail, when its columns are read.
    pub fn rows(&self) -> impl Iterator<Item = RowDataView<'a>> + 'a {
        let mut f = Fields::new("RowChange", self.bytes);
        std::iter::from_fn(move || loop {
            match f.next_field()? {
                (12, Wire::Bytes(b)) => return Some(RowDataView { bytes: b }),
                _ => continue,
            }
        })
    }
}

/// One `RowData`: its before and after columns.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowDataView<'a> {
    bytes: &'a [u8],
}

impl<'a> RowDataView<'a> {
    /// The before image's columns (field 1).
    pub fn before(&self) -> Columns<'a> {
        Columns::new(self.bytes, 1)
    }

    /// The after image's columns (field 2).
    pub fn after(&self) -> Columns<'a> {
        Columns::new(self.bytes, 2)
    }
}

/// The columns of one image of a row, in order.
#[derive(Debug, Clone)]
pub struct Columns<'a> {
    fields: Fields<'a>,
    image: u32,
    failed: bool,
}

impl<'a> Columns<'a> {
    fn new(row: &'a [u8], image: u32) -> Columns<'a> {
        Columns {
            fields: Fields::new("RowData", row),
            image,
            failed: false,
        }
    }
}

impl<'a> Iterator for Columns<'a> {
    type Item = Result<ColumnView<'a>, ViewError>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed {
            return None;
        }
        loop {
            let Some((n, wire)) = self.fields.next_field() else {
                self.failed = true;
                return self.fields.failed.take().map(Err);
            };
            if n == self.image {
                let bytes = self.fields.bytes(wire);
                if let Some(e) = self.fields.failed.take() {
                    self.failed = true;
                    return Some(Err(e));
                }
                let column = ColumnView::parse(bytes);
                self.failed = column.is_err();
                return Some(column);
            }
        }
    }
}

/// A `Column`. Absent fields read as proto2's defaults (0, false, "").
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct ColumnView<'a> {
    pub index: i32,
    pub sql_type: i32,
    pub name: &'a str,
    pub is_key: bool,
    pub updated: bool,
    pub is_null: bool,
    /// `None` when the field is absent (Canal leaves it out for NULL).
    pub value: Option<&'a str>,
    pub length: i32,
    pub mysql_type: &'a str,
}

impl<'a> ColumnView<'a> {
    pub fn parse(bytes: &'a [u8]) -> Result<ColumnView<'a>, ViewError> {
        // Columns are most of an entry's fields, so the form every writer
        // gives them (one-byte keys, known fields with their wire types) is
        // read by a loop of its own; anything else, and every error, by the
        // general walk, which says what is wrong and where.
        match Self::parse_common(bytes) {
            Some(c) => Ok(c),
            None => Self::parse_general(bytes),
        }
    }

    /// The column, if every field has a one-byte key, the wire type its
    /// field number has, and fits; else `None`.
    #[inline]
    fn parse_common(bytes: &'a [u8]) -> Option<ColumnView<'a>> {
        let mut c = ColumnView::default();
        let mut pos = 0;
        while let Some(&key) = bytes.get(pos) {
            pos += 1;
            let field = key >> 3;
            match (key & 0x87, field) {
                (0, 1 | 2 | 4 | 5 | 6 | 9) => {
                    let (v, n) = varint_at(bytes, pos)?;
                    pos += n;
                    match field {
                        1 => c.index = v as i32,
                        2 => c.sql_type = v as i32,
                        4 => c.is_key = v != 0,
                        5 => c.updated = v != 0,
                        6 => c.is_null = v != 0,
                        _ => c.length = v as i32,
                    }
                }
                (2, 3 | 7 | 8 | 10) => {
                    let (len, n) = varint_at(bytes, pos)?;
                    pos += n;
                    let end = pos.checked_add(usize::try_from(len).ok()?)?;
                    let b = bytes.get(pos..end)?;
                    pos = end;
                    match field {
                        3 => c.name = utf8(b)?,
                        8 => c.value = Some(utf8(b)?),
                        10 => c.mysql_type = utf8(b)?,
                        // props: not read.
                        _ => {}
                    }
                }
                _ => return None,
            }
        }
        Some(c)
    }

    fn parse_general(bytes: &'a [u8]) -> Result<ColumnView<'a>, ViewError> {
        let mut c = ColumnView::default();
        let mut f = Fields::new("Column", bytes);
        while let Some((field, wire)) = f.next_field() {
            match field {
                1 => c.index = f.int(wire) as i32,
                2 => c.sql_type = f.int(wire) as i32,
                3 => c.name = f.str(wire),
                4 => c.is_key = f.int(wire) != 0,
                5 => c.updated = f.int(wire) != 0,
                6 => c.is_null = f.int(wire) != 0,
                8 => c.value = Some(f.str(wire)),
                9 => c.length = f.int(wire) as i32,
                10 => c.mysql_type = f.str(wire),
                _ => {}
            }
        }
        f.finish()?;
        Ok(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::proto::{Column, Entry, EntryType, EventType, Header, Pair, RowChange, RowData};
    use prost::Message;

    fn column(i: i32, name: &str, value: Option<&str>, key: bool) -> Column {
        Column {
            index: Some(i),
            sql_type: Some(if i % 2 == 0 { -5 } else { 12 }),
            name: Some(name.to_string()),
            is_key: Some(key),
            updated: Some(i == 1),
            is_null: Some(value.is_none()),
            props: vec![Pair::new("k", "v")],
            value: value.map(str::to_string),
            length: Some(-3),
            mysql_type: Some("varchar(32)".to_string()),
        }
    }

    fn sample() -> Entry {
        let row = |n: &str| RowData {
            before_columns: vec![column(0, "id", Some(n), true), column(1, "é", None, false)],
            after_columns: vec![
                column(0, "id", Some(n), true),
                column(1, "é", Some("naïve 😀"), false),
            ],
            props: vec![Pair::new("sluiceRowKey", "binlog.000001:4#0")],
        };
        let change = RowChange {
            table_id: Some(77),
            event_type: Some(EventType::Update as i32),
            is_ddl: Some(false),
            sql: Some(String::new()),
            row_datas: vec![row("1"), row("2")],
            props: vec![],
            ddl_schema_name: None,
        };
        Entry {
            header: Some(Header {
                version: Some(1),
                logfile_name: Some("binlog.000002".into()),
                logfile_offset: Some(1234),
                server_id: Some(9),
                serverenc_code: Some("UTF-8".into()),
                execute_time: Some(1_700_000_000_000),
                source_type: Some(2),
                schema_name: Some("db".into()),
                table_name: Some("t".into()),
                event_length: Some(99),
                event_type: Some(EventType::Update as i32),
                props: vec![Pair::new("rowsCount", "2")],
                gtid: Some("uuid:1-5".into()),
            }),
            entry_type: Some(EntryType::RowData as i32),
            store_value: Some(change.encode_to_vec()),
        }
    }

    #[test]
    fn views_read_what_prost_wrote() {
        let entry = sample();
        let bytes = entry.encode_to_vec();
        let view = EntryView::parse(&bytes).unwrap();
        let header = entry.header.as_ref().unwrap();
        assert_eq!(view.header.logfile_name, "binlog.000002");
        assert_eq!(view.header.logfile_offset, 1234);
        assert_eq!(view.header.server_id, 9);
        assert_eq!(view.header.execute_time, header.execute_time.unwrap());
        assert_eq!(view.header.schema_name, "db");
        assert_eq!(view.header.table_name, "t");
        assert_eq!(view.header.event_type, Some(EventType::Update as i32));
        assert_eq!(view.header.gtid, "uuid:1-5");
        assert_eq!(view.entry_type, Some(EntryType::RowData as i32));

        let change = RowChange::decode(view.store_value).unwrap();
        let cv = RowChangeView::parse(view.store_value).unwrap();
        assert_eq!(cv.table_id, 77);
        assert_eq!(cv.event_type, change.event_type);
        assert_eq!(cv.is_ddl, Some(false));
        assert_eq!(cv.row_count, 2);
        let rows: Vec<_> = cv.rows().collect();
        assert_eq!(rows.len(), change.row_datas.len());
        for (rv, rd) in rows.iter().zip(&change.row_datas) {
            for (views, cols) in [
                (rv.before(), &rd.before_columns),
                (rv.after(), &rd.after_columns),
            ] {
                let views: Vec<_> = views.collect::<Result<_, _>>().unwrap();
                assert_eq!(views.len(), cols.len());
                for (v, c) in views.iter().zip(cols) {
                    assert_eq!(Some(v.index), c.index);
                    assert_eq!(Some(v.sql_type), c.sql_type);
                    assert_eq!(Some(v.name.to_string()), c.name);
                    assert_eq!(Some(v.is_key), c.is_key);
                    assert_eq!(Some(v.updated), c.updated);
                    assert_eq!(Some(v.is_null), c.is_null);
                    assert_eq!(v.value.map(str::to_string), c.value);
                    assert_eq!(Some(v.length), c.length);
                    assert_eq!(Some(v.mysql_type.to_string()), c.mysql_type);
                }
            }
        }
    }

    #[test]
    fn every_truncation_is_an_error_or_a_shorter_message_never_a_panic() {
        let bytes = sample().encode_to_vec();
        for cut in 0..bytes.len() {
            let Ok(view) = EntryView::parse(&bytes[..cut]) else {
                continue;
            };
            if let Ok(change) = RowChangeView::parse(view.store_value) {
                for row in change.rows() {
                    for c in row.before().chain(row.after()) {
                        let _ = c;
                    }
                }
            }
        }
        let err = EntryView::parse(&bytes[..bytes.len() - 1]).unwrap_err();
        assert_eq!(err.message, "Entry");
        assert_eq!(err.reason, "field longer than its message");
    }

    /// Mutated entries (bytes changed, dropped, inserted): the views never
    /// panic, and wherever prost reads the bytes, the views read the same.
    #[test]
    fn mutated_entries_read_as_prost_reads_them_or_are_refused() {
        let bytes = sample().encode_to_vec();
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for _ in 0..20_000 {
            let mut m = bytes.clone();
            for _ in 0..1 + next() % 4 {
                let at = (next() % m.len() as u64) as usize;
                match next() % 3 {
                    0 => m[at] = next() as u8,
                    1 => {
                        m.remove(at);
                    }
                    _ => m.insert(at, next() as u8),
                }
            }
            let view = EntryView::parse(&m);
            let Ok(entry) = Entry::decode(m.as_slice()) else {
                continue;
            };
            // What prost reads, the views read: they check less (fields
            // they skip), never more.
            let view = view.expect("prost read these bytes");
            let store = entry.store_value.as_deref().unwrap_or_default();
            assert_eq!(view.store_value, store);
            let Ok(change) = RowChange::decode(store) else {
                continue;
            };
            let cv = RowChangeView::parse(store).expect("prost read this RowChange");
            assert_eq!(cv.row_count, change.row_datas.len());
            for (rv, rd) in cv.rows().zip(&change.row_datas) {
                for (views, cols) in [
                    (rv.before(), &rd.before_columns),
                    (rv.after(), &rd.after_columns),
                ] {
                    let views: Vec<_> = views.collect();
                    assert_eq!(views.len(), cols.len());
                    for (v, c) in views.iter().zip(cols) {
                        let v = v.as_ref().expect("prost read this column");
                        assert_eq!(v.name, c.name.as_deref().unwrap_or_default());
                        assert_eq!(v.value, c.value.as_deref());
                        assert_eq!(v.is_key, c.is_key.unwrap_or_default());
                    }
                }
            }
        }
    }

    #[test]
    fn bad_wire_data_is_refused_with_its_place() {
        // Field 3 (name) as a varint where a string is expected.
        let err = ColumnView::parse(&[0x08, 0x01, 0x18, 0x01]).unwrap_err();
        assert_eq!(err.message, "Column");
        assert_eq!(err.at, 4);
        assert_eq!(
            err.reason,
            "a string or message field is not length-delimited"
        );
        // Not UTF-8.
        let err = ColumnView::parse(&[0x1a, 0x01, 0xff]).unwrap_err();
        assert_eq!(err.reason, "a string is not UTF-8");
        // Wire type 3 (groups) is not used by Canal.
        let err = ColumnView::parse(&[0x0b]).unwrap_err();
        assert_eq!(err.reason, "unsupported wire type");
        // Field number 0.
        let err = ColumnView::parse(&[0x00, 0x00]).unwrap_err();
        assert_eq!(err.reason, "field number 0");
    }

    /// The column loop and the general walk read the same columns, and the
    /// loop hands everything it does not take (errors included) to the walk:
    /// columns of every field combination, then each of them cut short and
    /// with single bytes changed.
    #[test]
    fn column_loop_reads_what_the_general_walk_reads() {
        let mut samples = Vec::new();
        for mask in 0u32..(1 << 6) {
            let on = |bit: u32| mask & (1 << bit) != 0;
            let c = Column {
                index: on(0).then_some(300),
                sql_type: on(1).then_some(-5),
                name: on(2).then(|| "naïve".to_string()),
                is_key: Some(on(3)),
                updated: on(4).then_some(true),
                is_null: Some(!on(5)),
                props: if on(0) {
                    vec![Pair::new("k", "v")]
                } else {
                    vec![]
                },
                value: on(5).then(|| "x".repeat(200)),
                length: on(1).then_some(-1),
                mysql_type: on(3).then(|| "varchar(32)".to_string()),
            };
            samples.push(c.encode_to_vec());
        }
        let mut seed = 0x2545_f491_4f6c_dd1du64;
        let mut next = move || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        let mut cases = Vec::new();
        for bytes in &samples {
            assert!(ColumnView::parse_common(bytes).is_some(), "{bytes:?}");
            cases.push(bytes.clone());
            for cut in 0..bytes.len() {
                cases.push(bytes[..cut].to_vec());
            }
            for _ in 0..200 {
                let mut b = bytes.clone();
                if !b.is_empty() {
                    let at = next() as usize % b.len();
                    b[at] = next() as u8;
                }
                cases.push(b);
            }
        }
        for bytes in &cases {
            let general = ColumnView::parse_general(bytes);
            if let Some(c) = ColumnView::parse_common(bytes) {
                assert_eq!(Ok(&c), general.as_ref(), "{bytes:?}");
            }
            assert_eq!(ColumnView::parse(bytes), general, "{bytes:?}");
        }
    }
}
