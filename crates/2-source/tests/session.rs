//! What the handshake asks of the session: its character set and the
//! database it starts in (Canal's `connectionCharset` and
//! `defaultDatabaseName`), against a private MariaDB.

mod common;

use std::time::Duration;

use anyhow::Result;
use common::runtime;
use sluice_source::{Conn, ConnectOptions, SourceError};
use sluice_testkit::{MariaDb, MariaDbConfig};

fn options(db: &MariaDb) -> ConnectOptions {
    ConnectOptions {
        host: "127.0.0.1".into(),
        port: db.port(),
        user: "root".into(),
        connect_timeout: Duration::from_secs(5),
        read_timeout: Duration::from_secs(5),
        ..ConnectOptions::default()
    }
}

async fn session(conn: &mut Conn) -> Result<Vec<Option<String>>> {
    let rs = conn
        .query("SELECT DATABASE(), @@character_set_client, @@character_set_results, @@collation_connection")
        .await?;
    Ok(rs.rows.first().cloned().unwrap_or_default())
}

#[test]
fn the_session_starts_in_the_default_database_with_the_collation_asked_for() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec("CREATE DATABASE shop")?;
    runtime().block_on(async {
        // By default: no database, utf8mb4.
        let mut conn = Conn::connect(&options(&db)).await?;
        let s = session(&mut conn).await?;
        assert_eq!(s[0], None);
        assert_eq!(s[1].as_deref(), Some("utf8mb4"));
        assert_eq!(s[2].as_deref(), Some("utf8mb4"));
        assert_eq!(s[3].as_deref(), Some("utf8mb4_general_ci"));

        // A default database, over TLS where the server offers it (the SSL
        // request carries the collation too) and in clear.
        for tls in [
            sluice_source::SslMode::Preferred,
            sluice_source::SslMode::Disabled,
        ] {
            let mut opts = options(&db);
            opts.tls.mode = tls;
            opts.database = Some("shop".into());
            opts.collation = 33; // utf8mb3_general_ci
            let mut conn = Conn::connect(&opts).await?;
            let s = session(&mut conn).await?;
            assert_eq!(s[0].as_deref(), Some("shop"), "{tls:?}");
            assert!(
                s[1].as_deref().is_some_and(|c| c.starts_with("utf8")),
                "{s:?}"
            );
            assert_eq!(s[3].as_deref(), Some("utf8mb3_general_ci"), "{tls:?}");
        }

        // A database the server does not have fails the connection, saying so.
        let mut opts = options(&db);
        opts.database = Some("nowhere".into());
        let err = Conn::connect(&opts).await.expect_err("unknown database");
        assert!(matches!(err, SourceError::Auth { .. }), "{err:?}");
        let text = err.to_string();
        assert!(
            text.contains("1049") && text.contains("nowhere") && text.contains("default database"),
            "{text}"
        );
        anyhow::Ok(())
    })
}
