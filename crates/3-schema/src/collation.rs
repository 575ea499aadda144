//! Character sets and collations by name: their ids (as the binlog numbers
//! them), each character set's default collation and width. A static table;
//! it never asks a server (a test compares it with `information_schema`).

/// `(collation, id)` for the collations of MySQL and MariaDB that share ids.
const COLLATIONS: &[(&str, u32)] = &[
    ("big5_chinese_ci", 1),
    ("latin2_czech_cs", 2),
    ("dec8_swedish_ci", 3),
    ("cp850_general_ci", 4),
    ("latin1_german1_ci", 5),
    ("hp8_english_ci", 6),
    ("koi8r_general_ci", 7),
    ("latin1_swedish_ci", 8),
    ("latin2_general_ci", 9),
    ("swe7_swedish_ci", 10),
    ("ascii_general_ci", 11),
    ("ujis_japanese_ci", 12),
    ("sjis_japanese_ci", 13),
    ("cp1251_bulgarian_ci", 14),
    ("latin1_danish_ci", 15),
    ("hebrew_general_ci", 16),
    ("tis620_thai_ci", 18),
    ("euckr_korean_ci", 19),
    ("latin7_estonian_cs", 20),
    ("latin2_hungarian_ci", 21),
    ("koi8u_general_ci", 22),
    ("cp1251_ukrainian_ci", 23),
    ("gb2312_chinese_ci", 24),
    ("greek_general_ci", 25),
    ("cp1250_general_ci", 26),
    ("latin2_croatian_ci", 27),
    ("gbk_chinese_ci", 28),
    ("cp1257_lithuanian_ci", 29),
    ("latin5_turkish_ci", 30),
    ("latin1_german2_ci", 31),
    ("armscii8_general_ci", 32),
    ("utf8mb3_general_ci", 33),
    ("cp1250_czech_cs", 34),
    ("ucs2_general_ci", 35),
    ("cp866_general_ci", 36),
    ("keybcs2_general_ci", 37),
    ("macce_general_ci", 38),
    ("macroman_general_ci", 39),
    ("cp852_general_ci", 40),
    ("latin7_general_ci", 41),
    ("latin7_general_cs", 42),
    ("macce_bin", 43),
    ("cp1250_croatian_ci", 44),
    ("utf8mb4_general_ci", 45),
    ("utf8mb4_bin", 46),
    ("latin1_bin", 47),
    ("latin1_general_ci", 48),
    ("latin1_general_cs", 49),
    ("cp1251_bin", 50),
    ("cp1251_general_ci", 51),
    ("cp1251_general_cs", 52),
    ("macroman_bin", 53),
    ("utf16_general_ci", 54),
    ("utf16_bin", 55),
    ("utf16le_general_ci", 56),
    ("cp1256_general_ci", 57),
    ("cp1257_bin", 58),
    ("cp1257_general_ci", 59),
    ("utf32_general_ci", 60),
    ("utf32_bin", 61),
    ("utf16le_bin", 62),
    ("binary", 63),
    ("armscii8_bin", 64),
    ("ascii_bin", 65),
    ("cp1250_bin", 66),
    ("cp1256_bin", 67),
    ("cp866_bin", 68),
    ("dec8_bin", 69),
    ("greek_bin", 70),
    ("hebrew_bin", 71),
    ("hp8_bin", 72),
    ("keybcs2_bin", 73),
    ("koi8r_bin", 74),
    ("koi8u_bin", 75),
    ("latin2_bin", 77),
    ("latin5_bin", 78),
    ("latin7_bin", 79),
    ("cp850_bin", 80),
    ("cp852_bin", 81),
    ("swe7_bin", 82),
    ("utf8mb3_bin", 83),
    ("big5_bin", 84),
    ("euckr_bin", 85),
    ("gb2312_bin", 86),
    ("gbk_bin", 87),
    ("sjis_bin", 88),
    ("tis620_bin", 89),
    ("ucs2_bin", 90),
    ("ujis_bin", 91),
    ("geostd8_general_ci", 92),
    ("geostd8_bin", 93),
    ("latin1_spanish_ci", 94),
    ("cp932_japanese_ci", 95),
    ("cp932_bin", 96),
    ("eucjpms_japanese_ci", 97),
    ("eucjpms_bin", 98),
    ("cp1250_polish_ci", 99),
    ("utf16_unicode_ci", 101),
    ("ucs2_unicode_ci", 128),
    ("utf8mb3_unicode_ci", 192),
    ("utf8mb3_unicode_520_ci", 214),
    ("utf8mb4_unicode_ci", 224),
    ("utf8mb4_unicode_520_ci", 246),
    ("utf8mb4_0900_ai_ci", 255),
    ("utf8mb4_0900_as_cs", 278),
    ("utf8mb4_0900_bin", 309),
    // MariaDB NO PAD collations.
    ("latin1_swedish_nopad_ci", 1032),
    ("latin1_nopad_bin", 1071),
    ("utf8mb3_general_nopad_ci", 1057),
    ("utf8mb3_nopad_bin", 1107),
    ("utf8mb4_general_nopad_ci", 1069),
    ("utf8mb4_nopad_bin", 1070),
    ("utf8mb4_unicode_nopad_ci", 1248),
    ("utf8mb4_unicode_520_nopad_ci", 1270),
    // MariaDB 10.10+ UCA 14.0 collations of utf8mb4.
    ("utf8mb4_uca1400_ai_ci", 2304),
    ("utf8mb4_uca1400_as_cs", 2311),
];

/// `(charset, default collation, max bytes per character)`.
const CHARSETS: &[(&str, &str, u32)] = &[
    ("big5", "big5_chinese_ci", 2),
    ("dec8", "dec8_swedish_ci", 1),
    ("cp850", "cp850_general_ci", 1),
    ("hp8", "hp8_english_ci", 1),
    ("koi8r", "koi8r_general_ci", 1),
    ("latin1", "latin1_swedish_ci", 1),
    ("latin2", "latin2_general_ci", 1),
    ("swe7", "swe7_swedish_ci", 1),
    ("ascii", "ascii_general_ci", 1),
    ("ujis", "ujis_japanese_ci", 3),
    ("sjis", "sjis_japanese_ci", 2),
    ("hebrew", "hebrew_general_ci", 1),
    ("tis620", "tis620_thai_ci", 1),
    ("euckr", "euckr_korean_ci", 2),
    ("koi8u", "koi8u_general_ci", 1),
    ("gb2312", "gb2312_chinese_ci", 2),
    ("greek", "greek_general_ci", 1),
    ("cp1250", "cp1250_general_ci", 1),
    ("gbk", "gbk_chinese_ci", 2),
    ("latin5", "latin5_turkish_ci", 1),
    ("armscii8", "armscii8_general_ci", 1),
    ("utf8mb3", "utf8mb3_general_ci", 3),
    ("ucs2", "ucs2_general_ci", 2),
    ("cp866", "cp866_general_ci", 1),
    ("keybcs2", "keybcs2_general_ci", 1),
    ("macce", "macce_general_ci", 1),
    ("macroman", "macroman_general_ci", 1),
    ("cp852", "cp852_general_ci", 1),
    ("latin7", "latin7_general_ci", 1),
    ("utf8mb4", "utf8mb4_general_ci", 4),
    ("cp1251", "cp1251_general_ci", 1),
    ("utf16", "utf16_general_ci", 4),
    ("utf16le", "utf16le_general_ci", 4),
    ("cp1256", "cp1256_general_ci", 1),
    ("cp1257", "cp1257_general_ci", 1),
    ("utf32", "utf32_general_ci", 4),
    ("binary", "binary", 1),
    ("geostd8", "geostd8_general_ci", 1),
    ("cp932", "cp932_japanese_ci", 2),
    ("eucjpms", "eucjpms_japanese_ci", 3),
];

/// Canonical lower-case charset name: `utf8` is `utf8mb3` on both servers.
pub fn normalize_charset(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    match n.as_str() {
        "utf8" => "utf8mb3".to_string(),
        _ => n,
    }
}

/// Canonical lower-case collation name: `utf8_...` is `utf8mb3_...`.
pub fn normalize_collation(name: &str) -> String {
    let n = name.to_ascii_lowercase();
    match n.strip_prefix("utf8_") {
        Some(rest) => format!("utf8mb3_{rest}"),
        None => n,
    }
}

/// The default collation of a character set.
pub fn default_collation(charset: &str) -> Option<&'static str> {
    let cs = normalize_charset(charset);
    CHARSETS.iter().find(|c| c.0 == cs).map(|c| c.1)
}

/// The character set a collation belongs to (its name up to the first `_`,
/// with `utf8mb3`/`utf8mb4`/`utf16le` recognised).
pub fn charset_of_collation(collation: &str) -> String {
    let c = normalize_collation(collation);
    if c == "binary" {
        return c;
    }
    let head = c.split('_').next().unwrap_or(&c).to_string();
    normalize_charset(&head)
}

/// Maximum bytes per character of a character set (1 when unknown).
pub fn max_bytes_per_char(charset: &str) -> u32 {
    let cs = normalize_charset(charset);
    CHARSETS
        .iter()
        .find(|c| c.0 == cs)
        .map(|c| c.2)
        .unwrap_or(1)
}

/// The id of a collation; for one this table does not list, the id of its
/// character set's default collation (same rendering rules), else `None`.
pub fn collation_id(collation: &str) -> Option<u32> {
    let c = normalize_collation(collation);
    if let Some(&(_, id)) = COLLATIONS.iter().find(|(n, _)| *n == c) {
        return Some(id);
    }
    let dc = default_collation(&charset_of_collation(&c))?;
    COLLATIONS.iter().find(|(n, _)| *n == dc).map(|&(_, id)| id)
}

/// The name of a collation id, when this table lists it.
pub fn collation_name(id: u32) -> Option<&'static str> {
    COLLATIONS.iter().find(|(_, i)| *i == id).map(|(n, _)| *n)
}

/// Every collation this table knows, for tests.
pub fn known_collations() -> impl Iterator<Item = (&'static str, u32)> {
    COLLATIONS.iter().copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_and_ids() {
        assert_eq!(collation_id("utf8mb4_general_ci"), Some(45));
        assert_eq!(collation_id("UTF8_GENERAL_CI"), Some(33));
        assert_eq!(collation_id("latin1_german2_ci"), Some(31));
        assert_eq!(collation_id("latin1_nonexistent_ci"), Some(8));
        assert_eq!(default_collation("utf8"), Some("utf8mb3_general_ci"));
        assert_eq!(charset_of_collation("utf8mb4_unicode_ci"), "utf8mb4");
        assert_eq!(charset_of_collation("utf8_bin"), "utf8mb3");
        assert_eq!(charset_of_collation("binary"), "binary");
        assert_eq!(max_bytes_per_char("utf8mb4"), 4);
        assert_eq!(collation_name(63), Some("binary"));
    }
}
