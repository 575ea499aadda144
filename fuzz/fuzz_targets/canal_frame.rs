//! Arbitrary bytes as what a Canal client sends a Sluice server: the frame
//! decoder splits them (with a small and a large bound), every frame body
//! goes through the pure request parser and through a session over a stub
//! destination, and every reply is encoded and must read back as one
//! whole frame. The first byte picks the setup: bit 0 logs in first with a
//! valid ClientAuth, bit 1 configures a password.
#![no_main]

use std::sync::{Arc, OnceLock};

use libfuzzer_sys::fuzz_target;
use prost::Message;
use sluice_canal::proto::{ClientAuth, Packet, PacketType};
use sluice_serve_tcp::frame::{self, Decoded};
use sluice_serve_tcp::session::{parse_request, Outcome, Session};
use sluice_serve_tcp::AuthConfig;
use sluice_store::destination::BoxFuture;
use sluice_store::{
    Batch, ClientId, Destination, DestinationError, Destinations, EntryBytes, GetWait,
};

/// Answers at once, whatever the wait: a batch for even client ids, an
/// error for odd ones.
struct Stub;

fn err() -> DestinationError {
    DestinationError {
        code: 400,
        message: "stub".into(),
    }
}

impl Destination for Stub {
    fn name(&self) -> &str {
        "example"
    }
    fn subscribe(&self, client: ClientId, _: &str) -> Result<(), DestinationError> {
        if client % 2 == 0 {
            Ok(())
        } else {
            Err(err())
        }
    }
    fn unsubscribe(&self, client: ClientId) -> Result<(), DestinationError> {
        if client % 2 == 0 {
            Ok(())
        } else {
            Err(err())
        }
    }
    fn get(
        &self,
        client: ClientId,
        fetch_size: usize,
        _: GetWait,
    ) -> BoxFuture<'_, Result<Batch<EntryBytes>, DestinationError>> {
        Box::pin(async move {
            if client % 2 != 0 {
                return Err(err());
            }
            let n = fetch_size.min(3);
            Ok(Batch {
                id: if n == 0 { -1 } else { 1 },
                entries: (0..n).map(|i| vec![i as u8; i * 7].into()).collect(),
            })
        })
    }
    fn ack(&self, _: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        if batch_id % 2 == 0 {
            Ok(())
        } else {
            Err(err())
        }
    }
    fn rollback(&self, _: ClientId, batch_id: i64) -> Result<(), DestinationError> {
        if batch_id % 2 == 0 {
            Ok(())
        } else {
            Err(err())
        }
    }
}

struct StubDestinations;

impl Destinations for StubDestinations {
    fn destination(&self, name: &str) -> Option<Arc<dyn Destination>> {
        (name == "example").then(|| Arc::new(Stub) as Arc<dyn Destination>)
    }
}

fn runtime() -> &'static tokio::runtime::Runtime {
    static RT: OnceLock<tokio::runtime::Runtime> = OnceLock::new();
    RT.get_or_init(|| {
        tokio::runtime::Builder::new_current_thread()
            .build()
            .expect("runtime")
    })
}

fn check_reply(outcome: &Outcome) {
    let reply = match outcome {
        Outcome::Silent => return,
        Outcome::Reply(r) | Outcome::ReplyAndClose(r) => r,
    };
    let mut out = Vec::new();
    reply.encode_frame(&mut out).expect("replies fit a frame");
    match frame::decode(&out, usize::MAX) {
        Ok(Decoded::Frame { body, consumed }) => {
            assert_eq!(consumed, out.len(), "one whole frame");
            Packet::decode(body).expect("the reply is a Packet");
        }
        other => panic!("reply does not read back: {other:?}"),
    }
}

fuzz_target!(|data: &[u8]| {
    let Some((&setup, stream)) = data.split_first() else {
        return;
    };
    // The decoder on its own, with a bound the input can exceed.
    let mut at = 0;
    while let Ok(Decoded::Frame { body, consumed }) = frame::decode(&stream[at..], 64) {
        assert!(consumed == body.len() + frame::HEADER_LEN && consumed <= stream.len() - at);
        let _ = parse_request(body);
        at += consumed;
    }

    let auth = if setup & 2 != 0 {
        AuthConfig::new("canal", "E3619321C1A937C46A0D8BD1DAC39F93B27D4458").expect("valid")
    } else {
        AuthConfig::open()
    };
    let mut session = Session::new(
        [1, 2, 3, 4, 5, 6, 7, 8],
        Arc::new(auth),
        Arc::new(StubDestinations),
        "[fuzz]".into(),
    );
    runtime().block_on(async {
        if setup & 1 != 0 {
            let login = Packet {
                r#type: PacketType::ClientAuthentication as i32,
                body: ClientAuth {
                    username: "canal".into(),
                    // scramble411("canal", 01..08), lowercase hex.
                    password: scramble_hex().into_bytes(),
                    ..Default::default()
                }
                .encode_to_vec(),
                ..Default::default()
            };
            let o = session.handle(&login.encode_to_vec()).await;
            check_reply(&o);
        }
        let mut at = 0;
        while let Ok(Decoded::Frame { body, consumed }) =
            frame::decode(&stream[at..], frame::DEFAULT_MAX_REQUEST_FRAME)
        {
            let o = session.handle(body).await;
            check_reply(&o);
            if matches!(o, Outcome::ReplyAndClose(_)) {
                break;
            }
            at += consumed;
        }
    });
});

fn scramble_hex() -> String {
    static HEX: OnceLock<String> = OnceLock::new();
    HEX.get_or_init(|| {
        sluice_serve_tcp::auth::scramble411(b"canal", &[1, 2, 3, 4, 5, 6, 7, 8])
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect()
    })
    .clone()
}
