//! TABLE_MAP_EVENT: the description of a table that the rows events after it
//! refer to by table id, with every optional metadata field MySQL 8 and
//! MariaDB 10.5+ write under `binlog_row_metadata=FULL` (or MINIMAL).

use crate::bytes::ByteReader;
use crate::column::{Charset, ColumnType};
use crate::error::{DecodeError, Result};

/// Optional metadata field types (`Table_map_log_event::Optional_metadata_field_type`).
mod opt {
    pub const SIGNEDNESS: u8 = 1;
    pub const DEFAULT_CHARSET: u8 = 2;
    pub const COLUMN_CHARSET: u8 = 3;
    pub const COLUMN_NAME: u8 = 4;
    pub const SET_STR_VALUE: u8 = 5;
    pub const ENUM_STR_VALUE: u8 = 6;
    pub const GEOMETRY_TYPE: u8 = 7;
    pub const SIMPLE_PRIMARY_KEY: u8 = 8;
    pub const PRIMARY_KEY_WITH_PREFIX: u8 = 9;
    pub const ENUM_AND_SET_DEFAULT_CHARSET: u8 = 10;
    pub const ENUM_AND_SET_COLUMN_CHARSET: u8 = 11;
    pub const COLUMN_VISIBILITY: u8 = 12;
}

/// One column as the binlog describes it.
#[derive(Debug, Clone, PartialEq)]
pub struct ColumnDef {
    /// The type code written in the event (STRING for CHAR/ENUM/SET).
    pub type_code: u8,
    pub column_type: ColumnType,
    pub nullable: bool,
    /// From SIGNEDNESS metadata; `None` when the binlog does not say.
    pub unsigned: Option<bool>,
    /// Collation id, for character, ENUM and SET columns, when the binlog says.
    pub collation: Option<u32>,
    pub name: Option<String>,
    /// ENUM or SET labels, in definition order, when the binlog carries them.
    pub labels: Option<Vec<Vec<u8>>>,
    pub geometry_type: Option<u32>,
    /// `Some(0)` for a whole-column key part, `Some(n)` for a prefix of n characters.
    pub primary_key_prefix: Option<u32>,
    pub visible: Option<bool>,
}

impl ColumnDef {
    pub fn charset(&self) -> Option<Charset> {
        self.collation.map(Charset::of_collation)
    }
    pub fn is_primary_key(&self) -> bool {
        self.primary_key_prefix.is_some()
    }
}

/// A decoded TABLE_MAP_EVENT.
#[derive(Debug, Clone, PartialEq)]
pub struct TableMap {
    pub table_id: u64,
    pub flags: u16,
    pub schema: String,
    pub table: String,
    pub columns: Vec<ColumnDef>,
    /// Whether optional metadata was present at all (binlog_row_metadata MINIMAL/FULL).
    pub has_optional_metadata: bool,
}

impl TableMap {
    /// Parses a TABLE_MAP_EVENT body of a MySQL server; `post_header_len` is
    /// 6 (old servers) or 8.
    pub fn parse(body: &[u8], post_header_len: usize) -> Result<Self> {
        Self::parse_from(body, post_header_len, false)
    }

    /// Parses a TABLE_MAP_EVENT body written by MariaDB (`mariadb`) or MySQL:
    /// MariaDB's SIGNEDNESS metadata has a bit for YEAR columns too (its YEAR
    /// is a TINYINT underneath; seen on 10.11), MySQL's has none.
    pub fn parse_from(body: &[u8], post_header_len: usize, mariadb: bool) -> Result<Self> {
        let mut r = ByteReader::new(body);
        let table_id = if post_header_len == 6 {
            r.u32_le()? as u64
        } else {
            r.uint_le(6)?
        };
        let flags = r.u16_le()?;
        if post_header_len > 8 {
            r.skip(post_header_len - 8)?;
        }
        let schema = name_with_nul(&mut r)?;
        let table = name_with_nul(&mut r)?;
        let n = r.packed_len()?;
        let types = r.take(n)?;
        // MySQL 5.1 development builds wrote no metadata block at all (their
        // rows events are rejected anyway); read it as all-zero metadata.
        let has_meta = !r.is_empty();
        let meta = if has_meta {
            let meta_len = r.packed_len()?;
            r.take(meta_len)?
        } else {
            &[]
        };
        // Null bitmap is mandatory; old servers may omit it, treat as all-nullable.
        let null_bits = r.take(n.div_ceil(8)).unwrap_or(&[]);
        let mut columns = Vec::with_capacity(n);
        let mut m = ByteReader::new(meta);
        for (i, &t) in types.iter().enumerate() {
            let len = ColumnType::metadata_len(t)?;
            let md = if has_meta {
                m.take(len).map_err(|_| {
                    DecodeError::invalid(
                        "TABLE_MAP_EVENT",
                        format!("column metadata ends before column {i} of {n}"),
                    )
                })?
            } else {
                const NO_META: &[u8] = &[0; 4];
                NO_META.get(..len).unwrap_or(NO_META)
            };
            let column_type = ColumnType::resolve(t, md)?;
            columns.push(ColumnDef {
                type_code: t,
                column_type,
                nullable: null_bits.is_empty() || crate::bytes::bit(null_bits, i),
                unsigned: None,
                collation: None,
                name: None,
                labels: None,
                geometry_type: None,
                primary_key_prefix: None,
                visible: None,
            });
        }
        let mut tm = TableMap {
            table_id,
            flags,
            schema,
            table,
            columns,
            has_optional_metadata: false,
        };
        let rest = r.rest();
        if !rest.is_empty() {
            tm.has_optional_metadata = true;
            tm.parse_optional_metadata(rest, mariadb)?;
        }
        Ok(tm)
    }

    fn indexes_where(&self, pred: impl Fn(&ColumnDef) -> bool) -> Vec<usize> {
        self.columns
            .iter()
            .enumerate()
            .filter(|(_, c)| pred(c))
            .map(|(i, _)| i)
            .collect()
    }

    fn parse_optional_metadata(&mut self, data: &[u8], mariadb: bool) -> Result<()> {
        let mut r = ByteReader::new(data);
        while !r.is_empty() {
            let kind = r.u8()?;
            let value = r.packed_bytes()?;
            let mut v = ByteReader::new(value);
            match kind {
                opt::SIGNEDNESS => {
                    for (k, i) in self
                        .indexes_where(|c| {
                            c.column_type.is_numeric()
                                || (mariadb && c.column_type == ColumnType::Year)
                        })
                        .into_iter()
                        .enumerate()
                    {
                        self.columns[i].unsigned = Some(msb_bit(value, k));
                    }
                }
                opt::DEFAULT_CHARSET | opt::ENUM_AND_SET_DEFAULT_CHARSET => {
                    let idx = if kind == opt::DEFAULT_CHARSET {
                        self.indexes_where(|c| c.column_type.has_charset_metadata())
                    } else {
                        self.indexes_where(|c| c.column_type.is_enum_or_set())
                    };
                    let default = v.packed_int()? as u32;
                    for &i in &idx {
                        self.columns[i].collation = Some(default);
                    }
                    while !v.is_empty() {
                        let k = v.packed_int()? as usize;
                        let coll = v.packed_int()? as u32;
                        let i = *idx.get(k).ok_or_else(|| {
                            DecodeError::invalid("TABLE_MAP_EVENT", "charset for a missing column")
                        })?;
                        self.columns[i].collation = Some(coll);
                    }
                }
                opt::COLUMN_CHARSET | opt::ENUM_AND_SET_COLUMN_CHARSET => {
                    let idx = if kind == opt::COLUMN_CHARSET {
                        self.indexes_where(|c| c.column_type.has_charset_metadata())
                    } else {
                        self.indexes_where(|c| c.column_type.is_enum_or_set())
                    };
                    for i in idx {
                        if v.is_empty() {
                            break;
                        }
                        self.columns[i].collation = Some(v.packed_int()? as u32);
                    }
                }
                opt::COLUMN_NAME => {
                    for c in self.columns.iter_mut() {
                        if v.is_empty() {
                            break;
                        }
                        c.name = Some(String::from_utf8_lossy(v.packed_bytes()?).into_owned());
                    }
                }
                opt::SET_STR_VALUE | opt::ENUM_STR_VALUE => {
                    let want = if kind == opt::SET_STR_VALUE {
                        |t: ColumnType| matches!(t, ColumnType::Set { .. })
                    } else {
                        |t: ColumnType| matches!(t, ColumnType::Enum { .. })
                    };
                    for i in self.indexes_where(|c| want(c.column_type)) {
                        if v.is_empty() {
                            break;
                        }
                        let count = v.packed_len()?;
                        let mut labels = Vec::with_capacity(count.min(v.remaining()));
                        for _ in 0..count {
                            labels.push(v.packed_bytes()?.to_vec());
                        }
                        self.columns[i].labels = Some(labels);
                    }
                }
                opt::GEOMETRY_TYPE => {
                    for i in
                        self.indexes_where(|c| matches!(c.column_type, ColumnType::Geometry { .. }))
                    {
                        if v.is_empty() {
                            break;
                        }
                        self.columns[i].geometry_type = Some(v.packed_int()? as u32);
                    }
                }
                opt::SIMPLE_PRIMARY_KEY => {
                    while !v.is_empty() {
                        let i = v.packed_int()? as usize;
                        if let Some(c) = self.columns.get_mut(i) {
                            c.primary_key_prefix = Some(0);
                        }
                    }
                }
                opt::PRIMARY_KEY_WITH_PREFIX => {
                    while !v.is_empty() {
                        let i = v.packed_int()? as usize;
                        let prefix = v.packed_int()? as u32;
                        if let Some(c) = self.columns.get_mut(i) {
                            c.primary_key_prefix = Some(prefix);
                        }
                    }
                }
                opt::COLUMN_VISIBILITY => {
                    for (i, c) in self.columns.iter_mut().enumerate() {
                        c.visible = Some(msb_bit(value, i));
                    }
                }
                // Newer servers add fields (e.g. vector dimensions); each is
                // length-prefixed, so an unknown one is skipped safely.
                _ => {}
            }
        }
        Ok(())
    }

    /// Column names, when the binlog carries them for every column.
    pub fn column_names(&self) -> Option<Vec<&str>> {
        self.columns.iter().map(|c| c.name.as_deref()).collect()
    }
}

/// Optional-metadata bitmaps put column 0 in the most significant bit.
fn msb_bit(bitmap: &[u8], i: usize) -> bool {
    bitmap
        .get(i / 8)
        .map(|b| b & (0x80 >> (i % 8)) != 0)
        .unwrap_or(false)
}

fn name_with_nul(r: &mut ByteReader<'_>) -> Result<String> {
    let len = r.u8()? as usize;
    let name = r.take(len)?;
    r.skip(1)?; // terminating NUL
    Ok(String::from_utf8_lossy(name).into_owned())
}

#[cfg(test)]
mod charset_tests {
    use super::*;

    /// Table `d.t (g GEOMETRY, v VARCHAR(100))` with DEFAULT_CHARSET 45 and
    /// one exception: character-metadata column 0 has collation 63.
    const GEOMETRY_THEN_VARCHAR: &[u8] = &[
        0x7c, 0, 0, 0, 0, 0, 1, 0, // table id, flags
        1, b'd', 0, 1, b't', 0, // schema, table
        2, 255, 15, // two columns: GEOMETRY, VARCHAR
        3, 4, 100, 0,    // metadata: 4-byte length; max length 100
        0x03, // both nullable
        2, 3, 45, 0, 63, // DEFAULT_CHARSET: default 45, column 0 is 63
    ];

    #[test]
    fn geometry_has_an_entry_in_the_charset_metadata() {
        // Seen on MariaDB 10.11: without the GEOMETRY entry, the VARCHAR
        // after it took the geometry's binary collation.
        let tm = TableMap::parse_from(GEOMETRY_THEN_VARCHAR, 8, true).unwrap();
        assert_eq!(tm.columns[0].collation, Some(63), "GEOMETRY");
        assert_eq!(tm.columns[1].collation, Some(45), "VARCHAR");
    }
}

#[cfg(test)]
mod signedness_tests {
    use super::*;

    /// Table `d.t (y YEAR, n INT)` whose SIGNEDNESS metadata has its first
    /// bit set: MariaDB 10.11 writes that for an (unsigned) YEAR and a
    /// signed INT, MySQL would mean an unsigned INT.
    const YEAR_THEN_INT: &[u8] = &[
        0x7c, 0, 0, 0, 0, 0, 1, 0, // table id, flags
        1, b'd', 0, 1, b't', 0, // schema, table
        2, 13, 3,    // two columns: YEAR, LONG
        0,    // no type metadata
        0x03, // both nullable
        1, 1, 0x80, // SIGNEDNESS: one byte, first bit set
    ];

    #[test]
    fn mariadb_signedness_has_a_bit_for_year() {
        let tm = TableMap::parse_from(YEAR_THEN_INT, 8, true).unwrap();
        assert_eq!(tm.columns[0].unsigned, Some(true), "YEAR");
        assert_eq!(tm.columns[1].unsigned, Some(false), "INT");
    }

    #[test]
    fn mysql_signedness_has_no_bit_for_year() {
        let tm = TableMap::parse(YEAR_THEN_INT, 8).unwrap();
        assert_eq!(tm.columns[0].unsigned, None, "YEAR");
        assert_eq!(tm.columns[1].unsigned, Some(true), "INT");
    }
}
