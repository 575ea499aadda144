//! The Canal TCP server against the Rust client and hand-made frames, over
//! an in-memory destination: the request/reply table, error codes and
//! texts, timeouts, authentication, bad input, isolation between clients.

mod common;

use std::sync::Arc;
use std::time::{Duration, Instant};

use common::*;
use prost::Message as _;
use sluice_canal::proto::{
    ClientAck, ClientAuth, ClientRollback, Entry, EntryType, EventType, Get, Messages, PacketType,
    Sub, Unsub,
};
use sluice_client::{ClientError, Connector, ConnectorOptions, SimpleConnector, TimeUnit};
use sluice_serve_tcp::auth::passwd_hash_hex;
use sluice_serve_tcp::{AuthConfig, ServerOptions, TcpServer};
use sluice_store::destination::BoxFuture;
use sluice_store::{Batch, ClientId, Destination, DestinationError, EntryBytes, GetWait};

const DEST: &str = "example";
const SECOND: Duration = Duration::from_secs(1);

async fn setup() -> (Arc<MemDestination>, Running) {
    let d = MemDestination::new(DEST, item_store(10_000));
    let srv = start(AuthConfig::open(), MemDestinations::one(&d)).await;
    (d, srv)
}

async fn client(srv: &Running) -> SimpleConnector {
    SimpleConnector::connect(&srv.addr(), DEST, "", "")
        .await
        .unwrap()
}

fn server_error(r: Result<impl std::fmt::Debug, ClientError>) -> (i32, String) {
    match r {
        Err(ClientError::Server { code, message }) => (code, message),
        other => panic!("expected an error reply, got {other:?}"),
    }
}

#[tokio::test]
async fn subscribe_get_ack_end_to_end() {
    let (d, srv) = setup().await;
    let fed = vec![
        begin(4),
        rows(
            "test",
            "t1",
            EventType::Insert,
            vec![
                insert_row("1", Some("a"), None),
                insert_row("2", Some("b"), Some("1.50")),
            ],
            104,
        ),
        rows(
            "test",
            "t1",
            EventType::Update,
            vec![update_row("1", Some("a"), Some("z"), None)],
            204,
        ),
        rows(
            "test",
            "t1",
            EventType::Delete,
            vec![delete_row("2", Some("b"), Some("1.50"))],
            304,
        ),
        end(404, 99),
    ];
    let mut c = client(&srv).await;
    c.subscribe("test\\..*").await.unwrap();
    assert_eq!(d.last_filter().as_deref(), Some("test\\..*"));
    d.feed(&fed).await;

    let m = c
        .get_without_ack(100, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(m.id, 1);
    // Entries arrive byte-identical to what the destination holds.
    assert_eq!(m.entries, fed);
    let rc = sluice_client::row_change(&m.entries[2]).unwrap();
    let after = &rc.row_datas[0].after_columns;
    assert_eq!(after[1].value.as_deref(), Some("z"));
    assert_eq!(after[1].updated, Some(true));
    assert_eq!(after[2].is_null, Some(true));
    c.ack(m.id).await.unwrap();

    let m = c
        .get_without_ack(100, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!((m.id, m.entries.len()), (-1, 0));

    // get() = getWithoutAck + ack.
    d.feed(&insert_txn("test", "t1", 10, 3, 1000)).await;
    let m = c.get(2, None).await.unwrap();
    assert_eq!((m.id, m.entries.len()), (2, 2));
    let m = c.get(2, None).await.unwrap();
    assert_eq!((m.id, m.entries.len()), (3, 1));
    assert_eq!(
        m.entries[0].entry_type,
        Some(EntryType::TransactionEnd as i32)
    );
    let m = c.get(2, None).await.unwrap();
    assert_eq!(m.id, -1);
    c.disconnect().await.unwrap();
}

#[tokio::test]
async fn rollback_all_and_rollback_by_id_redeliver() {
    let (d, srv) = setup().await;
    let mut c = client(&srv).await;
    c.subscribe("").await.unwrap();
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;

    let first = c
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!((first.id, first.entries.len()), (1, 3));
    c.rollback_all().await.unwrap();
    let again = c
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(again.id, 2);
    assert_eq!(again.entries, first.entries);

    c.rollback(again.id).await.unwrap();
    let third = c
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(third.id, 3);
    assert_eq!(third.entries, first.entries);
    c.ack(third.id).await.unwrap();

    // Rolling back an unknown batch: error 400 on the next call, whose own
    // reply follows it in the stream (as with Canal).
    let mut raw = Raw::login(&srv.addr()).await;
    let rb = ClientRollback {
        destination: DEST.into(),
        client_id: "1001".into(),
        batch_id: 99,
    };
    raw.send(PacketType::ClientRollback, &rb.encode_to_vec())
        .await;
    let get = Get {
        destination: DEST.into(),
        client_id: "1001".into(),
        fetch_size: 10,
        timeout: Some(-1),
        ..Default::default()
    };
    raw.send(PacketType::Get, &get.encode_to_vec()).await;
    let (code, msg) = raw.read_ack().await;
    assert_eq!(code, 400);
    assert!(
        msg.contains("rollback error, clientId:1001 batchId:99 is not exist"),
        "{msg}"
    );
    let p = raw.read_packet().await.unwrap();
    assert_eq!(p.r#type, PacketType::Messages as i32);
    // -1 is not special for rollback.
    let rb = ClientRollback { batch_id: -1, ..rb };
    raw.send(PacketType::ClientRollback, &rb.encode_to_vec())
        .await;
    let (code, msg) = raw.read_ack().await;
    assert_eq!(code, 400);
    assert!(msg.contains("batchId:-1 is not exist"), "{msg}");

    // The Rust client reports it on the next call and drops the
    // connection, which may be a reply behind; reconnect starts clean.
    c.rollback(99).await.unwrap();
    let (code, _) = server_error(c.get_without_ack(10, None, TimeUnit::Milliseconds).await);
    assert_eq!(code, 400);
    assert!(matches!(
        c.get_without_ack(10, None, TimeUnit::Milliseconds).await,
        Err(ClientError::NotConnected)
    ));
    c.reconnect().await.unwrap();
    let m = c
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(m.id, -1);
}

#[tokio::test]
async fn ack_rules_follow_canal() {
    let (d, srv) = setup().await;
    let mut c = client(&srv).await;
    c.subscribe("").await.unwrap();
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    let b1 = c
        .get_without_ack(1, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    let b2 = c
        .get_without_ack(1, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!((b1.id, b2.id), (1, 2));

    // Out of order: the error reply is what the next request reads (and
    // the client drops the connection, which is now a reply behind).
    c.ack(b2.id).await.unwrap();
    let (code, msg) = server_error(c.subscribe("").await);
    assert_eq!(code, 400);
    assert!(msg.contains("batchId:2 is not the firstly:1"), "{msg}");
    assert!(
        msg.starts_with("something goes wrong with channel:"),
        "{msg}"
    );

    // The same on the wire: error first, then the request's own reply.
    let mut raw = Raw::login(&srv.addr()).await;
    let ack = |batch_id| ClientAck {
        destination: DEST.into(),
        client_id: "1001".into(),
        batch_id,
    };
    let sub = Sub {
        destination: DEST.into(),
        client_id: "1001".into(),
        filter: String::new(),
    };
    raw.send(PacketType::ClientAck, &ack(2).encode_to_vec())
        .await;
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    let (code, msg) = raw.read_ack().await;
    assert_eq!(code, 400);
    assert!(msg.contains("batchId:2 is not the firstly:1"), "{msg}");
    assert_eq!(raw.read_ack().await, (0, String::new()));

    // -1 (an empty batch's id) is ignored: no reply at all.
    raw.send(PacketType::ClientAck, &ack(-1).encode_to_vec())
        .await;
    // 0 is refused with 402.
    raw.send(PacketType::ClientAck, &ack(0).encode_to_vec())
        .await;
    assert_eq!(
        raw.read_ack().await,
        (402, "batchId should assign value".to_string())
    );
    // Unknown batch.
    raw.send(PacketType::ClientAck, &ack(77).encode_to_vec())
        .await;
    let (code, msg) = raw.read_ack().await;
    assert_eq!(code, 400);
    assert!(
        msg.contains("ack error , clientId:1001 batchId:77 is not exist , please check"),
        "{msg}"
    );
    // In order: no replies; the next reply is the subscription's.
    raw.send(PacketType::ClientAck, &ack(1).encode_to_vec())
        .await;
    raw.send(PacketType::ClientAck, &ack(2).encode_to_vec())
        .await;
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await, (0, String::new()));

    // With the client: ack -1 is harmless, acks in order leave nothing behind.
    let mut c = client(&srv).await;
    c.subscribe("").await.unwrap();
    d.feed(&insert_txn("test", "t1", 5, 1, 1000)).await;
    c.ack(-1).await.unwrap();
    let m = c
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    // The END of the first transaction, then the new one.
    assert_eq!((m.id, m.entries.len()), (3, 4));
    c.ack(m.id).await.unwrap();
    let m = c
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(m.id, -1);

    // And ack 0 through the client: 402 on the next call.
    c.ack(0).await.unwrap();
    let (code, _) = server_error(c.get_without_ack(1, None, TimeUnit::Milliseconds).await);
    assert_eq!(code, 402);
}

#[tokio::test]
async fn missing_or_bad_identity_and_order_of_calls() {
    let (_d, srv) = setup().await;
    let mut raw = Raw::login(&srv.addr()).await;

    // Missing client id → 401 for every request kind that has one.
    let sub = Sub {
        destination: DEST.into(),
        ..Default::default()
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    let (code, msg) = raw.read_ack().await;
    assert_eq!(code, 401);
    assert!(msg.starts_with("destination or clientId is null"), "{msg}");
    let get = Get {
        client_id: "1001".into(),
        fetch_size: 10,
        timeout: Some(-1),
        ..Default::default()
    };
    raw.send(PacketType::Get, &get.encode_to_vec()).await;
    assert_eq!(raw.read_ack().await.0, 401);
    let ack = ClientAck {
        destination: DEST.into(),
        batch_id: 5,
        ..Default::default()
    };
    raw.send(PacketType::ClientAck, &ack.encode_to_vec()).await;
    assert_eq!(raw.read_ack().await.0, 401);
    let rb = ClientRollback {
        destination: DEST.into(),
        ..Default::default()
    };
    raw.send(PacketType::ClientRollback, &rb.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await.0, 401);

    // A client id that is not a Java short → 400.
    for bad in ["abc", "40000", "1001 "] {
        let sub = Sub {
            destination: DEST.into(),
            client_id: bad.into(),
            filter: String::new(),
        };
        raw.send(PacketType::Subscription, &sub.encode_to_vec())
            .await;
        let (code, msg) = raw.read_ack().await;
        assert_eq!(code, 400, "{bad}");
        assert!(msg.contains("NumberFormatException"), "{msg}");
    }

    // GET before SUBSCRIPTION → 400.
    let get = Get {
        destination: DEST.into(),
        client_id: "1001".into(),
        fetch_size: 10,
        timeout: Some(-1),
        ..Default::default()
    };
    raw.send(PacketType::Get, &get.encode_to_vec()).await;
    let (code, msg) = raw.read_ack().await;
    assert_eq!(code, 400);
    assert!(
        msg.contains("clientId:1001 should subscribe first"),
        "{msg}"
    );

    // Rollback(0) before subscribing is tolerated silently (clients do it
    // on connect); the next request gets its own reply.
    let rb = ClientRollback {
        destination: DEST.into(),
        client_id: "1001".into(),
        batch_id: 0,
    };
    raw.send(PacketType::ClientRollback, &rb.encode_to_vec())
        .await;

    // A destination that is not running here → 400.
    let sub = Sub {
        destination: "nope".into(),
        client_id: "1001".into(),
        filter: String::new(),
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    let (code, msg) = raw.read_ack().await;
    assert_eq!(code, 400);
    assert!(msg.contains("destination:nope should start first"), "{msg}");

    // Unsubscribe, then GET needs a subscription again.
    let sub = Sub {
        destination: DEST.into(),
        client_id: "1001".into(),
        filter: String::new(),
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await, (0, String::new()));
    let unsub = Unsub {
        destination: DEST.into(),
        client_id: "1001".into(),
        filter: String::new(),
    };
    raw.send(PacketType::Unsubscription, &unsub.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await, (0, String::new()));
    raw.send(PacketType::Get, &get.encode_to_vec()).await;
    assert_eq!(raw.read_ack().await.0, 400);
}

#[tokio::test]
async fn unsupported_packet_types_get_400() {
    let (_d, srv) = setup().await;
    let mut raw = Raw::login(&srv.addr()).await;
    for (t, name) in [
        (PacketType::Heartbeat as i32, "HEARTBEAT"),
        (PacketType::Dump as i32, "DUMP"),
        (PacketType::Shutdown as i32, "SHUTDOWN"),
        (PacketType::Messages as i32, "MESSAGES"),
        (0, "PACKAGETYPECOMPATIBLEPROTO2"),
        (99, "UNRECOGNIZED(99)"),
    ] {
        raw.send_type(t, &[]).await;
        let (code, msg) = raw.read_ack().await;
        assert_eq!(code, 400);
        assert_eq!(msg, format!("packet type: {name} is NOT supported!"));
    }
    // Still serving.
    let sub = Sub {
        destination: DEST.into(),
        client_id: "1001".into(),
        filter: String::new(),
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await.0, 0);
}

#[tokio::test]
async fn malformed_frames_do_not_disturb_other_clients() {
    let (d, srv) = setup().await;
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    let mut good = client(&srv).await;
    good.subscribe("").await.unwrap();
    let m = good.get(1, None).await.unwrap();
    assert_eq!(m.id, 1);

    let mut bad = Raw::login(&srv.addr()).await;
    // Not a protobuf at all: a 400 reply, the connection stays.
    bad.send_frame(&[0xff; 10]).await;
    let (code, msg) = bad.read_ack().await;
    assert_eq!(code, 400);
    assert!(
        msg.starts_with("something goes wrong with channel:"),
        "{msg}"
    );
    // A valid packet whose body is not the message its type says.
    bad.send_type(PacketType::Get as i32, &[0x0a, 0x7f, 0x01])
        .await;
    assert_eq!(bad.read_ack().await.0, 400);
    // An empty frame is an empty packet (type 0): unsupported.
    bad.send_frame(&[]).await;
    assert_eq!(bad.read_ack().await.0, 400);
    // The good client is unaffected.
    let m = good.get(1, None).await.unwrap();
    assert_eq!(m.id, 2);

    // A truncated frame, then EOF: the server just closes.
    let mut trunc = Raw::login(&srv.addr()).await;
    trunc.send_bytes(&[0, 0, 0, 50, 1, 2, 3]).await;
    trunc.stream.shutdown().await.ok();
    assert!(trunc.closed_within(5 * SECOND).await);

    let m = good.get(1, None).await.unwrap();
    assert_eq!(m.id, 3);
}

use tokio::io::AsyncWriteExt;

#[tokio::test]
async fn oversized_or_negative_length_closes_the_connection() {
    let (d, srv) = setup().await;
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    let mut good = client(&srv).await;
    good.subscribe("").await.unwrap();

    for prefix in [
        [0x7f, 0xff, 0xff, 0xff],
        [0x00, 0x10, 0x00, 0x01],
        [0xff, 0xff, 0xff, 0xff],
    ] {
        // Before login and after.
        let mut pre = Raw::connect(&srv.addr()).await;
        pre.send_bytes(&prefix).await;
        assert!(
            pre.closed_within(5 * SECOND).await,
            "{prefix:?} before login"
        );
        let mut post = Raw::login(&srv.addr()).await;
        post.send_bytes(&prefix).await;
        assert!(
            post.closed_within(5 * SECOND).await,
            "{prefix:?} after login"
        );
    }
    let m = good.get(10, None).await.unwrap();
    assert_eq!((m.id, m.entries.len()), (1, 3));
}

#[tokio::test]
async fn request_frame_bound_is_configurable() {
    let d = MemDestination::new(DEST, item_store(100));
    let server = TcpServer::bind("127.0.0.1:0", AuthConfig::open(), MemDestinations::one(&d))
        .await
        .unwrap()
        .with_options(ServerOptions {
            max_request_frame: 64,
            ..Default::default()
        });
    let srv = start_server(server);
    let mut raw = Raw::login(&srv.addr()).await;
    let sub = Sub {
        destination: DEST.into(),
        client_id: "1001".into(),
        filter: "x".repeat(40),
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await.0, 0);
    let sub = Sub {
        filter: "x".repeat(100),
        ..sub
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    assert!(raw.closed_within(5 * SECOND).await);
}

#[tokio::test]
async fn password_is_checked_with_the_scramble() {
    let d = MemDestination::new(DEST, item_store(100));
    let auth = AuthConfig::new("canal", &passwd_hash_hex(b"s3cret")).unwrap();
    let srv = start(auth, MemDestinations::one(&d)).await;

    // The Rust client scrambles the password with the server's seed.
    let mut c = SimpleConnector::connect(&srv.addr(), DEST, "canal", "s3cret")
        .await
        .unwrap();
    c.subscribe("").await.unwrap();
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    assert_eq!(c.get(10, None).await.unwrap().entries.len(), 3);

    for (user, pass) in [("canal", "wrong"), ("canal", ""), ("other", "s3cret")] {
        match SimpleConnector::connect(&srv.addr(), DEST, user, pass).await {
            Err(ClientError::Auth { code, message }) => {
                assert_eq!(code, 400);
                assert_eq!(message, format!("auth failed for user:{user}"));
            }
            other => panic!("{user}/{pass} accepted: {other:?}"),
        }
    }

    // The raw password (as canal-python sends it) is refused; the
    // connection stays open in the login state, as in Canal, and a correct
    // login on it still works.
    let mut raw = Raw::connect(&srv.addr()).await;
    let auth = ClientAuth {
        username: "canal".into(),
        password: b"s3cret".to_vec(),
        ..Default::default()
    };
    raw.send(PacketType::ClientAuthentication, &auth.encode_to_vec())
        .await;
    assert_eq!(
        raw.read_ack().await,
        (400, "auth failed for user:canal".to_string())
    );
    let token = sluice_client::scramble411(b"s3cret", &raw.seed);
    let hex: String = token.iter().map(|b| format!("{b:02x}")).collect();
    let auth = ClientAuth {
        username: "canal".into(),
        password: hex.into_bytes(),
        ..Default::default()
    };
    // The packet type is not looked at for the login packet.
    raw.send_type(PacketType::Get as i32, &auth.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await, (0, String::new()));

    // Three failures on one connection close it.
    let mut raw = Raw::connect(&srv.addr()).await;
    let bad = ClientAuth {
        username: "canal".into(),
        password: b"00".to_vec(),
        ..Default::default()
    };
    for _ in 0..3 {
        raw.send(PacketType::ClientAuthentication, &bad.encode_to_vec())
            .await;
        assert_eq!(raw.read_ack().await.0, 400);
    }
    assert!(raw.closed_within(5 * SECOND).await);
}

#[tokio::test]
async fn empty_passwd_accepts_anything() {
    let (_d, srv) = setup().await;
    for (user, pass) in [("", ""), ("someone", "whatever"), ("canal", "canal")] {
        let c = SimpleConnector::connect(&srv.addr(), DEST, user, pass).await;
        assert!(c.is_ok(), "{user}/{pass}: {c:?}");
    }
    let mut raw = Raw::connect(&srv.addr()).await;
    let auth = ClientAuth {
        username: "x".into(),
        password: b"not hex at all".to_vec(),
        ..Default::default()
    };
    raw.send(PacketType::ClientAuthentication, &auth.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await.0, 0);
}

#[tokio::test]
async fn login_can_subscribe() {
    let (d, srv) = setup().await;
    let mut raw = Raw::connect(&srv.addr()).await;
    let auth = ClientAuth {
        destination: DEST.into(),
        client_id: "7".into(),
        filter: "test\\.t1".into(),
        ..Default::default()
    };
    raw.send(PacketType::ClientAuthentication, &auth.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await.0, 0);
    assert!(d.store.is_subscribed(7));
    assert_eq!(d.last_filter().as_deref(), Some("test\\.t1"));
}

#[tokio::test]
async fn get_timeouts_follow_canal() {
    let (d, srv) = setup().await;
    let mut c = client(&srv).await;
    c.subscribe("").await.unwrap();

    // -1: at once, batch id -1 when empty.
    let t = Instant::now();
    let m = c
        .get_without_ack(10, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!((m.id, m.entries.len()), (-1, 0));
    assert!(t.elapsed() < SECOND, "{:?}", t.elapsed());

    // A positive timeout waits that long for a full batch, then returns
    // what there is (nothing here).
    let t = Instant::now();
    let m = c
        .get_without_ack(10, Some(300), TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(m.id, -1);
    let waited = t.elapsed();
    assert!(waited >= Duration::from_millis(290), "{waited:?}");
    assert!(waited < 3 * SECOND, "{waited:?}");

    // Units are TimeUnit ordinals: 300 000 µs.
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    let t = Instant::now();
    let m = c
        .get_without_ack(10, Some(300_000), TimeUnit::Microseconds)
        .await
        .unwrap();
    assert_eq!((m.id, m.entries.len()), (1, 3));
    assert!(t.elapsed() >= Duration::from_millis(290));
    c.ack(1).await.unwrap();

    // A full batch ends the wait early.
    let feeder = {
        let d = d.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(200)).await;
            d.feed(&insert_txn("test", "t1", 2, 1, 1000)).await;
        })
    };
    let t = Instant::now();
    let m = c
        .get_without_ack(3, Some(10), TimeUnit::Seconds)
        .await
        .unwrap();
    assert_eq!(m.entries.len(), 3);
    assert!(t.elapsed() < 5 * SECOND);
    feeder.await.unwrap();
    c.ack(m.id).await.unwrap();

    // Timeout 0 blocks until the batch is full.
    let feeder = {
        let d = d.clone();
        tokio::spawn(async move {
            tokio::time::sleep(Duration::from_millis(300)).await;
            d.feed(&insert_txn("test", "t1", 3, 1, 2000)).await;
        })
    };
    let t = Instant::now();
    let m = c
        .get_without_ack(3, Some(0), TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(m.entries.len(), 3);
    assert!(t.elapsed() >= Duration::from_millis(250));
    feeder.await.unwrap();
}

#[tokio::test]
async fn a_client_leaving_during_a_blocking_get_takes_no_batch() {
    let (d, srv) = setup().await;
    let mut c = client(&srv).await;
    c.subscribe("").await.unwrap();
    let mut raw = Raw::login(&srv.addr()).await;
    let get = Get {
        destination: DEST.into(),
        client_id: "1001".into(),
        fetch_size: 3,
        timeout: None, // absent: block until full
        ..Default::default()
    };
    raw.send(PacketType::Get, &get.encode_to_vec()).await;
    tokio::time::sleep(Duration::from_millis(200)).await;
    drop(raw);
    tokio::time::sleep(Duration::from_millis(200)).await;
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    tokio::time::sleep(Duration::from_millis(100)).await;
    // Had the abandoned GET taken the data, this would be batch 2 with nothing.
    let m = c
        .get_without_ack(3, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!((m.id, m.entries.len()), (1, 3));
}

#[tokio::test]
async fn idle_connections_are_closed() {
    let (_d, srv) = setup().await;
    let mut raw = Raw::connect(&srv.addr()).await;
    let auth = ClientAuth {
        net_read_timeout: Some(300),
        net_write_timeout: Some(300),
        ..Default::default()
    };
    raw.send(PacketType::ClientAuthentication, &auth.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await.0, 0);
    let t = Instant::now();
    assert!(raw.closed_within(5 * SECOND).await);
    assert!(
        t.elapsed() >= Duration::from_millis(250),
        "{:?}",
        t.elapsed()
    );

    // A client that keeps talking stays.
    let opts = ConnectorOptions {
        idle_timeout: Duration::from_millis(1500),
        ..Default::default()
    };
    let mut c = SimpleConnector::connect_with(&srv.addr(), DEST, "", "", opts)
        .await
        .unwrap();
    c.subscribe("").await.unwrap();
    for _ in 0..5 {
        tokio::time::sleep(Duration::from_millis(500)).await;
        assert_eq!(c.get(10, None).await.unwrap().id, -1);
    }
}

#[tokio::test]
async fn login_must_come_in_time() {
    let d = MemDestination::new(DEST, item_store(100));
    let server = TcpServer::bind("127.0.0.1:0", AuthConfig::open(), MemDestinations::one(&d))
        .await
        .unwrap()
        .with_options(ServerOptions {
            auth_timeout: Duration::from_millis(300),
            ..Default::default()
        });
    let srv = start_server(server);
    let mut raw = Raw::connect(&srv.addr()).await;
    assert!(raw.closed_within(5 * SECOND).await);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn many_clients_and_destinations_at_once() {
    let dests: Vec<_> = (0..4)
        .map(|i| MemDestination::new(&format!("d{i}"), item_store(100_000)))
        .collect();
    let srv = start(AuthConfig::open(), MemDestinations::with(&dests)).await;
    for d in &dests {
        for t in 0..50 {
            d.feed(&insert_txn("test", "t1", t, 2, 4 + 1000 * t as i64))
                .await;
        }
    }
    let mut tasks = Vec::new();
    // Everyone subscribes before anyone acks (a late subscriber starts at
    // the oldest entry still held, as in Canal).
    let barrier = Arc::new(tokio::sync::Barrier::new(32));
    for i in 0..32 {
        let addr = srv.addr();
        let dest = format!("d{}", i % 4);
        let barrier = barrier.clone();
        tasks.push(tokio::spawn(async move {
            let opts = ConnectorOptions {
                client_id: 100 + i as i16,
                ..Default::default()
            };
            let mut c = SimpleConnector::connect_with(&addr, &dest, "", "", opts)
                .await
                .unwrap();
            c.subscribe("").await.unwrap();
            barrier.wait().await;
            let mut got = 0;
            loop {
                let m = c.get(7, None).await.unwrap();
                if m.id == -1 {
                    break;
                }
                got += m.entries.len();
            }
            c.disconnect().await.unwrap();
            got
        }));
    }
    for t in tasks {
        // Every client id has its own progress: each sees all 150 entries.
        assert_eq!(t.await.unwrap(), 150);
    }
}

/// A destination whose GET panics: the panic ends that connection only.
struct Panicky;

impl Destination for Panicky {
    fn name(&self) -> &str {
        "panicky"
    }
    fn subscribe(&self, _: ClientId, _: &str) -> Result<(), DestinationError> {
        Ok(())
    }
    fn unsubscribe(&self, _: ClientId) -> Result<(), DestinationError> {
        Ok(())
    }
    fn get(
        &self,
        _: ClientId,
        _: usize,
        _: GetWait,
    ) -> BoxFuture<'_, Result<Batch<EntryBytes>, DestinationError>> {
        Box::pin(async { panic!("destination bug") })
    }
    fn ack(&self, _: ClientId, _: i64) -> Result<(), DestinationError> {
        Ok(())
    }
    fn rollback(&self, _: ClientId, _: i64) -> Result<(), DestinationError> {
        Ok(())
    }
}

#[tokio::test]
async fn a_panicking_connection_leaves_the_others_alone() {
    let d = MemDestination::new(DEST, item_store(100));
    let dests = MemDestinations::one(&d);
    dests.insert(Arc::new(Panicky));
    let srv = start(AuthConfig::open(), dests).await;
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    let mut good = client(&srv).await;
    good.subscribe("").await.unwrap();

    let mut bad = SimpleConnector::connect(&srv.addr(), "panicky", "", "")
        .await
        .unwrap();
    bad.subscribe("").await.unwrap();
    assert!(bad.get(1, None).await.is_err());

    assert_eq!(good.get(10, None).await.unwrap().entries.len(), 3);
    // And new connections are still accepted.
    let mut again = client(&srv).await;
    again.subscribe("").await.unwrap();
}

#[tokio::test]
async fn shutdown_closes_connections_and_returns() {
    let (_d, srv) = setup().await;
    let mut c = client(&srv).await;
    c.subscribe("").await.unwrap();
    let waiting = tokio::spawn(async move {
        // Blocks: nothing will ever come.
        c.get_without_ack(10, Some(0), TimeUnit::Milliseconds).await
    });
    tokio::time::sleep(Duration::from_millis(200)).await;
    srv.shutdown.shutdown();
    let served = tokio::time::timeout(5 * SECOND, srv.task).await;
    assert!(matches!(served, Ok(Ok(Ok(())))), "{served:?}");
    let r = tokio::time::timeout(5 * SECOND, waiting)
        .await
        .unwrap()
        .unwrap();
    assert!(matches!(r, Err(ClientError::Closed)), "{r:?}");
    assert!(tokio::net::TcpStream::connect(srv.addr).await.is_err());
}

#[tokio::test]
async fn reconnect_resumes_after_the_last_ack() {
    let (d, srv) = setup().await;
    let mut c = client(&srv).await;
    c.subscribe("test\\..*").await.unwrap();
    d.feed(&insert_txn("test", "t1", 1, 1, 4)).await;
    d.feed(&insert_txn("test", "t1", 2, 1, 1000)).await;
    let m1 = c
        .get_without_ack(3, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    c.ack(m1.id).await.unwrap();
    let m2 = c
        .get_without_ack(3, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(m2.entries.len(), 3);
    // Connection lost without an ack: reconnect re-subscribes with the
    // remembered filter and rolls back, so the un-acked batch comes again.
    c.reconnect().await.unwrap();
    assert_eq!(d.last_filter().as_deref(), Some("test\\..*"));
    let again = c
        .get_without_ack(3, None, TimeUnit::Milliseconds)
        .await
        .unwrap();
    assert_eq!(again.entries, m2.entries);
    assert_ne!(again.entries, m1.entries);
}

#[tokio::test]
async fn raw_messages_frames_decode_with_the_canal_messages() {
    // The hand-assembled MESSAGES frame read back with prost's own types.
    let (d, srv) = setup().await;
    let fed = insert_txn("test", "t1", 1, 4, 4);
    d.feed(&fed).await;
    let mut raw = Raw::login(&srv.addr()).await;
    let sub = Sub {
        destination: DEST.into(),
        client_id: "1001".into(),
        filter: String::new(),
    };
    raw.send(PacketType::Subscription, &sub.encode_to_vec())
        .await;
    assert_eq!(raw.read_ack().await.0, 0);
    let get = Get {
        destination: DEST.into(),
        client_id: "1001".into(),
        fetch_size: 100,
        timeout: Some(-1),
        unit: Some(-1),
        auto_ack: Some(false),
    };
    raw.send(PacketType::Get, &get.encode_to_vec()).await;
    let p = raw.read_packet().await.unwrap();
    assert_eq!(p.r#type, PacketType::Messages as i32);
    assert_eq!(p.version, Some(1));
    assert_eq!(p.compression, None);
    let m = Messages::decode(p.body.as_slice()).unwrap();
    assert_eq!(m.batch_id, 1);
    let entries: Vec<Entry> = m
        .messages
        .iter()
        .map(|b| Entry::decode(b.as_slice()).unwrap())
        .collect();
    assert_eq!(entries, fed);
}

#[tokio::test]
async fn server_from_canal_properties() {
    use sluice_config::{Properties, ServerConfig};
    let text = format!(
        "canal.ip = 127.0.0.1\ncanal.port = 0\ncanal.user = canal\ncanal.passwd = {}\n",
        passwd_hash_hex(b"canal")
    );
    let dir = std::path::Path::new("/nonexistent");
    let cfg =
        ServerConfig::from_properties(&dir.join("canal.properties"), dir, Properties::parse(&text))
            .unwrap();
    let d = MemDestination::new(DEST, item_store(100));
    let server = TcpServer::bind_config(&cfg.canal_port, MemDestinations::one(&d))
        .await
        .unwrap();
    let srv = start_server(server);
    assert!(
        SimpleConnector::connect(&srv.addr(), DEST, "canal", "canal")
            .await
            .is_ok()
    );
    assert!(SimpleConnector::connect(&srv.addr(), DEST, "canal", "nope")
        .await
        .is_err());
}
