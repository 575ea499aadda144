//! Where the source's password comes from for a command-line reader: the
//! URL, a file, or an environment variable — at most one of them, since a
//! second would silently win over the first.

use std::ffi::OsStr;
use std::path::Path;

/// The environment variable that may hold the source's password.
pub const PASSWORD_ENV: &str = "SLUICE_SOURCE_PASSWORD";

/// The password from `file` or [`PASSWORD_ENV`] (`env`), if one is given;
/// at most one of them and the URL (`in_url`) may hold it. A password in
/// the URL is accepted with a warning: any local user can read a command
/// line. `file_flag` names the file's option in messages.
pub fn source_password(
    in_url: bool,
    file: Option<&Path>,
    file_flag: &str,
    env: Option<&OsStr>,
) -> Result<Option<String>, String> {
    let given: Vec<&str> = [
        (in_url, "a password in --source"),
        (file.is_some(), file_flag),
        (env.is_some(), PASSWORD_ENV),
    ]
    .into_iter()
    .filter_map(|(set, name)| set.then_some(name))
    .collect();
    if given.len() > 1 {
        return Err(format!(
            "the source's password is given more than once ({}): keep one",
            given.join(" and ")
        ));
    }
    if in_url {
        tracing::warn!(
            "the password in --source is visible to every local user (ps, /proc/PID/cmdline): \
             give it in {PASSWORD_ENV} or a {file_flag} instead"
        );
    }
    if let Some(path) = file {
        let text = std::fs::read_to_string(path).map_err(|e| {
            format!(
                "cannot read the source's password from {file_flag} {}: {e}",
                path.display()
            )
        })?;
        let password = text
            .strip_suffix('\n')
            .map(|t| t.strip_suffix('\r').unwrap_or(t))
            .unwrap_or(&text);
        return Ok(Some(password.to_string()));
    }
    if let Some(value) = env {
        let password = value.to_str().ok_or_else(|| {
            format!("{PASSWORD_ENV} is not valid UTF-8: the password must be UTF-8 text")
        })?;
        return Ok(Some(password.to_string()));
    }
    Ok(None)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn one_source_of_the_password_at_most() {
        let err =
            source_password(true, None, "--password-file", Some(OsStr::new("x"))).unwrap_err();
        assert!(err.contains("more than once"), "{err}");
        assert_eq!(
            source_password(false, None, "--password-file", Some(OsStr::new("pw"))).unwrap(),
            Some("pw".to_string())
        );
        let dir = tempfile::tempdir().unwrap();
        let file = dir.path().join("pw");
        std::fs::write(&file, "secret\r\n").unwrap();
        assert_eq!(
            source_password(false, Some(&file), "--password-file", None).unwrap(),
            Some("secret".to_string())
        );
        assert_eq!(
            source_password(false, None, "--password-file", None).unwrap(),
            None
        );
    }
}
