//! Canal's client authentication (spec §5.1): the MySQL 4.1 style SHA-1
//! scramble ("scramble411") checked against `canal.passwd`, which holds the
//! hex of SHA1(SHA1(password)), with Canal's exact acceptance rules:
//!
//! 1. `canal.user` empty, or equal to the username sent, else reject;
//! 2. `canal.passwd` empty: accept, whatever the password;
//! 3. password sent empty: reject;
//! 4. else accept iff the scramble verifies.
//!
//! Owns: the configuration check and the verification, as pure functions.
//! Must never: log or keep a password or token, or accept a token that is
//! not exactly 20 bytes of hex.

use sha1::{Digest, Sha1};
use sluice_config::CanalPortConfig;

/// Bytes of a SHA-1 digest (and of a scramble token).
const DIGEST_LEN: usize = 20;

/// `canal.user` / `canal.passwd`, checked and decoded.
#[derive(Clone, Default, PartialEq, Eq)]
pub struct AuthConfig {
    user: String,
    /// SHA1(SHA1(password)); `None` accepts any password.
    stage2: Option<[u8; DIGEST_LEN]>,
}

impl std::fmt::Debug for AuthConfig {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("AuthConfig")
            .field("user", &self.user)
            .field("passwd", &self.stage2.map(|_| "<set>"))
            .finish()
    }
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum AuthConfigError {
    #[error("canal.user is set but canal.passwd is empty: clients could log in as that user with any password")]
    UserWithoutPassword,
    #[error("canal.passwd must be 40 hex digits: SHA1(SHA1(password))")]
    BadPasswdHex,
}

/// Why a login was refused. The text is Canal's reply text.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("auth failed for user:{user}")]
pub struct AuthRejected {
    pub user: String,
}

impl AuthConfig {
    /// No user, no password: every client is accepted (Canal's default).
    pub fn open() -> AuthConfig {
        AuthConfig::default()
    }

    /// `user` as configured; `passwd_hex` the hex (either case) of
    /// SHA1(SHA1(password)), or empty. As Canal (issue #4941), a user
    /// without a password is refused.
    pub fn new(user: &str, passwd_hex: &str) -> Result<AuthConfig, AuthConfigError> {
        let stage2 = if passwd_hex.is_empty() {
            if !user.is_empty() {
                return Err(AuthConfigError::UserWithoutPassword);
            }
            None
        } else {
            Some(decode_hex20(passwd_hex.as_bytes()).ok_or(AuthConfigError::BadPasswdHex)?)
        };
        Ok(AuthConfig {
            user: user.to_string(),
            stage2,
        })
    }

    /// From `canal.user` and `canal.passwd`.
    pub fn from_config(cfg: &CanalPortConfig) -> Result<AuthConfig, AuthConfigError> {
        AuthConfig::new(&cfg.user, &cfg.passwd)
    }

    /// Whether a password is required.
    pub fn requires_password(&self) -> bool {
        self.stage2.is_some()
    }

    /// Canal's acceptance rules for one ClientAuth: `password` is the field
    /// as received (the ASCII hex of the scrambled token), `seed` the
    /// handshake seed of this connection.
    pub fn check(&self, username: &str, password: &[u8], seed: &[u8]) -> Result<(), AuthRejected> {
        let reject = || AuthRejected {
            user: username.to_string(),
        };
        if !self.user.is_empty() && self.user != username {
            return Err(reject());
        }
        let Some(stage2) = &self.stage2 else {
            return Ok(());
        };
        if password.is_empty() {
            return Err(reject());
        }
        if verify_scramble(stage2, seed, password) {
            Ok(())
        } else {
            Err(reject())
        }
    }
}

/// The server side of scramble411: `token` is the hex text the client sent.
/// `SHA1(seed ‖ stage2) XOR token` must be a `stage1` with
/// `SHA1(stage1) == stage2`.
pub fn verify_scramble(stage2: &[u8; DIGEST_LEN], seed: &[u8], token_hex: &[u8]) -> bool {
    let Some(token) = decode_hex20(token_hex) else {
        return false;
    };
    let mut h = Sha1::new();
    h.update(seed);
    h.update(stage2);
    let mask = h.finalize();
    let mut stage1 = [0u8; DIGEST_LEN];
    for (i, out) in stage1.iter_mut().enumerate() {
        *out = token[i] ^ mask[i];
    }
    let candidate = Sha1::digest(stage1);
    // Compare without an early exit.
    candidate
        .iter()
        .zip(stage2.iter())
        .fold(0u8, |acc, (a, b)| acc | (a ^ b))
        == 0
}

/// The client side of scramble411 (for tests and tools).
pub use sluice_canal::auth::scramble411;

/// SHA1(SHA1(password)) as uppercase hex: the `canal.passwd` value for a password.
pub fn passwd_hash_hex(password: &[u8]) -> String {
    let stage2 = Sha1::digest(Sha1::digest(password));
    stage2.iter().map(|b| format!("{b:02X}")).collect()
}

/// Exactly 40 hex digits (either case) to 20 bytes.
fn decode_hex20(hex: &[u8]) -> Option<[u8; DIGEST_LEN]> {
    if hex.len() != 2 * DIGEST_LEN {
        return None;
    }
    let mut out = [0u8; DIGEST_LEN];
    for (o, pair) in out.iter_mut().zip(hex.chunks_exact(2)) {
        *o = (nibble(pair[0])? << 4) | nibble(pair[1])?;
    }
    Some(out)
}

fn nibble(c: u8) -> Option<u8> {
    match c {
        b'0'..=b'9' => Some(c - b'0'),
        b'a'..=b'f' => Some(c - b'a' + 10),
        b'A'..=b'F' => Some(c - b'A' + 10),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(bytes: &[u8]) -> String {
        bytes.iter().map(|b| format!("{b:02x}")).collect()
    }

    const SEED: [u8; 8] = [1, 2, 3, 4, 5, 6, 7, 8];

    #[test]
    fn passwd_hashes_match_the_spec() {
        assert_eq!(
            passwd_hash_hex(b"123456"),
            "6BB4837EB74329105EE4568DDA7DC67ED2CA2AD9"
        );
        assert_eq!(
            passwd_hash_hex(b"canal"),
            "E3619321C1A937C46A0D8BD1DAC39F93B27D4458"
        );
        assert_eq!(
            passwd_hash_hex(b"admin"),
            "4ACFE3202A5FF5CF467898FC58AAB1D615029441"
        );
    }

    #[test]
    fn scramble_of_admin_with_seed_1_to_8_matches_the_spec() {
        assert_eq!(
            hex(&scramble411(b"admin", &SEED)),
            "7442e41a86c87ea818a7b90f671b334eeea8be84"
        );
    }

    #[test]
    fn the_spec_token_is_accepted_with_either_hex_case() {
        let token = b"7442e41a86c87ea818a7b90f671b334eeea8be84";
        for passwd in [
            "4ACFE3202A5FF5CF467898FC58AAB1D615029441",
            "4acfe3202a5ff5cf467898fc58aab1d615029441",
        ] {
            let cfg = AuthConfig::new("canal", passwd).unwrap();
            assert_eq!(cfg.check("canal", token, &SEED), Ok(()));
            // Token hex in upper case is accepted too.
            let upper = token.to_ascii_uppercase();
            assert_eq!(cfg.check("canal", &upper, &SEED), Ok(()));
        }
    }

    #[test]
    fn wrong_password_user_or_seed_is_rejected() {
        let cfg = AuthConfig::new("canal", "4ACFE3202A5FF5CF467898FC58AAB1D615029441").unwrap();
        let rejected = |user: &str| {
            Err(AuthRejected {
                user: user.to_string(),
            })
        };
        let good = hex(&scramble411(b"admin", &SEED));
        let bad = hex(&scramble411(b"admim", &SEED));
        assert_eq!(cfg.check("canal", bad.as_bytes(), &SEED), rejected("canal"));
        assert_eq!(
            cfg.check("other", good.as_bytes(), &SEED),
            rejected("other")
        );
        assert_eq!(
            cfg.check("canal", good.as_bytes(), &[9; 8]),
            rejected("canal")
        );
        // Rule 3: an empty password never passes when one is configured.
        assert_eq!(cfg.check("canal", b"", &SEED), rejected("canal"));
        // The raw password (canal-python sends it unscrambled) is refused.
        assert_eq!(cfg.check("canal", b"admin", &SEED), rejected("canal"));
        // Not hex, or not 20 bytes.
        assert_eq!(cfg.check("canal", &[b'z'; 40], &SEED), rejected("canal"));
        assert_eq!(
            cfg.check("canal", &good.as_bytes()[..38], &SEED),
            rejected("canal")
        );
    }

    #[test]
    fn empty_passwd_accepts_anything_for_the_configured_user() {
        let open = AuthConfig::open();
        assert!(!open.requires_password());
        assert_eq!(open.check("", b"", &SEED), Ok(()));
        assert_eq!(open.check("anyone", b"garbage", &SEED), Ok(()));
        // A user name with no password is a configuration error (Canal #4941).
        assert_eq!(
            AuthConfig::new("canal", ""),
            Err(AuthConfigError::UserWithoutPassword)
        );
    }

    #[test]
    fn empty_user_accepts_any_user_name_with_the_right_password() {
        let cfg = AuthConfig::new("", "E3619321C1A937C46A0D8BD1DAC39F93B27D4458").unwrap();
        let token = hex(&scramble411(b"canal", &SEED));
        assert_eq!(cfg.check("whoever", token.as_bytes(), &SEED), Ok(()));
    }

    #[test]
    fn bad_passwd_configuration_is_refused() {
        assert_eq!(
            AuthConfig::new("", "1234"),
            Err(AuthConfigError::BadPasswdHex)
        );
        assert_eq!(
            AuthConfig::new("", &"g".repeat(40)),
            Err(AuthConfigError::BadPasswdHex)
        );
    }

    #[test]
    fn debug_does_not_show_the_hash() {
        let cfg = AuthConfig::new("canal", "E3619321C1A937C46A0D8BD1DAC39F93B27D4458").unwrap();
        assert!(!format!("{cfg:?}").contains("E361"));
    }
}
