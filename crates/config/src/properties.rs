//! Java `.properties` files as Canal reads them: `key=value`, `key: value`
//! or `key value`; `#`/`!` comments; a trailing backslash continues a line;
//! `\t`, `\n`, `\uXXXX` and friends; then `${key}` / `${key:default}`
//! placeholders resolved against the same file and the given variables.
//! Written by hand: no maintained crate does the Java format with Canal's
//! placeholder rules and line numbers for errors.

use std::collections::HashMap;

/// One key with its value and where it was defined.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Property {
    pub value: String,
    pub line: usize,
}

/// The properties of one file, in definition order (later definitions win).
#[derive(Debug, Clone, Default)]
pub struct Properties {
    pub entries: HashMap<String, Property>,
    pub order: Vec<String>,
}

impl Properties {
    pub fn parse(text: &str) -> Properties {
        let mut props = Properties::default();
        let mut lines = text.lines().enumerate().peekable();
        while let Some((idx, raw)) = lines.next() {
            let first_line = idx + 1;
            let trimmed = raw.trim_start();
            if trimmed.is_empty() || trimmed.starts_with('#') || trimmed.starts_with('!') {
                continue;
            }
            let mut logical = String::from(trimmed);
            while ends_with_continuation(&logical) {
                logical.pop();
                match lines.next() {
                    Some((_, next)) => logical.push_str(next.trim_start()),
                    None => break,
                }
            }
            let (key, value) = split_key_value(&logical);
            let key = unescape(&key);
            let value = unescape(&value);
            if !props.entries.contains_key(&key) {
                props.order.push(key.clone());
            }
            props.entries.insert(
                key,
                Property {
                    value,
                    line: first_line,
                },
            );
        }
        props
    }

    pub fn get(&self, key: &str) -> Option<&Property> {
        self.entries.get(key)
    }

    /// Resolves `${name}` and `${name:default}` in every value, looking names
    /// up in this file first, then in `vars`. Unknown names without a default
    /// stay as written (Canal leaves them too).
    pub fn resolve_placeholders(&mut self, vars: &HashMap<String, String>) {
        let snapshot: HashMap<String, String> = self
            .entries
            .iter()
            .map(|(k, v)| (k.clone(), v.value.clone()))
            .collect();
        for p in self.entries.values_mut() {
            p.value = substitute(&p.value, &snapshot, vars, 0);
        }
    }
}

fn ends_with_continuation(s: &str) -> bool {
    let backslashes = s.chars().rev().take_while(|&c| c == '\\').count();
    backslashes % 2 == 1
}

fn split_key_value(line: &str) -> (String, String) {
    let mut key = String::new();
    let mut chars = line.chars().peekable();
    let mut escaped = false;
    while let Some(&c) = chars.peek() {
        if escaped {
            key.push('\\');
            key.push(c);
            escaped = false;
            chars.next();
            continue;
        }
        if c == '\\' {
            escaped = true;
            chars.next();
            continue;
        }
        if c == '=' || c == ':' || c.is_whitespace() {
            break;
        }
        key.push(c);
        chars.next();
    }
    // Skip white space, at most one separator, white space again.
    while chars.peek().is_some_and(|c| c.is_whitespace()) {
        chars.next();
    }
    if chars.peek().is_some_and(|&c| c == '=' || c == ':') {
        chars.next();
    }
    while chars.peek().is_some_and(|c| c.is_whitespace()) {
        chars.next();
    }
    let value: String = chars.collect();
    // Trailing blanks are kept by Java, but Canal trims every value it reads.
    (key, value.trim_end().to_string())
}

fn unescape(s: &str) -> String {
    let mut out = String::with_capacity(s.len());
    let mut chars = s.chars();
    while let Some(c) = chars.next() {
        if c != '\\' {
            out.push(c);
            continue;
        }
        match chars.next() {
            Some('t') => out.push('\t'),
            Some('n') => out.push('\n'),
            Some('r') => out.push('\r'),
            Some('f') => out.push('\u{c}'),
            Some('u') => {
                let hex: String = chars.by_ref().take(4).collect();
                match u32::from_str_radix(&hex, 16).ok().and_then(char::from_u32) {
                    Some(ch) => out.push(ch),
                    None => {
                        out.push_str("\\u");
                        out.push_str(&hex);
                    }
                }
            }
            Some(other) => out.push(other),
            None => {}
        }
    }
    out
}

fn substitute(
    value: &str,
    file: &HashMap<String, String>,
    vars: &HashMap<String, String>,
    depth: usize,
) -> String {
    if depth > 10 || !value.contains("${") {
        return value.to_string();
    }
    let mut out = String::new();
    let mut rest = value;
    while let Some(start) = rest.find("${") {
        out.push_str(&rest[..start]);
        let after = &rest[start + 2..];
        let Some(end) = after.find('}') else {
            out.push_str(&rest[start..]);
            return out;
        };
        let inner = &after[..end];
        let (name, default) = match inner.split_once(':') {
            Some((n, d)) => (n, Some(d)),
            None => (inner, None),
        };
        match file.get(name).or_else(|| vars.get(name)) {
            Some(v) => out.push_str(&substitute(v, file, vars, depth + 1)),
            None => match default {
                Some(d) => out.push_str(&substitute(d, file, vars, depth + 1)),
                None => out.push_str(&rest[start..start + 2 + end + 1]),
            },
        }
        rest = &after[end + 1..];
    }
    out.push_str(rest);
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn java_properties_syntax() {
        let p = Properties::parse(
            "# comment\n! also\na=1\nb : two words  \nc three\nlong = one,\\\n   two\nregex = .*\\\\..*\nuni=\\u00e9\nempty=\n",
        );
        let v = |k: &str| p.get(k).map(|x| x.value.clone());
        assert_eq!(v("a").as_deref(), Some("1"));
        assert_eq!(v("b").as_deref(), Some("two words"));
        assert_eq!(v("c").as_deref(), Some("three"));
        assert_eq!(v("long").as_deref(), Some("one,two"));
        assert_eq!(v("regex").as_deref(), Some(".*\\..*"));
        assert_eq!(v("uni").as_deref(), Some("é"));
        assert_eq!(v("empty").as_deref(), Some(""));
        assert_eq!(p.get("long").map(|x| x.line), Some(6));
    }

    #[test]
    fn placeholders() {
        let mut p = Properties::parse(
            "canal.file.data.dir = ${canal.conf.dir}\ntsdb = ${canal.file.data.dir:../conf}/${canal.instance.destination:}\nmissing = ${nope}\n",
        );
        let vars = HashMap::from([("canal.conf.dir".to_string(), "/etc/sluice".to_string())]);
        p.resolve_placeholders(&vars);
        assert_eq!(p.get("canal.file.data.dir").unwrap().value, "/etc/sluice");
        assert_eq!(p.get("tsdb").unwrap().value, "/etc/sluice/");
        assert_eq!(p.get("missing").unwrap().value, "${nope}");
    }
}
