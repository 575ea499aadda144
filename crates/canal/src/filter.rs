//! Canal's table filter (`canal.instance.filter.regex` and friends): a
//! comma-separated list of regular expressions matched, anchored and
//! case-insensitively, against `schema.table`.

use regex::{Regex, RegexBuilder};

/// A compiled filter. An empty pattern list matches everything when used
/// as a white list; callers use [`TableFilter::is_empty`] for black lists.
#[derive(Debug, Clone)]
pub struct TableFilter {
    source: String,
    regex: Option<Regex>,
}

#[derive(Debug, thiserror::Error)]
#[error("invalid table filter {filter:?}: pattern {pattern:?}: {error}")]
pub struct FilterError {
    pub filter: String,
    pub pattern: String,
    pub error: String,
}

impl TableFilter {
    pub fn new(filter: &str) -> Result<Self, FilterError> {
        let mut patterns = split_patterns(filter);
        // Canal tries longer patterns first; with anchoring the order does
        // not change what matches, but keep it for identical semantics.
        patterns.sort_by_key(|p| std::cmp::Reverse(p.len()));
        let regex = if patterns.is_empty() {
            None
        } else {
            for p in &patterns {
                if let Err(e) = Regex::new(p) {
                    return Err(FilterError {
                        filter: filter.to_string(),
                        pattern: p.clone(),
                        error: e.to_string(),
                    });
                }
            }
            let joined = patterns
                .iter()
                .map(|p| format!("(?:{p})"))
                .collect::<Vec<_>>()
                .join("|");
            Some(
                RegexBuilder::new(&format!("^(?:{joined})$"))
                    .case_insensitive(true)
                    .build()
                    .map_err(|e| FilterError {
                        filter: filter.to_string(),
                        pattern: joined.clone(),
                        error: e.to_string(),
                    })?,
            )
        };
        Ok(TableFilter {
            source: filter.to_string(),
            regex,
        })
    }

    /// The filter that matches everything (an empty pattern list).
    pub fn all() -> Self {
        TableFilter {
            source: String::new(),
            regex: None,
        }
    }

    /// Whether `schema.table` matches; an empty filter matches everything.
    pub fn matches(&self, schema: &str, table: &str) -> bool {
        match &self.regex {
            None => true,
            Some(r) => r.is_match(&format!("{schema}.{table}").to_lowercase()),
        }
    }

    pub fn is_empty(&self) -> bool {
        self.regex.is_none()
    }

    pub fn as_str(&self) -> &str {
        &self.source
    }

    /// Its patterns, as written (trimmed, empty ones dropped).
    pub fn patterns(&self) -> Vec<String> {
        split_patterns(&self.source)
    }

    /// Whether it keeps every table: no pattern, or one that matches any
    /// `schema.table` (`.*\..*`, `.*`).
    pub fn keeps_all(&self) -> bool {
        self.regex.is_none() || self.patterns().iter().any(|p| p == ".*\\..*" || p == ".*")
    }
}

/// Splits on commas that are not inside `{}`, `[]` or `()` (so `\d{1,2}` works).
fn split_patterns(filter: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut depth = 0i32;
    let mut cur = String::new();
    let mut escaped = false;
    for c in filter.chars() {
        if escaped {
            cur.push(c);
            escaped = false;
            continue;
        }
        match c {
            '\\' => {
                escaped = true;
                cur.push(c);
            }
            '{' | '[' | '(' => {
                depth += 1;
                cur.push(c);
            }
            '}' | ']' | ')' => {
                depth -= 1;
                cur.push(c);
            }
            ',' if depth <= 0 => {
                out.push(std::mem::take(&mut cur));
            }
            _ => cur.push(c),
        }
    }
    out.push(cur);
    out.into_iter()
        .map(|p| p.trim().to_string())
        .filter(|p| !p.is_empty())
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canal_examples() {
        let all = TableFilter::new(".*\\..*").unwrap();
        assert!(all.matches("shop", "orders"));
        let schema = TableFilter::new("canal\\..*").unwrap();
        assert!(schema.matches("canal", "t1"));
        assert!(schema.matches("CANAL", "T1"));
        assert!(!schema.matches("shop", "t1"));
        let combo = TableFilter::new("canal\\..*,mysql.test1,mysql.test2").unwrap();
        assert!(combo.matches("mysql", "test2"));
        assert!(!combo.matches("mysql", "test3"));
        // Anchored: a prefix does not match.
        let one = TableFilter::new("canal.test1").unwrap();
        assert!(!one.matches("canal", "test10"));
    }

    #[test]
    fn commas_inside_braces_are_not_separators() {
        let f = TableFilter::new("db\\.t_\\d{1,2},other\\.x").unwrap();
        assert!(f.matches("db", "t_12"));
        assert!(!f.matches("db", "t_123"));
        assert!(f.matches("other", "x"));
    }

    #[test]
    fn empty_matches_everything_and_bad_regex_is_an_error() {
        assert!(TableFilter::new("").unwrap().matches("a", "b"));
        assert!(TableFilter::new("").unwrap().is_empty());
        let e = TableFilter::new("ok\\..*,bad(").unwrap_err();
        assert!(e.to_string().contains("bad("));
    }
}
