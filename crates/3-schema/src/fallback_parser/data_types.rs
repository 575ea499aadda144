//! Data types: multi-word names, parameters (lengths, precision, ENUM/SET
//! labels), the normalised type text and `UNSIGNED` / `ZEROFILL`.

use super::cursor::{PResult, Parser};
use crate::ddl::*;
use crate::lexer::Tok;

impl Parser<'_> {
    /// A data type and its modifiers (`UNSIGNED`, `ZEROFILL`).
    pub(super) fn data_type(&mut self) -> PResult<TypeSpec> {
        let Some(Tok::Word(w0)) = self.peek() else {
            return self.err("expected a data type");
        };
        self.i += 1;
        let (w, implied_charset) = self.type_name(w0.to_ascii_lowercase())?;
        let mut serial = false;
        let params = self.type_params(matches!(w.as_str(), "enum" | "set"))?;
        let (sql_type, mut data_type, labels) = match numeric_type(&w, &params, &mut serial) {
            Some(form) => form,
            None => self.other_type(&w, &params)?,
        };
        let (mut unsigned, zerofill) = self.sign_modifiers(serial);
        if unsigned && is_numeric(&sql_type) {
            data_type.push_str(" unsigned");
        } else {
            unsigned = false;
        }
        if zerofill {
            data_type.push_str(" zerofill");
        }
        Ok(TypeSpec {
            sql_type,
            data_type,
            unsigned,
            zerofill,
            labels,
            implied_charset,
            serial,
            binary_collation: false,
            text_length: if w == "text" {
                param_num(&params, 0)
            } else {
                None
            },
        })
    }

    /// The type name in lower case, multi-word names (`NATIONAL CHAR`,
    /// `CHARACTER VARYING`, `DOUBLE PRECISION`, `LONG VARBINARY`) read to
    /// one word, and the character set a name implies.
    fn type_name(&mut self, mut w: String) -> PResult<(String, Option<&'static str>)> {
        let mut implied_charset = None;
        if w == "national" {
            implied_charset = Some("utf8mb3");
            w = self.ident()?.to_ascii_lowercase();
            if w == "char" || w == "character" {
                w = if self.eat_kw("VARYING") {
                    "varchar".into()
                } else {
                    "char".into()
                };
            }
        } else if w == "nchar" {
            implied_charset = Some("utf8mb3");
            w = if self.eat_kw("VARYING") || self.eat_kw("VARCHAR") {
                "varchar".into()
            } else {
                "char".into()
            };
        } else if w == "nvarchar" {
            implied_charset = Some("utf8mb3");
            w = "varchar".into();
        } else if w == "char" || w == "character" {
            if self.eat_kw("VARYING") {
                w = "varchar".into();
            } else {
                w = "char".into();
            }
        } else if w == "double" {
            self.eat_kw("PRECISION");
        } else if w == "long" {
            w = if self.eat_kw("VARBINARY") {
                "mediumblob".into()
            } else {
                self.eat_kw("VARCHAR");
                "mediumtext".into()
            };
        }
        Ok((w, implied_charset))
    }

    /// The non-numeric types (temporal, character, binary, spatial, ENUM,
    /// SET, VECTOR, ...) by lower-case name; an error for a name no type has.
    fn other_type(&self, w: &str, params: &[String]) -> PResult<TypeForm> {
        let num = |k: usize| param_num(params, k);
        Ok(match w {
            "date" => ("date".into(), "date".into(), vec![]),
            "time" | "datetime" | "timestamp" => {
                let fsp = num(0).unwrap_or(0);
                let t = if fsp > 0 {
                    format!("{w}({fsp})")
                } else {
                    w.to_string()
                };
                (w.to_string(), t, vec![])
            }
            "year" => ("year".into(), "year".into(), vec![]),
            "char" => (
                "char".into(),
                format!("char({})", num(0).unwrap_or(1)),
                vec![],
            ),
            "binary" => (
                "binary".into(),
                format!("binary({})", num(0).unwrap_or(1)),
                vec![],
            ),
            "varchar" | "varchar2" | "varcharacter" => match num(0) {
                Some(n) => ("varchar".into(), format!("varchar({n})"), vec![]),
                None => return self.err("VARCHAR needs a length"),
            },
            "varbinary" => match num(0) {
                Some(n) => ("varbinary".into(), format!("varbinary({n})"), vec![]),
                None => return self.err("VARBINARY needs a length"),
            },
            "tinytext" | "mediumtext" | "longtext" | "tinyblob" | "mediumblob" | "longblob"
            | "json" | "geometry" | "point" | "linestring" | "polygon" | "multipoint"
            | "multilinestring" | "multipolygon" | "geometrycollection" | "inet6" | "inet4"
            | "uuid" | "clob" | "raw" => {
                let t = match w {
                    "clob" => "longtext".to_string(),
                    "raw" => "varbinary".to_string(),
                    other => other.to_string(),
                };
                (t.clone(), t, vec![])
            }
            "geomcollection" => (
                "geometrycollection".into(),
                "geometrycollection".into(),
                vec![],
            ),
            "text" | "blob" => {
                // TEXT(n) / BLOB(n) pick the smallest type holding n characters
                // (bytes for BLOB); the charset width is applied later for TEXT.
                let base = match num(0) {
                    None => w.to_string(),
                    Some(n) => size_class(w, n),
                };
                (base.clone(), base, vec![])
            }
            "enum" | "set" => {
                let quoted: Vec<String> = params
                    .iter()
                    .map(|l| format!("'{}'", l.replace('\'', "''")))
                    .collect();
                (
                    w.to_string(),
                    format!("{w}({})", quoted.join(",")),
                    params.to_vec(),
                )
            }
            "vector" => match num(0) {
                Some(n) => ("vector".into(), format!("vector({n})"), vec![]),
                None => return self.err("VECTOR needs a dimension"),
            },
            other => return self.err(format!("unknown data type `{other}`")),
        })
    }

    /// `UNSIGNED`, `SIGNED`, `ZEROFILL` after a type, in any order:
    /// (unsigned, zerofill); ZEROFILL implies UNSIGNED, and so does SERIAL.
    fn sign_modifiers(&mut self, serial: bool) -> (bool, bool) {
        let mut unsigned = serial;
        let mut zerofill = false;
        loop {
            if self.eat_kw("UNSIGNED") {
                unsigned = true;
            } else if self.eat_kw("SIGNED") {
            } else if self.eat_kw("ZEROFILL") {
                zerofill = true;
                unsigned = true;
            } else {
                break;
            }
        }
        (unsigned, zerofill)
    }

    /// `(a, b)` numbers, or for ENUM/SET `('x', 'y')` labels.
    fn type_params(&mut self, labels: bool) -> PResult<Vec<String>> {
        if !self.eat_punct("(") {
            return Ok(vec![]);
        }
        let mut out = Vec::new();
        loop {
            match self.peek() {
                Some(Tok::Str(s)) if labels => {
                    let mut s = s.clone();
                    self.i += 1;
                    // Adjacent strings concatenate.
                    while let Some(Tok::Str(more)) = self.peek() {
                        s.push_str(more);
                        self.i += 1;
                    }
                    out.push(s);
                }
                Some(Tok::Word(w)) if labels && w.starts_with('_') => {
                    // Charset introducer before a label.
                    self.i += 1;
                    continue;
                }
                Some(Tok::Num(n)) if !labels => {
                    out.push(n.clone());
                    self.i += 1;
                }
                // `BIT(M)` etc. never take words; MariaDB accepts `CHAR(1 CHAR)`? no.
                _ => return self.err("unexpected token in type parameters"),
            }
            if self.eat_punct(",") {
                continue;
            }
            self.expect_punct(")")?;
            return Ok(out);
        }
    }
}

fn is_numeric(t: &str) -> bool {
    matches!(
        t,
        "tinyint" | "smallint" | "mediumint" | "int" | "bigint" | "decimal" | "float" | "double"
    )
}

/// TEXT(n)/BLOB(n) size classes by byte length (characters for TEXT are
/// scaled by the catalog once the charset is known).
pub(crate) fn size_class(base: &str, bytes: u64) -> String {
    let prefix = match bytes {
        0..=255 => "tiny",
        256..=65535 => "",
        65536..=16_777_215 => "medium",
        _ => "long",
    };
    let kind = if base.contains("blob") {
        "blob"
    } else {
        "text"
    };
    format!("{prefix}{kind}")
}

/// A type's base name (as `information_schema` reports it), its full text
/// and its ENUM/SET labels.
type TypeForm = (String, String, Vec<String>);

/// Type parameter `k` as a number, when it is one.
fn param_num(params: &[String], k: usize) -> Option<u64> {
    params.get(k).and_then(|p| p.parse::<u64>().ok())
}

/// Type parameters as written back in a type's text: `(a,b)`, or nothing.
fn fmt_params(p: &[String]) -> String {
    if p.is_empty() {
        String::new()
    } else {
        format!("({})", p.join(","))
    }
}

/// The integer, boolean, serial, fixed and floating point types and BIT by
/// lower-case name; `None` for any other name.
fn numeric_type(w: &str, params: &[String], serial: &mut bool) -> Option<TypeForm> {
    let num = |k: usize| param_num(params, k);
    Some(match w {
        "tinyint" | "int1" => (
            "tinyint".into(),
            format!("tinyint{}", fmt_params(params)),
            vec![],
        ),
        "smallint" | "int2" => (
            "smallint".into(),
            format!("smallint{}", fmt_params(params)),
            vec![],
        ),
        "mediumint" | "int3" | "middleint" => (
            "mediumint".into(),
            format!("mediumint{}", fmt_params(params)),
            vec![],
        ),
        "int" | "integer" | "int4" => ("int".into(), format!("int{}", fmt_params(params)), vec![]),
        "bigint" | "int8" => (
            "bigint".into(),
            format!("bigint{}", fmt_params(params)),
            vec![],
        ),
        "bool" | "boolean" => ("tinyint".into(), "tinyint(1)".into(), vec![]),
        "serial" => {
            *serial = true;
            ("bigint".into(), "bigint".into(), vec![])
        }
        "decimal" | "dec" | "numeric" | "fixed" | "number" => {
            let p = num(0).unwrap_or(10);
            let s = num(1).unwrap_or(0);
            ("decimal".into(), format!("decimal({p},{s})"), vec![])
        }
        "float" => match (num(0), num(1)) {
            (Some(m), Some(d)) => ("float".into(), format!("float({m},{d})"), vec![]),
            (Some(p), None) if p > 24 => ("double".into(), "double".into(), vec![]),
            _ => ("float".into(), "float".into(), vec![]),
        },
        "float4" => ("float".into(), "float".into(), vec![]),
        "double" | "real" | "float8" => match (num(0), num(1)) {
            (Some(m), Some(d)) => ("double".into(), format!("double({m},{d})"), vec![]),
            _ => ("double".into(), "double".into(), vec![]),
        },
        "bit" => (
            "bit".into(),
            format!("bit({})", num(0).unwrap_or(1)),
            vec![],
        ),
        _ => return None,
    })
}
