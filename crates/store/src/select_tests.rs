//! Per-client selection in the store: a client gets exactly the entries
//! its filter keeps, transaction frames follow, and the others are unaffected.

use super::*;
use std::sync::Arc;

use sluice_canal::TableFilter;

fn pos(offset: u64) -> EntryPosition {
    EntryPosition {
        journal_name: "binlog.000001".into(),
        position: offset,
        ..Default::default()
    }
}

fn cfg(max_entries: usize) -> StoreConfig {
    StoreConfig {
        max_entries,
        max_bytes: usize::MAX,
        batch_mode: BatchMode::ItemSize,
        detach_after: None,
        ..Default::default()
    }
}

fn table(name: &str) -> Option<Arc<TableName>> {
    Some(Arc::new(TableName {
        schema: "s".into(),
        table: name.into(),
    }))
}

/// Entries are their offsets; a transaction is BEGIN, one row per table
/// named, END (whose ack point is after it).
struct Feed {
    next: u64,
    version: FilterVersion,
}

impl Feed {
    fn new() -> Self {
        Feed {
            next: 100,
            version: 0,
        }
    }

    async fn txn(&mut self, s: &EventStore<u64>, tables: &[&str]) -> Vec<u64> {
        let mut put = Vec::new();
        put.push(self.put(s, Frame::Begin, None, false).await);
        for t in tables {
            put.push(self.put(s, Frame::Body, table(t), false).await);
        }
        put.push(self.put(s, Frame::End, None, true).await);
        put
    }

    async fn put(
        &mut self,
        s: &EventStore<u64>,
        frame: Frame,
        table: Option<Arc<TableName>>,
        boundary: bool,
    ) -> u64 {
        let at = self.next;
        self.next += 10;
        let meta = EntryMeta {
            bytes: 10,
            ack_point: boundary.then(|| pos(at + 10)),
            position: pos(at),
            table,
            frame,
            filter_version: self.version,
            ..Default::default()
        };
        s.put(at, meta).await.unwrap();
        at
    }
}

fn only(filter: &str) -> Option<Selection> {
    Some(Selection::new(
        Arc::new(TableFilter::new(filter).unwrap()),
        None,
    ))
}

#[tokio::test]
async fn a_selective_client_gets_its_tables_and_the_others_everything() {
    let s = EventStore::new(cfg(100));
    s.subscribe(1, None);
    s.subscribe(2, None);
    s.set_selection(2, only("s\\.a"));
    let mut f = Feed::new();
    let t1 = f.txn(&s, &["a"]).await;
    let t2 = f.txn(&s, &["b"]).await;
    let t3 = f.txn(&s, &["a", "b"]).await;

    let all = s.get(1, 100, GetWait::NoWait).await.unwrap();
    let expected: Vec<u64> = t1.iter().chain(&t2).chain(&t3).copied().collect();
    assert_eq!(
        all.entries, expected,
        "client 1 is not affected by client 2"
    );

    let mine = s.get(2, 100, GetWait::NoWait).await.unwrap();
    assert_eq!(mine.entries, vec![t1[0], t1[1], t1[2], t3[0], t3[1], t3[3]]);
    assert_eq!(s.ack(2, mine.id).unwrap(), Some(pos(t3[3] + 10)));
}

#[tokio::test]
async fn nothing_selected_still_gives_a_transaction_to_ack() {
    let s = EventStore::new(cfg(100));
    s.subscribe(2, None);
    s.set_selection(2, only("s\\.a"));
    let mut f = Feed::new();
    f.txn(&s, &["b"]).await;
    let last = f.txn(&s, &["b", "c"]).await;
    let b = s.get(2, 100, GetWait::NoWait).await.unwrap();
    assert_eq!(
        b.entries,
        vec![last[0], last[3]],
        "the last empty pair stands in"
    );
    assert_eq!(s.ack(2, b.id).unwrap(), Some(pos(last[3] + 10)));
    let empty = s.get(2, 100, GetWait::NoWait).await.unwrap();
    assert_eq!(empty.id, -1);
}

#[tokio::test]
async fn a_transaction_split_across_batches_keeps_its_frame_and_rolls_back() {
    let s = EventStore::new(cfg(100));
    s.subscribe(2, None);
    s.set_selection(2, only("s\\.a"));
    let mut f = Feed::new();
    let t = f.txn(&s, &["b", "a", "a", "b"]).await;
    let first = s.get(2, 2, GetWait::NoWait).await.unwrap();
    assert_eq!(first.entries, vec![t[0], t[2]]);
    let second = s.get(2, 2, GetWait::NoWait).await.unwrap();
    assert_eq!(second.entries, vec![t[3], t[5]]);
    s.ack(2, first.id).unwrap();
    s.rollback(2, 0).unwrap();
    let again = s.get(2, 2, GetWait::NoWait).await.unwrap();
    assert_eq!(
        again.entries, second.entries,
        "rolled back to the frame state at the ack"
    );
}

#[tokio::test]
async fn entries_the_stream_filtered_with_the_clients_filter_are_not_matched_again() {
    let s = EventStore::new(cfg(100));
    s.subscribe(2, None);
    // A filter that keeps nothing, said to be the stream's version 1.
    s.set_selection(
        2,
        Some(Selection::new(
            Arc::new(TableFilter::new("nothing\\.here").unwrap()),
            Some(1),
        )),
    );
    let mut f = Feed::new();
    let old = f.txn(&s, &["a"]).await;
    f.version = 1;
    let new = f.txn(&s, &["a"]).await;
    let b = s.get(2, 100, GetWait::NoWait).await.unwrap();
    assert_eq!(
        b.entries, new,
        "version 0 was matched and left out: {old:?}"
    );
}

#[tokio::test]
async fn a_long_transaction_of_other_tables_does_not_hold_a_full_store() {
    let s = Arc::new(EventStore::new(cfg(4)));
    s.subscribe(1, None);
    s.subscribe(2, None);
    s.set_selection(2, only("s\\.a"));
    // Client 1 reads and acks everything.
    let reader = {
        let s = s.clone();
        tokio::spawn(async move {
            let mut got = 0;
            while got < 12 {
                let b = s
                    .get(1, 10, GetWait::AtMost(std::time::Duration::from_millis(20)))
                    .await
                    .unwrap();
                got += b.entries.len();
                if b.id > 0 {
                    s.ack(1, b.id).unwrap();
                }
            }
        })
    };
    // Client 2 keeps asking, with nothing for it: no END in sight.
    let selective = {
        let s = s.clone();
        tokio::spawn(async move {
            loop {
                let b = s
                    .get(2, 10, GetWait::AtMost(std::time::Duration::from_millis(20)))
                    .await
                    .unwrap();
                if !b.entries.is_empty() {
                    return b.entries;
                }
            }
        })
    };
    let mut f = Feed::new();
    f.put(&s, Frame::Begin, None, false).await;
    for _ in 0..10 {
        f.put(&s, Frame::Body, table("b"), false).await;
    }
    let a = f.put(&s, Frame::Body, table("a"), false).await;
    tokio::time::timeout(std::time::Duration::from_secs(5), reader)
        .await
        .expect("client 2 held the full store")
        .unwrap();
    let got = selective.await.unwrap();
    assert_eq!(
        got,
        vec![100, a],
        "the BEGIN it passed over comes with its row"
    );
}

#[tokio::test]
async fn a_ddl_comes_alone_for_a_selective_client_too() {
    let s = EventStore::new(StoreConfig {
        ddl_isolation: true,
        ..cfg(100)
    });
    s.subscribe(2, None);
    s.set_selection(2, only("s\\.a"));
    let mut f = Feed::new();
    let t = f.txn(&s, &["a"]).await;
    let ddl = EntryMeta {
        bytes: 10,
        ack_point: Some(pos(1000)),
        position: pos(990),
        is_ddl: true,
        table: table("a"),
        ..Default::default()
    };
    s.put(990, ddl).await.unwrap();
    let after = f.txn(&s, &["a"]).await;
    assert_eq!(s.get(2, 100, GetWait::NoWait).await.unwrap().entries, t);
    assert_eq!(
        s.get(2, 100, GetWait::NoWait).await.unwrap().entries,
        vec![990]
    );
    assert_eq!(s.get(2, 100, GetWait::NoWait).await.unwrap().entries, after);
}

#[tokio::test]
async fn a_held_client_gets_nothing() {
    let s = EventStore::new(cfg(100));
    s.subscribe(2, None);
    let mut f = Feed::new();
    f.txn(&s, &["a"]).await;
    s.hold(2);
    assert_eq!(s.get(2, 100, GetWait::NoWait).await.unwrap().id, -1);
}
