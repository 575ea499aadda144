//! TLS settings for the connection to the source, with Canal's `sslMode`
//! values, turned into a rustls client configuration (the `ring` provider).
//!
//! | mode | TLS | certificate checked against the CA | host name checked |
//! |---|---|---|---|
//! | `DISABLED` | never | | |
//! | `PREFERRED` | when the server offers it | no | no |
//! | `REQUIRED` | always (fails if the server does not offer it) | no | no |
//! | `VERIFY_CA` | always | yes | no |
//! | `VERIFY_IDENTITY` | always | yes | yes |
//!
//! `VERIFY_CA` and `VERIFY_IDENTITY` use the CA file given (`sslCa`), else the
//! system's CA bundle.
//!
//! Owns: the mapping from mode to verifier. Must never: skip the signature
//! check of the TLS handshake itself (even the unverified modes check that the
//! server holds the key of the certificate it presents), or fall back to
//! plain text in a mode that requires TLS.

use std::path::PathBuf;
use std::sync::Arc;

use rustls::client::danger::{HandshakeSignatureValid, ServerCertVerified, ServerCertVerifier};
use rustls::client::WebPkiServerVerifier;
use rustls::crypto::{verify_tls12_signature, verify_tls13_signature, CryptoProvider};
use rustls::{
    CertificateError, ClientConfig, DigitallySignedStruct, RootCertStore, SignatureScheme,
};
use rustls_pki_types::pem::PemObject;
use rustls_pki_types::{CertificateDer, ServerName, UnixTime};

/// Canal's `sslMode` values: the configuration's type, used as it is.
pub use sluice_config::SslMode;

/// TLS options of a source.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct TlsOptions {
    pub mode: SslMode,
    /// PEM file with the CA certificate(s) for VERIFY_CA / VERIFY_IDENTITY.
    pub ca_file: Option<PathBuf>,
    /// The name to check the certificate against in VERIFY_IDENTITY (default: the host).
    pub server_name: Option<String>,
}

/// System CA bundles, in the order tried when no CA file is given.
const SYSTEM_CA_BUNDLES: &[&str] = &[
    "/etc/ssl/certs/ca-certificates.crt",
    "/etc/pki/tls/certs/ca-bundle.crt",
    "/etc/ssl/cert.pem",
];

fn provider() -> Arc<CryptoProvider> {
    Arc::new(rustls::crypto::ring::default_provider())
}

/// The rustls configuration for a mode; `None` for DISABLED.
pub fn client_config(opts: &TlsOptions) -> Result<Option<Arc<ClientConfig>>, String> {
    let provider = provider();
    let verifier: Arc<dyn ServerCertVerifier> = match opts.mode {
        SslMode::Disabled => return Ok(None),
        SslMode::Preferred | SslMode::Required => Arc::new(NoCertificateCheck {
            provider: provider.clone(),
        }),
        SslMode::VerifyCa | SslMode::VerifyIdentity => {
            let roots = load_roots(opts)?;
            let inner =
                WebPkiServerVerifier::builder_with_provider(Arc::new(roots), provider.clone())
                    .build()
                    .map_err(|e| format!("cannot build the certificate verifier: {e}"))?;
            if opts.mode == SslMode::VerifyCa {
                Arc::new(CaOnly { inner })
            } else {
                inner
            }
        }
    };
    let config = ClientConfig::builder_with_provider(provider)
        .with_safe_default_protocol_versions()
        .map_err(|e| format!("TLS protocol versions: {e}"))?
        .dangerous()
        .with_custom_certificate_verifier(verifier)
        .with_no_client_auth();
    Ok(Some(Arc::new(config)))
}

fn load_roots(opts: &TlsOptions) -> Result<RootCertStore, String> {
    let path = match &opts.ca_file {
        Some(p) => p.clone(),
        None => SYSTEM_CA_BUNDLES
            .iter()
            .map(PathBuf::from)
            .find(|p| p.exists())
            .ok_or_else(|| {
                format!(
                    "sslMode={} needs a CA certificate: give sslCa=/path/to/ca.pem (no system CA bundle found)",
                    opts.mode
                )
            })?,
    };
    let mut roots = RootCertStore::empty();
    let certs = CertificateDer::pem_file_iter(&path)
        .map_err(|e| format!("cannot read CA file {}: {e}", path.display()))?;
    for cert in certs {
        let cert = cert.map_err(|e| format!("CA file {}: {e}", path.display()))?;
        roots
            .add(cert)
            .map_err(|e| format!("CA file {}: unusable certificate: {e}", path.display()))?;
    }
    if roots.is_empty() {
        return Err(format!("CA file {} holds no certificate", path.display()));
    }
    Ok(roots)
}

/// The name rustls sends (SNI) and, in VERIFY_IDENTITY, checks.
pub fn server_name(opts: &TlsOptions, host: &str) -> Result<ServerName<'static>, String> {
    let name = opts.server_name.as_deref().unwrap_or(host);
    let name = name.trim_start_matches('[').trim_end_matches(']');
    ServerName::try_from(name.to_string())
        .map_err(|e| format!("'{name}' is not a valid TLS server name: {e}"))
}

/// PREFERRED / REQUIRED: any certificate, but the handshake signature is checked.
#[derive(Debug)]
struct NoCertificateCheck {
    provider: Arc<CryptoProvider>,
}

impl ServerCertVerifier for NoCertificateCheck {
    fn verify_server_cert(
        &self,
        _end_entity: &CertificateDer<'_>,
        _intermediates: &[CertificateDer<'_>],
        _server_name: &ServerName<'_>,
        _ocsp_response: &[u8],
        _now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        Ok(ServerCertVerified::assertion())
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls12_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        verify_tls13_signature(
            message,
            cert,
            dss,
            &self.provider.signature_verification_algorithms,
        )
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.provider
            .signature_verification_algorithms
            .supported_schemes()
    }
}

/// VERIFY_CA: the chain must lead to a trusted CA; the host name is not checked.
#[derive(Debug)]
struct CaOnly {
    inner: Arc<WebPkiServerVerifier>,
}

impl ServerCertVerifier for CaOnly {
    fn verify_server_cert(
        &self,
        end_entity: &CertificateDer<'_>,
        intermediates: &[CertificateDer<'_>],
        server_name: &ServerName<'_>,
        ocsp_response: &[u8],
        now: UnixTime,
    ) -> Result<ServerCertVerified, rustls::Error> {
        match self.inner.verify_server_cert(
            end_entity,
            intermediates,
            server_name,
            ocsp_response,
            now,
        ) {
            Err(rustls::Error::InvalidCertificate(
                CertificateError::NotValidForName | CertificateError::NotValidForNameContext { .. },
            )) => Ok(ServerCertVerified::assertion()),
            other => other,
        }
    }

    fn verify_tls12_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls12_signature(message, cert, dss)
    }

    fn verify_tls13_signature(
        &self,
        message: &[u8],
        cert: &CertificateDer<'_>,
        dss: &DigitallySignedStruct,
    ) -> Result<HandshakeSignatureValid, rustls::Error> {
        self.inner.verify_tls13_signature(message, cert, dss)
    }

    fn supported_verify_schemes(&self) -> Vec<SignatureScheme> {
        self.inner.supported_verify_schemes()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn modes_parse_in_canal_and_mysql_spellings() {
        for (s, m) in [
            ("DISABLED", SslMode::Disabled),
            ("disabled", SslMode::Disabled),
            ("PREFERRED", SslMode::Preferred),
            ("REQUIRED", SslMode::Required),
            ("VERIFY_CA", SslMode::VerifyCa),
            ("verify-ca", SslMode::VerifyCa),
            ("VERIFY_IDENTITY", SslMode::VerifyIdentity),
        ] {
            assert_eq!(s.parse::<SslMode>().unwrap(), m);
            assert_eq!(m.as_str().parse::<SslMode>().unwrap(), m);
        }
        assert!("sometimes".parse::<SslMode>().is_err());
        assert!(SslMode::Required.requires_tls());
        assert!(!SslMode::Preferred.requires_tls());
    }

    #[test]
    fn configs_build() {
        assert!(client_config(&TlsOptions::default()).unwrap().is_some());
        assert!(client_config(&TlsOptions {
            mode: SslMode::Disabled,
            ..Default::default()
        })
        .unwrap()
        .is_none());
        let missing = client_config(&TlsOptions {
            mode: SslMode::VerifyCa,
            ca_file: Some("/nonexistent/ca.pem".into()),
            server_name: None,
        });
        assert!(missing.unwrap_err().contains("/nonexistent/ca.pem"));
        assert!(server_name(&TlsOptions::default(), "127.0.0.1").is_ok());
        assert!(server_name(&TlsOptions::default(), "[::1]").is_ok());
    }
}
