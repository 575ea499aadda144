//! Result sets read whole and in pieces (what a snapshot scan does), and
//! the connection usable again once one ends.

mod common;

use std::time::Duration;

use anyhow::Result;
use common::runtime;
use sluice_source::{Conn, ConnectOptions};
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

#[test]
fn a_result_set_read_in_pieces_has_every_row_once_in_order() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    let opts = options(&db);
    runtime().block_on(async {
        let mut conn = Conn::connect(&opts).await?;
        let sql = "SELECT seq, IF(seq % 3 = 0, NULL, CONCAT('v', seq)) FROM mysql.seq_1_to_10";
        let whole = conn.query_rows(sql, 10).await?;
        assert_eq!(whole.len(), 10);

        let mut pending = conn.query_start(sql).await?.expect("a result set");
        let mut sizes = Vec::new();
        let mut rows = Vec::new();
        loop {
            let (piece, ended) = conn.next_rows(&mut pending, 3, 3).await?;
            assert_eq!(piece.columns, whole.columns);
            sizes.push(piece.len());
            rows.extend(
                piece
                    .rows()
                    .map(|r| r.iter().map(|v| v.map(<[u8]>::to_vec)).collect::<Vec<_>>()),
            );
            if ended {
                assert!(pending.ended());
                break;
            }
        }
        assert_eq!(sizes, [3, 3, 3, 1]);
        let expected: Vec<Vec<Option<Vec<u8>>>> = whole
            .rows()
            .map(|r| r.iter().map(|v| v.map(<[u8]>::to_vec)).collect())
            .collect();
        assert_eq!(rows, expected);
        assert_eq!(rows[2][1], None, "NULL stays NULL");

        // Ended: more reads give nothing, and the connection serves again.
        let (after, ended) = conn.next_rows(&mut pending, 3, 3).await?;
        assert!(after.is_empty() && ended);
        let one = conn.query("SELECT 1 + 1").await?;
        assert_eq!(one.scalar(), Some("2"));

        // A statement without rows has no result set to read.
        assert!(conn.query_start("DO 1").await?.is_none());
        // An error in the statement is the server's, with the statement.
        let err = conn
            .query_start("SELECT * FROM no_such_db.t")
            .await
            .expect_err("an unknown table");
        assert!(err.to_string().contains("no_such_db.t"), "{err}");
        Ok(())
    })
}
