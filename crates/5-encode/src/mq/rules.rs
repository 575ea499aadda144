//! The rule lists of `canal.mq.dynamicTopic`, `canal.mq.partitionHash` and
//! `canal.mq.dynamicTopicPartitionNum`, parsed once and matched as Canal's
//! `MQMessageUtils` matches them.
//!
//! Shared by all three: rules are separated by `,` or `;` (every one is a
//! separator, so a regex cannot contain a comma); a pattern is a *simple
//! name*, compared case-insensitively, unless it contains one of
//! `* ? + | ( ) { } [ ] \ $ ^` (a plain `.` does not count); otherwise it is
//! a regular expression matched, anchored and case-insensitively, against
//! the lower-cased name, the way the table filter matches. Unlike Canal,
//! whitespace around rules, topics, patterns and column names is trimmed
//! (Canal would keep it and silently never match).

use regex::{Regex, RegexBuilder};

/// `canal.mq.dynamicTopic`.
pub const DYNAMIC_TOPIC: &str = "canal.mq.dynamicTopic";
/// `canal.mq.partitionHash`.
pub const PARTITION_HASH: &str = "canal.mq.partitionHash";
/// `canal.mq.dynamicTopicPartitionNum`.
pub const DYNAMIC_TOPIC_PARTITION_NUM: &str = "canal.mq.dynamicTopicPartitionNum";
/// `canal.mq.partitionsNum`.
pub const PARTITIONS_NUM: &str = "canal.mq.partitionsNum";
/// `canal.mq.partition`.
pub const PARTITION: &str = "canal.mq.partition";

/// A routing setting that cannot work, named by its Canal key.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum RouteError {
    #[error(
        "{key}: rule {rule:?}: pattern {pattern:?} is not a valid regular expression: {error}"
    )]
    Regex {
        key: &'static str,
        rule: String,
        pattern: String,
        error: String,
    },
    #[error("{key}: rule {rule:?}: {problem}")]
    Rule {
        key: &'static str,
        rule: String,
        problem: String,
    },
    #[error("{key} = {value}: {problem}")]
    Value {
        key: &'static str,
        value: String,
        problem: String,
    },
}

/// Whether Canal treats `pattern` as a regex (`MQMessageUtils.isWildCard`).
fn is_regex(pattern: &str) -> bool {
    pattern.contains([
        '*', '?', '+', '|', '(', ')', '{', '}', '[', ']', '\\', '$', '^',
    ])
}

/// The rules of a list: split at every `,` and `;`, trimmed, empties dropped.
fn split_rules(list: &str) -> impl Iterator<Item = &str> {
    list.split([',', ';'])
        .map(str::trim)
        .filter(|r| !r.is_empty())
}

/// Java's `String.equalsIgnoreCase`: equal lengths and, per character, equal
/// as is, upper-cased, or upper- then lower-cased (one-to-one mappings only).
pub(crate) fn java_equals_ignore_case(a: &str, b: &str) -> bool {
    fn upper(c: char) -> char {
        let mut m = c.to_uppercase();
        match (m.next(), m.next()) {
            (Some(u), None) => u,
            _ => c,
        }
    }
    fn lower(c: char) -> char {
        let mut m = c.to_lowercase();
        match (m.next(), m.next()) {
            (Some(l), None) => l,
            _ => c,
        }
    }
    let mut a = a.chars();
    let mut b = b.chars();
    loop {
        match (a.next(), b.next()) {
            (None, None) => return true,
            (Some(x), Some(y)) => {
                if x != y && upper(x) != upper(y) && lower(upper(x)) != lower(upper(y)) {
                    return false;
                }
            }
            _ => return false,
        }
    }
}

/// One pattern of a rule: a simple name or an anchored regex.
#[derive(Debug, Clone)]
pub enum NamePattern {
    /// Compared with the name case-insensitively.
    Simple(String),
    /// Matched against the whole lower-cased name, case-insensitively.
    Regex(Regex),
}

impl NamePattern {
    /// Parses `pattern` of `rule` in the list of `key`.
    fn parse(key: &'static str, rule: &str, pattern: &str) -> Result<NamePattern, RouteError> {
        if !is_regex(pattern) {
            return Ok(NamePattern::Simple(pattern.to_string()));
        }
        RegexBuilder::new(&format!("^(?:{pattern})$"))
            .case_insensitive(true)
            .build()
            .map(NamePattern::Regex)
            .map_err(|e| RouteError::Regex {
                key,
                rule: rule.to_string(),
                pattern: pattern.to_string(),
                error: e.to_string(),
            })
    }

    pub fn matches(&self, name: &str) -> bool {
        match self {
            NamePattern::Simple(simple) => java_equals_ignore_case(simple, name),
            NamePattern::Regex(regex) => regex.is_match(&name.to_lowercase()),
        }
    }
}

/// A `canal.mq.dynamicTopic` pattern: which names it is tried against.
#[derive(Debug, Clone)]
enum TopicPattern {
    /// A simple name: both `schema.table` and `schema`.
    Simple(String),
    /// A regex containing `\.`: only names with a `.` (`schema.table`).
    Table(Regex),
    /// Any other regex: only names without a `.` (`schema`).
    Schema(Regex),
}

#[derive(Debug, Clone)]
struct TopicRule {
    /// The `topic:` prefix; without one the topic is the matched name, lower-cased.
    topic: Option<String>,
    pattern: TopicPattern,
}

/// `canal.mq.dynamicTopic`: which topic an entry goes to.
#[derive(Debug, Clone, Default)]
pub struct TopicRules {
    rules: Vec<TopicRule>,
}

impl TopicRules {
    /// Parses the list; a rule is `pattern` or `topic:pattern` (split at
    /// the first `:`).
    pub fn parse(list: &str) -> Result<TopicRules, RouteError> {
        let mut rules = Vec::new();
        for rule in split_rules(list) {
            let (topic, pattern) = match rule.split_once(':') {
                Some((topic, pattern)) => (Some(topic.trim()), pattern.trim()),
                None => (None, rule),
            };
            if topic == Some("") {
                return Err(RouteError::Rule {
                    key: DYNAMIC_TOPIC,
                    rule: rule.to_string(),
                    problem: "no topic before ':' (expected topic:pattern or pattern)".into(),
                });
            }
            if pattern.is_empty() {
                return Err(RouteError::Rule {
                    key: DYNAMIC_TOPIC,
                    rule: rule.to_string(),
                    problem: "no pattern after ':' (expected topic:pattern or pattern)".into(),
                });
            }
            let pattern = match NamePattern::parse(DYNAMIC_TOPIC, rule, pattern)? {
                NamePattern::Simple(name) => TopicPattern::Simple(name),
                NamePattern::Regex(regex) if pattern.contains("\\.") => TopicPattern::Table(regex),
                NamePattern::Regex(regex) => TopicPattern::Schema(regex),
            };
            rules.push(TopicRule {
                topic: topic.map(str::to_string),
                pattern,
            });
        }
        Ok(TopicRules { rules })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The topic of an entry of `schema.table` before `.` becomes `_`;
    /// `None` for the default topic (no rule matches, or the entry has no
    /// schema or table). `schema.table` is tried against every rule first,
    /// then `schema`; the first rule that matches wins.
    pub fn topic(&self, schema: &str, table: &str) -> Option<String> {
        if schema.is_empty() || table.is_empty() {
            return None;
        }
        let full = format!("{schema}.{table}");
        let topic = [full.as_str(), schema].into_iter().find_map(|name| {
            self.rules
                .iter()
                .find(|rule| rule.matches(name))
                .map(|rule| match &rule.topic {
                    Some(topic) => topic.clone(),
                    None => name.to_lowercase(),
                })
        });
        topic
    }
}

impl TopicRule {
    fn matches(&self, name: &str) -> bool {
        match &self.pattern {
            TopicPattern::Simple(simple) => java_equals_ignore_case(simple, name),
            TopicPattern::Table(regex) => {
                name.contains('.') && regex.is_match(&name.to_lowercase())
            }
            TopicPattern::Schema(regex) => {
                !name.contains('.') && regex.is_match(&name.to_lowercase())
            }
        }
    }
}

/// How the rows of a matched table are spread over partitions.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum HashMode {
    /// No `:`: by the table name, every row of a table to one partition.
    Table,
    /// `:a^b`: by these columns of each row.
    Columns(Vec<String>),
    /// `:$pk$`: by the primary-key columns of each row.
    PrimaryKey,
}

#[derive(Debug, Clone)]
struct PartitionRule {
    pattern: NamePattern,
    mode: HashMode,
}

/// `canal.mq.partitionHash`: how the rows of a table are partitioned.
#[derive(Debug, Clone, Default)]
pub struct PartitionRules {
    rules: Vec<PartitionRule>,
}

impl PartitionRules {
    /// Parses the list; a rule is `pattern[:hash]` (split at the last `:`),
    /// `hash` being `$pk$` or columns joined with `^`.
    pub fn parse(list: &str) -> Result<PartitionRules, RouteError> {
        let mut rules = Vec::new();
        for rule in split_rules(list) {
            let bad = |problem: &str| RouteError::Rule {
                key: PARTITION_HASH,
                rule: rule.to_string(),
                problem: problem.to_string(),
            };
            let (pattern, mode) = match rule.rsplit_once(':') {
                Some((pattern, hash)) => {
                    let hash = hash.trim();
                    let mode = if hash.eq_ignore_ascii_case("$pk$") {
                        HashMode::PrimaryKey
                    } else {
                        let columns: Vec<String> = hash
                            .split('^')
                            .map(str::trim)
                            .filter(|c| !c.is_empty())
                            .map(str::to_string)
                            .collect();
                        if columns.is_empty() {
                            return Err(bad(
                                "no column after ':' (expected pattern, pattern:col1^col2 or pattern:$pk$)",
                            ));
                        }
                        HashMode::Columns(columns)
                    };
                    (pattern.trim(), mode)
                }
                None => (rule, HashMode::Table),
            };
            if pattern.is_empty() {
                return Err(bad(
                    "no table pattern before ':' (expected pattern, pattern:col1^col2 or pattern:$pk$)",
                ));
            }
            rules.push(PartitionRule {
                pattern: NamePattern::parse(PARTITION_HASH, rule, pattern)?,
                mode,
            });
        }
        Ok(PartitionRules { rules })
    }

    pub fn is_empty(&self) -> bool {
        self.rules.is_empty()
    }

    /// The hash mode of the first rule matching `schema.table`; `None`
    /// sends the table's rows to partition 0.
    pub fn mode(&self, schema: &str, table: &str) -> Option<&HashMode> {
        let name = format!("{schema}.{table}");
        self.rules
            .iter()
            .find(|rule| rule.pattern.matches(&name))
            .map(|rule| &rule.mode)
    }
}

/// `canal.mq.dynamicTopicPartitionNum`: per-topic partition counts.
#[derive(Debug, Clone, Default)]
pub struct TopicPartitions {
    rules: Vec<(NamePattern, i32)>,
}

impl TopicPartitions {
    /// Parses the list; a rule is `topicOrPattern:count` (split at the last
    /// `:`), the count at least 1. Canal skips a rule without a count and
    /// falls back to `canal.mq.partitionsNum` for one that is not a number;
    /// both are refused here.
    pub fn parse(list: &str) -> Result<TopicPartitions, RouteError> {
        let mut rules = Vec::new();
        for rule in split_rules(list) {
            let bad = |problem: String| RouteError::Rule {
                key: DYNAMIC_TOPIC_PARTITION_NUM,
                rule: rule.to_string(),
                problem,
            };
            let Some((pattern, count)) = rule.rsplit_once(':') else {
                return Err(bad(
                    "no partition count (expected topic:count, e.g. mytopic:6)".into(),
                ));
            };
            let pattern = pattern.trim();
            if pattern.is_empty() {
                return Err(bad(
                    "no topic before ':' (expected topic:count, e.g. mytopic:6)".into(),
                ));
            }
            let count = match count.trim().parse::<i32>() {
                Ok(n) if n >= 1 => n,
                _ => {
                    return Err(bad(format!(
                        "partition count {:?} is not a number from 1 to {}",
                        count.trim(),
                        i32::MAX
                    )))
                }
            };
            rules.push((
                NamePattern::parse(DYNAMIC_TOPIC_PARTITION_NUM, rule, pattern)?,
                count,
            ));
        }
        Ok(TopicPartitions { rules })
    }

    /// The partition count of the first rule matching `topic` (the final
    /// name, `.` already `_`).
    pub fn partitions(&self, topic: &str) -> Option<i32> {
        self.rules
            .iter()
            .find(|(pattern, _)| pattern.matches(topic))
            .map(|(_, n)| *n)
    }
}
