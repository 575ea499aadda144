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
    varint_at_long(buf, pos)
}

/// [`varint_at`] of two bytes or more: a machine word at a time where eight
/// bytes are there (lengths past 127, and the ten bytes of every negative
/// number, such as the `sqlType` of BIGINT columns, -5).
#[inline]
fn varint_at_long(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
    const HIGHS: u64 = 0x8080_8080_8080_8080;
    let Some(word) = buf.get(pos..pos.checked_add(8)?) else {
        return varint_at_bytes(buf, pos);
    };
    let w = u64::from_le_bytes([
        word[0], word[1], word[2], word[3], word[4], word[5], word[6], word[7],
    ]);
    // Continuation bits that are clear: the varint ends at the first.
    let stops = !w & HIGHS;
    let (x, n) = if stops != 0 {
        let n = stops.trailing_zeros() as usize / 8 + 1;
        let keep = if n == 8 { u64::MAX } else { (1 << (8 * n)) - 1 };
        (w & keep, n)
    } else {
        (w, 9)
    };
    // Seven bits of each byte, packed: pairs, then fours, then all eight.
    let mut x = x & !HIGHS;
    x = (x & 0x007f_007f_007f_007f) | ((x & 0x7f00_7f00_7f00_7f00) >> 1);
    x = (x & 0x0000_3fff_0000_3fff) | ((x & 0x3fff_0000_3fff_0000) >> 2);
    x = (x & 0x0000_0000_0fff_ffff) | ((x & 0x0fff_ffff_0000_0000) >> 4);
    if n <= 8 {
        return Some((x, n));
    }
    // No end in the first eight bytes: nine or ten.
    let b8 = *buf.get(pos + 8)?;
    x |= u64::from(b8 & 0x7f) << 56;
    if b8 < 0x80 {
        return Some((x, 9));
    }
    let b9 = *buf.get(pos + 9)?;
    x |= u64::from(b9 & 0x7f) << 63;
    (b9 < 0x80).then_some((x, 10))
}

/// [`varint_at`] a byte at a time, near the end of the buffer.
fn varint_at_bytes(buf: &[u8], pos: usize) -> Option<(u64, usize)> {
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

/// The `Header` fields an entry's consumers read; of the props, only
/// whether one is `snapshot` = `true`.
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
    /// A prop `snapshot` = `true`: the entry is a row of the initial
    /// snapshot, read from the table, not a change from the binlog.
    pub snapshot: bool,
    /// The prop [`SOURCE_EPOCH_PROP`]: how many times the source changed
    /// server before this entry (0 when absent).
    pub source_epoch: u32,
}

/// The header prop Sluice adds to the entries read after a source
/// failover: the number of the server (0 for the first, left out), so that
/// positions of a later server order after those of earlier ones whatever
/// their file numbers.
pub const SOURCE_EPOCH_PROP: &str = "sluiceSourceEpoch";

/// What a header prop says to the readers here.
enum HeaderProp {
    Snapshot,
    SourceEpoch(u32),
    Other,
}

/// The `Pair` `snapshot` = `true` as prost writes it: key (field 1, 8
/// bytes), then value (field 2, 4 bytes).
const SNAPSHOT_PAIR: &[u8] = b"\x0a\x08snapshot\x12\x04true";

/// What a serialised `Pair` says: `snapshot` = `true`, the source epoch,
/// or nothing read here. The bytes prost writes for the snapshot mark are
/// compared first; other encodings (fields in another order or repeated,
/// as proto2 allows) are read field by field. A malformed pair says
/// nothing and fails nothing: props were never checked, and a header that
/// read before still reads.
#[inline]
fn header_prop(bytes: &[u8]) -> HeaderProp {
    if bytes == SNAPSHOT_PAIR {
        return HeaderProp::Snapshot;
    }
    // Too short to hold both strings: most props (`rowsCount`) end here.
    if bytes.len() < SNAPSHOT_PAIR.len() {
        return HeaderProp::Other;
    }
    header_prop_slow(bytes)
}

#[cold]
fn header_prop_slow(bytes: &[u8]) -> HeaderProp {
    let mut f = Fields::new("Pair", bytes);
    let (mut key, mut value): (&[u8], &[u8]) = (&[], &[]);
    while let Some((field, wire)) = f.next_field() {
        match (field, wire) {
            // The last occurrence wins, as when prost decodes.
            (1, Wire::Bytes(b)) => key = b,
            (2, Wire::Bytes(b)) => value = b,
            (1 | 2, _) => return HeaderProp::Other,
            _ => {}
        }
    }
    if f.finish().is_err() {
        return HeaderProp::Other;
    }
    match key {
        b"snapshot" if value == b"true" => HeaderProp::Snapshot,
        k if k == SOURCE_EPOCH_PROP.as_bytes() => std::str::from_utf8(value)
            .ok()
            .and_then(|v| v.parse().ok())
            .map_or(HeaderProp::Other, HeaderProp::SourceEpoch),
        _ => HeaderProp::Other,
    }
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
                // Props of another wire type stay skipped, as before.
                12 => {
                    if let Wire::Bytes(pair) = wire {
                        match header_prop(pair) {
                            HeaderProp::Snapshot => h.snapshot = true,
                            HeaderProp::SourceEpoch(n) => h.source_epoch = n,
                            HeaderProp::Other => {}
                        }
                    }
                }
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

    /// The before image's columns, serialised.
    pub fn before_bytes(&self) -> ColumnBytes<'a> {
        ColumnBytes::new(self.bytes, 1)
    }

    /// The after image's columns, serialised.
    pub fn after_bytes(&self) -> ColumnBytes<'a> {
        ColumnBytes::new(self.bytes, 2)
    }
}

/// Where a raw read stops: the bytes are not in the form every writer gives
/// them, or are malformed. [`Columns`] reads them, or says what is wrong.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct NotCommon;

/// The serialised columns of one image of a row, in order, for readers
/// that go through many rows of the same columns (see [`RawColumn`] and
/// [`ColumnShape`]): it stops at the first field of the row that is not a
/// column or props with a one-byte key.
#[derive(Debug, Clone)]
pub struct ColumnBytes<'a> {
    row: &'a [u8],
    pos: usize,
    /// The key of a column of this image (fields 1 and 2, length-delimited).
    key: u8,
}

impl<'a> ColumnBytes<'a> {
    fn new(row: &'a [u8], image: u8) -> ColumnBytes<'a> {
        ColumnBytes {
            row,
            pos: 0,
            key: image << 3 | 2,
        }
    }

    #[cold]
    fn stop(&mut self) -> Option<Result<&'a [u8], NotCommon>> {
        self.pos = usize::MAX;
        Some(Err(NotCommon))
    }
}

impl<'a> Iterator for ColumnBytes<'a> {
    type Item = Result<&'a [u8], NotCommon>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        loop {
            let key = *self.row.get(self.pos)?;
            // Before and after columns, props (fields 1 to 3), each
            // length-delimited with a one-byte key.
            if !matches!(key, 0x0a | 0x12 | 0x1a) {
                return self.stop();
            }
            let Some((len, n)) = varint_at(self.row, self.pos + 1) else {
                return self.stop();
            };
            let start = self.pos + 1 + n;
            let Some(bytes) = usize::try_from(len)
                .ok()
                .and_then(|len| self.row.get(start..start.checked_add(len)?))
            else {
                return self.stop();
            };
            self.pos = start + bytes.len();
            if key == self.key {
                return Some(Ok(bytes));
            }
        }
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

    /// The column, if it is in the form [`RawColumn::parse`] reads and its
    /// strings are UTF-8; else `None`.
    #[inline]
    fn parse_common(bytes: &'a [u8]) -> Option<ColumnView<'a>> {
        RawColumn::parse(bytes)?.check()
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

/// A `Column` whose strings are bytes not yet checked for UTF-8, for
/// readers that check them in a pass of their own or compare them with
/// strings already checked (a column name with the one of the row before).
/// Absent fields read as proto2's defaults (0, false, "").
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RawColumn<'a> {
    pub index: i32,
    pub sql_type: i32,
    pub name: &'a [u8],
    pub is_key: bool,
    pub updated: bool,
    pub is_null: bool,
    /// `None` when the field is absent (Canal leaves it out for NULL).
    pub value: Option<&'a [u8]>,
    pub length: i32,
    pub mysql_type: &'a [u8],
}

impl<'a> RawColumn<'a> {
    /// The column, if every field has a one-byte key, the wire type its
    /// field number has, and fits; else `None` ([`ColumnView::parse`] then
    /// reads it, or says what is wrong). Columns are most of an entry's
    /// fields, so this form, the one every writer gives them, has a loop of
    /// its own.
    #[inline]
    pub fn parse(bytes: &'a [u8]) -> Option<RawColumn<'a>> {
        Self::parse_shaped(bytes).map(|(c, _)| c)
    }

    /// As [`parse`](Self::parse), with the column's shape when it has one
    /// value field: what reads the same column of the next rows.
    #[inline]
    pub fn parse_shaped(bytes: &'a [u8]) -> Option<(RawColumn<'a>, Option<ColumnShape<'a>>)> {
        let mut c = RawColumn::default();
        let mut pos = 0;
        // Where the value field starts and ends, and how many there are.
        let mut value_at = (0, 0);
        let mut values = 0;
        while let Some(&key) = bytes.get(pos) {
            // Every field's key, then its value or its length.
            let (v, n) = varint_at(bytes, pos + 1)?;
            let field_at = pos;
            pos += 1 + n;
            match key {
                0x08 => c.index = v as i32,
                0x10 => c.sql_type = v as i32,
                0x20 => c.is_key = v != 0,
                0x28 => c.updated = v != 0,
                0x30 => c.is_null = v != 0,
                0x48 => c.length = v as i32,
                0x1a | 0x3a | 0x42 | 0x52 => {
                    let end = pos.checked_add(usize::try_from(v).ok()?)?;
                    let b = bytes.get(pos..end)?;
                    pos = end;
                    match key {
                        0x1a => c.name = b,
                        0x42 => {
                            c.value = Some(b);
                            value_at = (field_at, end);
                            values += 1;
                        }
                        0x52 => c.mysql_type = b,
                        // props (0x3a): not read.
                        _ => {}
                    }
                }
                _ => return None,
            }
        }
        let shape = (values == 1).then(|| ColumnShape {
            head: &bytes[..value_at.0],
            tail: &bytes[value_at.1..],
            column: c,
        });
        Some((c, shape))
    }

    /// The column with its strings checked; `None` if one is not UTF-8.
    #[inline]
    pub fn check(&self) -> Option<ColumnView<'a>> {
        Some(ColumnView {
            index: self.index,
            sql_type: self.sql_type,
            name: utf8(self.name)?,
            is_key: self.is_key,
            updated: self.updated,
            is_null: self.is_null,
            value: match self.value {
                Some(v) => Some(utf8(v)?),
                None => None,
            },
            length: self.length,
            mysql_type: utf8(self.mysql_type)?,
        })
    }
}

/// A column as read once, to read the same column of later rows by
/// comparing bytes: every field but the value is where it was, so a column
/// whose bytes before and after its value field are the same as here is
/// this column with another value. Columns of one table, written by one
/// writer, are nearly always so (a NULL, or another `updated` flag, is not,
/// and is read by [`RawColumn::parse_shaped`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ColumnShape<'a> {
    /// The fields before the value field.
    head: &'a [u8],
    /// The fields after it.
    tail: &'a [u8],
    column: RawColumn<'a>,
}

impl<'a> ColumnShape<'a> {
    /// The column the shape was read from.
    pub fn column(&self) -> &RawColumn<'a> {
        &self.column
    }

    /// `bytes` as a column, if they are this shape's fields around a value
    /// field of their own; `None` otherwise (not an error: parse them).
    #[inline]
    pub fn read(&self, bytes: &'a [u8]) -> Option<RawColumn<'a>> {
        let pos = self.head.len();
        let (head, rest) = (bytes.get(..pos)?, bytes.get(pos..)?);
        if rest.first() != Some(&0x42) || head != self.head {
            return None;
        }
        let (len, n) = varint_at(rest, 1)?;
        let start = 1 + n;
        let end = start.checked_add(usize::try_from(len).ok()?)?;
        let value = rest.get(start..end)?;
        if rest.get(end..)? != self.tail {
            return None;
        }
        Some(RawColumn {
            value: Some(value),
            ..self.column
        })
    }
}

/// Bytes as text if they are UTF-8 (checked for ASCII first, the common
/// case of names, types and most values).
#[inline]
pub fn text(bytes: &[u8]) -> Option<&str> {
    utf8(bytes)
}

#[cfg(test)]
mod tests;
