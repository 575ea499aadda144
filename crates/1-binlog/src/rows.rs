//! WRITE/UPDATE/DELETE rows events (pre-GA, v1, v2, MariaDB compressed) and
//! MySQL 8 PARTIAL_UPDATE_ROWS. Row images are framed eagerly (so a corrupt
//! event fails as a whole) but their values are decoded lazily, as views.

use std::borrow::Cow;
use std::sync::Arc;

use crate::bytes::{bit, uint_le, ByteReader};
use crate::column::ColumnType;
use crate::error::{DecodeError, Result};
use crate::event_type::{RowsKind, RowsLayout};
use crate::table_map::{ColumnDef, TableMap};
use crate::value::{read_value, value_len, value_width, Cell, Value, Width};

/// `value_options` bit of a PARTIAL_UPDATE_ROWS after-image.
const PARTIAL_JSON_UPDATES: u64 = 1;

/// Extra row information of v2 rows events.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct ExtraRowInfo<'a> {
    /// NDB cluster information (opaque).
    pub ndb: Option<&'a [u8]>,
    pub partition_id: Option<u16>,
    /// For updates that move a row between partitions.
    pub source_partition_id: Option<u16>,
}

/// A decoded rows event; its rows are read with [`RowsEvent::rows`].
#[derive(Debug, Clone)]
pub struct RowsEvent<'a> {
    pub kind: RowsKind,
    pub table_id: u64,
    pub flags: u16,
    pub extra: ExtraRowInfo<'a>,
    pub column_count: usize,
    pub table: Arc<TableMap>,
    present_before: &'a [u8],
    present_after: &'a [u8],
    rows_data: Cow<'a, [u8]>,
}

/// The rows-event flag that marks the last event of a statement.
pub const STMT_END_F: u16 = 1;

impl<'a> RowsEvent<'a> {
    /// Parses a rows event body. `post_header_len` comes from the FDE (6, 8 or 10);
    /// `tables` resolves the table id to its TABLE_MAP_EVENT.
    pub fn parse(
        body: &'a [u8],
        layout: RowsLayout,
        post_header_len: usize,
        tables: impl FnOnce(u64) -> Option<Arc<TableMap>>,
    ) -> Result<Self> {
        let mut r = ByteReader::new(body);
        let table_id = if post_header_len == 6 {
            r.u32_le()? as u64
        } else {
            r.uint_le(6)?
        };
        let flags = r.u16_le()?;
        let mut extra = ExtraRowInfo::default();
        if post_header_len >= 10 || (post_header_len == 0 && layout.has_extra_data) {
            let extra_len = r.u16_le()? as usize;
            let data = r.take(extra_len.saturating_sub(2))?;
            extra = parse_extra(data, layout.kind)?;
        }
        let table = tables(table_id).ok_or(DecodeError::UnknownTable(table_id))?;
        let column_count = r.packed_int()? as usize;
        if column_count != table.columns.len() {
            return Err(DecodeError::invalid(
                "rows event",
                format!(
                    "{column_count} columns but TABLE_MAP_EVENT for {}.{} has {}",
                    table.schema,
                    table.table,
                    table.columns.len()
                ),
            ));
        }
        let bitmap_len = column_count.div_ceil(8);
        let present_before = r.take(bitmap_len)?;
        let present_after = if matches!(layout.kind, RowsKind::Update | RowsKind::PartialUpdate) {
            r.take(bitmap_len)?
        } else {
            present_before
        };
        let rest = r.take_rest();
        let rows_data = if layout.compressed {
            Cow::Owned(crate::compression::mariadb_uncompress(rest)?)
        } else {
            Cow::Borrowed(rest)
        };
        Ok(RowsEvent {
            kind: layout.kind,
            table_id,
            flags,
            extra,
            column_count,
            table,
            present_before,
            present_after,
            rows_data,
        })
    }

    /// An event from its parts (synthetic events; see `rows_write`).
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn from_parts(
        kind: RowsKind,
        table_id: u64,
        flags: u16,
        extra: ExtraRowInfo<'a>,
        table: Arc<TableMap>,
        present_before: &'a [u8],
        present_after: &'a [u8],
        rows_data: Cow<'a, [u8]>,
    ) -> Self {
        RowsEvent {
            kind,
            table_id,
            flags,
            extra,
            column_count: table.columns.len(),
            table,
            present_before,
            present_after,
            rows_data,
        }
    }

    /// Iterates over the rows. Each item is one row change.
    pub fn rows(&self) -> RowIter<'_> {
        RowIter {
            ev: self,
            r: ByteReader::new(&self.rows_data),
            failed: false,
        }
    }

    pub fn is_statement_end(&self) -> bool {
        self.flags & STMT_END_F != 0
    }

    /// The bytes of the row images (decompressed for compressed events).
    pub fn rows_data(&self) -> &[u8] {
        &self.rows_data
    }
}

fn parse_extra(data: &[u8], kind: RowsKind) -> Result<ExtraRowInfo<'_>> {
    let mut info = ExtraRowInfo::default();
    let mut r = ByteReader::new(data);
    while !r.is_empty() {
        match r.u8()? {
            0 => {
                // NDB: length (including the length and format bytes), format, data.
                let len = r.u8()? as usize;
                info.ndb = Some(r.take(len.saturating_sub(1))?);
            }
            1 => {
                info.partition_id = Some(r.u16_le()?);
                if matches!(kind, RowsKind::Update | RowsKind::PartialUpdate) {
                    info.source_partition_id = Some(r.u16_le()?);
                }
            }
            // Unknown tags carry no length: stop rather than misread.
            _ => break,
        }
    }
    Ok(info)
}

/// One row change: WRITE has only `after`, DELETE only `before`, UPDATE both.
#[derive(Debug, Clone)]
pub struct Row<'e> {
    pub before: Option<RowImage<'e>>,
    pub after: Option<RowImage<'e>>,
}

#[derive(Debug, Clone, Copy)]
struct ImageBytes<'e> {
    present: &'e [u8],
    nulls: &'e [u8],
    data: &'e [u8],
}

/// One row image: which columns it has, which are NULL, and the value bytes.
#[derive(Debug, Clone)]
pub struct RowImage<'e> {
    table: &'e TableMap,
    image: ImageBytes<'e>,
    /// For PARTIAL_UPDATE_ROWS after-images: one bit per JSON column of the
    /// table telling whether its value is a diff against the before image.
    partial: Option<(&'e [u8], ImageBytes<'e>)>,
}

pub struct RowIter<'e> {
    ev: &'e RowsEvent<'e>,
    r: ByteReader<'e>,
    failed: bool,
}

impl<'e> RowIter<'e> {
    /// Frames one row image: its NULL bitmap and value bytes. Fixed-width
    /// values are added up and checked once, as a total, against the bytes
    /// left; only length-prefixed values are read here. The values
    /// themselves are decoded later, by [`RowImage::cells`].
    fn image(&mut self, present: &'e [u8]) -> Result<ImageBytes<'e>> {
        let table = &*self.ev.table;
        let columns = &table.columns;
        let n_present = count_bits(present, columns.len());
        let nulls = self.r.take(n_present.div_ceil(8))?;
        let start = self.r.rest();
        let mut used = 0usize;
        for (_, c) in valued_columns(columns, present, nulls) {
            used = used.saturating_add(match value_width(c.column_type) {
                Width::Fixed(n) => n,
                Width::Prefixed(lb) => match start.get(used..).and_then(|s| s.get(..lb)) {
                    Some(head) => lb + uint_le(head) as usize,
                    None => return Err(self.locate_truncation(present, nulls, start)),
                },
            });
        }
        if used > start.len() {
            return Err(self.locate_truncation(present, nulls, start));
        }
        let data = self.r.take(used)?;
        Ok(ImageBytes {
            present,
            nulls,
            data,
        })
    }

    /// The error for an image whose values run past the end of the event:
    /// walks it value by value to name the column that does not fit.
    #[cold]
    fn locate_truncation(&self, present: &[u8], nulls: &[u8], start: &[u8]) -> DecodeError {
        let table = &*self.ev.table;
        let mut used = 0usize;
        for (i, c) in valued_columns(&table.columns, present, nulls) {
            let rest = start.get(used..).unwrap_or(&[]);
            match value_len(c.column_type, rest) {
                Ok(n) => used += n,
                Err(e) => return locate_column(e, table, i),
            }
        }
        DecodeError::invalid("row image", "values run past the end of the event")
    }

    fn next_row(&mut self) -> Result<Row<'e>> {
        let ev = self.ev;
        let table: &'e TableMap = &ev.table;
        Ok(match ev.kind {
            RowsKind::Write => Row {
                before: None,
                after: Some(RowImage {
                    table,
                    image: self.image(ev.present_after)?,
                    partial: None,
                }),
            },
            RowsKind::Delete => Row {
                before: Some(RowImage {
                    table,
                    image: self.image(ev.present_before)?,
                    partial: None,
                }),
                after: None,
            },
            RowsKind::Update => {
                let before = self.image(ev.present_before)?;
                let after = self.image(ev.present_after)?;
                Row {
                    before: Some(RowImage {
                        table,
                        image: before,
                        partial: None,
                    }),
                    after: Some(RowImage {
                        table,
                        image: after,
                        partial: None,
                    }),
                }
            }
            RowsKind::PartialUpdate => {
                let before = self.image(ev.present_before)?;
                let options = self.r.packed_int()?;
                let partial = if options & PARTIAL_JSON_UPDATES != 0 {
                    let json_cols = table
                        .columns
                        .iter()
                        .filter(|c| matches!(c.column_type, ColumnType::Json { .. }))
                        .count();
                    Some((self.r.take(json_cols.div_ceil(8))?, before))
                } else {
                    None
                };
                let after = self.image(ev.present_after)?;
                Row {
                    before: Some(RowImage {
                        table,
                        image: before,
                        partial: None,
                    }),
                    after: Some(RowImage {
                        table,
                        image: after,
                        partial,
                    }),
                }
            }
        })
    }
}

/// The columns of an image that hold a value (in it, and not NULL), with
/// their indexes. `nulls` has a bit for each column in the image.
fn valued_columns<'t>(
    columns: &'t [ColumnDef],
    present: &'t [u8],
    nulls: &'t [u8],
) -> impl Iterator<Item = (usize, &'t ColumnDef)> + 't {
    let mut k = 0usize;
    columns.iter().enumerate().filter(move |&(i, _)| {
        if !bit(present, i) {
            return false;
        }
        let is_null = bit(nulls, k);
        k += 1;
        !is_null
    })
}

/// How many of the first `n` bits of `bitmap` are set.
fn count_bits(bitmap: &[u8], n: usize) -> usize {
    let full = n / 8;
    let mut count: usize = bitmap
        .iter()
        .take(full)
        .map(|b| b.count_ones() as usize)
        .sum();
    if !n.is_multiple_of(8) {
        if let Some(last) = bitmap.get(full) {
            count += (last & ((1u8 << (n % 8)) - 1)).count_ones() as usize;
        }
    }
    count
}

/// Only on the error path: kept out of the cell loop.
#[cold]
#[inline(never)]
fn locate_column(e: DecodeError, table: &TableMap, i: usize) -> DecodeError {
    let name = table.columns[i]
        .name
        .clone()
        .unwrap_or_else(|| format!("#{i}"));
    DecodeError::invalid(
        "row image",
        format!("column {name} of {}.{}: {e}", table.schema, table.table),
    )
}

impl<'e> Iterator for RowIter<'e> {
    type Item = Result<Row<'e>>;

    fn next(&mut self) -> Option<Self::Item> {
        if self.failed || self.r.is_empty() {
            return None;
        }
        let start = self.r.position();
        let mut row = self.next_row();
        // A row that takes no bytes (no column in the image) cannot be told
        // from the next one: the row data would never be used up.
        if row.is_ok() && self.r.position() == start {
            row = Err(DecodeError::invalid(
                "rows event",
                format!(
                    "row at byte {start} of the row data takes no bytes (no column in its image)"
                ),
            ));
        }
        if row.is_err() {
            self.failed = true;
        }
        Some(row)
    }
}

impl<'e> RowImage<'e> {
    /// The values of every column of the table, in column order.
    pub fn cells(&self) -> CellIter<'e> {
        CellIter {
            table: self.table,
            image: self.image,
            partial: self.partial,
            r: ByteReader::new(self.image.data),
            column: 0,
            present_index: 0,
            json_index: 0,
            resumable: false,
        }
    }

    /// Whether every column of the table is in this image (FULL row image).
    pub fn is_full(&self) -> bool {
        (0..self.table.columns.len()).all(|i| bit(self.image.present, i))
    }

    pub fn is_present(&self, column: usize) -> bool {
        column < self.table.columns.len() && bit(self.image.present, column)
    }

    pub fn table(&self) -> &'e TableMap {
        self.table
    }
}

/// Values of one row image; yields one `Cell` per table column.
pub struct CellIter<'e> {
    table: &'e TableMap,
    image: ImageBytes<'e>,
    partial: Option<(&'e [u8], ImageBytes<'e>)>,
    r: ByteReader<'e>,
    column: usize,
    present_index: usize,
    json_index: usize,
    /// The error being returned concerns one value only, not the reading position.
    resumable: bool,
}

impl<'e> CellIter<'e> {
    fn next_cell(&mut self) -> Result<Cell<'e>> {
        let i = self.column;
        self.column += 1;
        let col = &self.table.columns[i];
        let is_json = matches!(col.column_type, ColumnType::Json { .. });
        let json_index = self.json_index;
        if is_json {
            self.json_index += 1;
        }
        if !bit(self.image.present, i) {
            return Ok(Cell::Absent);
        }
        let k = self.present_index;
        self.present_index += 1;
        if bit(self.image.nulls, k) {
            return Ok(Cell::Present(Value::Null));
        }
        let v = read_value(&mut self.r, col).map_err(|e| locate_column(e, self.table, i))?;
        if let (true, Some((bits, before)), Value::Json(diff)) = (is_json, self.partial, &v) {
            if bit(bits, json_index) {
                return self.partial_json(before, i, diff);
            }
        }
        Ok(Cell::Present(v))
    }

    /// A JSON column given as diffs (a partial JSON update): the document
    /// they make from the before image, or the diffs alone. Apart from
    /// `next_cell`, whose every other path is hot, and marked cold so that
    /// it stays apart: the whole of `next_cell` is the decoder's hottest loop.
    #[cold]
    #[inline(never)]
    fn partial_json(
        &mut self,
        before: ImageBytes<'e>,
        i: usize,
        diff: &'e [u8],
    ) -> Result<Cell<'e>> {
        // The value's bytes are consumed: whatever happens to the diff, the
        // columns after it can still be read.
        self.resumable = true;
        let value = match json_in_image(self.table, before, i)? {
            Some(old) => Value::JsonText(
                crate::json::apply_json_diff(old, diff)
                    .map_err(|e| locate_column(e, self.table, i))?,
            ),
            // The before image does not hold the value (row image MINIMAL
            // or NOBLOB): the diffs are all there is.
            None => Value::JsonDiff {
                column: i,
                diffs: crate::json::JsonDiffs::parse(diff)
                    .map_err(|e| locate_column(e, self.table, i))?,
            },
        };
        self.resumable = false;
        Ok(Cell::Present(value))
    }
}

/// The binary JSON of column `target` in an image (`None` if NULL or absent).
fn json_in_image<'e>(
    table: &TableMap,
    image: ImageBytes<'e>,
    target: usize,
) -> Result<Option<&'e [u8]>> {
    let mut r = ByteReader::new(image.data);
    let mut k = 0usize;
    for (i, c) in table.columns.iter().enumerate().take(target + 1) {
        if !bit(image.present, i) {
            continue;
        }
        let null = bit(image.nulls, k);
        k += 1;
        if null {
            if i == target {
                return Ok(None);
            }
            continue;
        }
        let v = read_value(&mut r, c)?;
        if i == target {
            if let Value::Json(b) = v {
                return Ok(Some(b));
            }
        }
    }
    Ok(None)
}

impl<'e> Iterator for CellIter<'e> {
    type Item = Result<Cell<'e>>;

    #[inline]
    fn next(&mut self) -> Option<Self::Item> {
        if self.column >= self.table.columns.len() {
            return None;
        }
        let c = self.next_cell();
        if c.is_err() && !std::mem::take(&mut self.resumable) {
            self.column = self.table.columns.len();
        }
        Some(c)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::event_type::EventType;

    /// TABLE_MAP_EVENT body: table 0x7c `d`.`t` with one INT column.
    const ONE_INT_TABLE: &[u8] = &[
        0x7c, 0, 0, 0, 0, 0, 1, 0, 1, b'd', 0, 1, b't', 0, 1, 3, 0, 0,
    ];

    #[test]
    fn row_image_of_no_columns_is_an_error_not_an_endless_loop() {
        // Found by fuzzing: a DELETE_ROWS_EVENT whose column bitmap is all
        // zero, followed by row data. Each row then took no bytes, and
        // iterating the rows never ended.
        let table = Arc::new(TableMap::parse(ONE_INT_TABLE, 8).unwrap());
        let body = [
            0x7c, 0, 0, 0, 0, 0, 1, 0, // table id, flags
            2, 0, // extra data: none
            1, // column count
            0, // columns in the image: none
            6, 0, 0x66, 0xff, // row data
        ];
        let layout = EventType::DELETE_ROWS.rows_layout().unwrap();
        let ev = RowsEvent::parse(&body, layout, 10, |_| Some(table.clone())).unwrap();
        let rows: Vec<_> = ev.rows().take(3).collect();
        assert_eq!(rows.len(), 1);
        let err = rows[0].as_ref().unwrap_err().to_string();
        assert!(err.contains("takes no bytes"), "{err}");
    }
}
