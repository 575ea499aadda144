//! The parts of a table's Column messages that are the same in every row
//! (index, name, isKey, mysqlType, and the sqlType most values have), encoded
//! once per table description and kept from one rows event to the next, so
//! that a row writes only what varies: the flags, the value and its length.

use std::collections::HashMap;
use std::ops::Range;

use sluice_binlog::ColumnType;
use sluice_events::Table;

use super::pb;
use super::value::{self, RenderInfo};

/// One column's constant bytes, ranges of [`TableLayout::bytes`].
#[derive(Debug, Clone)]
pub(super) struct ColumnLayout {
    pub render: RenderInfo,
    /// A SELECT's text of the column's values is Canal's text of them.
    pub select_text_is_canal: bool,
    /// The sqlType of NULL, and of every value but corrected UNSIGNED ones.
    pub sql_type: i32,
    /// Fields 1 to 6: index, sqlType (`sql_type`), name, isKey, updated and
    /// isNull (both false here: their value bytes are the last and the third
    /// to last of the range, set per row).
    pub head: Range<usize>,
    /// Bytes of the index field at the start of `head`: a value of another
    /// sqlType writes its own between them and the name.
    pub index_len: usize,
    /// Bytes of the sqlType field in `head`.
    pub sql_type_len: usize,
    /// Field 10, mysqlType.
    pub tail: Range<usize>,
}

impl ColumnLayout {
    /// Bytes of the Column message for a value of `sql_type` with
    /// `value_len` bytes of text (`None` for NULL) and the partial-JSON prop
    /// (of `prop_len` bytes) or not.
    pub fn len(&self, sql_type: i32, value_len: Option<usize>, prop_len: usize) -> usize {
        let sql = if sql_type == self.sql_type {
            0
        } else {
            pb::int32_len(2, sql_type) as isize - self.sql_type_len as isize
        };
        let value = value_len.map_or(0, |n| pb::bytes_len(8, n));
        (self.head.len() as isize + sql) as usize + prop_len + value + self.tail.len()
    }
}

/// What a layout was built from, per column: the fields of the schema's
/// or the binlog's description that its bytes or rendering depend on.
#[derive(Debug)]
struct ColumnSource {
    name: String,
    mysql_type: String,
    is_key: bool,
    column_type: ColumnType,
    collation: Option<u32>,
}

/// The layout of one table description.
#[derive(Debug, Default)]
pub(super) struct TableLayout {
    source: Vec<ColumnSource>,
    pub columns: Vec<ColumnLayout>,
    pub bytes: Vec<u8>,
}

impl TableLayout {
    /// Whether this layout was built from what `table` says of its columns.
    fn describes(&self, table: &Table<'_>) -> bool {
        self.source.len() == table.column_count()
            && table.columns().zip(&self.source).all(|(c, s)| {
                s.is_key == c.is_key
                    && s.column_type == c.def.column_type
                    && s.collation == c.def.collation
                    && s.name == c.name
                    && s.mysql_type == c.mysql_type
            })
    }

    fn build(&mut self, table: &Table<'_>) {
        self.source.clear();
        self.columns.clear();
        self.bytes.clear();
        for c in table.columns() {
            let render = RenderInfo::new(c.def, c.mysql_type);
            let sql_type = value::null_sql_type_with(c.def, &render);
            let start = self.bytes.len();
            pb::int32(&mut self.bytes, 1, c.index as i32);
            let index_len = self.bytes.len() - start;
            pb::int32(&mut self.bytes, 2, sql_type);
            let sql_type_len = self.bytes.len() - start - index_len;
            pb::bytes(&mut self.bytes, 3, c.name.as_bytes());
            pb::boolean(&mut self.bytes, 4, c.is_key);
            pb::boolean(&mut self.bytes, 5, false);
            pb::boolean(&mut self.bytes, 6, false);
            let head_end = self.bytes.len();
            pb::bytes(&mut self.bytes, 10, c.mysql_type.as_bytes());
            self.columns.push(ColumnLayout {
                render,
                select_text_is_canal: value::select_text_is_canal(c.def, &render),
                sql_type,
                head: start..head_end,
                index_len,
                sql_type_len,
                tail: head_end..self.bytes.len(),
            });
            self.source.push(ColumnSource {
                name: c.name.to_string(),
                mysql_type: c.mysql_type.to_string(),
                is_key: c.is_key,
                column_type: c.def.column_type,
                collation: c.def.collation,
            });
        }
        // Room after the last column's bytes for the fixed-size copies of
        // `SliceWriter::put_prefix`.
        self.bytes.extend_from_slice(&[0; pb::SHORT]);
    }
}

/// Layouts by table id. A table id names one table map; a DDL or a new map
/// under the same id changes the description, which a lookup compares.
#[derive(Debug, Default)]
pub(super) struct Layouts {
    tables: HashMap<u64, TableLayout>,
}

/// Table ids grow on a server that reopens tables: past this many layouts
/// the cache starts over rather than grow without end.
const MAX_TABLES: usize = 256;

impl Layouts {
    /// The layout of `table` (rows events of table id `table_id`), built
    /// unless the one kept still describes it.
    pub fn get(&mut self, table_id: u64, table: &Table<'_>) -> &TableLayout {
        if self.tables.len() >= MAX_TABLES && !self.tables.contains_key(&table_id) {
            self.tables.clear();
        }
        let layout = self.tables.entry(table_id).or_default();
        if !layout.describes(table) {
            layout.build(table);
        }
        layout
    }
}
