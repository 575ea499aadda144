//! Reads Sluice's own broker keys (`sluice.mq.redis.*`, `sluice.mq.nats.*`)
//! from `canal.properties`, with errors that name the file, line and key.

use std::path::{Path, PathBuf};

use sluice_config::{ConfigError, Properties, Property};

pub(crate) struct Keys<'a> {
    pub(crate) path: &'a Path,
    pub(crate) props: &'a Properties,
}

impl Keys<'_> {
    /// The property when set to something other than blanks (empty values
    /// count as unset, as Canal treats them).
    pub(crate) fn get(&self, key: &str) -> Option<&Property> {
        self.props.get(key).filter(|p| !p.value.trim().is_empty())
    }

    pub(crate) fn string(&self, key: &str, default: &str) -> String {
        self.get(key)
            .map_or_else(|| default.to_string(), |p| p.value.trim().to_string())
    }

    /// A positive integer, `None` when unset.
    pub(crate) fn positive(&self, key: &str) -> Result<Option<u64>, ConfigError> {
        match self.get(key) {
            None => Ok(None),
            Some(p) => match p.value.trim().parse::<u64>() {
                Ok(n) if n > 0 => Ok(Some(n)),
                _ => Err(self.bad(key, p, "expected a positive whole number")),
            },
        }
    }

    pub(crate) fn bad(&self, key: &str, p: &Property, expected: &str) -> ConfigError {
        ConfigError::BadValue {
            path: PathBuf::from(self.path),
            line: p.line,
            key: key.to_string(),
            value: p.value.clone(),
            expected: expected.to_string(),
        }
    }

    /// [`bad`](Self::bad) for `key`, which may be unset (a default value).
    pub(crate) fn bad_value(&self, key: &str, value: &str, expected: &str) -> ConfigError {
        let p = self.get(key).cloned().unwrap_or(Property {
            value: value.to_string(),
            line: 0,
        });
        self.bad(key, &p, expected)
    }
}

/// `scheme://user:password@host:port/...` without the user and password,
/// for logs and errors.
pub(crate) fn without_credentials(url: &str) -> String {
    let Some(scheme) = url.find("://") else {
        return url.to_string();
    };
    let rest = &url[scheme + 3..];
    let authority = &rest[..rest.find('/').unwrap_or(rest.len())];
    match authority.rfind('@') {
        Some(at) => format!("{}{}", &url[..scheme + 3], &rest[at + 1..]),
        None => url.to_string(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn credentials_are_left_out_of_urls() {
        assert_eq!(
            without_credentials("redis://:s3cret@h:6379/0"),
            "redis://h:6379/0"
        );
        assert_eq!(without_credentials("nats://u:p@h:4222"), "nats://h:4222");
        assert_eq!(without_credentials("nats://h:4222"), "nats://h:4222");
    }
}
