//! Column types as the binlog describes them: the type code and metadata of a
//! TABLE_MAP_EVENT resolved into one `ColumnType` per column, so that decoding
//! a value is a single match with its parameters at hand.

use crate::error::{DecodeError, Result};

/// `enum_field_types` codes used in TABLE_MAP_EVENTs.
pub mod code {
    pub const DECIMAL: u8 = 0;
    pub const TINY: u8 = 1;
    pub const SHORT: u8 = 2;
    pub const LONG: u8 = 3;
    pub const FLOAT: u8 = 4;
    pub const DOUBLE: u8 = 5;
    pub const NULL: u8 = 6;
    pub const TIMESTAMP: u8 = 7;
    pub const LONGLONG: u8 = 8;
    pub const INT24: u8 = 9;
    pub const DATE: u8 = 10;
    pub const TIME: u8 = 11;
    pub const DATETIME: u8 = 12;
    pub const YEAR: u8 = 13;
    pub const NEWDATE: u8 = 14;
    pub const VARCHAR: u8 = 15;
    pub const BIT: u8 = 16;
    pub const TIMESTAMP2: u8 = 17;
    pub const DATETIME2: u8 = 18;
    pub const TIME2: u8 = 19;
    pub const TYPED_ARRAY: u8 = 20;
    pub const VECTOR: u8 = 242;
    pub const JSON: u8 = 245;
    pub const NEWDECIMAL: u8 = 246;
    pub const ENUM: u8 = 247;
    pub const SET: u8 = 248;
    pub const TINY_BLOB: u8 = 249;
    pub const MEDIUM_BLOB: u8 = 250;
    pub const LONG_BLOB: u8 = 251;
    pub const BLOB: u8 = 252;
    pub const VAR_STRING: u8 = 253;
    pub const STRING: u8 = 254;
    pub const GEOMETRY: u8 = 255;
}

/// A column's storage type with the parameters its values need.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ColumnType {
    Tiny,
    Short,
    Int24,
    Long,
    LongLong,
    Float,
    Double,
    NewDecimal {
        precision: u8,
        scale: u8,
    },
    Year,
    /// DATE and NEWDATE: 3 bytes.
    Date,
    /// Pre-5.6 TIME: 3 bytes, HHMMSS as a signed integer.
    Time,
    Time2 {
        fsp: u8,
    },
    /// Pre-5.6 DATETIME: 8 bytes, YYYYMMDDhhmmss.
    DateTime,
    DateTime2 {
        fsp: u8,
    },
    Timestamp,
    Timestamp2 {
        fsp: u8,
    },
    /// VARCHAR / VAR_STRING with its declared maximum length in bytes.
    VarChar {
        max_len: u16,
    },
    /// CHAR / BINARY (type STRING) with its maximum length in bytes.
    Char {
        max_len: u16,
    },
    Enum {
        pack_len: u8,
    },
    Set {
        pack_len: u8,
    },
    Bit {
        bits: u16,
    },
    /// BLOB/TEXT family: `len_bytes` (1–4) bytes of length, then the data.
    Blob {
        len_bytes: u8,
    },
    Json {
        len_bytes: u8,
    },
    Geometry {
        len_bytes: u8,
    },
    Vector {
        len_bytes: u8,
    },
    /// MYSQL_TYPE_NULL: the value is always NULL and takes no bytes.
    Null,
}

impl ColumnType {
    /// How many metadata bytes a TABLE_MAP_EVENT holds for a type code.
    pub fn metadata_len(type_code: u8) -> Result<usize> {
        use code::*;
        Ok(match type_code {
            FLOAT | DOUBLE | TINY_BLOB | MEDIUM_BLOB | LONG_BLOB | BLOB | GEOMETRY | JSON
            | VECTOR | TIMESTAMP2 | DATETIME2 | TIME2 => 1,
            VARCHAR | VAR_STRING | BIT | NEWDECIMAL | STRING | ENUM | SET | DECIMAL => 2,
            TINY | SHORT | LONG | NULL | TIMESTAMP | LONGLONG | INT24 | DATE | TIME | DATETIME
            | YEAR | NEWDATE => 0,
            other => {
                return Err(DecodeError::unsupported(
                    "column type",
                    format!("type code {other} in TABLE_MAP_EVENT"),
                ))
            }
        })
    }

    /// Resolves a type code and its metadata bytes.
    pub fn resolve(type_code: u8, meta: &[u8]) -> Result<Self> {
        use code::*;
        let m0 = meta.first().copied().unwrap_or(0);
        let m1 = meta.get(1).copied().unwrap_or(0);
        let len_bytes = |m: u8| -> Result<u8> {
            if (1..=4).contains(&m) {
                Ok(m)
            } else {
                Err(DecodeError::invalid(
                    "column metadata",
                    format!("length-prefix size {m} for type code {type_code} (must be 1-4)"),
                ))
            }
        };
        let fsp = |m: u8| -> Result<u8> {
            if m <= 6 {
                Ok(m)
            } else {
                Err(DecodeError::invalid(
                    "column metadata",
                    format!("fractional precision {m} (must be 0-6)"),
                ))
            }
        };
        Ok(match type_code {
            TINY => ColumnType::Tiny,
            SHORT => ColumnType::Short,
            INT24 => ColumnType::Int24,
            LONG => ColumnType::Long,
            LONGLONG => ColumnType::LongLong,
            FLOAT => ColumnType::Float,
            DOUBLE => ColumnType::Double,
            NEWDECIMAL => {
                if m0 == 0 || m0 > 65 || m1 > 30 || m1 > m0 {
                    return Err(DecodeError::invalid(
                        "column metadata",
                        format!("DECIMAL({m0},{m1})"),
                    ));
                }
                ColumnType::NewDecimal {
                    precision: m0,
                    scale: m1,
                }
            }
            YEAR => ColumnType::Year,
            DATE | NEWDATE => ColumnType::Date,
            TIME => ColumnType::Time,
            TIME2 => ColumnType::Time2 { fsp: fsp(m0)? },
            DATETIME => ColumnType::DateTime,
            DATETIME2 => ColumnType::DateTime2 { fsp: fsp(m0)? },
            TIMESTAMP => ColumnType::Timestamp,
            TIMESTAMP2 => ColumnType::Timestamp2 { fsp: fsp(m0)? },
            VARCHAR | VAR_STRING => ColumnType::VarChar {
                max_len: u16::from_le_bytes([m0, m1]),
            },
            STRING | ENUM | SET => {
                // The real type hides in the first byte; the length's two high
                // bits are folded into it (see Field_string::do_save_field_metadata).
                let (real, len) = if m0 & 0x30 != 0x30 {
                    (m0 | 0x30, m1 as u16 | ((((m0 & 0x30) ^ 0x30) as u16) << 4))
                } else {
                    (m0, m1 as u16)
                };
                match real {
                    ENUM => ColumnType::Enum { pack_len: m1 },
                    SET => ColumnType::Set { pack_len: m1 },
                    _ if type_code == ENUM => ColumnType::Enum {
                        pack_len: m1.max(1),
                    },
                    _ if type_code == SET => ColumnType::Set {
                        pack_len: m1.max(1),
                    },
                    _ => ColumnType::Char { max_len: len },
                }
            }
            BIT => ColumnType::Bit {
                bits: m1 as u16 * 8 + m0 as u16,
            },
            TINY_BLOB | MEDIUM_BLOB | LONG_BLOB | BLOB => ColumnType::Blob {
                len_bytes: len_bytes(m0)?,
            },
            JSON => ColumnType::Json {
                len_bytes: len_bytes(m0)?,
            },
            GEOMETRY => ColumnType::Geometry {
                len_bytes: len_bytes(m0)?,
            },
            VECTOR => ColumnType::Vector {
                len_bytes: len_bytes(m0)?,
            },
            NULL => ColumnType::Null,
            other => {
                return Err(DecodeError::unsupported(
                    "column type",
                    format!("type code {other} in a rows event"),
                ))
            }
        })
        .and_then(|t| match t {
            ColumnType::Enum { pack_len } if !(1..=2).contains(&pack_len) => Err(
                DecodeError::invalid("column metadata", format!("ENUM of {pack_len} bytes")),
            ),
            ColumnType::Set { pack_len } if !(1..=8).contains(&pack_len) => Err(
                DecodeError::invalid("column metadata", format!("SET of {pack_len} bytes")),
            ),
            t => Ok(t),
        })
    }

    /// Numeric columns are the ones the SIGNEDNESS metadata covers.
    pub fn is_numeric(self) -> bool {
        matches!(
            self,
            ColumnType::Tiny
                | ColumnType::Short
                | ColumnType::Int24
                | ColumnType::Long
                | ColumnType::LongLong
                | ColumnType::Float
                | ColumnType::Double
                | ColumnType::NewDecimal { .. }
        )
    }

    /// Character data: CHAR, VARCHAR, BLOB/TEXT (and VECTOR).
    pub fn is_character(self) -> bool {
        matches!(
            self,
            ColumnType::VarChar { .. }
                | ColumnType::Char { .. }
                | ColumnType::Blob { .. }
                | ColumnType::Vector { .. }
        )
    }

    /// The columns the (DEFAULT_|COLUMN_)CHARSET metadata has an entry
    /// for: character columns and GEOMETRY, which the servers count as one
    /// ("base class is blob for geom type", `is_character_type` in MySQL
    /// and MariaDB). Leaving GEOMETRY out shifts the collations of every
    /// character column after it.
    pub fn has_charset_metadata(self) -> bool {
        self.is_character() || matches!(self, ColumnType::Geometry { .. })
    }

    pub fn is_enum_or_set(self) -> bool {
        matches!(self, ColumnType::Enum { .. } | ColumnType::Set { .. })
    }

    /// The SQL type name, as in `information_schema.COLUMNS.DATA_TYPE` where
    /// the binlog tells it (BLOB and TEXT share one type code).
    pub fn sql_name(self) -> &'static str {
        match self {
            ColumnType::Tiny => "tinyint",
            ColumnType::Short => "smallint",
            ColumnType::Int24 => "mediumint",
            ColumnType::Long => "int",
            ColumnType::LongLong => "bigint",
            ColumnType::Float => "float",
            ColumnType::Double => "double",
            ColumnType::NewDecimal { .. } => "decimal",
            ColumnType::Year => "year",
            ColumnType::Date => "date",
            ColumnType::Time | ColumnType::Time2 { .. } => "time",
            ColumnType::DateTime | ColumnType::DateTime2 { .. } => "datetime",
            ColumnType::Timestamp | ColumnType::Timestamp2 { .. } => "timestamp",
            ColumnType::VarChar { .. } => "varchar",
            ColumnType::Char { .. } => "char",
            ColumnType::Enum { .. } => "enum",
            ColumnType::Set { .. } => "set",
            ColumnType::Bit { .. } => "bit",
            ColumnType::Blob { len_bytes: 1 } => "tinyblob",
            ColumnType::Blob { len_bytes: 2 } => "blob",
            ColumnType::Blob { len_bytes: 3 } => "mediumblob",
            ColumnType::Blob { .. } => "longblob",
            ColumnType::Json { .. } => "json",
            ColumnType::Geometry { .. } => "geometry",
            ColumnType::Vector { .. } => "vector",
            ColumnType::Null => "null",
        }
    }
}

/// What a character set means for rendering a value as text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Charset {
    /// `binary` (collation 63): bytes, rendered as hex.
    Binary,
    /// utf8mb3, utf8mb4, ascii: the bytes are UTF-8 already.
    Utf8,
    /// MySQL's latin1 is Windows-1252.
    Latin1,
    Ucs2,
    Utf16,
    Utf16Le,
    Utf32,
    /// Any other character set: rendered as UTF-8 when valid, hex otherwise.
    Other,
}

impl Charset {
    /// The character set of a collation id (MySQL 8, MariaDB 11 numbering).
    pub fn of_collation(id: u32) -> Charset {
        match id {
            63 => Charset::Binary,
            5 | 8 | 15 | 31 | 47 | 48 | 49 | 94 => Charset::Latin1,
            11 | 65 | 33 | 83 | 192..=215 | 223 | 45 | 46 | 224..=247 | 255..=323 | 76 => {
                Charset::Utf8
            }
            35 | 90 | 128..=151 | 159 => Charset::Ucs2,
            54 | 55 | 101..=124 => Charset::Utf16,
            56 | 62 => Charset::Utf16Le,
            60 | 61 | 160..=183 => Charset::Utf32,
            // MariaDB 10.10+ UCA-14.0 collations: charset id in the high byte.
            2048..=2559 => Charset::Utf8,
            2560..=2815 => Charset::Ucs2,
            2816..=3071 => Charset::Utf16,
            3072..=3327 => Charset::Utf32,
            _ => Charset::Other,
        }
    }
}
