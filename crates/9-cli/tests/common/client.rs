//! A Canal client of destination `example` under a client id and filter of
//! its own, that collects the inserted rows it gets and acks, reconnecting
//! through server restarts.

use std::time::{Duration, Instant};

use sluice_canal::proto::{EntryType, EventType};
use sluice_client::{Connector, ConnectorOptions, SimpleConnector, TimeUnit};

/// A row as a client saw it: table and id (the first column).
pub type Row = (String, i64);

/// A Canal client of destination `example` with its own id and filter.
pub struct Client {
    addr: String,
    id: i16,
    filter: String,
    pub conn: SimpleConnector,
}

impl Client {
    pub async fn connect(addr: &str, id: i16, filter: &str) -> Client {
        let deadline = Instant::now() + Duration::from_secs(30);
        loop {
            let options = ConnectorOptions {
                client_id: id,
                ..ConnectorOptions::default()
            };
            match SimpleConnector::connect_with(addr, "example", "", "", options).await {
                Ok(mut conn) => {
                    if conn.subscribe(filter).await.is_ok() {
                        return Client {
                            addr: addr.to_string(),
                            id,
                            filter: filter.to_string(),
                            conn,
                        };
                    }
                }
                Err(e) if Instant::now() > deadline => {
                    panic!("client {id} cannot reach the server at {addr}: {e}")
                }
                Err(_) => {}
            }
            tokio::time::sleep(Duration::from_millis(100)).await;
        }
    }

    /// Gets and acks for `period`: every row it got.
    pub async fn take_during(&mut self, period: Duration) -> Vec<Row> {
        let until = Instant::now() + period;
        let mut got = Vec::new();
        while Instant::now() < until {
            got.extend(self.take_once().await);
        }
        got
    }

    /// One get (up to 200 ms) and its ack: the rows it brought.
    async fn take_once(&mut self) -> Vec<Row> {
        let msg = match self
            .conn
            .get_without_ack(1000, Some(200), TimeUnit::Milliseconds)
            .await
        {
            Ok(m) => m,
            Err(_) => {
                tokio::time::sleep(Duration::from_millis(200)).await;
                *self = Client::connect(&self.addr, self.id, &self.filter).await;
                return Vec::new();
            }
        };
        if msg.id < 0 {
            return Vec::new();
        }
        let mut got = Vec::new();
        for e in &msg.entries {
            if e.entry_type != Some(EntryType::RowData as i32) {
                continue;
            }
            let table = e
                .header
                .as_ref()
                .and_then(|h| h.table_name.clone())
                .unwrap_or_default();
            let rc = sluice_client::row_change(e).unwrap();
            if rc.event_type != Some(EventType::Insert as i32) {
                continue;
            }
            for rd in &rc.row_datas {
                let id = rd.after_columns[0]
                    .value
                    .as_deref()
                    .unwrap()
                    .parse()
                    .unwrap();
                got.push((table.clone(), id));
            }
        }
        if self.conn.ack(msg.id).await.is_err() {
            // The server started again under this batch: it comes again.
            got.clear();
        }
        got
    }

    /// Gets and acks until `want` rows arrived and nothing more came for
    /// a second; every row it got, in order (rows of a batch that was not
    /// acked come again).
    pub async fn take(&mut self, want: usize) -> Vec<Row> {
        let mut got = Vec::new();
        let deadline = Instant::now() + Duration::from_secs(60);
        let mut quiet_since = Instant::now();
        while Instant::now() < deadline {
            if got.len() >= want && quiet_since.elapsed() > Duration::from_secs(1) {
                return got;
            }
            let rows = self.take_once().await;
            if !rows.is_empty() {
                quiet_since = Instant::now();
                got.extend(rows);
            }
        }
        panic!(
            "client {} got {} of {want} rows within 60 s: {got:?}",
            self.id,
            got.len()
        )
    }
}
