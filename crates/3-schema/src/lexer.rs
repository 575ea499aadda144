//! The tokenizer under the hand-written DDL parser: MySQL/MariaDB lexical
//! rules (backquoted identifiers, strings with both escape styles, `--`, `#`
//! and `/* */` comments, `/*! ... */` and `/*M! ... */` executable comments).
//! It owns nothing but the token stream and never interprets statements.

/// How the server that wrote the statement reads it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LexOptions {
    /// `sql_mode` has ANSI_QUOTES: `"x"` is an identifier, not a string.
    pub ansi_quotes: bool,
    /// `sql_mode` has NO_BACKSLASH_ESCAPES: `\` is an ordinary character in strings.
    pub no_backslash_escapes: bool,
    /// The statement ran on MySQL: `/*M! ... */` is a plain comment there.
    pub mysql: bool,
}

/// One token. Text is owned so that the parser can hand names out freely.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Tok {
    /// An unquoted word: a keyword or an identifier.
    Word(String),
    /// A backquoted (or, under ANSI_QUOTES, double-quoted) identifier.
    Quoted(String),
    /// A string literal, unescaped.
    Str(String),
    /// A numeric literal as written (`12`, `1.5e3`, `0x1f`).
    Num(String),
    /// `@name` or `@@name`.
    Var(String),
    /// Punctuation or an operator: `(`, `)`, `,`, `.`, `=`, `;`, `+`, `<=` ...
    Punct(&'static str),
}

/// A token with the byte range of its source text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Token {
    pub tok: Tok,
    pub start: usize,
    pub end: usize,
}

impl Tok {
    /// Whether this is the unquoted keyword `kw` (ASCII case-insensitive).
    pub fn is_kw(&self, kw: &str) -> bool {
        matches!(self, Tok::Word(w) if w.eq_ignore_ascii_case(kw))
    }
    pub fn is_punct(&self, p: &str) -> bool {
        matches!(self, Tok::Punct(q) if *q == p)
    }
}

/// A lexical error: an unterminated string, identifier or comment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LexError {
    pub at: usize,
    pub what: &'static str,
}

impl std::fmt::Display for LexError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{} at byte {}", self.what, self.at)
    }
}

const PUNCTS: &[&str] = &[
    "<=>", "<=", ">=", "<>", "!=", ":=", "||", "&&", "<<", ">>", "->>", "->", "(", ")", ",", ".",
    "=", ";", "+", "-", "*", "/", "%", "<", ">", "!", "~", "^", "&", "|", ":", "?", "{", "}", "[",
    "]",
];

/// Splits `sql` into tokens, skipping comments and whitespace.
pub fn tokenize(sql: &str, opts: LexOptions) -> Result<Vec<Token>, LexError> {
    let b = sql.as_bytes();
    let mut out = Vec::new();
    let mut i = 0usize;
    // Depth of open executable comments, whose closing `*/` is skipped.
    let mut exec_comments = 0usize;
    while i < b.len() {
        let c = b[i];
        if c.is_ascii_whitespace() {
            i += 1;
            continue;
        }
        if let Some(next) = skip_comment(b, i, opts, &mut exec_comments)? {
            i = next;
            continue;
        }
        let start = i;
        if c == b'`' || (c == b'"' && opts.ansi_quotes) {
            let (text, end) = quoted(sql, i, c, false).ok_or(LexError {
                at: i,
                what: "unterminated quoted identifier",
            })?;
            out.push(Token {
                tok: Tok::Quoted(text),
                start,
                end,
            });
            i = end;
            continue;
        }
        if c == b'\'' || c == b'"' {
            let (text, end) = quoted(sql, i, c, !opts.no_backslash_escapes).ok_or(LexError {
                at: i,
                what: "unterminated string",
            })?;
            out.push(Token {
                tok: Tok::Str(text),
                start,
                end,
            });
            i = end;
            continue;
        }
        if c == b'@' {
            i = push_variable(sql, i, &mut out)?;
            continue;
        }
        if c.is_ascii_digit() || (c == b'.' && b.get(i + 1).is_some_and(u8::is_ascii_digit)) {
            i = push_number(sql, i, &mut out);
            continue;
        }
        if is_ident_byte(c) {
            i = push_word(sql, i, &mut out)?;
            continue;
        }
        if let Some(p) = PUNCTS.iter().find(|p| b[i..].starts_with(p.as_bytes())) {
            out.push(Token {
                tok: Tok::Punct(p),
                start,
                end: i + p.len(),
            });
            i += p.len();
            continue;
        }
        // Anything else (stray bytes): skip one UTF-8 character.
        i += utf8_len(c);
    }
    Ok(out)
}

/// Skips the comment at `i` (a plain comment, or the opening or closing
/// of an executable one, whose content is read as SQL): the index after
/// it, or `None` when no comment starts at `i`.
#[inline]
fn skip_comment(
    b: &[u8],
    mut i: usize,
    opts: LexOptions,
    exec_comments: &mut usize,
) -> Result<Option<usize>, LexError> {
    let c = b[i];
    if *exec_comments > 0 && b[i..].starts_with(b"*/") {
        *exec_comments -= 1;
        i += 2;
        return Ok(Some(i));
    }
    if c == b'#'
        || (b[i..].starts_with(b"--") && b.get(i + 2).is_none_or(|x| x.is_ascii_whitespace()))
    {
        while i < b.len() && b[i] != b'\n' {
            i += 1;
        }
        return Ok(Some(i));
    }
    if b[i..].starts_with(b"/*") {
        let exec = b[i..].starts_with(b"/*!") || (!opts.mysql && b[i..].starts_with(b"/*M!"));
        if exec {
            i += if b[i + 2] == b'M' { 4 } else { 3 };
            // Optional 5- or 6-digit version number.
            let start = i;
            while i < b.len() && b[i].is_ascii_digit() && i - start < 6 {
                i += 1;
            }
            if i - start != 5 && i - start != 6 {
                i = start;
            }
            *exec_comments += 1;
            return Ok(Some(i));
        }
        match find(b, i + 2, b"*/") {
            Some(e) => i = e + 2,
            None => {
                return Err(LexError {
                    at: i,
                    what: "unterminated comment",
                })
            }
        }
        return Ok(Some(i));
    }
    Ok(None)
}

/// Pushes the `@name` / `@@name` / `@'quoted'` variable at `i`; returns
/// the index after it.
#[inline]
fn push_variable(sql: &str, mut i: usize, out: &mut Vec<Token>) -> Result<usize, LexError> {
    let b = sql.as_bytes();
    let start = i;
    i += 1;
    if b.get(i) == Some(&b'@') {
        i += 1;
    }
    if let Some(&q) = b.get(i) {
        if q == b'`' || q == b'\'' || q == b'"' {
            let (text, end) = quoted(sql, i, q, q != b'`').ok_or(LexError {
                at: i,
                what: "unterminated variable name",
            })?;
            out.push(Token {
                tok: Tok::Var(text),
                start,
                end,
            });
            return Ok(end);
        }
    }
    while i < b.len() && (is_ident_byte(b[i]) || b[i] == b'.') {
        i += 1;
    }
    out.push(Token {
        tok: Tok::Var(sql[start..i].to_string()),
        start,
        end: i,
    });
    Ok(i)
}

/// Pushes the number at `i` (decimal, exponent, `0x..`, `0b..`), or the word
/// when digits start an identifier; returns the index after it.
#[inline]
fn push_number(sql: &str, i: usize, out: &mut Vec<Token>) -> usize {
    let b = sql.as_bytes();
    let c = b[i];
    let start = i;
    // Hex / bit literals 0x.. 0b..
    if c == b'0' && matches!(b.get(i + 1), Some(b'x') | Some(b'b')) {
        let mut j = i + 2;
        while j < b.len() && b[j].is_ascii_alphanumeric() {
            j += 1;
        }
        if j > i + 2 {
            out.push(Token {
                tok: Tok::Num(sql[i..j].to_string()),
                start,
                end: j,
            });
            return j;
        }
    }
    let mut j = i;
    while j < b.len() && (b[j].is_ascii_digit() || b[j] == b'.') {
        j += 1;
    }
    if j < b.len() && (b[j] == b'e' || b[j] == b'E') {
        let mut k = j + 1;
        if k < b.len() && (b[k] == b'+' || b[k] == b'-') {
            k += 1;
        }
        if k < b.len() && b[k].is_ascii_digit() {
            while k < b.len() && b[k].is_ascii_digit() {
                k += 1;
            }
            j = k;
        }
    }
    // Identifiers may start with digits (`1abc`); read them as words.
    if j < b.len() && is_ident_byte(b[j]) && !b[i..j].contains(&b'.') {
        while j < b.len() && is_ident_byte(b[j]) {
            j += 1;
        }
        out.push(Token {
            tok: Tok::Word(sql[i..j].to_string()),
            start,
            end: j,
        });
    } else {
        out.push(Token {
            tok: Tok::Num(sql[i..j].to_string()),
            start,
            end: j,
        });
    }
    j
}

/// Pushes the word, or the `x'..'` / `b'..'` / `n'..'` literal, at `i`;
/// returns the index after it.
#[inline]
fn push_word(sql: &str, i: usize, out: &mut Vec<Token>) -> Result<usize, LexError> {
    let b = sql.as_bytes();
    let c = b[i];
    let start = i;
    // x'..' b'..' n'..' literals.
    if matches!(c, b'x' | b'X' | b'b' | b'B' | b'n' | b'N') && b.get(i + 1) == Some(&b'\'') {
        let (text, end) = quoted(sql, i + 1, b'\'', false).ok_or(LexError {
            at: i,
            what: "unterminated string",
        })?;
        let tok = if matches!(c, b'n' | b'N') {
            Tok::Str(text)
        } else {
            Tok::Num(sql[i..end].to_string())
        };
        out.push(Token { tok, start, end });
        return Ok(end);
    }
    let mut j = i;
    while j < b.len() && is_ident_byte(b[j]) {
        j += 1;
    }
    out.push(Token {
        tok: Tok::Word(sql[i..j].to_string()),
        start,
        end: j,
    });
    Ok(j)
}

fn utf8_len(c: u8) -> usize {
    match c {
        0xf0..=0xff => 4,
        0xe0..=0xef => 3,
        0xc0..=0xdf => 2,
        _ => 1,
    }
}

/// Identifier bytes: ASCII letters, digits, `_`, `$`, and any non-ASCII byte.
fn is_ident_byte(c: u8) -> bool {
    c.is_ascii_alphanumeric() || c == b'_' || c == b'$' || c >= 0x80
}

fn find(b: &[u8], from: usize, pat: &[u8]) -> Option<usize> {
    if from > b.len() {
        return None;
    }
    b[from..]
        .windows(pat.len())
        .position(|w| w == pat)
        .map(|p| p + from)
}

/// Reads a quoted string or identifier starting at `i` (the quote); returns
/// the unescaped text and the index just past the closing quote.
fn quoted(sql: &str, i: usize, q: u8, backslash: bool) -> Option<(String, usize)> {
    let b = sql.as_bytes();
    let mut out: Vec<u8> = Vec::new();
    let mut j = i + 1;
    while j < b.len() {
        let c = b[j];
        if c == q {
            if b.get(j + 1) == Some(&q) {
                out.push(q);
                j += 2;
                continue;
            }
            return Some((String::from_utf8_lossy(&out).into_owned(), j + 1));
        }
        if backslash && c == b'\\' {
            let n = *b.get(j + 1)?;
            let esc = match n {
                b'n' => Some(b'\n'),
                b't' => Some(b'\t'),
                b'r' => Some(b'\r'),
                b'0' => Some(0),
                b'b' => Some(8),
                b'Z' => Some(26),
                // `\%` and `\_` keep their backslash (LIKE patterns).
                b'%' | b'_' => None,
                other => Some(other),
            };
            match esc {
                Some(e) => out.push(e),
                None => {
                    out.push(b'\\');
                    out.push(n);
                }
            }
            j += 2;
            continue;
        }
        out.push(c);
        j += 1;
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    fn toks(s: &str) -> Vec<Tok> {
        tokenize(s, LexOptions::default())
            .unwrap()
            .into_iter()
            .map(|t| t.tok)
            .collect()
    }

    #[test]
    fn quotes_comments_and_version_comments() {
        assert_eq!(
            toks("CREATE /* c */ TABLE `a``b` (x INT) -- tail\n/*!50100 PARTITION */ # x"),
            vec![
                Tok::Word("CREATE".into()),
                Tok::Word("TABLE".into()),
                Tok::Quoted("a`b".into()),
                Tok::Punct("("),
                Tok::Word("x".into()),
                Tok::Word("INT".into()),
                Tok::Punct(")"),
                Tok::Word("PARTITION".into()),
            ]
        );
        assert_eq!(
            toks(r"'it''s' 'a\'b' x'41' 1.5e3 -1 @@x 1abc"),
            vec![
                Tok::Str("it's".into()),
                Tok::Str("a'b".into()),
                Tok::Num("x'41'".into()),
                Tok::Num("1.5e3".into()),
                Tok::Punct("-"),
                Tok::Num("1".into()),
                Tok::Var("@@x".into()),
                Tok::Word("1abc".into()),
            ]
        );
        let ansi = LexOptions {
            ansi_quotes: true,
            ..Default::default()
        };
        assert_eq!(
            tokenize("\"id\"", ansi).unwrap()[0].tok,
            Tok::Quoted("id".into())
        );
        assert!(tokenize("'open", LexOptions::default()).is_err());
        let mysql = LexOptions {
            mysql: true,
            ..Default::default()
        };
        assert!(tokenize("/*M!100100 INVISIBLE */", mysql)
            .unwrap()
            .is_empty());
        assert_eq!(toks("/*M!100100 INVISIBLE */").len(), 1);
    }
}
