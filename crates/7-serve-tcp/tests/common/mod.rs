//! Test helpers: an in-memory `Destinations` over `EventStore<EntryBytes>`
//! fed with hand-built Canal entries, a server starter, and a raw protocol
//! connection for sending what well-behaved clients never send.
#![allow(dead_code)]

use std::collections::HashMap;
use std::net::SocketAddr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex};

use prost::Message;
use sluice_canal::proto::{
    ClientAuth, Column, Entry, EntryType, EventType, Handshake, Header, Packet, PacketType, Pair,
    RowChange, RowData, SourceType, TransactionBegin, TransactionEnd,
};
use sluice_canal::{EntryPosition, TableFilter};
use sluice_serve_tcp::{AuthConfig, ShutdownHandle, TcpServer};
use sluice_store::destination::BoxFuture;
use sluice_store::{
    Batch, ClientId, Destination, DestinationError, Destinations, EntryBytes, EntryMeta,
    EventStore, GetWait, StoreConfig,
};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

pub const BINLOG: &str = "mysql-bin.000001";

/// One destination: a store, the filter of the last subscription, and a
/// binlog offset counter for the entries it is fed.
pub struct MemDestination {
    name: String,
    pub store: EventStore<EntryBytes>,
    filter: Mutex<Option<TableFilter>>,
    pub filters_seen: Mutex<Vec<String>>,
    offset: AtomicU64,
}

impl MemDestination {
    pub fn new(name: &str, cfg: StoreConfig) -> Arc<MemDestination> {
        Arc::new(MemDestination {
            name: name.to_string(),
            store: EventStore::new(cfg),
            filter: Mutex::new(None),
            filters_seen: Mutex::new(Vec::new()),
            offset: AtomicU64::new(4),
        })
    }

    /// Adds entries as the parser would: ROWDATA of tables the current
    /// filter rejects is dropped; transaction ends are ack points.
    pub async fn feed(&self, entries: &[Entry]) {
        for e in entries {
            let h = e.header.clone().unwrap_or_default();
            let is_row = e.entry_type == Some(EntryType::RowData as i32);
            if is_row {
                let f = self.filter.lock().unwrap().clone();
                if let Some(f) = f {
                    let schema = h.schema_name.as_deref().unwrap_or("");
                    let table = h.table_name.as_deref().unwrap_or("");
                    if !f.matches(schema, table) {
                        continue;
                    }
                }
            }
            let bytes: EntryBytes = e.encode_to_vec().into();
            let pos = EntryPosition {
                journal_name: BINLOG.into(),
                position: self.offset.fetch_add(100, Ordering::Relaxed),
                ..Default::default()
            };
            let boundary = e.entry_type == Some(EntryType::TransactionEnd as i32);
            let meta = EntryMeta {
                bytes: bytes.len(),
                ack_point: boundary.then(|| EntryPosition {
                    position: pos.position + 100,
                    ..pos.clone()
                }),
                position: pos,
                is_ddl: false,
                rows: 0,
                ..Default::default()
            };
            self.store.put(bytes, meta).await.unwrap();
        }
    }

    pub fn last_filter(&self) -> Option<String> {
        self.filters_seen.lock().unwrap().last().cloned()
    }
}

impl Destination for MemDestination {
    fn name(&self) -> &str {
        &self.name
    }

    fn subscribe(&self, client: ClientId, filter: &str) -> Result<(), DestinationError> {
        if !filter.is_empty() {
            let f = TableFilter::new(filter).map_err(|e| DestinationError {
                code: 400,
                message: e.to_string(),
            })?;
            *self.filter.lock().unwrap() = Some(f);
        }
        self.filters_seen.lock().unwrap().push(filter.to_string());
        self.store.subscribe(client, None);
        Ok(())
    }

    fn unsubscribe(&self, client: ClientId) -> Result<(), DestinationError> {
        self.store.unsubscribe(client);
        Ok(())
    }

    fn get(
        &self,
        client: ClientId,
        fetch_size: usize,
        wait: GetWait,
    ) -> BoxFuture<'_, Result<Batch<EntryBytes>, DestinationError>> {
        Box::pin(async move { Ok(self.store.get(client, fetch_size, wait).await?) })
    }

    fn ack(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        self.store.ack(client, batch_id)?;
        Ok(())
    }

    fn rollback(&self, client: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        Ok(self.store.rollback(client, batch_id)?)
    }
}

/// Destinations by name; extra ones can be any `Destination`.
#[derive(Default)]
pub struct MemDestinations {
    pub map: Mutex<HashMap<String, Arc<dyn Destination>>>,
}

impl MemDestinations {
    pub fn with(dests: &[Arc<MemDestination>]) -> Arc<MemDestinations> {
        let m = MemDestinations::default();
        for d in dests {
            m.insert(d.clone());
        }
        Arc::new(m)
    }

    pub fn one(d: &Arc<MemDestination>) -> Arc<MemDestinations> {
        Self::with(std::slice::from_ref(d))
    }

    pub fn insert(&self, d: Arc<dyn Destination>) {
        self.map.lock().unwrap().insert(d.name().to_string(), d);
    }
}

impl Destinations for MemDestinations {
    fn destination(&self, name: &str) -> Option<Arc<dyn Destination>> {
        self.map.lock().unwrap().get(name).cloned()
    }
}

pub fn item_store(max_entries: usize) -> StoreConfig {
    StoreConfig {
        max_entries,
        max_bytes: usize::MAX,
        batch_mode: sluice_store::BatchMode::ItemSize,
        ..Default::default()
    }
}

pub struct Running {
    pub addr: SocketAddr,
    pub shutdown: ShutdownHandle,
    pub task: tokio::task::JoinHandle<std::io::Result<()>>,
}

impl Running {
    pub fn addr(&self) -> String {
        self.addr.to_string()
    }
}

pub async fn start(auth: AuthConfig, dests: Arc<dyn Destinations>) -> Running {
    let server = TcpServer::bind("127.0.0.1:0", auth, dests).await.unwrap();
    start_server(server)
}

pub fn start_server(server: TcpServer) -> Running {
    let addr = server.local_addr().unwrap();
    let shutdown = server.shutdown_handle();
    let task = tokio::spawn(server.serve());
    Running {
        addr,
        shutdown,
        task,
    }
}

// ---- entries ----------------------------------------------------------

/// A column of a test table.
#[derive(Clone, Copy)]
pub struct Col {
    pub name: &'static str,
    pub mysql_type: &'static str,
    pub sql_type: i32,
    pub is_key: bool,
}

pub const ID: Col = Col {
    name: "id",
    mysql_type: "int(11)",
    sql_type: 4,
    is_key: true,
};
pub const NAME: Col = Col {
    name: "name",
    mysql_type: "varchar(64)",
    sql_type: 12,
    is_key: false,
};
pub const PRICE: Col = Col {
    name: "price",
    mysql_type: "decimal(10,2)",
    sql_type: 3,
    is_key: false,
};

/// A column value as Canal fills it: `isNull` always set, `value` only when not null.
pub fn column(index: i32, c: Col, value: Option<&str>, updated: bool) -> Column {
    Column {
        index: Some(index),
        sql_type: Some(c.sql_type),
        name: Some(c.name.into()),
        is_key: Some(c.is_key),
        updated: Some(updated),
        is_null: Some(value.is_none()),
        value: value.map(str::to_string),
        mysql_type: Some(c.mysql_type.into()),
        ..Default::default()
    }
}

pub fn header(schema: &str, table: &str, event_type: Option<EventType>, offset: i64) -> Header {
    Header {
        version: Some(1),
        logfile_name: Some(BINLOG.into()),
        logfile_offset: Some(offset),
        server_id: Some(1),
        serverenc_code: Some("UTF-8".into()),
        execute_time: Some(1_700_000_000_000),
        source_type: Some(SourceType::Mysql as i32),
        schema_name: Some(schema.into()),
        table_name: Some(table.into()),
        event_length: Some(60),
        event_type: event_type.map(|t| t as i32),
        props: vec![],
        gtid: Some(String::new()),
    }
}

pub fn begin(offset: i64) -> Entry {
    Entry {
        header: Some(header("", "", None, offset)),
        entry_type: Some(EntryType::TransactionBegin as i32),
        store_value: Some(
            TransactionBegin {
                thread_id: Some(7),
                ..Default::default()
            }
            .encode_to_vec()
            .into(),
        ),
    }
}

pub fn end(offset: i64, xid: u64) -> Entry {
    Entry {
        header: Some(header("", "", None, offset)),
        entry_type: Some(EntryType::TransactionEnd as i32),
        store_value: Some(
            TransactionEnd {
                transaction_id: Some(xid.to_string()),
                ..Default::default()
            }
            .encode_to_vec()
            .into(),
        ),
    }
}

/// A ROWDATA entry for one rows event.
pub fn rows(schema: &str, table: &str, t: EventType, rows: Vec<RowData>, offset: i64) -> Entry {
    let mut h = header(schema, table, Some(t), offset);
    h.props.push(Pair::new("rowsCount", rows.len().to_string()));
    Entry {
        header: Some(h),
        entry_type: Some(EntryType::RowData as i32),
        store_value: Some(
            RowChange {
                table_id: Some(42),
                event_type: Some(t as i32),
                is_ddl: Some(false),
                row_datas: rows,
                ..Default::default()
            }
            .encode_to_vec()
            .into(),
        ),
    }
}

/// An INSERT row of (id, name, price): every after column `updated`.
pub fn insert_row(id: &str, name: Option<&str>, price: Option<&str>) -> RowData {
    RowData {
        after_columns: vec![
            column(0, ID, Some(id), true),
            column(1, NAME, name, true),
            column(2, PRICE, price, true),
        ],
        ..Default::default()
    }
}

/// An UPDATE of the name: before image unchanged flags, after image
/// `updated` only where the value changed.
pub fn update_row(id: &str, old: Option<&str>, new: Option<&str>, price: Option<&str>) -> RowData {
    RowData {
        before_columns: vec![
            column(0, ID, Some(id), false),
            column(1, NAME, old, false),
            column(2, PRICE, price, false),
        ],
        after_columns: vec![
            column(0, ID, Some(id), false),
            column(1, NAME, new, old != new),
            column(2, PRICE, price, false),
        ],
        ..Default::default()
    }
}

pub fn delete_row(id: &str, name: Option<&str>, price: Option<&str>) -> RowData {
    RowData {
        before_columns: vec![
            column(0, ID, Some(id), false),
            column(1, NAME, name, false),
            column(2, PRICE, price, false),
        ],
        ..Default::default()
    }
}

/// BEGIN, one INSERT of `n` rows into `schema.table`, END.
pub fn insert_txn(schema: &str, table: &str, first_id: u32, n: u32, offset: i64) -> Vec<Entry> {
    let rs = (first_id..first_id + n)
        .map(|i| insert_row(&i.to_string(), Some(&format!("name-{i}")), Some("9.99")))
        .collect();
    vec![
        begin(offset),
        rows(schema, table, EventType::Insert, rs, offset + 100),
        end(offset + 200, offset as u64),
    ]
}

// ---- raw protocol -------------------------------------------------------

/// A connection that speaks the protocol by hand.
pub struct Raw {
    pub stream: TcpStream,
    pub seed: Vec<u8>,
}

impl Raw {
    /// Connects and reads the handshake.
    pub async fn connect(addr: &str) -> Raw {
        let stream = TcpStream::connect(addr).await.unwrap();
        let mut raw = Raw {
            stream,
            seed: vec![],
        };
        let hs = raw.read_packet().await.expect("handshake");
        assert_eq!(hs.r#type, PacketType::Handshake as i32);
        assert_eq!(hs.version, Some(1));
        raw.seed = Handshake::decode(hs.body.as_slice()).unwrap().seeds;
        raw
    }

    /// Connects from `local` (e.g. 127.0.0.2, to look like another client
    /// address) and reads the handshake.
    pub async fn connect_from(local: std::net::IpAddr, addr: &str) -> Raw {
        let addr: SocketAddr = addr.parse().unwrap();
        let socket = tokio::net::TcpSocket::new_v4().unwrap();
        socket.bind(SocketAddr::new(local, 0)).unwrap();
        let stream = socket.connect(addr).await.unwrap();
        let mut raw = Raw {
            stream,
            seed: vec![],
        };
        let hs = raw.read_packet().await.expect("handshake");
        assert_eq!(hs.r#type, PacketType::Handshake as i32);
        raw.seed = Handshake::decode(hs.body.as_slice()).unwrap().seeds;
        raw
    }

    /// Sends a ClientAuth for `user` with `password` scrambled with this
    /// connection's seed, and returns the reply (`None`: the server closed).
    pub async fn try_login(&mut self, user: &str, password: &[u8]) -> Option<(i32, String)> {
        let token = sluice_canal::auth::scramble411(password, &self.seed);
        let hex: String = token.iter().map(|b| format!("{b:02x}")).collect();
        let auth = ClientAuth {
            username: user.into(),
            password: hex.into_bytes(),
            ..Default::default()
        };
        self.send(PacketType::ClientAuthentication, &auth.encode_to_vec())
            .await;
        let p = self.read_packet().await?;
        assert_eq!(p.r#type, PacketType::Ack as i32, "expected an ACK");
        let a = sluice_canal::proto::Ack::decode(p.body.as_slice()).unwrap();
        Some((a.error_code.unwrap_or(0), a.error_message))
    }

    /// Connects and logs in with no credentials.
    pub async fn login(addr: &str) -> Raw {
        let mut raw = Raw::connect(addr).await;
        raw.send(
            PacketType::ClientAuthentication,
            &ClientAuth::default().encode_to_vec(),
        )
        .await;
        let ack = raw.read_packet().await.expect("auth reply");
        assert_eq!(ack.r#type, PacketType::Ack as i32);
        assert!(ack.body.is_empty(), "login refused");
        raw
    }

    pub async fn send(&mut self, t: PacketType, body: &[u8]) {
        self.send_type(t as i32, body).await
    }

    pub async fn send_type(&mut self, t: i32, body: &[u8]) {
        let p = Packet {
            r#type: t,
            body: body.to_vec(),
            ..Default::default()
        }
        .encode_to_vec();
        self.send_frame(&p).await;
    }

    pub async fn send_frame(&mut self, packet: &[u8]) {
        let mut b = (packet.len() as u32).to_be_bytes().to_vec();
        b.extend_from_slice(packet);
        self.stream.write_all(&b).await.unwrap();
    }

    pub async fn send_bytes(&mut self, bytes: &[u8]) {
        self.stream.write_all(bytes).await.unwrap();
    }

    /// The next packet, or `None` when the server closed the connection.
    pub async fn read_packet(&mut self) -> Option<Packet> {
        let mut h = [0u8; 4];
        self.stream.read_exact(&mut h).await.ok()?;
        let mut body = vec![0u8; u32::from_be_bytes(h) as usize];
        self.stream.read_exact(&mut body).await.ok()?;
        Some(Packet::decode(body.as_slice()).unwrap())
    }

    /// The next packet as an ACK: `(code, message)`, code 0 for success.
    pub async fn read_ack(&mut self) -> (i32, String) {
        let p = self.read_packet().await.expect("a reply");
        assert_eq!(p.r#type, PacketType::Ack as i32, "expected an ACK");
        let a = sluice_canal::proto::Ack::decode(p.body.as_slice()).unwrap();
        (a.error_code.unwrap_or(0), a.error_message)
    }

    /// Whether the server closed the connection (EOF within the time allowed).
    pub async fn closed_within(&mut self, d: std::time::Duration) -> bool {
        let mut b = [0u8; 64];
        loop {
            match tokio::time::timeout(d, self.stream.read(&mut b)).await {
                Ok(Ok(0)) | Ok(Err(_)) => return true,
                Ok(Ok(_)) => continue,
                Err(_) => return false,
            }
        }
    }
}
