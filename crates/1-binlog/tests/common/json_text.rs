//! JSON as MySQL prints it in a SELECT, for comparing Sluice's rendering of
//! JSON columns with a tree built from another decoder's view of the binary
//! document.
//!
//! MySQL's text form (`Json_wrapper::to_string`): `", "` between array
//! elements and object members, `": "` after a key, no other whitespace;
//! object members in the binary document's order (keys sorted by length,
//! then bytes); strings with `\"`, `\\` and control characters escaped;
//! DECIMAL numbers with their scale (`1.50`); DATE, TIME, DATETIME and
//! TIMESTAMP as strings (`"2015-01-15"`, `"23:24:25.000000"`,
//! `"2015-01-15 23:24:25.000000"`); other opaque values as
//! `"base64:type<N>:<data>"`. The check below parses Sluice's text strictly
//! in that form; doubles are compared by value (their digits follow MySQL's
//! `my_gcvt`, checked for plain FLOAT/DOUBLE columns instead).

/// A JSON value, numbers kept apart by kind.
#[derive(Debug, Clone, PartialEq)]
pub enum J {
    Null,
    Bool(bool),
    Int(i128),
    Double(f64),
    /// DECIMAL inside JSON: compared as text.
    Decimal(String),
    Str(String),
    Arr(Vec<J>),
    Obj(Vec<(String, J)>),
}

/// Checks that `text` is `want` printed the MySQL way.
pub fn check(text: &str, want: &J) -> Result<(), String> {
    let mut p = Parser {
        s: text.as_bytes(),
        i: 0,
    };
    let got = p
        .value()
        .map_err(|e| format!("JSON {text:?}: {e} at byte {}", p.i))?;
    if p.i != p.s.len() {
        return Err(format!("JSON {text:?}: trailing bytes at {}", p.i));
    }
    same(&got, want, "$").map_err(|e| format!("JSON {text:?}: {e}"))
}

/// A value parsed from Sluice's text; numbers keep their text.
#[derive(Debug)]
enum P {
    Null,
    Bool(bool),
    Num(String),
    Str(String),
    Arr(Vec<P>),
    Obj(Vec<(String, P)>),
}

fn same(got: &P, want: &J, path: &str) -> Result<(), String> {
    let mismatch = || Err(format!("at {path}: Sluice has {got:?}, expected {want:?}"));
    match (got, want) {
        (P::Null, J::Null) => Ok(()),
        (P::Bool(a), J::Bool(b)) if a == b => Ok(()),
        (P::Str(a), J::Str(b)) if a == b => Ok(()),
        (P::Num(a), J::Int(b)) if *a == b.to_string() => Ok(()),
        (P::Num(a), J::Decimal(b)) if a == b => Ok(()),
        (P::Num(a), J::Double(b)) => match a.parse::<f64>() {
            Ok(v) if v == *b => Ok(()),
            _ => mismatch(),
        },
        (P::Arr(a), J::Arr(b)) if a.len() == b.len() => {
            for (i, (x, y)) in a.iter().zip(b).enumerate() {
                same(x, y, &format!("{path}[{i}]"))?;
            }
            Ok(())
        }
        (P::Obj(a), J::Obj(b)) if a.len() == b.len() => {
            for ((ka, va), (kb, vb)) in a.iter().zip(b) {
                if ka != kb {
                    return Err(format!("at {path}: key {ka:?} where {kb:?} was expected"));
                }
                same(va, vb, &format!("{path}.{ka}"))?;
            }
            Ok(())
        }
        _ => mismatch(),
    }
}

struct Parser<'a> {
    s: &'a [u8],
    i: usize,
}

impl Parser<'_> {
    fn peek(&self) -> Option<u8> {
        self.s.get(self.i).copied()
    }

    fn expect(&mut self, lit: &str) -> Result<(), String> {
        if self.s[self.i..].starts_with(lit.as_bytes()) {
            self.i += lit.len();
            Ok(())
        } else {
            Err(format!("expected {lit:?}"))
        }
    }

    fn value(&mut self) -> Result<P, String> {
        match self.peek() {
            Some(b'n') => self.expect("null").map(|_| P::Null),
            Some(b't') => self.expect("true").map(|_| P::Bool(true)),
            Some(b'f') => self.expect("false").map(|_| P::Bool(false)),
            Some(b'"') => self.string().map(P::Str),
            Some(b'[') => {
                self.i += 1;
                let mut items = Vec::new();
                if self.peek() == Some(b']') {
                    self.i += 1;
                    return Ok(P::Arr(items));
                }
                loop {
                    items.push(self.value()?);
                    match self.peek() {
                        Some(b']') => {
                            self.i += 1;
                            return Ok(P::Arr(items));
                        }
                        _ => self.expect(", ")?,
                    }
                }
            }
            Some(b'{') => {
                self.i += 1;
                let mut members = Vec::new();
                if self.peek() == Some(b'}') {
                    self.i += 1;
                    return Ok(P::Obj(members));
                }
                loop {
                    let k = self.string()?;
                    self.expect(": ")?;
                    members.push((k, self.value()?));
                    match self.peek() {
                        Some(b'}') => {
                            self.i += 1;
                            return Ok(P::Obj(members));
                        }
                        _ => self.expect(", ")?,
                    }
                }
            }
            Some(b'-' | b'0'..=b'9') => {
                let start = self.i;
                while let Some(b'-' | b'+' | b'.' | b'e' | b'E' | b'0'..=b'9') = self.peek() {
                    self.i += 1;
                }
                let t = std::str::from_utf8(&self.s[start..self.i]).map_err(|e| e.to_string())?;
                Ok(P::Num(t.to_string()))
            }
            other => Err(format!("unexpected {:?}", other.map(|b| b as char))),
        }
    }

    fn string(&mut self) -> Result<String, String> {
        self.expect("\"")?;
        let mut out: Vec<u8> = Vec::new();
        loop {
            let c = self.peek().ok_or("unterminated string")?;
            self.i += 1;
            match c {
                b'"' => break,
                b'\\' => {
                    let e = self.peek().ok_or("unterminated escape")?;
                    self.i += 1;
                    let ch = match e {
                        b'"' => '"',
                        b'\\' => '\\',
                        b'/' => '/',
                        b'b' => '\u{8}',
                        b'f' => '\u{c}',
                        b'n' => '\n',
                        b'r' => '\r',
                        b't' => '\t',
                        b'u' => {
                            let h = self.s.get(self.i..self.i + 4).ok_or("short \\u escape")?;
                            self.i += 4;
                            let v = u32::from_str_radix(
                                std::str::from_utf8(h).map_err(|e| e.to_string())?,
                                16,
                            )
                            .map_err(|e| e.to_string())?;
                            char::from_u32(v).ok_or("\\u escape of a surrogate")?
                        }
                        other => return Err(format!("unknown escape \\{}", other as char)),
                    };
                    let mut buf = [0u8; 4];
                    out.extend_from_slice(ch.encode_utf8(&mut buf).as_bytes());
                }
                c if c < 0x20 => return Err(format!("unescaped control byte {c:#04x}")),
                c => out.push(c),
            }
        }
        String::from_utf8(out).map_err(|e| e.to_string())
    }
}

// ---------------------------------------------------------------------------
// Partial JSON updates (PARTIAL_UPDATE_ROWS_EVENT): a list of REPLACE,
// INSERT and REMOVE operations, each at a JSON path, applied in order to
// the before-image (MySQL's Json_diff_vector::apply).

/// One leg of a JSON path: an object member or an array index.
#[derive(Debug, Clone, PartialEq)]
enum Leg {
    Key(String),
    Index(usize),
}

/// Parses the simple paths MySQL writes in JSON diffs: `$`, `.key`,
/// `."quoted key"`, `[n]`.
fn parse_path(path: &str) -> Result<Vec<Leg>, String> {
    let b = path.as_bytes();
    if b.first() != Some(&b'$') {
        return Err(format!("path {path:?} does not start with $"));
    }
    let mut i = 1;
    let mut legs = Vec::new();
    while i < b.len() {
        match b[i] {
            b'.' if b.get(i + 1) == Some(&b'"') => {
                let mut p = Parser { s: b, i: i + 1 };
                legs.push(Leg::Key(p.string()?));
                i = p.i;
            }
            b'.' => {
                let start = i + 1;
                i = start;
                while i < b.len() && b[i] != b'.' && b[i] != b'[' {
                    i += 1;
                }
                legs.push(Leg::Key(path[start..i].to_string()));
            }
            b'[' => {
                let end = path[i..]
                    .find(']')
                    .ok_or_else(|| format!("path {path:?}: unclosed ["))?
                    + i;
                let n = path[i + 1..end]
                    .trim()
                    .parse()
                    .map_err(|_| format!("path {path:?}: bad array index"))?;
                legs.push(Leg::Index(n));
                i = end + 1;
            }
            _ => return Err(format!("path {path:?}: unexpected byte at {i}")),
        }
    }
    Ok(legs)
}

/// MySQL's order of object keys: shorter keys first, then by bytes.
fn key_order(a: &str, b: &str) -> std::cmp::Ordering {
    a.len()
        .cmp(&b.len())
        .then_with(|| a.as_bytes().cmp(b.as_bytes()))
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DiffOp {
    Replace,
    Insert,
    Remove,
}

/// Applies one diff operation to `doc`.
pub fn apply_diff(doc: &mut J, op: DiffOp, path: &str, value: Option<J>) -> Result<(), String> {
    let legs = parse_path(path)?;
    let Some((last, parents)) = legs.split_last() else {
        return match (op, value) {
            (DiffOp::Replace, Some(v)) => {
                *doc = v;
                Ok(())
            }
            _ => Err(format!("{op:?} of the whole document")),
        };
    };
    let mut node = doc;
    for leg in parents {
        node = match (node, leg) {
            (J::Obj(m), Leg::Key(k)) => m
                .iter_mut()
                .find(|(key, _)| key == k)
                .map(|(_, v)| v)
                .ok_or_else(|| format!("{path}: no member {k:?}"))?,
            (J::Arr(a), Leg::Index(n)) => a
                .get_mut(*n)
                .ok_or_else(|| format!("{path}: no element {n}"))?,
            _ => return Err(format!("{path}: leg {leg:?} does not fit the document")),
        };
    }
    match (node, last, op, value) {
        (J::Obj(m), Leg::Key(k), DiffOp::Replace, Some(v)) => {
            let slot = m
                .iter_mut()
                .find(|(key, _)| key == k)
                .ok_or_else(|| format!("{path}: no member {k:?} to replace"))?;
            slot.1 = v;
        }
        (J::Obj(m), Leg::Key(k), DiffOp::Insert, Some(v)) => {
            if m.iter().any(|(key, _)| key == k) {
                return Err(format!("{path}: member {k:?} exists"));
            }
            m.push((k.clone(), v));
            m.sort_by(|a, b| key_order(&a.0, &b.0));
        }
        (J::Obj(m), Leg::Key(k), DiffOp::Remove, None) => {
            let before = m.len();
            m.retain(|(key, _)| key != k);
            if m.len() == before {
                return Err(format!("{path}: no member {k:?} to remove"));
            }
        }
        (J::Arr(a), Leg::Index(n), DiffOp::Replace, Some(v)) => {
            *a.get_mut(*n)
                .ok_or_else(|| format!("{path}: no element {n} to replace"))? = v;
        }
        (J::Arr(a), Leg::Index(n), DiffOp::Insert, Some(v)) => {
            let at = (*n).min(a.len());
            a.insert(at, v);
        }
        (J::Arr(a), Leg::Index(n), DiffOp::Remove, None) => {
            if *n >= a.len() {
                return Err(format!("{path}: no element {n} to remove"));
            }
            a.remove(*n);
        }
        (_, leg, op, _) => return Err(format!("{path}: {op:?} at {leg:?} does not fit")),
    }
    Ok(())
}
