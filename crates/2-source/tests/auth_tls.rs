//! Authentication with every plugin MariaDB 10.11 offers a client that does
//! not run on the server's host (mysql_native_password, ed25519, the auth
//! switch between them), wrong passwords, TLS in every sslMode, and the
//! server's Unix socket.
//!
//! caching_sha2_password is MySQL's and cannot be tested against MariaDB:
//! its scramble and RSA encryption are unit-tested in `src/auth.rs`.

mod common;

use std::path::Path;
use std::time::Duration;

use anyhow::{Context, Result};
use common::{collect_all, config, runtime};
use sluice_source::{
    AuthPlugin, BinlogStream, Conn, ConnectOptions, SourceError, SslMode, StartPosition, TlsOptions,
};
use sluice_testkit::{MariaDb, MariaDbConfig};

fn options(db: &MariaDb, user: &str, password: &str) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port: db.port(),
        user: user.into(),
        password: password.into(),
        connect_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_secs(5),
        ..ConnectOptions::default()
    }
}

fn connect(opts: &ConnectOptions) -> Result<(Conn, String)> {
    runtime().block_on(async {
        let mut c = Conn::connect(opts).await?;
        let who = c
            .query("SELECT CURRENT_USER()")
            .await?
            .scalar()
            .unwrap_or_default()
            .to_string();
        Ok((c, who))
    })
}

fn create_replication_user(db: &MariaDb, user: &str, auth: &str) -> Result<()> {
    db.exec(&format!(
        "CREATE USER '{user}'@'%' IDENTIFIED {auth}; \
         GRANT REPLICATION SLAVE, BINLOG MONITOR ON *.* TO '{user}'@'%'"
    ))
}

#[test]
fn native_password_user_streams_and_wrong_password_is_clear() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    create_replication_user(&db, "repl", "BY 'S3cret!pw'")?;
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY); INSERT INTO shop.t VALUES (1), (2)")?;

    let (_, who) = connect(&options(&db, "repl", "S3cret!pw"))?;
    assert_eq!(who, "repl@%");

    // The replication user can stream.
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.connect.user = "repl".into();
    cfg.connect.password = "S3cret!pw".into();
    cfg.stop_at_end = true;
    let c = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    assert_eq!(c.keys("shop.t"), vec!["1", "2"]);

    let err = connect(&options(&db, "repl", "wrong")).expect_err("wrong password");
    let err = err.downcast::<SourceError>()?;
    assert!(matches!(err, SourceError::Auth { .. }), "{err}");
    let msg = err.to_string();
    assert!(
        msg.contains("Access denied") && msg.contains("'repl'"),
        "{msg}"
    );
    assert!(
        !msg.contains("wrong"),
        "the password must not appear: {msg}"
    );
    Ok(())
}

#[test]
fn ed25519_via_auth_switch() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec("INSTALL SONAME 'auth_ed25519'")?;
    create_replication_user(&db, "edu", "VIA ed25519 USING PASSWORD('ed-pass 25519')")?;
    // What the server stores is our public key for that password.
    let stored = db
        .query_scalar(
            "SELECT JSON_VALUE(Priv, '$.authentication_string') FROM mysql.global_priv WHERE User = 'edu'",
        )?
        .context("stored ed25519 key")?;
    let ours = base64_no_pad(&sluice_source::auth::ed25519_public_key(b"ed-pass 25519"));
    assert_eq!(stored, ours);

    // The greeting proposes mysql_native_password; the server switches to client_ed25519.
    let (_, who) = connect(&options(&db, "edu", "ed-pass 25519"))?;
    assert_eq!(who, "edu@%");
    let err = connect(&options(&db, "edu", "not it")).expect_err("wrong password");
    assert!(err.to_string().contains("Access denied"), "{err}");
    Ok(())
}

#[test]
fn switch_from_a_plugin_the_server_does_not_want() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    create_replication_user(&db, "sw", "BY 'pw-switch'")?;
    // Answer the greeting with caching_sha2_password (MySQL 8's default):
    // MariaDB switches us to mysql_native_password.
    let mut opts = options(&db, "sw", "pw-switch");
    opts.auth_plugin = Some(AuthPlugin::CachingSha2Password);
    let (_, who) = connect(&opts)?;
    assert_eq!(who, "sw@%");
    // An account without a password.
    create_replication_user(&db, "nopw", "BY ''")?;
    let (_, who) = connect(&options(&db, "nopw", ""))?;
    assert_eq!(who, "nopw@%");
    Ok(())
}

fn base64_no_pad(b: &[u8]) -> String {
    const A: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in b.chunks(3) {
        let n =
            chunk.iter().fold(0u32, |acc, &x| acc << 8 | u32::from(x)) << (8 * (3 - chunk.len()));
        for i in 0..=chunk.len() {
            out.push(A[(n >> (18 - 6 * i) & 63) as usize] as char);
        }
    }
    out
}

/// A CA and a server certificate for localhost / 127.0.0.1, as PEM files in `dir`.
fn make_certs(dir: &Path, ca_name: &str) -> Result<()> {
    use rcgen::{BasicConstraints, CertificateParams, DnType, IsCa, Issuer, KeyPair, SanType};
    let ca_key = KeyPair::generate()?;
    let mut ca = CertificateParams::new(Vec::<String>::new())?;
    ca.is_ca = IsCa::Ca(BasicConstraints::Unconstrained);
    ca.distinguished_name.push(DnType::CommonName, ca_name);
    let ca_cert = ca.self_signed(&ca_key)?;
    let key = KeyPair::generate()?;
    let mut srv = CertificateParams::new(vec!["localhost".to_string()])?;
    srv.subject_alt_names
        .push(SanType::IpAddress("127.0.0.1".parse()?));
    srv.distinguished_name.push(DnType::CommonName, "localhost");
    let cert = srv.signed_by(&key, &Issuer::from_params(&ca, &ca_key))?;
    std::fs::write(dir.join("ca.pem"), ca_cert.pem())?;
    std::fs::write(dir.join("server-cert.pem"), cert.pem())?;
    std::fs::write(dir.join("server-key.pem"), key.serialize_pem())?;
    Ok(())
}

#[test]
fn tls_in_every_mode() -> Result<()> {
    let certs = tempfile::tempdir()?;
    make_certs(certs.path(), "Sluice test CA")?;
    let other = tempfile::tempdir()?;
    make_certs(other.path(), "Some other CA")?;
    let p = |f: &str| certs.path().join(f).display().to_string();
    let db = MariaDb::start(MariaDbConfig::default().args([
        format!("--ssl-ca={}", p("ca.pem")),
        format!("--ssl-cert={}", p("server-cert.pem")),
        format!("--ssl-key={}", p("server-key.pem")),
    ]))?;
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY); INSERT INTO shop.t VALUES (1)")?;

    let with = |mode: SslMode, ca: Option<&Path>, name: Option<&str>| {
        let mut o = options(&db, "root", "");
        o.tls = TlsOptions {
            mode,
            ca_file: ca.map(Path::to_path_buf),
            server_name: name.map(str::to_string),
        };
        o
    };
    let cipher = |o: &ConnectOptions| -> Result<(bool, String)> {
        runtime().block_on(async {
            let mut c = Conn::connect(o).await?;
            let rs = c.query("SHOW SESSION STATUS LIKE 'Ssl_cipher'").await?;
            Ok((
                c.is_tls(),
                rs.get(0, "Value").unwrap_or_default().to_string(),
            ))
        })
    };
    let ca = certs.path().join("ca.pem");
    for (mode, ca_file, name) in [
        (SslMode::Preferred, None, None),
        (SslMode::Required, None, None),
        (SslMode::VerifyCa, Some(ca.as_path()), None),
        // VERIFY_CA does not check the name.
        (
            SslMode::VerifyCa,
            Some(ca.as_path()),
            Some("elsewhere.example"),
        ),
        (SslMode::VerifyIdentity, Some(ca.as_path()), None),
        (
            SslMode::VerifyIdentity,
            Some(ca.as_path()),
            Some("localhost"),
        ),
    ] {
        let (tls, cipher) = cipher(&with(mode, ca_file, name))?;
        assert!(tls, "{mode}");
        assert!(!cipher.is_empty(), "{mode}: the server sees no TLS");
    }
    let (tls, cipher_text) = cipher(&with(SslMode::Disabled, None, None))?;
    assert!(!tls && cipher_text.is_empty());

    // Verification failures.
    let wrong_ca = other.path().join("ca.pem");
    for (mode, ca_file, name) in [
        (SslMode::VerifyCa, wrong_ca.as_path(), None),
        (
            SslMode::VerifyIdentity,
            ca.as_path(),
            Some("elsewhere.example"),
        ),
    ] {
        let err = cipher(&with(mode, Some(ca_file), name)).expect_err("must fail");
        let err = err.downcast::<SourceError>()?;
        assert!(matches!(err, SourceError::Tls { .. }), "{mode}: {err}");
    }

    // A whole stream over TLS.
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.connect.tls = with(SslMode::VerifyIdentity, Some(&ca), None).tls;
    cfg.stop_at_end = true;
    let (c, tls) = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        let tls = s.is_tls();
        Ok::<_, anyhow::Error>((collect_all(&mut s, Duration::from_secs(20)).await?, tls))
    })?;
    assert!(tls);
    assert_eq!(c.keys("shop.t"), vec!["1"]);
    Ok(())
}

#[test]
fn tls_required_but_not_offered() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    let mut o = options(&db, "root", "");
    o.tls.mode = SslMode::Required;
    let err = runtime()
        .block_on(Conn::connect(&o))
        .expect_err("no TLS on this server");
    assert!(matches!(err, SourceError::Tls { .. }), "{err}");
    assert!(err.to_string().contains("does not offer TLS"), "{err}");
    // PREFERRED falls back to plain text.
    o.tls.mode = SslMode::Preferred;
    let c = runtime().block_on(Conn::connect(&o))?;
    assert!(!c.is_tls());
    Ok(())
}

#[test]
fn the_unix_socket_logs_in_streams_and_refuses_tls() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    create_replication_user(&db, "local", "BY 'on-this-host'")?;
    db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY); INSERT INTO shop.t VALUES (7)")?;
    let mut o = options(&db, "local", "on-this-host");
    o.socket = Some(db.socket_path().to_path_buf());

    // The server sees a socket client: its host has no port.
    let host = runtime().block_on(async {
        let mut c = Conn::connect(&o).await?;
        assert!(c.is_unix() && !c.is_tls());
        let host = c
            .query("SELECT HOST FROM information_schema.PROCESSLIST WHERE ID = CONNECTION_ID()")
            .await?
            .scalar()
            .unwrap_or_default()
            .to_string();
        anyhow::Ok(host)
    })?;
    assert_eq!(host, "localhost");

    // The binlog streams through it.
    let mut cfg = config(&db, StartPosition::Earliest);
    cfg.connect = o.clone();
    cfg.stop_at_end = true;
    let c = runtime().block_on(async {
        let mut s = BinlogStream::connect(cfg).await?;
        collect_all(&mut s, Duration::from_secs(20)).await
    })?;
    assert_eq!(c.keys("shop.t"), vec!["7"]);

    // TLS is not used on a local socket: a mode that demands it is refused
    // with the reason, PREFERRED goes on without it.
    o.tls.mode = SslMode::Required;
    let err = runtime()
        .block_on(Conn::connect(&o))
        .expect_err("no TLS over a socket");
    assert!(matches!(err, SourceError::Tls { .. }), "{err}");
    assert!(err.to_string().contains("Unix socket"), "{err}");

    // A socket that is not there names its path.
    o.tls.mode = SslMode::Preferred;
    o.socket = Some(db.datadir().join("no-such.sock"));
    let err = runtime()
        .block_on(Conn::connect(&o))
        .expect_err("no socket there");
    assert!(matches!(err, SourceError::Connect { .. }), "{err}");
    assert!(err.to_string().contains("no-such.sock"), "{err}");
    Ok(())
}
