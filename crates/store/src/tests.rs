use super::*;
use std::sync::Arc;

fn pos(file: u32, offset: u64) -> EntryPosition {
    EntryPosition {
        journal_name: format!("binlog.{file:06}"),
        position: offset,
        ..Default::default()
    }
}

fn meta(offset: u64, boundary: bool) -> EntryMeta {
    EntryMeta {
        bytes: 100,
        ack_point: boundary.then(|| pos(1, offset + 1)),
        position: pos(1, offset),
        is_ddl: false,
        rows: 0,
        ..Default::default()
    }
}

fn items_cfg(max_entries: usize) -> StoreConfig {
    StoreConfig {
        max_entries,
        max_bytes: usize::MAX,
        batch_mode: BatchMode::ItemSize,
        ..Default::default()
    }
}

async fn filled(n: u64, cfg: StoreConfig) -> EventStore<u64> {
    let s = EventStore::new(cfg);
    for i in 0..n {
        s.put(i, meta(i, i % 3 == 2)).await.unwrap();
    }
    s
}

#[tokio::test]
async fn batches_are_numbered_from_one_and_empty_is_minus_one() {
    let s = filled(5, items_cfg(100)).await;
    s.subscribe(1001, None);
    let b = s.get(1001, 2, GetWait::NoWait).await.unwrap();
    assert_eq!((b.id, b.entries), (1, vec![0, 1]));
    let b = s.get(1001, 2, GetWait::NoWait).await.unwrap();
    assert_eq!((b.id, b.entries), (2, vec![2, 3]));
    let b = s.get(1001, 2, GetWait::NoWait).await.unwrap();
    assert_eq!((b.id, b.entries), (3, vec![4]));
    let b = s.get(1001, 2, GetWait::NoWait).await.unwrap();
    assert_eq!((b.id, b.entries.len()), (-1, 0));
}

#[tokio::test]
async fn acks_must_be_oldest_first() {
    let s = filled(6, items_cfg(100)).await;
    s.subscribe(1, None);
    let b1 = s.get(1, 2, GetWait::NoWait).await.unwrap();
    let b2 = s.get(1, 2, GetWait::NoWait).await.unwrap();
    assert_eq!(
        s.ack(1, b2.id),
        Err(StoreError::NotOldest {
            batch: b2.id,
            oldest: b1.id
        })
    );
    assert_eq!(
        s.ack(1, 99),
        Err(StoreError::UnknownBatch {
            client: 1,
            batch: 99
        })
    );
    assert_eq!(s.ack(1, b1.id), Ok(None));
    // Batch 2 = entries 2, 3: entry 2 ends a transaction → cursor moves.
    assert_eq!(s.ack(1, b2.id), Ok(Some(pos(1, 3))));
    assert_eq!(s.cursors(), vec![(1, Some(pos(1, 3)))]);
    assert!(s.ack(1, b2.id).is_err(), "acking twice is an error");
}

#[tokio::test]
async fn rollback_all_redelivers_after_last_ack() {
    let s = filled(6, items_cfg(100)).await;
    s.subscribe(7, None);
    let b1 = s.get(7, 2, GetWait::NoWait).await.unwrap();
    s.ack(7, b1.id).unwrap();
    let _b2 = s.get(7, 2, GetWait::NoWait).await.unwrap();
    let _b3 = s.get(7, 2, GetWait::NoWait).await.unwrap();
    s.rollback(7, 0).unwrap();
    let again = s.get(7, 4, GetWait::NoWait).await.unwrap();
    assert_eq!(again.entries, vec![2, 3, 4, 5]);
    assert_eq!(again.id, 4, "batch ids keep increasing after a rollback");
}

#[tokio::test]
async fn rollback_of_one_batch_must_be_the_oldest() {
    let s = filled(6, items_cfg(100)).await;
    s.subscribe(7, None);
    let b1 = s.get(7, 2, GetWait::NoWait).await.unwrap();
    let b2 = s.get(7, 2, GetWait::NoWait).await.unwrap();
    assert!(matches!(
        s.rollback(7, b2.id),
        Err(StoreError::NotOldest { .. })
    ));
    assert!(matches!(
        s.rollback(7, 42),
        Err(StoreError::UnknownRollback { .. })
    ));
    s.rollback(7, b1.id).unwrap();
    let again = s.get(7, 2, GetWait::NoWait).await.unwrap();
    assert_eq!(again.entries, vec![0, 1]);
}

#[tokio::test]
async fn rollback_before_subscribe_is_tolerated_and_get_is_refused() {
    let s = filled(1, items_cfg(10)).await;
    assert_eq!(s.rollback(5, 0), Ok(()));
    assert_eq!(s.rollback(5, 3), Err(StoreError::NotSubscribed(5)));
    assert!(matches!(
        s.get(5, 1, GetWait::NoWait).await,
        Err(StoreError::NotSubscribed(5))
    ));
    assert!(matches!(s.ack(5, 1), Err(StoreError::NotSubscribed(5))));
}

#[tokio::test]
async fn two_clients_consume_independently_and_memory_waits_for_the_slowest() {
    let s = filled(4, items_cfg(100)).await;
    s.subscribe(1, None);
    s.subscribe(2, None);
    let a = s.get(1, 4, GetWait::NoWait).await.unwrap();
    s.ack(1, a.id).unwrap();
    assert_eq!(s.usage().0, 4, "client 2 has not acked: nothing freed");
    let b = s.get(2, 2, GetWait::NoWait).await.unwrap();
    assert_eq!(b.entries, vec![0, 1]);
    s.ack(2, b.id).unwrap();
    assert_eq!(s.usage().0, 2);
    let b = s.get(2, 2, GetWait::NoWait).await.unwrap();
    assert_eq!(b.entries, vec![2, 3]);
    assert_eq!(b.id, 2);
}

#[tokio::test]
async fn a_full_store_makes_put_wait_until_an_ack() {
    let s = Arc::new(filled(3, items_cfg(3)).await);
    s.subscribe(1, None);
    let producer = {
        let s = s.clone();
        tokio::spawn(async move { s.put(99, meta(99, true)).await })
    };
    tokio::time::sleep(Duration::from_millis(50)).await;
    assert!(
        !producer.is_finished(),
        "put must wait while the store is full"
    );
    let b = s.get(1, 1, GetWait::NoWait).await.unwrap();
    s.ack(1, b.id).unwrap();
    tokio::time::timeout(Duration::from_secs(5), producer)
        .await
        .expect("put resumes after an ack")
        .unwrap()
        .unwrap();
    assert_eq!(s.usage().0, 3);
}

#[tokio::test]
async fn blocking_get_waits_for_a_full_batch_or_its_timeout() {
    let s = Arc::new(EventStore::new(items_cfg(100)));
    s.subscribe(1, None);
    let consumer = {
        let s = s.clone();
        tokio::spawn(async move { s.get(1, 3, GetWait::UntilFull).await })
    };
    s.put(1, meta(1, false)).await.unwrap();
    s.put(2, meta(2, false)).await.unwrap();
    tokio::time::sleep(Duration::from_millis(30)).await;
    assert!(!consumer.is_finished());
    s.put(3, meta(3, true)).await.unwrap();
    let b = tokio::time::timeout(Duration::from_secs(5), consumer)
        .await
        .unwrap()
        .unwrap()
        .unwrap();
    assert_eq!(b.entries, vec![1, 2, 3]);

    s.put(4, meta(4, false)).await.unwrap();
    let started = std::time::Instant::now();
    let b = s
        .get(1, 10, GetWait::AtMost(Duration::from_millis(100)))
        .await
        .unwrap();
    assert_eq!(b.entries, vec![4], "a timed get returns what there is");
    assert!(started.elapsed() >= Duration::from_millis(90));
}

#[tokio::test]
async fn memsize_batches_are_bounded_by_bytes_and_ddl_comes_alone() {
    let cfg = StoreConfig {
        max_entries: 100,
        max_bytes: usize::MAX,
        batch_mode: BatchMode::MemSize,
        mem_unit: 100,
        ddl_isolation: true,
        ..Default::default()
    };
    let s = EventStore::new(cfg);
    for i in 0..5u64 {
        let mut m = meta(i, false);
        m.is_ddl = i == 3;
        s.put(i, m).await.unwrap();
    }
    s.subscribe(1, None);
    // fetch 2 units of 100 bytes = two entries of 100 bytes.
    assert_eq!(
        s.get(1, 2, GetWait::NoWait).await.unwrap().entries,
        vec![0, 1]
    );
    assert_eq!(s.get(1, 2, GetWait::NoWait).await.unwrap().entries, vec![2]);
    assert_eq!(s.get(1, 2, GetWait::NoWait).await.unwrap().entries, vec![3]);
    assert_eq!(s.get(1, 2, GetWait::NoWait).await.unwrap().entries, vec![4]);
}

#[tokio::test]
async fn a_restarted_client_skips_what_it_acked_before() {
    let s = filled(6, items_cfg(100)).await;
    // Acked through the transaction ending at entry 2 (cursor = next event, offset 3).
    s.subscribe(1, Some(pos(1, 3)));
    s.subscribe(2, None);
    let b = s.get(1, 10, GetWait::NoWait).await.unwrap();
    assert_eq!(b.entries, vec![3, 4, 5]);
    let b = s.get(2, 10, GetWait::NoWait).await.unwrap();
    assert_eq!(b.entries, vec![0, 1, 2, 3, 4, 5]);
}

#[tokio::test]
async fn an_entry_larger_than_the_byte_bound_still_passes() {
    let s = EventStore::new(StoreConfig {
        max_entries: 10,
        max_bytes: 50,
        batch_mode: BatchMode::ItemSize,
        ..Default::default()
    });
    s.put(1u64, meta(1, true)).await.unwrap();
    s.subscribe(1, None);
    let b = s.get(1, 5, GetWait::NoWait).await.unwrap();
    assert_eq!(b.entries, vec![1]);
}

#[tokio::test]
async fn stop_wakes_waiters() {
    let s = Arc::new(filled(1, items_cfg(1)).await);
    let producer = {
        let s = s.clone();
        tokio::spawn(async move { s.put(2, meta(2, false)).await })
    };
    tokio::time::sleep(Duration::from_millis(20)).await;
    s.stop();
    let r = tokio::time::timeout(Duration::from_secs(5), producer)
        .await
        .unwrap()
        .unwrap();
    assert_eq!(r, Err(StoreError::Stopped));
}

fn detaching_cfg(max_entries: usize, after: Duration) -> StoreConfig {
    StoreConfig {
        detach_after: Some(after),
        ..items_cfg(max_entries)
    }
}

#[tokio::test]
async fn an_absent_client_is_detached_once_the_store_stays_full() {
    let s = Arc::new(EventStore::new(detaching_cfg(
        6,
        Duration::from_millis(200),
    )));
    s.subscribe(1, None);
    s.subscribe(2, None);
    s.subscribe(3, Some(pos(1, 0)));
    // Client 1 keeps up; clients 2 and 3 never come.
    let producer = {
        let s = s.clone();
        tokio::spawn(async move {
            for i in 0..60u64 {
                s.put(i, meta(i, i % 3 == 2)).await.unwrap();
            }
        })
    };
    let mut got = Vec::new();
    while got.len() < 60 {
        let b = tokio::time::timeout(
            Duration::from_secs(5),
            s.get(1, 3, GetWait::AtMost(Duration::from_millis(50))),
        )
        .await
        .expect("client 1 is never held back for long")
        .unwrap();
        got.extend(b.entries.iter().copied());
        if b.id > 0 {
            s.ack(1, b.id).unwrap();
        }
    }
    producer.await.unwrap();
    assert_eq!(
        got,
        (0..60).collect::<Vec<_>>(),
        "client 1 got everything in order"
    );
    assert!(s.is_detached(2) && s.is_detached(3));
    assert!(!s.is_detached(1));
    // Client 2 never acked: it resumes at the boundary before the oldest
    // entry it had (the store started empty: that entry's position).
    match s.get(2, 1, GetWait::NoWait).await {
        Err(StoreError::Detached { client: 2, resume }) => assert_eq!(resume, Some(pos(1, 0))),
        other => panic!("{other:?}"),
    }
    // Client 3 resumes from its cursor.
    match s.get(3, 1, GetWait::NoWait).await {
        Err(StoreError::Detached { client: 3, resume }) => assert_eq!(resume, Some(pos(1, 0))),
        other => panic!("{other:?}"),
    }
    assert!(s.rollback(2, 0).is_ok());
    assert!(matches!(s.ack(2, 1), Err(StoreError::Detached { .. })));
}

#[tokio::test]
async fn a_slow_client_that_acks_is_not_detached() {
    let s = Arc::new(EventStore::new(detaching_cfg(
        4,
        Duration::from_millis(300),
    )));
    s.subscribe(1, None);
    s.subscribe(2, None);
    let producer = {
        let s = s.clone();
        tokio::spawn(async move {
            for i in 0..30u64 {
                s.put(i, meta(i, true)).await.unwrap();
            }
        })
    };
    let fast = {
        let s = s.clone();
        tokio::spawn(async move {
            let mut n = 0;
            while n < 30 {
                let b = s
                    .get(1, 4, GetWait::AtMost(Duration::from_millis(20)))
                    .await
                    .unwrap();
                n += b.entries.len();
                if b.id > 0 {
                    s.ack(1, b.id).unwrap();
                }
            }
        })
    };
    // Client 2 acks one entry every 100 ms: slower, but never silent for
    // the whole detach_after.
    let mut n = 0;
    while n < 30 {
        let b = s
            .get(2, 1, GetWait::AtMost(Duration::from_millis(50)))
            .await
            .unwrap();
        n += b.entries.len();
        if b.id > 0 {
            tokio::time::sleep(Duration::from_millis(100)).await;
            s.ack(2, b.id).unwrap();
        }
    }
    producer.await.unwrap();
    fast.await.unwrap();
    assert!(!s.is_detached(2));
}

#[tokio::test]
async fn a_single_slow_client_is_back_pressure_not_detachment() {
    let s = Arc::new(EventStore::new(detaching_cfg(3, Duration::from_millis(50))));
    s.subscribe(1, None);
    for i in 0..3 {
        s.put(i, meta(i, true)).await.unwrap();
    }
    let producer = {
        let s = s.clone();
        tokio::spawn(async move { s.put(9, meta(9, true)).await })
    };
    tokio::time::sleep(Duration::from_millis(300)).await;
    assert!(!producer.is_finished(), "nobody else gains: the put waits");
    assert!(!s.is_detached(1));
    producer.abort();
}
