//! The reconciliation of a chunk with the stream (the DBLog idea): while a
//! chunk of a table is being read, every row the stream delivers for that
//! table has its key noted; when the stream reaches the point the chunk is
//! delivered at, rows of the chunk whose key was noted are dropped from it,
//! since the stream already delivered a version of them at least as new.
//! Every other row of the chunk did not change between the chunk's read
//! and its delivery point, so its version is the one true there.
//!
//! Keys are compared as Canal renders them (the same encoder renders the
//! stream's rows and the chunk's), so both sides agree by construction.
//!
//! A row image may leave columns out (`binlog_row_image` MINIMAL or NOBLOB:
//! the columns an UPDATE did not change, an INSERT's columns left to their
//! DEFAULT). The stream then delivered changes of the row, not a version
//! of it, and a consumer that had not the row yet cannot make it from
//! them. So the window notes what the stream did to each key: deleted it
//! (or moved it to another key), made it again, or set some columns, with
//! the last value of each. At the delivery point a chunk row whose key was
//! deleted or made again is dropped, as is one whose every column the
//! stream set (the stream's version is whole); one of which the stream set
//! some columns only goes out with those columns' last values: the row as
//! it is at the delivery point, since its other columns did not change
//! after the chunk was read. A key column an after image leaves out kept
//! its value, so it is read from the before image of the same row; a key
//! no image of the row holds cannot be known, and the chunk is read again.
//! So is a chunk the stream moved a row out of (a key changed) with an
//! image that leaves columns out: that row's other columns are in the
//! chunk's row under its old key; and one whose table had a JSON value
//! given as its diffs (MySQL's partial JSON update without its document). A table without a key is keyed by whole
//! rows, each completed from its before image: a stream row narrower than
//! the chunk's rows may be any of several rows, and the chunk is read
//! again too.

use std::collections::HashMap;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::Mutex;

use prost::Message;
use sluice_canal::proto::{Entry, RowChange};
use sluice_canal::view::{ColumnView, RowChangeView, RowDataView};

/// A row's key: the rendered values of the key columns (or of every column
/// for a table without a key), `None` for NULL.
pub type RowKey = Vec<Option<String>>;

/// The tables being read, each with the keys the stream touched since.
#[derive(Debug, Default)]
pub struct Windows {
    open: AtomicUsize,
    /// Counts the statements that may have changed tables (and source
    /// changes): a table read before one is described again.
    generation: AtomicU64,
    /// Per table, the windows of its chunks being read (a table's next
    /// chunk is read while the one before is delivered).
    tables: Mutex<HashMap<(String, String), Vec<Window>>>,
    next_id: AtomicU64,
}

#[derive(Debug)]
struct Window {
    id: u64,
    /// The part of the table whose read opened it (0: the whole table).
    part: u32,
    /// Indexes of the key columns; empty: every column.
    key_columns: Vec<i32>,
    /// What the stream did to each key it touched.
    touched: HashMap<RowKey, Touch>,
    /// The fewest columns of a row the stream moved to a key (a key
    /// changed; for a table without a key, any row it delivered), its
    /// before image completing its after image: narrower than the chunk's
    /// rows, the chunk is read again.
    narrowest: usize,
    /// A statement may have changed the table (or the source changed
    /// server): the chunk cannot be trusted and is read again.
    invalid: bool,
}

/// What the stream did to a row, by key, while a chunk was read.
#[derive(Debug, Clone, PartialEq, Eq)]
enum Touch {
    /// Deleted, or moved to another key: the chunk's row goes.
    Gone,
    /// Made again after it was gone: the stream delivered the row.
    Remade,
    /// Changed in place: the last value (and `sqlType`) the stream gave
    /// each column it set, by column index.
    Set(Vec<SetColumn>),
}

/// A column value the stream set: index, value (`None`: NULL), `sqlType`.
type SetColumn = (i32, Option<String>, i32);

/// A chunk row's fate at its delivery point.
#[derive(Debug)]
enum Fate {
    Keep,
    Drop,
    /// Keep, with these columns' values.
    Patch(Vec<SetColumn>),
}

/// What becomes of a chunk at its delivery point.
#[derive(Debug)]
pub enum Reconciled {
    /// Deliver this entry (`None` when every row was dropped), with the
    /// rows kept and dropped, and how many kept rows were given the values
    /// the stream set (the entry changed when either is not 0).
    Deliver {
        entry: Option<Box<Entry>>,
        kept: usize,
        dropped: usize,
        patched: usize,
    },
    /// Read the chunk again.
    Redo,
}

impl Windows {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, String), Vec<Window>>> {
        self.tables.lock().unwrap_or_else(|p| p.into_inner())
    }

    fn count(tables: &HashMap<(String, String), Vec<Window>>) -> usize {
        tables.values().map(Vec::len).sum()
    }

    /// Starts noting the keys the stream touches in `schema.table`: before
    /// the read of a chunk of `part` of the table begins. Returns the
    /// window's id.
    pub fn open(&self, schema: &str, table: &str, part: u32, key_columns: Vec<i32>) -> u64 {
        let id = self.next_id.fetch_add(1, Ordering::Relaxed);
        let mut tables = self.lock();
        tables
            .entry((schema.to_string(), table.to_string()))
            .or_default()
            .push(Window {
                id,
                part,
                key_columns,
                touched: HashMap::new(),
                narrowest: usize::MAX,
                invalid: false,
            });
        self.open.store(Self::count(&tables), Ordering::Release);
        id
    }

    /// Stops noting for one chunk of `schema.table` (a chunk abandoned).
    pub fn close(&self, schema: &str, table: &str, id: u64) {
        self.take(schema, table, id);
    }

    /// Stops noting for every chunk of `part` of `schema.table` being read
    /// (the table's other parts are read on).
    pub fn close_part(&self, schema: &str, table: &str, part: u32) {
        let mut tables = self.lock();
        let key = (schema.to_string(), table.to_string());
        if let Some(windows) = tables.get_mut(&key) {
            windows.retain(|w| w.part != part);
            if windows.is_empty() {
                tables.remove(&key);
            }
        }
        self.open.store(Self::count(&tables), Ordering::Release);
    }

    fn take(&self, schema: &str, table: &str, id: u64) -> Option<Window> {
        let mut tables = self.lock();
        let key = (schema.to_string(), table.to_string());
        let windows = tables.get_mut(&key)?;
        let at = windows.iter().position(|w| w.id == id)?;
        let window = windows.remove(at);
        if windows.is_empty() {
            tables.remove(&key);
        }
        self.open.store(Self::count(&tables), Ordering::Release);
        Some(window)
    }

    /// See [`Windows::invalidate_all`]: read before a window opens.
    pub fn generation(&self) -> u64 {
        self.generation.load(Ordering::Acquire)
    }

    /// Whether any chunk is being read (the stream's fast path).
    pub fn any_open(&self) -> bool {
        self.open.load(Ordering::Acquire) > 0
    }

    /// A statement that may change tables went by, or the source changed
    /// server: every chunk being read is read again.
    pub fn invalidate_all(&self) {
        let mut tables = self.lock();
        self.generation.fetch_add(1, Ordering::AcqRel);
        for w in tables.values_mut().flatten() {
            w.invalid = true;
        }
    }

    /// Notes the keys of the rows of a row entry the stream delivers.
    pub fn observe(&self, schema: &str, table: &str, store_value: &[u8]) {
        if !self.any_open() {
            return;
        }
        let mut tables = self.lock();
        let Some(windows) = tables.get_mut(&(schema.to_string(), table.to_string())) else {
            return;
        };
        let Ok(change) = RowChangeView::parse(store_value) else {
            // Unreadable here means unreadable for the consumer too; the
            // chunks cannot be reconciled with it.
            for w in windows.iter_mut() {
                w.invalid = true;
            }
            return;
        };
        // The windows of a table (a chunk and the one read ahead) share its
        // key: it is read from each image once for all of them.
        let Some((first, rest)) = windows.split_first_mut() else {
            return;
        };
        let shared = rest.iter().all(|w| w.key_columns == first.key_columns);
        for row in change.rows() {
            if !shared {
                note(first, row_touch(&row, &first.key_columns));
                for w in rest.iter_mut() {
                    note(w, row_touch(&row, &w.key_columns));
                }
                continue;
            }
            let touch = row_touch(&row, &first.key_columns);
            for w in rest.iter_mut() {
                note(w, touch.clone());
            }
            note(first, touch);
        }
    }

    /// Closes the window `id` of `schema.table` at the chunk's delivery point
    /// and drops from `entry` (of `rows` rows) the rows the stream touched
    /// meanwhile. With `keep_open` the window stays open for the chunks
    /// read after this one in the same snapshot (a scan): the keys of this
    /// chunk's rows leave it, since no later chunk holds them.
    pub fn reconcile(
        &self,
        schema: &str,
        table: &str,
        id: u64,
        entry: Box<Entry>,
        rows: usize,
        keep_open: bool,
    ) -> Reconciled {
        if keep_open {
            let mut tables = self.lock();
            let Some(window) = tables
                .get_mut(&(schema.to_string(), table.to_string()))
                .and_then(|ws| ws.iter_mut().find(|w| w.id == id))
            else {
                return Reconciled::Redo;
            };
            if window.invalid {
                return Reconciled::Redo;
            }
            let Window {
                key_columns,
                touched,
                narrowest,
                ..
            } = window;
            let nothing_touched = touched.is_empty();
            return drop_touched(entry, rows, key_columns, *narrowest, nothing_touched, |k| {
                touched.remove(k)
            });
        }
        let Some(window) = self.take(schema, table, id) else {
            return Reconciled::Redo;
        };
        if window.invalid {
            return Reconciled::Redo;
        }
        let nothing_touched = window.touched.is_empty();
        drop_touched(
            entry,
            rows,
            &window.key_columns,
            window.narrowest,
            nothing_touched,
            |k| window.touched.get(k).cloned(),
        )
    }

    /// How many keys the window `id` of `schema.table` holds; `None` when
    /// it is closed.
    pub fn touched(&self, schema: &str, table: &str, id: u64) -> Option<usize> {
        let tables = self.lock();
        tables
            .get(&(schema.to_string(), table.to_string()))?
            .iter()
            .find(|w| w.id == id)
            .map(|w| w.touched.len())
    }
}

/// Drops from `entry` (of `rows` rows) the rows `touched` says the stream
/// deleted, made again or delivered whole, and gives those it changed in
/// part the values it set. `narrowest`: see [`Window::narrowest`].
fn drop_touched(
    mut entry: Box<Entry>,
    rows: usize,
    key_columns: &[i32],
    narrowest: usize,
    nothing_touched: bool,
    mut touched: impl FnMut(&RowKey) -> Option<Touch>,
) -> Reconciled {
    if nothing_touched {
        // Nothing to drop: the entry goes as built, unread.
        return Reconciled::Deliver {
            entry: (rows > 0).then_some(entry),
            kept: rows,
            dropped: 0,
            patched: 0,
        };
    }
    let Some(bytes) = entry.store_value.as_deref() else {
        return Reconciled::Redo;
    };
    let Ok(view) = RowChangeView::parse(bytes) else {
        return Reconciled::Redo;
    };
    let total = view.row_count;
    // What becomes of each row, by the same reading as the stream's keys.
    let mut fates = Vec::with_capacity(total);
    for row in view.rows() {
        let Ok(Some(values)) = values_of(row.after()) else {
            return Reconciled::Redo;
        };
        // A row moved here narrower than this one: its other columns may
        // be in a row of this chunk under another key.
        if narrowest < values.len() {
            return Reconciled::Redo;
        }
        let Ok(key) = key_from(&values, None, key_columns) else {
            return Reconciled::Redo;
        };
        fates.push(match touched(&key) {
            None => Fate::Keep,
            Some(Touch::Gone | Touch::Remade) => Fate::Drop,
            Some(Touch::Set(set)) => {
                let whole = values
                    .iter()
                    .all(|(i, _, _)| key_columns.contains(i) || set.iter().any(|(j, _, _)| j == i));
                if whole {
                    Fate::Drop
                } else {
                    Fate::Patch(set)
                }
            }
        });
    }
    let kept = fates.iter().filter(|f| !matches!(f, Fate::Drop)).count();
    let patched = fates.iter().filter(|f| matches!(f, Fate::Patch(_))).count();
    if fates.iter().all(|f| matches!(f, Fate::Keep)) {
        return Reconciled::Deliver {
            entry: Some(entry),
            kept,
            dropped: 0,
            patched,
        };
    }
    if kept == 0 {
        return Reconciled::Deliver {
            entry: None,
            kept,
            dropped: total,
            patched,
        };
    }
    let Ok(mut change) = RowChange::decode(bytes) else {
        return Reconciled::Redo;
    };
    let mut fates = fates.into_iter();
    change.row_datas.retain_mut(|row| match fates.next() {
        Some(Fate::Keep) => true,
        Some(Fate::Patch(set)) => {
            for c in row.after_columns.iter_mut() {
                if let Some((_, value, sql_type)) = set.iter().find(|(i, _, _)| Some(*i) == c.index)
                {
                    c.is_null = Some(value.is_none());
                    c.value = value.clone();
                    c.sql_type = Some(*sql_type);
                }
            }
            true
        }
        Some(Fate::Drop) | None => false,
    });
    entry.store_value = Some(change.encode_to_vec().into());
    if let Some(h) = entry.header.as_mut() {
        for p in h.props.iter_mut() {
            if p.key.as_deref() == Some("rowsCount") {
                p.value = Some(kept.to_string());
            }
        }
    }
    Reconciled::Deliver {
        entry: Some(entry),
        kept,
        dropped: total - kept,
        patched,
    }
}

/// What one row of the stream did, for one key: `(key, what)` pairs in
/// the order they apply, and the width of a row it moved to a key, if any
/// (see [`Window::narrowest`]).
type RowTouch = Result<(Vec<(RowKey, Step)>, Option<usize>), ()>;

/// One thing a stream row did to a key.
#[derive(Debug, Clone)]
enum Step {
    /// The row left this key (a delete, or a key change away from it).
    Leave,
    /// The row came to this key (an insert, or a key change to it).
    Arrive(Vec<SetColumn>),
    /// The row stayed, these columns set.
    Change(Vec<SetColumn>),
}

/// Notes what a stream row did in a window (or that it could not be read).
fn note(w: &mut Window, touch: RowTouch) {
    let Ok((steps, moved_width)) = touch else {
        w.invalid = true;
        return;
    };
    if let Some(width) = moved_width {
        w.narrowest = w.narrowest.min(width);
    }
    for (key, step) in steps {
        let now = w.touched.remove(&key);
        let next = match (now, step) {
            (_, Step::Leave) => Touch::Gone,
            (Some(Touch::Gone | Touch::Remade), Step::Arrive(_)) => Touch::Remade,
            (Some(Touch::Remade), Step::Change(_)) => Touch::Remade,
            // A change of a row that is gone: nothing to apply it to.
            (Some(Touch::Gone), Step::Change(_)) => Touch::Gone,
            (Some(Touch::Set(mut set)), Step::Arrive(values) | Step::Change(values)) => {
                for (i, v, t) in values {
                    match set.iter_mut().find(|(j, _, _)| *j == i) {
                        Some(slot) => *slot = (i, v, t),
                        None => set.push((i, v, t)),
                    }
                }
                Touch::Set(set)
            }
            (None, Step::Arrive(values) | Step::Change(values)) => Touch::Set(values),
        };
        w.touched.insert(key, next);
    }
}

/// What a row of the stream did, keyed by `key_columns` (every column when
/// empty): a delete leaves its key; an insert arrives at its key; an update
/// changes its key in place, or leaves the old key and arrives at the new
/// one. The after image is completed from the before image (a column it
/// leaves out kept its value).
fn row_touch(row: &RowDataView<'_>, key_columns: &[i32]) -> RowTouch {
    // A JSON value given as its diffs (MySQL's partial JSON update without
    // its document) is no value to give a chunk's row.
    if has_json_diff(row) {
        return Err(());
    }
    let before = values_of(row.before())?;
    let after = values_of(row.after())?;
    let mut steps = Vec::with_capacity(2);
    let mut moved_width = None;
    match (before, after) {
        (Some(b), None) => steps.push((key_from(&b, None, key_columns)?, Step::Leave)),
        (None, Some(a)) => {
            if key_columns.is_empty() {
                moved_width = Some(a.len());
            }
            steps.push((key_from(&a, None, key_columns)?, Step::Arrive(a)));
        }
        (Some(b), Some(a)) => {
            let old = key_from(&b, None, key_columns)?;
            let new = key_from(&a, Some(&b), key_columns)?;
            if old == new {
                steps.push((new, Step::Change(a)));
            } else {
                let mut whole = b
                    .iter()
                    .filter(|(i, _, _)| !a.iter().any(|(j, _, _)| j == i))
                    .cloned()
                    .collect::<Vec<_>>();
                whole.extend(a);
                moved_width = Some(whole.len());
                steps.push((old, Step::Leave));
                steps.push((new, Step::Arrive(whole)));
            }
        }
        (None, None) => {}
    }
    Ok((steps, moved_width))
}

/// Whether an after column of the row carries the partial-JSON prop.
fn has_json_diff(row: &RowDataView<'_>) -> bool {
    let (key, value) = sluice_encode::canal::PARTIAL_JSON_PROP;
    row.after_bytes().any(|bytes| match bytes {
        // The prop's text first (cheap), then the column read whole.
        Ok(b) if !b.windows(key.len()).any(|w| w == key.as_bytes()) => false,
        Ok(b) => sluice_canal::proto::Column::decode(b).map_or(true, |c| {
            c.props
                .iter()
                .any(|p| p.key.as_deref() == Some(key) && p.value.as_deref() == Some(value))
        }),
        // Not in the form every writer gives: read by the views, which
        // find what is wrong.
        Err(_) => false,
    })
}

/// Every column of one image, by index, with its value and `sqlType`:
/// `Ok(None)` for an absent image, `Err` when its columns cannot be read.
fn values_of<'a>(
    columns: impl Iterator<Item = Result<ColumnView<'a>, sluice_canal::view::ViewError>>,
) -> Result<Option<Vec<SetColumn>>, ()> {
    let mut values = Vec::new();
    for c in columns {
        let c = c.map_err(|_| ())?;
        let v = (!c.is_null).then(|| c.value.unwrap_or("").to_string());
        values.push((c.index, v, c.sql_type));
    }
    Ok((!values.is_empty()).then_some(values))
}

/// The key of an image, from its values and, for the columns it leaves
/// out, those of `unchanged` (the before image of the same row: a column
/// an after image leaves out kept its value). `Err` when a key column is
/// in neither. Without key columns: every column either holds, in column
/// order.
fn key_from(
    image: &[SetColumn],
    unchanged: Option<&[SetColumn]>,
    key_columns: &[i32],
) -> Result<RowKey, ()> {
    let find = |k: i32| {
        image
            .iter()
            .chain(unchanged.into_iter().flatten())
            .find(|(i, _, _)| *i == k)
            .map(|(_, v, _)| v.clone())
            .ok_or(())
    };
    if !key_columns.is_empty() {
        // In key order, every key column present.
        return key_columns.iter().map(|&k| find(k)).collect();
    }
    let mut all: Vec<&SetColumn> = unchanged
        .into_iter()
        .flatten()
        .filter(|(i, _, _)| !image.iter().any(|(j, _, _)| j == i))
        .chain(image.iter())
        .collect();
    all.sort_by_key(|(i, _, _)| *i);
    Ok(all.into_iter().map(|(_, v, _)| v.clone()).collect())
}

#[cfg(test)]
mod tests {
    use super::*;
    use sluice_canal::proto::{Column, RowData};

    /// A row change of rows keyed `keys` (column 0) with a value column.
    fn rows(keys: &[&str]) -> Vec<u8> {
        let column = |index: i32, value: &str| Column {
            index: Some(index),
            name: Some(format!("c{index}")),
            is_null: Some(false),
            value: Some(value.to_string()),
            ..Default::default()
        };
        RowChange {
            row_datas: keys
                .iter()
                .map(|k| RowData {
                    after_columns: vec![column(0, k), column(1, "v")],
                    ..Default::default()
                })
                .collect(),
            ..Default::default()
        }
        .encode_to_vec()
    }

    /// A row change of one row with these images, each a list of
    /// `(column index, value)` (the columns the image holds).
    fn one_row(before: &[(i32, &str)], after: &[(i32, &str)]) -> Vec<u8> {
        let columns = |image: &[(i32, &str)]| {
            image
                .iter()
                .map(|&(index, value)| Column {
                    index: Some(index),
                    name: Some(format!("c{index}")),
                    is_null: Some(false),
                    value: Some(value.to_string()),
                    ..Default::default()
                })
                .collect()
        };
        RowChange {
            row_datas: vec![RowData {
                before_columns: columns(before),
                after_columns: columns(after),
                ..Default::default()
            }],
            ..Default::default()
        }
        .encode_to_vec()
    }

    /// A chunk of whole rows of three columns: key, then two values.
    fn chunk3(rows: &[[&str; 3]]) -> Box<Entry> {
        let change = RowChange {
            row_datas: rows
                .iter()
                .map(|r| {
                    let after = one_row(&[], &[(0, r[0]), (1, r[1]), (2, r[2])]);
                    RowChange::decode(&after[..]).unwrap().row_datas.remove(0)
                })
                .collect(),
            ..Default::default()
        };
        Box::new(Entry {
            store_value: Some(change.encode_to_vec().into()),
            ..Default::default()
        })
    }

    fn chunk(keys: &[&str]) -> Box<Entry> {
        Box::new(Entry {
            store_value: Some(rows(keys).into()),
            ..Default::default()
        })
    }

    fn kept_keys(reconciled: Reconciled) -> Vec<String> {
        let Reconciled::Deliver {
            entry: Some(entry), ..
        } = reconciled
        else {
            return Vec::new();
        };
        let change = RowChange::decode(entry.store_value.unwrap_or_default()).unwrap();
        change
            .row_datas
            .iter()
            .map(|r| r.after_columns[0].value.clone().unwrap_or_default())
            .collect()
    }

    #[test]
    fn a_scan_window_stays_open_and_lets_go_of_the_keys_of_each_chunk() {
        let windows = Windows::default();
        let id = windows.open("s", "t", 0, vec![0]);
        // The stream touches keys 2 (in the first chunk) and 5 (further on).
        windows.observe("s", "t", &rows(&["2", "5"]));
        assert_eq!(windows.touched("s", "t", id), Some(2));

        let first = windows.reconcile("s", "t", id, chunk(&["1", "2", "3"]), 3, true);
        assert_eq!(kept_keys(first), ["1", "3"]);
        // Open still, without key 2: no later chunk of the scan holds it.
        assert_eq!(windows.touched("s", "t", id), Some(1));

        // Touched again after its chunk went: noted, and harmless.
        windows.observe("s", "t", &rows(&["2"]));
        let last = windows.reconcile("s", "t", id, chunk(&["4", "5", "6"]), 3, false);
        assert_eq!(kept_keys(last), ["4", "6"]);
        assert_eq!(
            windows.touched("s", "t", id),
            None,
            "closed by its last chunk"
        );
    }

    #[test]
    fn a_chunk_window_closes_and_keeps_nothing_the_stream_touched() {
        let windows = Windows::default();
        let id = windows.open("s", "t", 0, vec![0]);
        windows.observe("s", "t", &rows(&["1", "3"]));
        let all_touched = windows.reconcile("s", "t", id, chunk(&["1", "3"]), 2, false);
        assert!(matches!(
            all_touched,
            Reconciled::Deliver {
                entry: None,
                kept: 0,
                dropped: 2,
                patched: 0
            }
        ));
        assert!(!windows.any_open());

        // An invalidated window (a DDL went by) asks for the chunk again,
        // whether it stays open or not.
        let id = windows.open("s", "t", 0, vec![0]);
        windows.invalidate_all();
        assert!(matches!(
            windows.reconcile("s", "t", id, chunk(&["1"]), 1, true),
            Reconciled::Redo
        ));
    }

    #[test]
    fn closing_a_part_leaves_the_windows_of_the_other_parts_of_the_table_open() {
        let windows = Windows::default();
        let first = windows.open("s", "t", 0, vec![0]);
        let second = windows.open("s", "t", 1, vec![0]);
        windows.observe("s", "t", &rows(&["1", "9"]));
        windows.close_part("s", "t", 0);
        assert_eq!(windows.touched("s", "t", first), None);
        assert_eq!(windows.touched("s", "t", second), Some(2));
        assert!(windows.any_open());
        let kept = windows.reconcile("s", "t", second, chunk(&["8", "9"]), 2, false);
        assert_eq!(kept_keys(kept), ["8"]);
        assert!(!windows.any_open());
    }

    /// The after columns of each row of a delivered chunk, as text.
    fn delivered(reconciled: Reconciled) -> Vec<String> {
        let Reconciled::Deliver {
            entry: Some(entry), ..
        } = reconciled
        else {
            return Vec::new();
        };
        let change = RowChange::decode(entry.store_value.unwrap_or_default()).unwrap();
        change
            .row_datas
            .iter()
            .map(|r| {
                r.after_columns
                    .iter()
                    .map(|c| match (c.is_null, c.value.as_deref()) {
                        (Some(true), _) => "NULL".to_string(),
                        (_, v) => v.unwrap_or_default().to_string(),
                    })
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    }

    #[test]
    fn a_row_changed_in_part_goes_out_with_the_values_the_stream_set() {
        // MINIMAL: the update of row 2 carries its key in the before image
        // only, the changed column in the after image only. The chunk's row
        // goes out with that column's last value and its other column as
        // read: the row as it is at the delivery point.
        let windows = Windows::default();
        let id = windows.open("s", "t", 0, vec![0]);
        windows.observe("s", "t", &one_row(&[(0, "2")], &[(1, "v2")]));
        windows.observe("s", "t", &one_row(&[(0, "2")], &[(1, "v3")]));
        assert_eq!(windows.touched("s", "t", id), Some(1), "one key, 2");
        let chunk = chunk3(&[["1", "a", "b"], ["2", "a", "b"], ["3", "a", "b"]]);
        let reconciled = windows.reconcile("s", "t", id, chunk, 3, false);
        assert!(
            matches!(
                reconciled,
                Reconciled::Deliver {
                    kept: 3,
                    dropped: 0,
                    patched: 1,
                    ..
                }
            ),
            "the entry changed: {reconciled:?}"
        );
        assert_eq!(delivered(reconciled), ["1 a b", "2 v3 b", "3 a b"]);

        // Every column set (a FULL image), deleted, deleted and made again:
        // the stream delivered those rows, the chunk's go.
        let id = windows.open("s", "t", 0, vec![0]);
        windows.observe(
            "s",
            "t",
            &one_row(
                &[(0, "1"), (1, "a"), (2, "b")],
                &[(0, "1"), (1, "x"), (2, "b")],
            ),
        );
        windows.observe("s", "t", &one_row(&[(0, "2")], &[]));
        windows.observe("s", "t", &one_row(&[(0, "3")], &[]));
        windows.observe("s", "t", &one_row(&[], &[(0, "3"), (1, "new")]));
        let chunk = chunk3(&[
            ["1", "a", "b"],
            ["2", "a", "b"],
            ["3", "a", "b"],
            ["4", "a", "b"],
        ]);
        assert_eq!(
            delivered(windows.reconcile("s", "t", id, chunk, 4, false)),
            ["4 a b"]
        );

        // An insert in the window that the chunk read: its columns left to
        // their DEFAULT are the chunk's.
        let id = windows.open("s", "t", 0, vec![0]);
        windows.observe("s", "t", &one_row(&[], &[(0, "5"), (1, "n")]));
        windows.observe("s", "t", &one_row(&[(0, "5")], &[(1, "n2")]));
        let chunk = chunk3(&[["5", "n", "default"]]);
        assert_eq!(
            delivered(windows.reconcile("s", "t", id, chunk, 1, false)),
            ["5 n2 default"]
        );
        // Had the stream set the last column too, its version would be
        // whole: the chunk's row goes.
        let id = windows.open("s", "t", 0, vec![0]);
        windows.observe("s", "t", &one_row(&[], &[(0, "5"), (1, "n")]));
        windows.observe("s", "t", &one_row(&[(0, "5")], &[(2, "m")]));
        let chunk = chunk3(&[["5", "n", "m"]]);
        assert!(delivered(windows.reconcile("s", "t", id, chunk, 1, false)).is_empty());
    }

    #[test]
    fn a_key_change_in_part_sends_the_chunk_to_be_read_again() {
        // A key of two columns, one changed. With whole images the old key
        // is gone and the new one delivered: both chunk rows go.
        let windows = Windows::default();
        let id = windows.open("s", "t", 0, vec![0, 1]);
        windows.observe(
            "s",
            "t",
            &one_row(
                &[(0, "a"), (1, "x"), (2, "v")],
                &[(0, "a"), (1, "y"), (2, "v")],
            ),
        );
        let rows = chunk3(&[["a", "x", "v"], ["a", "y", "v"], ["a", "z", "v"]]);
        assert_eq!(
            delivered(windows.reconcile("s", "t", id, rows, 3, false)),
            ["a z v"]
        );

        // MINIMAL: the after image holds the changed key column only; the
        // row's other columns are in the chunk under the old key, which
        // goes: the chunk is read again.
        let id = windows.open("s", "t", 0, vec![0, 1]);
        windows.observe("s", "t", &one_row(&[(0, "a"), (1, "x")], &[(1, "y")]));
        let rows = chunk3(&[["a", "x", "v"], ["a", "z", "v"]]);
        assert!(matches!(
            windows.reconcile("s", "t", id, rows, 2, false),
            Reconciled::Redo
        ));

        // A key column no image of the row holds: read again too.
        let id = windows.open("s", "t", 0, vec![0]);
        windows.observe("s", "t", &one_row(&[(1, "v")], &[(1, "w")]));
        assert!(matches!(
            windows.reconcile("s", "t", id, chunk(&["1"]), 1, false),
            Reconciled::Redo
        ));

        // A JSON value given as its diffs: no value for the chunk's row.
        let id = windows.open("s", "t", 0, vec![0]);
        let mut diff =
            RowChange::decode(&one_row(&[(0, "1")], &[(1, "JSON_REPLACE(@2, '$.a', 1)")])[..])
                .unwrap();
        let (key, value) = sluice_encode::canal::PARTIAL_JSON_PROP;
        diff.row_datas[0].after_columns[0]
            .props
            .push(sluice_canal::proto::Pair::new(key, value));
        windows.observe("s", "t", &diff.encode_to_vec());
        assert!(matches!(
            windows.reconcile("s", "t", id, chunk(&["1"]), 1, false),
            Reconciled::Redo
        ));
    }

    #[test]
    fn whole_rows_are_completed_from_the_before_image_or_read_again() {
        // No key: an update whose after image holds the changed column
        // only is the whole before row with that column changed.
        let windows = Windows::default();
        let id = windows.open("s", "t", 0, vec![]);
        windows.observe(
            "s",
            "t",
            &one_row(&[(0, "1"), (1, "a"), (2, "b")], &[(2, "c")]),
        );
        let kept = windows.reconcile(
            "s",
            "t",
            id,
            chunk3(&[["1", "a", "c"], ["2", "a", "b"]]),
            2,
            false,
        );
        let Reconciled::Deliver { kept, dropped, .. } = kept else {
            panic!("delivered")
        };
        assert_eq!((kept, dropped), (1, 1));

        // An insert whose image leaves a column out (MySQL's MINIMAL logs
        // the columns the INSERT set): which whole row it is cannot be
        // told, so the chunk is read again.
        let id = windows.open("s", "t", 0, vec![]);
        windows.observe("s", "t", &one_row(&[], &[(0, "3"), (2, "b")]));
        assert!(matches!(
            windows.reconcile("s", "t", id, chunk3(&[["2", "a", "b"]]), 1, false),
            Reconciled::Redo
        ));
    }
}
