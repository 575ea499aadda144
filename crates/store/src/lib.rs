//! The event store of one destination: a bounded queue of entries between
//! the parser (one producer) and its consumers (any number of client ids,
//! each with its own read pointer, batches and cursor).
//!
//! Semantics follow Canal's streaming API (get / getWithoutAck / ack /
//! rollback with batch ids and oldest-first acks), with one deliberate
//! difference: every client id has its own progress, where Canal shares one
//! read/ack pointer per destination. The store is bounded by entry count and
//! by bytes; a full store makes `put` wait (back-pressure to the source), so
//! a transaction larger than the store streams through in pieces without
//! growing memory. Memory is freed once every client has acked past it.
//!
//! A slow or absent client never holds the others back for long: when the
//! store has been full for [`StoreConfig::detach_after`] while the clients
//! holding its oldest entry did not ack, and another client is further on,
//! those holders are *detached*: the store stops keeping entries for them
//! and their unacked batches are void. A detached client keeps its cursor
//! (the last transaction it acked); [`StoreError::Detached`] tells the
//! destination to serve it from a stream of its own from that cursor (the
//! instance re-reads the binlog for it), so it loses nothing either.
//!
//! This module never blocks a thread: waiting is async (tokio `Notify`).

pub mod destination;
pub mod metrics;
pub mod select;

pub use destination::{Destination, DestinationError, Destinations, EntryBytes};
pub use metrics::{ExecTimes, StoreMetrics};
pub use select::{FilterVersion, Frame, Selection, TableName, NOT_STREAM_FILTERED};

use select::{FrameState, Gathered, Limits};

use std::collections::{HashMap, VecDeque};
use std::sync::Mutex;
use std::time::Duration;

use sluice_canal::EntryPosition;
use tokio::sync::Notify;

/// How a GET's `fetch_size` limits a batch: the configuration's type.
pub use sluice_config::BatchMode;

#[derive(Debug, Clone)]
pub struct StoreConfig {
    /// `canal.instance.memory.buffer.size`: most entries held.
    pub max_entries: usize,
    /// Most bytes held (`buffer.size × buffer.memunit` in Canal).
    pub max_bytes: usize,
    pub batch_mode: BatchMode,
    /// `canal.instance.memory.buffer.memunit`.
    pub mem_unit: usize,
    /// `canal.instance.get.ddl.isolation`: a DDL entry always comes alone.
    pub ddl_isolation: bool,
    /// How long the store may stay full, with the clients holding its
    /// oldest entry not acking, before they are detached in favour of the
    /// clients further on (`sluice.instance.slowClient.detachAfter`).
    /// `None`: never; a slow client then holds every client back.
    pub detach_after: Option<Duration>,
}

impl Default for StoreConfig {
    fn default() -> Self {
        StoreConfig {
            max_entries: 16 * 1024,
            max_bytes: 16 * 1024 * 1024,
            batch_mode: BatchMode::MemSize,
            mem_unit: 1024,
            ddl_isolation: false,
            detach_after: Some(DEFAULT_DETACH_AFTER),
        }
    }
}

/// Default of [`StoreConfig::detach_after`].
pub const DEFAULT_DETACH_AFTER: Duration = Duration::from_secs(5);

/// How often a put that waits past [`StoreConfig::detach_after`] looks
/// again for clients to detach.
const DETACH_RECHECK: Duration = Duration::from_millis(100);

/// What the store knows of an entry besides the entry itself.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct EntryMeta {
    /// Bytes the entry takes (its serialised size), for the byte bound and MEMSIZE batches.
    pub bytes: usize,
    /// Where a consumer resumes after acking this entry, if it is a
    /// transaction boundary (transaction end, DDL): the cursor to persist.
    pub ack_point: Option<EntryPosition>,
    /// The binlog position of the entry itself, for skipping what a client
    /// already acked before a restart.
    pub position: EntryPosition,
    pub is_ddl: bool,
    /// Row changes in the entry (Canal's `rowsCount`), for the row metrics.
    pub rows: u32,
    /// The table the entry is about, if any: what a client's
    /// [`Selection`] matches.
    pub table: Option<std::sync::Arc<TableName>>,
    /// Its place in its transaction.
    pub frame: Frame,
    /// The stream filter it passed (see [`FilterVersion`]).
    pub filter_version: FilterVersion,
}

/// Identity of a consumer: Canal's client id (a short, 1001 by default).
pub type ClientId = i16;

/// How long a GET may wait (Canal's `timeout` field).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum GetWait {
    /// Return what is there now (timeout -1).
    NoWait,
    /// Wait until a full batch is there (timeout 0 or absent).
    UntilFull,
    /// Wait up to this long for a full batch, then return what is there.
    AtMost(Duration),
}

/// A batch handed to a consumer.
#[derive(Debug, Clone)]
pub struct Batch<E> {
    /// -1 for an empty batch (no id is allocated), else > 0.
    pub id: i64,
    pub entries: Vec<E>,
}

#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum StoreError {
    #[error("clientId:{0} should subscribe first")]
    NotSubscribed(ClientId),
    #[error("ack error , clientId:{client} batchId:{batch} is not exist , please check")]
    UnknownBatch { client: ClientId, batch: i64 },
    #[error("batchId:{batch} is not the firstly:{oldest}")]
    NotOldest { batch: i64, oldest: i64 },
    #[error("rollback error, clientId:{client} batchId:{batch} is not exist")]
    UnknownRollback { client: ClientId, batch: i64 },
    #[error("the store is stopped")]
    Stopped,
    /// The client fell behind what the store holds; it resumes after
    /// `resume` (its cursor), from a stream of its own.
    #[error("clientId:{client} fell behind the store and is served from its own stream; its unacked batches are void, roll back and get again")]
    Detached {
        client: ClientId,
        resume: Option<EntryPosition>,
    },
}

struct Stored<E> {
    item: E,
    meta: EntryMeta,
}

#[derive(Debug, Clone)]
struct Mark<E> {
    batch_id: i64,
    /// Sequence range `[start, end)` of the batch.
    end: u64,
    ack_point: Option<EntryPosition>,
    /// For the metrics: its entries, bytes, rows and last binlog time.
    entries: u64,
    bytes: u64,
    rows: u64,
    time: i64,
    /// A selective client's frame state after the batch.
    frames_after: FrameState<E>,
}

#[derive(Debug)]
struct ClientState<E> {
    /// Everything before this sequence is acked.
    acked: u64,
    /// Next sequence to hand out.
    read: u64,
    marks: VecDeque<Mark<E>>,
    next_batch_id: i64,
    cursor: Option<EntryPosition>,
    /// Entries at or before this binlog position were acked before a restart.
    skip_through: Option<(u64, u64)>,
    /// Set when detached: where its own stream starts (its cursor, else
    /// the transaction boundary before the oldest entry it had not acked).
    resume: Option<EntryPosition>,
    /// No longer held for by the store (see the module doc).
    detached: bool,
    /// Which entries it receives; `None`: all of them.
    selection: Option<Selection>,
    /// A selective client's frame state at `read`, and at `acked`.
    frames: FrameState<E>,
    frames_at_acked: FrameState<E>,
    /// A selective batch being gathered from `read` (kept while a GET waits).
    gathering: Option<Gathered<E>>,
    /// Gets nothing until the store starts over from the cursors
    /// ([`EventStore::start_over`]): it needs entries the stream did not
    /// read so far.
    held: bool,
}

impl<E> ClientState<E> {
    /// Back to `seq`, as after an ack there: nothing read beyond it.
    fn rewind(&mut self, seq: u64)
    where
        E: Clone,
    {
        self.read = seq;
        self.frames = self.frames_at_acked.clone();
        self.gathering = None;
    }
}

struct State<E> {
    entries: VecDeque<Stored<E>>,
    /// Sequence number of `entries[0]`.
    first_seq: u64,
    bytes: usize,
    clients: HashMap<ClientId, ClientState<E>>,
    stopped: bool,
    /// The last transaction boundary freed from the front of the store: a
    /// client subscribing now would resume after it.
    freed_boundary: Option<EntryPosition>,
}

impl<E> State<E> {
    fn next_seq(&self) -> u64 {
        self.first_seq + self.entries.len() as u64
    }

    fn is_full(&self, cfg: &StoreConfig) -> bool {
        self.entries.len() >= cfg.max_entries || self.bytes >= cfg.max_bytes
    }

    /// Frees entries every attached client has acked. With no attached
    /// clients nothing is freed: entries wait for the first subscriber (as
    /// in Canal).
    fn trim(&mut self) -> bool {
        let Some(min_acked) = self
            .clients
            .values()
            .filter(|c| !c.detached)
            .map(|c| c.acked)
            .min()
        else {
            return false;
        };
        let mut freed = false;
        while self.first_seq < min_acked {
            match self.entries.pop_front() {
                Some(s) => {
                    self.bytes -= s.meta.bytes;
                    self.first_seq += 1;
                    if s.meta.ack_point.is_some() {
                        self.freed_boundary = s.meta.ack_point;
                    }
                    freed = true;
                }
                None => break,
            }
        }
        freed
    }

    /// Detaches the attached clients that hold the oldest entry, if another
    /// attached client has acked past it (else nobody would gain: the store
    /// is simply full). Returns whether any entry was freed.
    fn detach_holders(&mut self) -> bool {
        let head = self.first_seq;
        let ahead = self.clients.values().any(|c| !c.detached && c.acked > head);
        if !ahead {
            return false;
        }
        let before_head = self
            .freed_boundary
            .clone()
            .or_else(|| self.entries.front().map(|e| e.meta.position.clone()));
        for (id, c) in self.clients.iter_mut() {
            if c.detached || c.acked > head {
                continue;
            }
            c.resume = c.cursor.clone().or_else(|| before_head.clone());
            tracing::warn!(
                client = id,
                resume = ?c.resume,
                "client holds back a full store and the other clients: detached, it will be served from its own stream from its cursor"
            );
            c.detached = true;
            c.marks.clear();
        }
        self.trim()
    }
}

/// The store of one destination.
pub struct EventStore<E> {
    cfg: StoreConfig,
    metrics: Option<StoreMetrics>,
    state: Mutex<State<E>>,
    space_freed: Notify,
    data_added: Notify,
}

impl<E: Clone> EventStore<E> {
    pub fn new(cfg: StoreConfig) -> Self {
        EventStore {
            cfg,
            metrics: None,
            state: Mutex::new(State {
                entries: VecDeque::new(),
                first_seq: 0,
                bytes: 0,
                clients: HashMap::new(),
                stopped: false,
                freed_boundary: None,
            }),
            space_freed: Notify::new(),
            data_added: Notify::new(),
        }
    }

    /// Counts puts, batches and acks into `metrics`.
    pub fn with_metrics(mut self, metrics: StoreMetrics) -> Self {
        self.metrics = Some(metrics);
        self
    }

    pub fn config(&self) -> &StoreConfig {
        &self.cfg
    }

    pub fn metrics(&self) -> Option<&StoreMetrics> {
        self.metrics.as_ref()
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State<E>> {
        // A panic while holding the lock cannot leave the queue half-updated
        // in a way later calls misread, so a poisoned lock is used as is.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Adds one entry, waiting while the store is full (and detaching the
    /// clients that keep it full, see the module doc). Returns the entry's
    /// sequence number (see [`EventStore::acked_by_all`]).
    pub async fn put(&self, item: E, meta: EntryMeta) -> Result<u64, StoreError> {
        let mut full_since: Option<tokio::time::Instant> = None;
        let mut blocked_since: Option<tokio::time::Instant> = None;
        loop {
            let notified = self.space_freed.notified();
            {
                let mut st = self.lock();
                if st.stopped {
                    return Err(StoreError::Stopped);
                }
                // An entry larger than the byte bound still goes in when the
                // store is empty, or it could never pass.
                if !st.is_full(&self.cfg) || st.entries.is_empty() {
                    if let Some(m) = &self.metrics {
                        m.put(meta.bytes, meta.rows, meta.position.timestamp);
                        if let Some(since) = blocked_since {
                            m.blocked(since.elapsed());
                        }
                    }
                    st.bytes += meta.bytes;
                    let seq = st.next_seq();
                    st.entries.push_back(Stored { item, meta });
                    drop(st);
                    self.data_added.notify_waiters();
                    return Ok(seq);
                }
                if let Some(limit) = self.cfg.detach_after {
                    let since = *full_since.get_or_insert_with(tokio::time::Instant::now);
                    if since.elapsed() >= limit && st.detach_holders() {
                        full_since = None;
                        drop(st);
                        self.space_freed.notify_waiters();
                        continue;
                    }
                }
            }
            blocked_since.get_or_insert_with(tokio::time::Instant::now);
            match (self.cfg.detach_after, full_since) {
                (Some(limit), Some(since)) => {
                    // Past the limit with nobody to detach yet: look again
                    // now and then (an ack past the head frees nothing, so
                    // it wakes nobody).
                    let deadline = if since.elapsed() < limit {
                        since + limit
                    } else {
                        tokio::time::Instant::now() + limit.min(DETACH_RECHECK)
                    };
                    // Space freed restarts the clock: only a store that
                    // stays full detaches anyone.
                    if tokio::time::timeout_at(deadline, notified).await.is_ok() {
                        full_since = None;
                    }
                }
                _ => notified.await,
            }
        }
    }

    /// Every entry with a sequence number below this was acked by every
    /// attached client (and freed). With no client attached, nothing is.
    pub fn acked_by_all(&self) -> u64 {
        self.lock().first_seq
    }

    /// Registers a client (idempotent). `cursor` is its persisted position:
    /// entries at or before it are skipped for this client.
    pub fn subscribe(&self, client: ClientId, cursor: Option<EntryPosition>) {
        let mut st = self.lock();
        let start = st.first_seq;
        st.clients.entry(client).or_insert_with(|| ClientState {
            acked: start,
            read: start,
            marks: VecDeque::new(),
            next_batch_id: 1,
            skip_through: cursor.as_ref().map(|c| c.binlog_key()),
            resume: None,
            cursor,
            detached: false,
            selection: None,
            frames: FrameState::default(),
            frames_at_acked: FrameState::default(),
            gathering: None,
            held: false,
        });
    }

    /// Sets which entries a client receives from now on (`None`: all).
    /// What it has in batches not acked stays as it was handed out.
    pub fn set_selection(&self, client: ClientId, selection: Option<Selection>) {
        let mut st = self.lock();
        if let Some(c) = st.clients.get_mut(&client) {
            c.selection = selection;
            c.gathering = None;
        }
        drop(st);
        // A waiting GET looks again with the new selection.
        self.data_added.notify_waiters();
    }

    /// The client gets nothing from this store any more (it is about to be
    /// replaced by one that reads what the client needs).
    pub fn hold(&self, client: ClientId) {
        if let Some(c) = self.lock().clients.get_mut(&client) {
            c.held = true;
            c.gathering = None;
        }
    }

    /// Forgets a client; what only it held is freed.
    pub fn unsubscribe(&self, client: ClientId) {
        let mut st = self.lock();
        st.clients.remove(&client);
        if st.trim() {
            drop(st);
            self.space_freed.notify_waiters();
        }
    }

    pub fn is_subscribed(&self, client: ClientId) -> bool {
        self.lock().clients.contains_key(&client)
    }

    /// The persisted position of every client.
    pub fn cursors(&self) -> Vec<(ClientId, Option<EntryPosition>)> {
        let st = self.lock();
        let mut v: Vec<_> = st
            .clients
            .iter()
            .map(|(k, c)| (*k, c.cursor.clone()))
            .collect();
        v.sort_by_key(|(k, _)| *k);
        v
    }

    /// Entries held and their bytes.
    pub fn usage(&self) -> (usize, usize) {
        let st = self.lock();
        (st.entries.len(), st.bytes)
    }

    /// getWithoutAck: the next batch after what this client already has.
    pub async fn get(
        &self,
        client: ClientId,
        fetch_size: usize,
        wait: GetWait,
    ) -> Result<Batch<E>, StoreError> {
        let deadline = match wait {
            GetWait::AtMost(d) => Some(tokio::time::Instant::now() + d),
            _ => None,
        };
        loop {
            let notified = self.data_added.notified();
            {
                let mut st = self.lock();
                if st.stopped {
                    return Err(StoreError::Stopped);
                }
                self.skip_acked(&mut st, client)?;
                let (count, full) = self.batch_extent(&mut st, client, fetch_size)?;
                let timed_out = deadline.is_some_and(|d| tokio::time::Instant::now() >= d);
                // A full store cannot fill a batch further; but with nothing
                // for this client in it, waiting is right (and spares a
                // client that is ahead a busy loop while others hold it full).
                let stuck = st.is_full(&self.cfg) && count > 0;
                if full || wait == GetWait::NoWait || timed_out || stuck {
                    return Ok(self.take_batch(&mut st, client, count));
                }
                if count == 0 && st.is_full(&self.cfg) && self.pass_unselected(&mut st, client) {
                    drop(st);
                    self.space_freed.notify_waiters();
                }
            }
            match deadline {
                Some(d) => {
                    let _ = tokio::time::timeout_at(d, notified).await;
                }
                None => notified.await,
            }
        }
    }

    /// Refuses a detached client (see [`StoreError::Detached`]).
    fn attached(st: &State<E>, client: ClientId) -> Result<&ClientState<E>, StoreError> {
        let c = st
            .clients
            .get(&client)
            .ok_or(StoreError::NotSubscribed(client))?;
        if c.detached {
            return Err(StoreError::Detached {
                client,
                resume: c.resume.clone(),
            });
        }
        Ok(c)
    }

    /// Whether the store has detached this client (see the module doc).
    pub fn is_detached(&self, client: ClientId) -> bool {
        self.lock().clients.get(&client).is_some_and(|c| c.detached)
    }

    /// Passes over entries a client acked before a restart.
    fn skip_acked(&self, st: &mut State<E>, client: ClientId) -> Result<(), StoreError> {
        Self::attached(st, client)?;
        let next = st.next_seq();
        let first = st.first_seq;
        let State {
            entries, clients, ..
        } = st;
        let c = clients
            .get_mut(&client)
            .ok_or(StoreError::NotSubscribed(client))?;
        let Some(limit) = c.skip_through else {
            return Ok(());
        };
        while c.read < next && c.marks.is_empty() {
            let e = &entries[(c.read - first) as usize];
            if e.meta.position.binlog_key() < limit {
                c.read += 1;
                c.acked = c.read;
            } else {
                c.skip_through = None;
                break;
            }
        }
        Ok(())
    }

    /// How many entries the next batch takes, and whether it is full.
    fn batch_extent(
        &self,
        st: &mut State<E>,
        client: ClientId,
        fetch_size: usize,
    ) -> Result<(usize, bool), StoreError> {
        let next = st.next_seq();
        let first = st.first_seq;
        let State {
            entries, clients, ..
        } = st;
        let c = clients
            .get_mut(&client)
            .ok_or(StoreError::NotSubscribed(client))?;
        if c.held {
            return Ok((0, false));
        }
        if let Some(selection) = c.selection.as_mut() {
            let limits = match self.cfg.batch_mode {
                BatchMode::ItemSize => Limits {
                    max_items: Some(fetch_size.max(1)),
                    max_bytes: None,
                    ddl_alone: self.cfg.ddl_isolation,
                },
                BatchMode::MemSize => Limits {
                    max_items: None,
                    max_bytes: Some(fetch_size.saturating_mul(self.cfg.mem_unit)),
                    ddl_alone: self.cfg.ddl_isolation,
                },
            };
            let gathered = match &mut c.gathering {
                Some(g) if g.from == c.read => g,
                slot => slot.insert(Gathered::start(c.read, c.frames.clone())),
            };
            let from = (gathered.upto.min(next) - first) as usize;
            gathered.extend(
                entries.range(from..).map(|s| (&s.item, &s.meta)),
                selection,
                limits,
            );
            return Ok((gathered.count(), gathered.full));
        }
        let start = (c.read - first) as usize;
        let mut count = 0usize;
        let mut bytes = 0usize;
        let byte_limit = fetch_size.saturating_mul(self.cfg.mem_unit);
        let mut full = false;
        for s in entries.range(start..) {
            if self.cfg.ddl_isolation && s.meta.is_ddl {
                if count == 0 {
                    count = 1;
                }
                full = true;
                break;
            }
            match self.cfg.batch_mode {
                BatchMode::ItemSize => {
                    if count >= fetch_size.max(1) {
                        full = true;
                        break;
                    }
                }
                BatchMode::MemSize => {
                    if count > 0 && bytes + s.meta.bytes > byte_limit {
                        full = true;
                        break;
                    }
                }
            }
            count += 1;
            bytes += s.meta.bytes;
        }
        if !full {
            full = match self.cfg.batch_mode {
                BatchMode::ItemSize => count >= fetch_size.max(1),
                BatchMode::MemSize => bytes >= byte_limit && count > 0,
            };
        }
        Ok((count, full))
    }

    fn take_batch(&self, st: &mut State<E>, client: ClientId, count: usize) -> Batch<E> {
        let first = st.first_seq;
        let State {
            entries, clients, ..
        } = st;
        let Some(c) = clients.get_mut(&client) else {
            return Batch {
                id: -1,
                entries: Vec::new(),
            };
        };
        if count == 0 {
            return Batch {
                id: -1,
                entries: Vec::new(),
            };
        }
        if c.selection.is_some() {
            return self.take_gathered(c);
        }
        let start = (c.read - first) as usize;
        let mut items = Vec::with_capacity(count);
        let mut ack_point = None;
        let (mut bytes, mut rows, mut time) = (0u64, 0u64, 0i64);
        for s in entries.range(start..start + count) {
            items.push(s.item.clone());
            if s.meta.ack_point.is_some() {
                ack_point = s.meta.ack_point.clone();
            }
            // The frame state a selection would start from, should the
            // client get one later.
            match s.meta.frame {
                Frame::Begin => c.frames = FrameState::handed(),
                Frame::End => c.frames = FrameState::default(),
                Frame::Body => {}
            }
            bytes += s.meta.bytes as u64;
            rows += u64::from(s.meta.rows);
            time = s.meta.position.timestamp;
        }
        if let Some(m) = &self.metrics {
            m.got(rows, time);
        }
        let id = c.next_batch_id;
        c.next_batch_id += 1;
        c.read += count as u64;
        c.marks.push_back(Mark {
            batch_id: id,
            end: c.read,
            ack_point,
            entries: count as u64,
            bytes,
            rows,
            time,
            frames_after: c.frames.clone(),
        });
        Batch { id, entries: items }
    }

    /// Hands out the batch a selective client gathered.
    fn take_gathered(&self, c: &mut ClientState<E>) -> Batch<E> {
        let Some(gathered) = c.gathering.take().filter(|g| g.from == c.read) else {
            return Batch {
                id: -1,
                entries: Vec::new(),
            };
        };
        let (items, frames, totals) = gathered.finish();
        if items.is_empty() {
            return Batch {
                id: -1,
                entries: Vec::new(),
            };
        }
        if let Some(m) = &self.metrics {
            m.got(totals.rows, totals.time);
        }
        let id = c.next_batch_id;
        c.next_batch_id += 1;
        c.read = totals.upto;
        c.frames = frames;
        c.marks.push_back(Mark {
            batch_id: id,
            end: c.read,
            ack_point: totals.ack_point,
            entries: items.len() as u64,
            bytes: totals.bytes,
            rows: totals.rows,
            time: totals.time,
            frames_after: c.frames.clone(),
        });
        Batch { id, entries: items }
    }

    /// A selective client with nothing in the store for it and nothing to
    /// ack passes over what it looked at, so it does not hold a full store
    /// (one long transaction of other tables). Its cursor stays: a restart
    /// reads those entries again. Returns whether anything was freed.
    fn pass_unselected(&self, st: &mut State<E>, client: ClientId) -> bool {
        let Some(c) = st.clients.get_mut(&client) else {
            return false;
        };
        if !c.marks.is_empty() || c.held {
            return false;
        }
        let Some(g) = c.gathering.take() else {
            return false;
        };
        if g.from != c.read || g.count() > 0 || g.upto == c.read {
            c.gathering = Some(g);
            return false;
        }
        let (_, frames, totals) = g.finish();
        c.read = totals.upto;
        c.acked = totals.upto;
        c.frames = frames;
        c.frames_at_acked = c.frames.clone();
        st.trim()
    }

    /// Acks the oldest outstanding batch. Returns the client's new cursor if
    /// the batch held a transaction boundary (the position to persist).
    pub fn ack(
        &self,
        client: ClientId,
        batch_id: i64,
    ) -> Result<Option<EntryPosition>, StoreError> {
        let mut st = self.lock();
        Self::attached(&st, client)?;
        let c = st
            .clients
            .get_mut(&client)
            .ok_or(StoreError::NotSubscribed(client))?;
        let oldest = c.marks.front().map(|m| m.batch_id);
        match oldest {
            Some(o) if o == batch_id => {}
            Some(o) if c.marks.iter().any(|m| m.batch_id == batch_id) => {
                return Err(StoreError::NotOldest {
                    batch: batch_id,
                    oldest: o,
                })
            }
            _ => {
                return Err(StoreError::UnknownBatch {
                    client,
                    batch: batch_id,
                })
            }
        }
        let Some(mark) = c.marks.pop_front() else {
            return Err(StoreError::UnknownBatch {
                client,
                batch: batch_id,
            });
        };
        c.acked = mark.end;
        c.frames_at_acked = mark.frames_after.clone();
        if let Some(m) = &self.metrics {
            m.acked(mark.entries, mark.bytes, mark.rows, mark.time);
        }
        let new_cursor = mark.ack_point.clone();
        if let Some(p) = &new_cursor {
            c.cursor = Some(p.clone());
        }
        if st.trim() {
            drop(st);
            self.space_freed.notify_waiters();
        }
        Ok(new_cursor)
    }

    /// Rolls back one batch (the oldest) or, with `batch_id` 0, all of them:
    /// the next get starts again after the last acked entry.
    pub fn rollback(&self, client: ClientId, batch_id: i64) -> Result<(), StoreError> {
        let mut st = self.lock();
        if let Some(c) = st.clients.get(&client).filter(|c| c.detached) {
            // Its batches are void already: nothing to roll back.
            return if batch_id == 0 {
                Ok(())
            } else {
                Err(StoreError::Detached {
                    client,
                    resume: c.resume.clone(),
                })
            };
        }
        let Some(c) = st.clients.get_mut(&client) else {
            // Clients roll back on connect before subscribing: not an error.
            return if batch_id == 0 {
                Ok(())
            } else {
                Err(StoreError::NotSubscribed(client))
            };
        };
        if batch_id == 0 {
            c.marks.clear();
        } else {
            match c.marks.front() {
                Some(m) if m.batch_id == batch_id => {
                    c.marks.pop_front();
                }
                Some(m) if c.marks.iter().any(|x| x.batch_id == batch_id) => {
                    return Err(StoreError::NotOldest {
                        batch: batch_id,
                        oldest: m.batch_id,
                    })
                }
                _ => {
                    return Err(StoreError::UnknownRollback {
                        client,
                        batch: batch_id,
                    })
                }
            }
        }
        let acked = c.acked;
        c.rewind(acked);
        Ok(())
    }

    /// Stops the store: waiting puts and gets return `Stopped`.
    pub fn stop(&self) {
        self.lock().stopped = true;
        self.space_freed.notify_waiters();
        self.data_added.notify_waiters();
    }
}

#[cfg(test)]
mod tests;

#[cfg(test)]
mod select_tests;
