//! The client side of the authentication plugins, as pure functions from a
//! password and the server's nonce to the bytes the server expects:
//! `mysql_native_password`, `caching_sha2_password` (the fast-auth scramble
//! and the RSA-encrypted password of full auth), MariaDB's `client_ed25519`
//! and `mysql_clear_password`.
//!
//! Owns: the algorithms. Must never: log, store or send a password (callers
//! do the sending), or accept a public key it cannot parse.

use ed25519_dalek::hazmat::{raw_sign, ExpandedSecretKey};
use ed25519_dalek::VerifyingKey;
use rsa::pkcs1::DecodeRsaPublicKey;
use rsa::pkcs8::DecodePublicKey;
use sha1::{Digest, Sha1};
use sha2::{Sha256, Sha512};

/// The authentication plugins Sluice can answer.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum AuthPlugin {
    NativePassword,
    CachingSha2Password,
    /// MySQL 5.6–8.x `sha256_password`: the password RSA-encrypted, or in clear over TLS.
    Sha256Password,
    Ed25519,
    ClearPassword,
}

impl AuthPlugin {
    /// The plugin for a client-side plugin name as servers send it.
    pub fn from_name(name: &str) -> Option<AuthPlugin> {
        Some(match name {
            "mysql_native_password" => AuthPlugin::NativePassword,
            "caching_sha2_password" => AuthPlugin::CachingSha2Password,
            "sha256_password" => AuthPlugin::Sha256Password,
            "client_ed25519" | "ed25519" => AuthPlugin::Ed25519,
            "mysql_clear_password" => AuthPlugin::ClearPassword,
            _ => return None,
        })
    }

    pub fn name(self) -> &'static str {
        match self {
            AuthPlugin::NativePassword => "mysql_native_password",
            AuthPlugin::CachingSha2Password => "caching_sha2_password",
            AuthPlugin::Sha256Password => "sha256_password",
            AuthPlugin::Ed25519 => "client_ed25519",
            AuthPlugin::ClearPassword => "mysql_clear_password",
        }
    }
}

fn xor_into(out: &mut [u8], other: &[u8]) {
    for (a, b) in out.iter_mut().zip(other) {
        *a ^= b;
    }
}

/// The first 20 bytes of a nonce (servers may send a trailing NUL or more).
fn nonce20(scramble: &[u8]) -> &[u8] {
    &scramble[..scramble.len().min(20)]
}

/// `mysql_native_password`: SHA1(password) XOR SHA1(nonce + SHA1(SHA1(password))).
/// An empty password answers with nothing.
pub fn native_password(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha1::digest(password);
    let stage2 = Sha1::digest(stage1);
    let mut h = Sha1::new();
    h.update(nonce20(scramble));
    h.update(stage2);
    let mut out = h.finalize().to_vec();
    xor_into(&mut out, &stage1);
    out
}

/// `caching_sha2_password` fast auth: SHA256(password) XOR
/// SHA256(SHA256(SHA256(password)) + nonce). An empty password answers with nothing.
pub fn caching_sha2_password(password: &[u8], scramble: &[u8]) -> Vec<u8> {
    if password.is_empty() {
        return Vec::new();
    }
    let stage1 = Sha256::digest(password);
    let stage2 = Sha256::digest(stage1);
    let mut h = Sha256::new();
    h.update(stage2);
    h.update(nonce20(scramble));
    let mut out = h.finalize().to_vec();
    xor_into(&mut out, &stage1);
    out
}

/// The password with its terminating NUL, as sent in clear over TLS (full
/// auth of `caching_sha2_password`/`sha256_password`, `mysql_clear_password`).
pub fn clear_password(password: &[u8]) -> Vec<u8> {
    let mut out = password.to_vec();
    out.push(0);
    out
}

/// Full auth without TLS: the password and its NUL, XORed with the nonce
/// (repeated), encrypted with the server's RSA public key (PEM, SPKI or
/// PKCS#1) with OAEP padding (SHA-1, as the servers use since MySQL 8.0.5).
pub fn rsa_encrypted_password(
    password: &[u8],
    scramble: &[u8],
    public_key_pem: &str,
) -> Result<Vec<u8>, String> {
    let key = rsa::PublicKey::from_public_key_pem(public_key_pem)
        .or_else(|_| rsa::PublicKey::from_pkcs1_pem(public_key_pem))
        .map_err(|e| format!("the server's RSA public key cannot be read: {e}"))?;
    let nonce = nonce20(scramble);
    if nonce.is_empty() {
        return Err("the server sent an empty nonce".to_string());
    }
    let mut msg = clear_password(password);
    for (i, b) in msg.iter_mut().enumerate() {
        *b ^= nonce[i % nonce.len()];
    }
    key.encrypt(&mut getrandom::SysRng, rsa::Oaep::<Sha1>::new(), &msg)
        .map_err(|e| {
            format!("RSA encryption of the password failed ({e}); a password longer than the key allows cannot be sent this way: use TLS")
        })
}

/// MariaDB `client_ed25519`: an Ed25519 signature of the server's nonce whose
/// expanded secret key is SHA512(password) (MariaDB's ref10 `crypto_sign`:
/// the password takes the place of the 32-byte seed).
pub fn ed25519_signature(password: &[u8], nonce: &[u8]) -> [u8; 64] {
    let expanded: [u8; 64] = Sha512::digest(password).into();
    let esk = ExpandedSecretKey::from_bytes(&expanded);
    let public = VerifyingKey::from(&esk);
    raw_sign::<Sha512>(&esk, nonce, &public).to_bytes()
}

/// The Ed25519 public key MariaDB stores for a password (base64 of this is
/// what `PASSWORD()` returns for an `ed25519` account).
pub fn ed25519_public_key(password: &[u8]) -> [u8; 32] {
    let expanded: [u8; 64] = Sha512::digest(password).into();
    VerifyingKey::from(&ExpandedSecretKey::from_bytes(&expanded)).to_bytes()
}

#[cfg(test)]
mod tests {
    use super::*;
    use rsa::pkcs8::DecodePrivateKey;

    fn hex(b: &[u8]) -> String {
        b.iter().map(|x| format!("{x:02x}")).collect()
    }

    fn unhex(s: &str) -> Vec<u8> {
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    const NONCE: &[u8; 20] = b"\x3a\x10\x7f\x01abcdefghijklmnop";

    #[test]
    fn native_password_matches_server_check() {
        // MySQL's PASSWORD('password') is '*' + hex(SHA1(SHA1('password'))).
        let stored = Sha1::digest(Sha1::digest(b"password"));
        assert_eq!(
            hex(&stored).to_uppercase(),
            "2470C0C06DEE42FD1618BB99005ADCA2EC9D1E19"
        );
        // The server's check: SHA1(response XOR SHA1(nonce + stored)) == stored.
        let resp = native_password(b"password", NONCE);
        assert_eq!(resp.len(), 20);
        let mut h = Sha1::new();
        h.update(NONCE);
        h.update(stored);
        let mut candidate = h.finalize().to_vec();
        xor_into(&mut candidate, &resp);
        assert_eq!(Sha1::digest(&candidate), stored);
        // A trailing NUL on the nonce changes nothing; an empty password sends nothing.
        let mut with_nul = NONCE.to_vec();
        with_nul.push(0);
        assert_eq!(native_password(b"password", &with_nul), resp);
        assert!(native_password(b"", NONCE).is_empty());
    }

    #[test]
    fn caching_sha2_matches_server_check() {
        let stage1 = Sha256::digest(b"password");
        assert_eq!(
            hex(&stage1),
            "5e884898da28047151d0e56f8dc6292773603d0d6aabbdd62a11ef721d1542d8"
        );
        // The server caches SHA256(SHA256(password)) and checks
        // SHA256(response XOR SHA256(cached + nonce)) == cached.
        let cached = Sha256::digest(stage1);
        let resp = caching_sha2_password(b"password", NONCE);
        assert_eq!(resp.len(), 32);
        let mut h = Sha256::new();
        h.update(cached);
        h.update(NONCE);
        let mut candidate = h.finalize().to_vec();
        xor_into(&mut candidate, &resp);
        assert_eq!(Sha256::digest(&candidate), cached);
        assert!(caching_sha2_password(b"", NONCE).is_empty());
    }

    #[test]
    fn rsa_full_auth_decrypts_to_xored_password() {
        let private =
            rsa::PrivateKey::from_pkcs8_pem(include_str!("../testdata/rsa-test-key.pem")).unwrap();
        let public_pem = include_str!("../testdata/rsa-test-key.pub.pem");
        let enc = rsa_encrypted_password(b"s3cret-pass", NONCE, public_pem).unwrap();
        assert_eq!(enc.len(), 256);
        let dec = private.decrypt(rsa::Oaep::<Sha1>::new(), &enc).unwrap();
        let mut want = b"s3cret-pass\0".to_vec();
        for (i, b) in want.iter_mut().enumerate() {
            *b ^= NONCE[i % 20];
        }
        assert_eq!(dec, want);
        // Randomised padding: two encryptions differ.
        assert_ne!(
            enc,
            rsa_encrypted_password(b"s3cret-pass", NONCE, public_pem).unwrap()
        );
        assert!(rsa_encrypted_password(b"x", NONCE, "not a key").is_err());
    }

    #[test]
    fn ed25519_matches_rfc8032_vectors() {
        // With a 32-byte password, MariaDB's scheme is exactly RFC 8032 Ed25519
        // with that password as the secret key: its test vectors apply.
        let vectors = [
            (
                "9d61b19deffd5a60ba844af492ec2cc44449c5697b326919703bac031cae7f60",
                "d75a980182b10ab7d54bfed3c964073a0ee172f3daa62325af021a68f707511a",
                "",
                "e5564300c360ac729086e2cc806e828a84877f1eb8e5d974d873e065224901555fb8821590a33bacc61e39701cf9b46bd25bf5f0595bbe24655141438e7a100b",
            ),
            (
                "4ccd089b28ff96da9db6c346ec114e0f5b8a319f35aba624da8cf6ed4fb8a6fb",
                "3d4017c3e843895a92b70aa74d1b7ebc9c982ccf2ec4968cc0cd55f12af4660c",
                "72",
                "92a009a9f0d4cab8720e820b5f642540a2b27b5416503f8fb3762223ebdb69da085ac1e43e15996e458f3613d0f11d8c387b2eaeb4302aeeb00d291612bb0c00",
            ),
        ];
        for (secret, public, msg, sig) in vectors {
            let secret = unhex(secret);
            assert_eq!(hex(&ed25519_public_key(&secret)), public);
            assert_eq!(hex(&ed25519_signature(&secret, &unhex(msg))), sig);
        }
    }

    #[test]
    fn ed25519_signature_verifies_for_any_password_length() {
        let nonce = [7u8; 32];
        let sig = ed25519_signature(b"a longer password than 32 bytes, with spaces", &nonce);
        let key = VerifyingKey::from_bytes(&ed25519_public_key(
            b"a longer password than 32 bytes, with spaces",
        ))
        .unwrap();
        key.verify_strict(&nonce, &ed25519_dalek::Signature::from_bytes(&sig))
            .unwrap();
    }

    #[test]
    fn plugin_names() {
        for p in [
            AuthPlugin::NativePassword,
            AuthPlugin::CachingSha2Password,
            AuthPlugin::Sha256Password,
            AuthPlugin::Ed25519,
            AuthPlugin::ClearPassword,
        ] {
            assert_eq!(AuthPlugin::from_name(p.name()), Some(p));
        }
        assert_eq!(AuthPlugin::from_name("dialog"), None);
    }
}
