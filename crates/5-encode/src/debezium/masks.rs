//! Debezium's column properties: `column.include.list` /
//! `column.exclude.list` ([`DebeziumColumnRules`], the change events'
//! column filter) and the value masks `column.mask.with.N.chars`,
//! `column.mask.hash.ALGORITHM.with.salt.SALT` and
//! `column.mask.hash.v2.ALGORITHM.with.salt.SALT` ([`ColumnMasks`]).
//!
//! As Debezium's `ColumnNameFilterFactory` and `ColumnMappers` do, every
//! list is comma-separated regular expressions, each matched without
//! regard to case against the whole fully-qualified column name
//! `db.table.column`. A mask applies to character columns only (CHAR,
//! VARCHAR, TEXT, ENUM, SET: Debezium's JDBC CHAR/VARCHAR kinds), to their
//! values in `before` and `after` (never to the record key, which keeps
//! the primary-key columns as they are), and its field schema gains the
//! parameter `masked` = `true`. `with.N.chars` writes N `*` in place of
//! every value, NULL included; a hash writes the lowercase hex digest of
//! the salt's bytes followed by the value's bytes (v1: the value as Java
//! serialises a `String`; v2: its UTF-8 bytes), cut to the column's
//! declared length, and leaves NULL null. The first rule matching a
//! column wins, the `with.N.chars` ones before the hashes, as in Debezium.

use std::sync::Arc;

use regex::Regex;
use sluice_events::ColumnRules;

use super::DebeziumError;

/// Comma-separated patterns of a Debezium list property, each to match a
/// whole name without regard to case.
fn patterns(property: &str, value: &str) -> Result<Vec<Regex>, DebeziumError> {
    value
        .split(',')
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .map(|p| {
            Regex::new(&format!("(?i)^(?:{p})$")).map_err(|e| DebeziumError::Pattern {
                property: property.to_string(),
                pattern: p.to_string(),
                reason: e.to_string(),
            })
        })
        .collect()
}

fn full_name(schema: &str, table: &str, column: &str) -> String {
    let mut name = String::with_capacity(schema.len() + table.len() + column.len() + 2);
    name.push_str(schema);
    name.push('.');
    name.push_str(table);
    name.push('.');
    name.push_str(column);
    name
}

/// `column.include.list` and `column.exclude.list`. Debezium refuses the
/// two together; here a column must then match the include list and not
/// the exclude list (the engine warns).
#[derive(Debug, Clone, Default)]
pub struct DebeziumColumnRules {
    include: Option<Vec<Regex>>,
    exclude: Vec<Regex>,
}

impl DebeziumColumnRules {
    /// The rules of the two properties' values (`None`: not set).
    pub fn new(include: Option<&str>, exclude: Option<&str>) -> Result<Self, DebeziumError> {
        Ok(DebeziumColumnRules {
            include: include
                .map(|v| patterns("column.include.list", v))
                .transpose()?,
            exclude: exclude
                .map(|v| patterns("column.exclude.list", v))
                .transpose()?
                .unwrap_or_default(),
        })
    }

    /// Whether neither list is set: every column of every table shown.
    pub fn is_empty(&self) -> bool {
        self.include.is_none() && self.exclude.is_empty()
    }
}

impl ColumnRules for DebeziumColumnRules {
    fn applies_to(&self, _schema: &str, _table: &str) -> bool {
        // Patterns of whole column names may match any table: each table
        // is resolved once, and gets no projection when it keeps all.
        !self.is_empty()
    }

    fn keeps(&self, schema: &str, table: &str, column: &str) -> bool {
        let name = full_name(schema, table, column);
        self.include
            .as_ref()
            .is_none_or(|i| i.iter().any(|r| r.is_match(&name)))
            && !self.exclude.iter().any(|r| r.is_match(&name))
    }
}

/// A hash function of `column.mask.hash.*`, by its Java name.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HashAlgorithm {
    Md5,
    Sha1,
    Sha224,
    Sha256,
    Sha384,
    Sha512,
    Sha512_224,
    Sha512_256,
}

impl HashAlgorithm {
    /// The algorithm of a Java `MessageDigest` name (case does not matter,
    /// as in Java).
    pub fn by_name(name: &str) -> Option<Self> {
        Some(match name.to_ascii_uppercase().as_str() {
            "MD5" => HashAlgorithm::Md5,
            "SHA-1" | "SHA1" | "SHA" => HashAlgorithm::Sha1,
            "SHA-224" | "SHA224" => HashAlgorithm::Sha224,
            "SHA-256" | "SHA256" => HashAlgorithm::Sha256,
            "SHA-384" | "SHA384" => HashAlgorithm::Sha384,
            "SHA-512" | "SHA512" => HashAlgorithm::Sha512,
            "SHA-512/224" => HashAlgorithm::Sha512_224,
            "SHA-512/256" => HashAlgorithm::Sha512_256,
            _ => return None,
        })
    }

    fn digest(self, parts: &[&[u8]]) -> Vec<u8> {
        use sha2::Digest;
        fn run<D: Digest>(parts: &[&[u8]]) -> Vec<u8> {
            let mut d = D::new();
            for p in parts {
                d.update(p);
            }
            d.finalize().to_vec()
        }
        match self {
            HashAlgorithm::Md5 => run::<md5::Md5>(parts),
            HashAlgorithm::Sha1 => run::<sha1::Sha1>(parts),
            HashAlgorithm::Sha224 => run::<sha2::Sha224>(parts),
            HashAlgorithm::Sha256 => run::<sha2::Sha256>(parts),
            HashAlgorithm::Sha384 => run::<sha2::Sha384>(parts),
            HashAlgorithm::Sha512 => run::<sha2::Sha512>(parts),
            HashAlgorithm::Sha512_224 => run::<sha2::Sha512_224>(parts),
            HashAlgorithm::Sha512_256 => run::<sha2::Sha512_256>(parts),
        }
    }
}

/// What a mask writes in place of a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Mask {
    /// `column.mask.with.N.chars`: this text (N `*`) for every value.
    Chars(String),
    /// `column.mask.hash[.v2].ALGORITHM.with.salt.SALT`.
    Hash {
        algorithm: HashAlgorithm,
        salt: Vec<u8>,
        /// v2: the value's own bytes rather than Java's serialisation.
        v2: bool,
    },
}

impl Mask {
    /// The masked text of a value (`None` for NULL), cut to `max_chars`
    /// characters when a hash is longer; `None` when the masked value is
    /// NULL.
    pub fn apply(&self, value: Option<&str>, max_chars: Option<usize>) -> Option<String> {
        match self {
            Mask::Chars(text) => Some(text.clone()),
            Mask::Hash {
                algorithm,
                salt,
                v2,
            } => {
                let value = value?;
                let digest = if *v2 {
                    algorithm.digest(&[salt, value.as_bytes()])
                } else {
                    algorithm.digest(&[salt, &java_serialised_string(value)])
                };
                let mut hex = String::with_capacity(digest.len() * 2);
                for b in digest {
                    hex.push(char::from(b"0123456789abcdef"[(b >> 4) as usize]));
                    hex.push(char::from(b"0123456789abcdef"[(b & 15) as usize]));
                }
                if let Some(n) = max_chars.filter(|&n| n > 0) {
                    hex.truncate(n.min(hex.len()));
                }
                Some(hex)
            }
        }
    }
}

/// The bytes Java's `ObjectOutputStream.writeObject` writes for a
/// `String`: the stream header, then TC_STRING with a 16-bit length (or
/// TC_LONGSTRING with a 64-bit one) and the text in modified UTF-8 (NUL as
/// two bytes, characters past U+FFFF as two 3-byte surrogates).
fn java_serialised_string(s: &str) -> Vec<u8> {
    let mut text = Vec::with_capacity(s.len() + 8);
    for c in s.chars() {
        let mut units = [0u16; 2];
        for &u in c.encode_utf16(&mut units).iter() {
            match u {
                0x0001..=0x007f => text.push(u as u8),
                0x0000 | 0x0080..=0x07ff => {
                    text.push(0xc0 | (u >> 6) as u8);
                    text.push(0x80 | (u & 0x3f) as u8);
                }
                _ => {
                    text.push(0xe0 | (u >> 12) as u8);
                    text.push(0x80 | ((u >> 6) & 0x3f) as u8);
                    text.push(0x80 | (u & 0x3f) as u8);
                }
            }
        }
    }
    let mut out = vec![0xac, 0xed, 0x00, 0x05];
    match u16::try_from(text.len()) {
        Ok(n) => {
            out.push(0x74);
            out.extend_from_slice(&n.to_be_bytes());
        }
        Err(_) => {
            out.push(0x7c);
            out.extend_from_slice(&(text.len() as u64).to_be_bytes());
        }
    }
    out.extend_from_slice(&text);
    out
}

/// One mask property.
#[derive(Debug, Clone)]
struct MaskRule {
    property: String,
    value: String,
    patterns: Vec<Regex>,
    mask: Arc<Mask>,
}

/// The mask properties of a configuration, in the order Debezium applies
/// them: `with.N.chars` first, then the hashes, then the v2 hashes.
#[derive(Debug, Clone, Default)]
pub struct ColumnMasks {
    chars: Vec<MaskRule>,
    hashes: Vec<MaskRule>,
    hashes_v2: Vec<MaskRule>,
}

impl PartialEq for ColumnMasks {
    fn eq(&self, other: &Self) -> bool {
        let key = |m: &ColumnMasks| -> Vec<(String, String)> {
            m.rules()
                .map(|r| (r.property.clone(), r.value.clone()))
                .collect()
        };
        key(self) == key(other)
    }
}

impl Eq for ColumnMasks {}

impl ColumnMasks {
    fn rules(&self) -> impl Iterator<Item = &MaskRule> {
        self.chars.iter().chain(&self.hashes).chain(&self.hashes_v2)
    }

    pub fn is_empty(&self) -> bool {
        self.rules().next().is_none()
    }

    /// Whether `property` is a mask property's name.
    pub fn is_mask_property(property: &str) -> bool {
        property.starts_with("column.mask.with.") || property.starts_with("column.mask.hash.")
    }

    /// Adds the mask property `property` (see [`ColumnMasks::is_mask_property`])
    /// with its list of column patterns.
    pub fn add(&mut self, property: &str, value: &str) -> Result<(), DebeziumError> {
        let bad = |reason: &str| DebeziumError::Pattern {
            property: property.to_string(),
            pattern: value.to_string(),
            reason: reason.to_string(),
        };
        let (bucket, mask) = if let Some(n) = property
            .strip_prefix("column.mask.with.")
            .and_then(|r| r.strip_suffix(".chars"))
        {
            let n: usize = n
                .parse()
                .map_err(|_| bad("expected column.mask.with.N.chars with N a whole number"))?;
            (&mut self.chars, Mask::Chars("*".repeat(n)))
        } else if let Some(rest) = property.strip_prefix("column.mask.hash.") {
            let (v2, rest) = match rest.strip_prefix("v2.") {
                Some(r) => (true, r),
                None => (false, rest),
            };
            let Some((algorithm, salt)) = rest.split_once(".with.salt.") else {
                return Err(bad(
                    "expected column.mask.hash.ALGORITHM.with.salt.SALT (or column.mask.hash.v2.…)",
                ));
            };
            if algorithm.contains('.') || salt.is_empty() {
                return Err(bad(
                    "expected column.mask.hash.ALGORITHM.with.salt.SALT (or column.mask.hash.v2.…)",
                ));
            }
            let Some(algorithm) = HashAlgorithm::by_name(algorithm) else {
                return Err(bad(
                    "unknown hash algorithm; supported: MD5, SHA-1, SHA-224, SHA-256, SHA-384, SHA-512, SHA-512/224, SHA-512/256",
                ));
            };
            let mask = Mask::Hash {
                algorithm,
                salt: salt.as_bytes().to_vec(),
                v2,
            };
            if v2 {
                (&mut self.hashes_v2, mask)
            } else {
                (&mut self.hashes, mask)
            }
        } else {
            return Err(DebeziumError::UnknownProperty(property.to_string()));
        };
        bucket.push(MaskRule {
            property: property.to_string(),
            value: value.to_string(),
            patterns: patterns(property, value)?,
            mask: Arc::new(mask),
        });
        Ok(())
    }

    /// The mask of column `column` of `schema.table`, if a rule names it.
    pub fn mask_for(&self, schema: &str, table: &str, column: &str) -> Option<Arc<Mask>> {
        if self.is_empty() {
            return None;
        }
        let name = full_name(schema, table, column);
        self.rules()
            .find(|r| r.patterns.iter().any(|p| p.is_match(&name)))
            .map(|r| r.mask.clone())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hash(algorithm: &str, v2: bool, value: &str) -> String {
        Mask::Hash {
            algorithm: HashAlgorithm::by_name(algorithm).unwrap(),
            salt: b"salt".to_vec(),
            v2,
        }
        .apply(Some(value), None)
        .unwrap()
    }

    /// The values of Debezium's own tests (`MaskStringsTest`).
    #[test]
    fn hashes_are_debeziums() {
        assert_eq!(
            hash("SHA-256", false, "hello"),
            "af5843a0f0e728ab0332c8888b6e1190bfb79e584f0d40538de8f10df6ef29c6"
        );
        assert_eq!(
            hash("SHA-256", false, "world"),
            "4588e1f2dcdc7fefc1515d3acd5acb9033478eace68286f383c337b9ff4464a3"
        );
        assert_eq!(
            hash("md5", false, "hello"),
            "46f48a7a5ea32efba87cbff49d46d35a"
        );
        assert_eq!(
            hash("MD5", false, "world"),
            "030f632140d9c9591b0d8c21098024b8"
        );
        assert_eq!(
            hash("SHA-256", true, "hello"),
            "cd31b3b98ece60cb739c0bf770b2de892ae0ad133f645513c3d83f08757a843a"
        );
        assert_eq!(
            hash("MD5", true, "world"),
            "172c8e95398cc72ab5358ead6981e7e5"
        );
        // Cut to the column's length; NULL stays null.
        let m = Mask::Hash {
            algorithm: HashAlgorithm::Sha256,
            salt: b"salt".to_vec(),
            v2: false,
        };
        assert_eq!(m.apply(Some("hello"), Some(8)).unwrap(), "af5843a0");
        assert_eq!(m.apply(None, Some(8)), None);
        assert_eq!(Mask::Chars("***".into()).apply(None, None).unwrap(), "***");
    }

    #[test]
    fn java_serialisation_of_strings() {
        assert_eq!(
            java_serialised_string("a\u{0}é€😀"),
            [
                &[0xac, 0xed, 0, 5, 0x74, 0, 14, b'a', 0xc0, 0x80, 0xc3, 0xa9, 0xe2, 0x82, 0xac][..],
                &[0xed, 0xa0, 0xbd, 0xed, 0xb8, 0x80],
            ]
            .concat()
        );
        let long = "x".repeat(70_000);
        let s = java_serialised_string(&long);
        assert_eq!(&s[4..13], &[0x7c, 0, 0, 0, 0, 0, 1, 0x11, 0x70]);
    }

    #[test]
    fn masks_match_whole_names_without_case_and_chars_come_first() {
        let mut m = ColumnMasks::default();
        m.add(
            "column.mask.hash.SHA-256.with.salt.pepper",
            "shop\\.users\\.email",
        )
        .unwrap();
        m.add(
            "column.mask.with.3.chars",
            "shop.users.(email|phone), other.t.c",
        )
        .unwrap();
        assert_eq!(
            m.mask_for("SHOP", "Users", "EMAIL").as_deref(),
            Some(&Mask::Chars("***".into()))
        );
        assert!(m.mask_for("shop", "users", "email2").is_none());
        assert!(m.mask_for("xshop", "users", "email").is_none());
        assert!(m.add("column.mask.hash.WHIRL.with.salt.x", "a").is_err());
        assert!(m.add("column.mask.with.x.chars", "a").is_err());
        assert!(m.add("column.mask.hash.SHA-256", "a").is_err());
        assert!(m.add("column.mask.with.2.chars", "a(").is_err());
    }

    #[test]
    fn include_and_exclude_lists() {
        let r = DebeziumColumnRules::new(None, Some("shop\\.users\\.(email|phone)")).unwrap();
        assert!(r.keeps("shop", "users", "id"));
        assert!(!r.keeps("Shop", "users", "PHONE"));
        let r =
            DebeziumColumnRules::new(Some("shop\\.users\\.(id|name)"), Some(".*\\.name")).unwrap();
        assert!(r.keeps("shop", "users", "id"));
        assert!(!r.keeps("shop", "users", "name"));
        assert!(!r.keeps("shop", "users", "email"));
        assert!(DebeziumColumnRules::new(Some("("), None).is_err());
    }
}
