//! A chunk read becomes a Canal entry and goes to the stream, which puts it
//! in the store at its place; what the stream did meanwhile is reconciled
//! there, and the chunk's outcome moves the progress.

use super::*;

/// Converts a chunk read into its entry (on a blocking thread: it is the
/// CPU-heavy part) and hands it to the stream, which puts it into the
/// store at its delivery point.
pub(super) async fn deliver(
    ctx: SnapshotContext,
    part: PartKey,
    chunk: ReadChunk,
) -> Result<Delivery, SnapshotError> {
    let (schema, table) = (part.schema.clone(), part.table.clone());
    let qualified = part.qualified();
    let ReadChunk {
        plan,
        window,
        rows,
        file,
        pos,
        from,
        up_to,
        last,
        keep_window,
        read_for,
        memory,
    } = chunk;
    let count = rows.len();
    let started = Instant::now();
    let mut converted_for = Duration::ZERO;
    let delivered = if count == 0 {
        // Only a table's last chunk (or a scan's) can be empty.
        ctx.state.windows.close(&schema, &table, window);
        Delivered::Put {
            seq: None,
            kept: 0,
            dropped: 0,
        }
    } else {
        let gtid_on = ctx.gtid_on;
        let (at_file, entry_plan) = (file.clone(), plan.clone());
        let columns = ctx.columns.clone();
        let built = tokio::task::spawn_blocking(move || {
            let base = chunk_row_key_base(&entry_plan, &at_file, pos, from.as_deref());
            let keep = columns.and_then(|rules| rules.projection(&entry_plan.table()));
            if let Some(k) = &keep {
                warn_hidden_key(&entry_plan, k, from.is_none());
            }
            chunk_entry(
                gtid_on,
                &entry_plan,
                &rows,
                (&at_file, pos),
                &base,
                keep.as_ref(),
            )
        })
        .await;
        converted_for = started.elapsed();
        let (entry, bytes) = match built {
            Ok(Ok(built)) => built,
            Ok(Err(message)) => {
                ctx.state.windows.close(&schema, &table, window);
                return Err(SnapshotError::Table {
                    table: qualified,
                    message,
                });
            }
            Err(j) if j.is_panic() => std::panic::resume_unwind(j.into_panic()),
            Err(_) => return Err(SnapshotError::StreamGone),
        };
        let at = EntryPosition {
            journal_name: file.clone(),
            position: pos,
            ..Default::default()
        }
        .binlog_key();
        let (reply, answer) = oneshot::channel();
        ctx.chunks
            .send(ChunkDelivery {
                schema: schema.clone(),
                table: table.clone(),
                window,
                keep_window,
                entry,
                bytes,
                rows: count,
                at,
                reply,
                memory,
            })
            .await
            .map_err(|_| SnapshotError::StreamGone)?;
        answer.await.map_err(|_| SnapshotError::StreamGone)?
    };
    match delivered {
        Delivered::Redo => {
            tracing::info!(destination = %ctx.name, table = %qualified, "initial snapshot: the table may have changed while a chunk was read; reading it again");
            Ok(Delivery::Redo)
        }
        Delivered::Put { seq, kept, dropped } => {
            tracing::debug!(destination = %ctx.name, table = %qualified, rows = count, kept, dropped, at = %format_args!("{file}:{pos}"), ?read_for, ?converted_for, delivered_for = ?started.elapsed().saturating_sub(converted_for), "initial snapshot: chunk delivered");
            let delivered_at = EntryPosition {
                journal_name: file,
                position: pos,
                ..Default::default()
            };
            // Persisted by the snapshot's loop once the consumers acked it.
            finish_chunk(&ctx, &part, up_to, last, kept as u64, seq, delivered_at);
            Ok(Delivery::Done)
        }
    }
}

/// Records a delivered chunk as pending.
pub(super) fn finish_chunk(
    ctx: &SnapshotContext,
    part: &PartKey,
    up_to: Option<Vec<Vec<u8>>>,
    last: bool,
    rows: u64,
    seq: Option<u64>,
    delivered_at: EntryPosition,
) {
    let mut live = ctx.state.lock();
    let Live { progress, tables } = &mut *live;
    let tl = tables.entry(part.clone()).or_default();
    if up_to.is_some() {
        tl.next_from = up_to.clone();
    }
    tl.delivered_all = last;
    tl.pending_seqs.push(seq);
    if let Some(t) = progress
        .as_mut()
        .and_then(|p| p.part_mut(&part.schema, &part.table, part.part))
    {
        t.pending.push(PendingChunk {
            up_to: up_to.map(|k| k.iter().map(|v| to_hex(v)).collect()),
            last,
            rows,
            delivered_at,
        });
    }
}

/// A table gone since the plan: done with what was read (of this part).
pub(super) fn finish_table(
    ctx: &SnapshotContext,
    part: &PartKey,
    up_to: Option<Vec<Vec<u8>>>,
    rows: u64,
    seq: Option<u64>,
) {
    finish_chunk(ctx, part, up_to, true, rows, seq, EntryPosition::default());
}

/// Says once per table read (at its first chunk) that the column filters
/// hide a column of the key its chunks are matched with the stream by:
/// neither side's entries show it, so a chunk during whose read the
/// stream changes the table is read again.
pub(super) fn warn_hidden_key(plan: &TablePlan, keep: &ColumnProjection, first_chunk: bool) {
    if !first_chunk {
        return;
    }
    let hidden: Vec<&str> = plan
        .key
        .iter()
        .filter(|&&i| !keep.keeps(i))
        .filter_map(|&i| plan.columns.get(i).map(|c| c.name.as_str()))
        .collect();
    if !hidden.is_empty() {
        tracing::warn!(
            table = %format!("{}.{}", plan.schema.db, plan.schema.name),
            hidden = ?hidden,
            "the column filters hide key columns of this table: its snapshot chunks cannot be matched with the stream's changes, and a chunk is read again whenever the table changes while it is read; list the key in canal.instance.filter.field (or take it off the black list) to avoid this"
        );
    }
}

/// The chunk as one Canal INSERT entry at `file:pos`, marked as a snapshot
/// read, and the entry serialised; with only the columns of `keep` when
/// column filters name the table.
pub(super) fn chunk_entry(
    gtid_on: bool,
    plan: &TablePlan,
    rows: &RawResultSet,
    (file, pos): (&str, u64),
    row_key_base: &str,
    keep: Option<&ColumnProjection>,
) -> Result<(Box<BuiltEntry>, EntryBytes), String> {
    // The rows' text goes into the entry as it is when it is Canal's for
    // every column (most tables); else each row is parsed into a binlog
    // row image and decoded as the stream decodes its rows.
    let select = SelectText::new(rows);
    let no_rows =
        RowsEvent::synthetic_write(plan.map.clone(), Vec::new()).map_err(|e| e.to_string())?;
    let txn = TransactionState::default();
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_secs() as u32);
    let position = Position {
        file,
        offset: pos,
        next_offset: pos,
        server_id: 0,
        timestamp: now,
    };
    let marker = [Pair::new(SNAPSHOT_PROP, "true")];
    let text_change =
        RowsChange::new(position, &txn, &no_rows, Some(&plan.columns)).with_projection(keep);
    let from_text = CanalEncoder::serialised_snapshot_entry_on_this_thread(
        gtid_on,
        &text_change,
        Some(&select),
        &marker,
        row_key_base,
    )
    .map_err(|e| e.to_string())?;
    let (mut built, bytes) = match from_text {
        Some(built) => built,
        None => {
            let event = rows_event(plan, rows, rows.len())?;
            let change =
                RowsChange::new(position, &txn, &event, Some(&plan.columns)).with_projection(keep);
            CanalEncoder::serialised_snapshot_entry_on_this_thread(
                gtid_on,
                &change,
                None,
                &marker,
                row_key_base,
            )
            .map_err(|e| e.to_string())?
            .ok_or("a chunk read through a row image has no text to refuse")?
        }
    };
    built.ack_point = Some(built.position.clone());
    Ok((Box::new(built), bytes))
}

/// The base of the `sluiceRowKey` of a chunk's rows (`base#index`): its
/// read point, its table and where it starts (the key values it follows;
/// empty for the first chunk of a table), so no two chunks
/// delivered at one point share a key (several often are: one scan's, the
/// parts of a table, any chunk read while the binlog stood still). A chunk
/// read again after a restart starts where it did: where its read point
/// is the same, no write went by, so its rows are the same too.
pub fn chunk_row_key_base(
    plan: &TablePlan,
    file: &str,
    pos: u64,
    from: Option<&[Vec<u8>]>,
) -> String {
    // An integer as its text (short: the base is in every row), any
    // other value as `x` and its hex.
    let value = |v: &Vec<u8>| match std::str::from_utf8(v) {
        Ok(t) if !t.is_empty() && t.bytes().all(|b| b.is_ascii_digit() || b == b'-') => {
            t.to_string()
        }
        _ => format!("x{}", to_hex(v)),
    };
    let from = from.map_or(String::new(), |key| {
        key.iter().map(value).collect::<Vec<_>>().join(",")
    });
    format!(
        "{file}:{pos}@{}.{}>{from}",
        plan.schema.db, plan.schema.name
    )
}

/// A chunk's result set as the rows of a Canal entry
/// ([`CanalEncoder::select_rows_entry_on_this_thread`]).
pub struct SelectText<'a> {
    pub(super) rows: &'a RawResultSet,
    /// The values' bytes together, when they are UTF-8: checked once for
    /// the chunk, at its first value (a table the text way refuses is never
    /// checked); a value is then UTF-8 when it starts and ends on character
    /// boundaries.
    pub(super) text: std::cell::OnceCell<Option<&'a str>>,
}

impl<'a> SelectText<'a> {
    pub fn new(rows: &'a RawResultSet) -> Self {
        SelectText {
            rows,
            text: std::cell::OnceCell::new(),
        }
    }
}

impl SelectRows for SelectText<'_> {
    fn row_count(&self) -> usize {
        self.rows.len()
    }

    fn column_count(&self) -> usize {
        self.rows.columns.len()
    }

    fn text(&self, row: usize, column: usize) -> Result<Option<&str>, NotUtf8> {
        match self.rows.span_of(row, column) {
            None => Ok(None),
            Some(span) => {
                let all = self
                    .text
                    .get_or_init(|| simdutf8::basic::from_utf8(self.rows.data()).ok());
                all.and_then(|t| t.get(span)).map(Some).ok_or(NotUtf8)
            }
        }
    }

    fn data_len(&self) -> usize {
        self.rows.data_len()
    }
}

/// The first `take` rows of a chunk read (`SELECT plan.select`) as one
/// WRITE_ROWS event of the table, as the binlog would hold them.
pub fn rows_event(
    plan: &TablePlan,
    rows: &RawResultSet,
    take: usize,
) -> Result<RowsEvent<'static>, String> {
    // Binary values take about the room of their text, plus each row's
    // null bitmap and a length byte per value.
    let width = plan.map.columns.len();
    let mut image = Vec::with_capacity(rows.data_len() + rows.len() * (width.div_ceil(8) + width));
    let mut values = Vec::with_capacity(width);
    for row in rows.rows().take(take) {
        values.clear();
        values.extend(row.iter());
        sluice_schema::select_rows::row_from_text(&plan.map, &plan.schema, &values, &mut image)
            .map_err(|e| e.to_string())?;
    }
    RowsEvent::synthetic_write(plan.map.clone(), image).map_err(|e| e.to_string())
}
