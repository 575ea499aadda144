//! Which tables the snapshot reads and in how many parts: the progress
//! loaded or planned from the source's table list (by the configured filter),
//! large tables with an integer key cut into key ranges, and the session
//! settings of the snapshot's connections.

use super::*;

/// Warns when the user may not see other users' statements in the
/// process list: a DDL waiting for a scan then waits until the scan ends
/// by itself, and every statement on that table behind the DDL.
pub(super) async fn warn_without_process(ctx: &SnapshotContext, conn: &mut Conn) {
    let grants = match conn.query("SHOW GRANTS").await {
        Ok(rs) => rs,
        Err(e) => {
            tracing::debug!(destination = %ctx.name, error = %e, "initial snapshot: SHOW GRANTS failed");
            return;
        }
    };
    let global = |g: &&str| g.contains(" ON *.* ");
    let sees_all = grants
        .rows
        .iter()
        .filter_map(|r| r.first()?.as_deref())
        .filter(global)
        .any(|g| g.contains("ALL PRIVILEGES") || g.contains("PROCESS"));
    if !sees_all {
        let user = conn
            .query("SELECT CURRENT_USER()")
            .await
            .ok()
            .and_then(|rs| rs.scalar().map(str::to_string))
            .unwrap_or_default();
        tracing::warn!(
            destination = %ctx.name,
            user = %user,
            scan_seconds = ctx.settings.scan_max_age.as_secs(),
            "initial snapshot: the user has no PROCESS privilege, so a DDL that waits for a table being scanned cannot be seen: it waits until the scan ends by itself (scanSeconds, plus 10 s when consumers are slow), and later statements on that table wait behind it. GRANT PROCESS ON *.* to the user to have the scan ended at once"
        );
    }
}

/// The server's row estimates of every table (`information_schema`).
pub(super) async fn estimates(
    conn: &mut Conn,
) -> Result<HashMap<(String, String), u64>, SnapshotError> {
    let rs = conn
        .query(
            "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES \
             WHERE TABLE_TYPE = 'BASE TABLE'",
        )
        .await
        .map_err(|source| SnapshotError::Source {
            table: "information_schema.TABLES".to_string(),
            source,
        })?;
    Ok(rs
        .rows
        .iter()
        .filter_map(|row| {
            let schema = row.first()?.clone()?;
            let table = row.get(1)?.clone()?;
            let rows = row.get(2)?.as_deref()?.parse().ok()?;
            Some(((schema, table), rows))
        })
        .collect())
}

pub(super) async fn connect(ctx: &SnapshotContext, what: &str) -> Result<Conn, SnapshotError> {
    let source_err = |source| SnapshotError::Source {
        table: what.to_string(),
        source,
    };
    let mut conn = Conn::connect(&ctx.connect).await.map_err(source_err)?;
    prepare_session(&mut conn).await.map_err(source_err)?;
    Ok(conn)
}

/// Sets a connection up for snapshot reads: values in their columns' own
/// character sets (as in the binlog), and TIMESTAMP values in UTC (as the
/// binlog holds them).
pub async fn prepare_session(conn: &mut Conn) -> Result<(), SourceError> {
    conn.exec("SET NAMES utf8mb4").await?;
    conn.exec("SET character_set_results = NULL, time_zone = '+00:00'")
        .await
}

/// The progress of an earlier run (this process, else persisted), or a
/// new plan: every base table the filters keep.
pub(super) async fn load_or_plan(
    ctx: &SnapshotContext,
    conn: &mut Conn,
) -> Result<SnapshotProgress, SnapshotError> {
    if let Some(p) = ctx.state.progress() {
        return Ok(p);
    }
    let destination = ctx.destination.clone();
    let loaded = tokio::task::spawn_blocking(move || destination.persisted_snapshot())
        .await
        .map_err(|_| SnapshotError::StreamGone)?
        .map_err(|source| SnapshotError::Progress {
            destination: ctx.name.clone(),
            source,
        })?;
    let progress = match loaded {
        Some(mut p) => {
            // Chunks delivered but not known to be acked are read again.
            let dropped: usize = p.tables.iter().map(|t| t.pending.len()).sum();
            for t in p.tables.iter_mut() {
                t.pending.clear();
            }
            tracing::info!(
                destination = %ctx.name,
                tables = p.table_count(),
                tables_done = p.tables_done(),
                rows_done = p.rows_done(),
                chunks_read_again = dropped,
                "initial snapshot: resuming from its persisted progress"
            );
            p
        }
        // Only tables asked for on demand are read.
        None if ctx.settings.mode == sluice_config::SnapshotMode::Never => {
            SnapshotProgress::default()
        }
        None => {
            let p = plan(ctx, conn).await?;
            tracing::info!(
                destination = %ctx.name,
                tables = p.table_count(),
                rows_estimated = p.rows_estimated(),
                "initial snapshot: planned"
            );
            p
        }
    };
    {
        let mut live = ctx.state.lock();
        for t in &progress.tables {
            let bad = |message| SnapshotError::Table {
                table: format!("{}.{}", t.schema, t.table),
                message,
            };
            let next_from =
                persisted_key(t.done_up_to.as_ref().or(t.part_after.as_ref())).map_err(bad)?;
            live.tables.insert(
                PartKey::of(t),
                TableLive {
                    next_from,
                    up_to: persisted_key(t.part_up_to.as_ref()).map_err(bad)?,
                    delivered_all: t.done,
                    pending_seqs: Vec::new(),
                },
            );
        }
        live.progress = Some(progress.clone());
    }
    if !progress.tables.is_empty() {
        persist(ctx).await?;
    }
    Ok(progress)
}

/// A table read in parts has at least this many rows (estimated) per
/// part: below it, the parts' extra statements and the range condition
/// the source reads with each row cost more than a second reader gains.
pub(super) const SPLIT_MIN_PART_ROWS: u64 = 100_000;

/// Cuts each large table not yet started whose key is one integer column
/// into `parallelism` parts, key ranges of about as many values, read at
/// once (scans only): one scan of a table keeps one of the source's
/// threads busy, and a large table alone would leave the others idle.
/// The parts replace the table's entry in the progress, each with its
/// bounds, and are read, persisted and resumed on their own.
pub(super) async fn split_large_tables(
    ctx: &SnapshotContext,
    conn: &mut Conn,
) -> Result<(), SnapshotError> {
    let parallelism = ctx.settings.parallelism as u64;
    if ctx.settings.reads != SnapshotReads::Scan || parallelism < 2 {
        return Ok(());
    }
    // Nothing of it delivered: a chunk delivered is pending (or, once
    // acked, done) in the progress itself, and no reader runs meanwhile.
    let fresh = |t: &TableProgress| {
        t.part == 0
            && t.part_after.is_none()
            && t.part_up_to.is_none()
            && t.done_up_to.is_none()
            && t.pending.is_empty()
            && !t.done
    };
    let candidates: Vec<(String, String, u64)> = {
        let live = ctx.state.lock();
        let Some(progress) = &live.progress else {
            return Ok(());
        };
        progress
            .tables
            .iter()
            .filter(|t| fresh(t) && t.rows_estimated >= 2 * SPLIT_MIN_PART_ROWS)
            .map(|t| (t.schema.clone(), t.table.clone(), t.rows_estimated))
            .collect()
    };
    let mut split_any = false;
    for (schema, table, estimated) in candidates {
        let qualified = format!("{schema}.{table}");
        let Some(plan) = table_plan(conn, &schema, &table).await? else {
            continue;
        };
        let parts = parallelism.min(estimated / SPLIT_MIN_PART_ROWS);
        let Some(range) =
            integer_key_range(conn, &plan)
                .await
                .map_err(|source| SnapshotError::Source {
                    table: qualified.clone(),
                    source,
                })?
        else {
            continue;
        };
        let bounds = split_bounds(range, parts);
        if bounds.is_empty() {
            continue;
        }
        let hex = |v: i128| vec![to_hex(v.to_string().as_bytes())];
        let raw = |v: i128| vec![v.to_string().into_bytes()];
        let mut live = ctx.state.lock();
        let Live { progress, tables } = &mut *live;
        let Some(progress) = progress.as_mut() else {
            break;
        };
        let Some(at) = progress
            .tables
            .iter()
            .position(|t| t.schema == schema && t.table == table && fresh(t))
        else {
            continue;
        };
        let count = bounds.len() + 1;
        let template = progress.tables.remove(at);
        tables.retain(|k, _| !k.is_of(&schema, &table));
        for part in 0..count {
            let after = part.checked_sub(1).map(|i| bounds[i]);
            let up_to = bounds.get(part).copied();
            let entry = TableProgress {
                part: part as u32,
                part_after: after.map(hex),
                part_up_to: up_to.map(hex),
                rows_estimated: template.rows_estimated / count as u64,
                ..template.clone()
            };
            tables.insert(
                PartKey::of(&entry),
                TableLive {
                    next_from: after.map(raw),
                    up_to: up_to.map(raw),
                    ..TableLive::default()
                },
            );
            progress.tables.insert(at + part, entry);
        }
        tracing::info!(destination = %ctx.name, table = %qualified, parts = count, bounds = ?bounds, "initial snapshot: a large table is read in parts at once");
        split_any = true;
    }
    if split_any {
        persist(ctx).await?;
    }
    Ok(())
}

/// The smallest and largest key of `plan`'s table when its key is one
/// integer column (from the key's index); `None` otherwise or when the
/// table is empty.
pub(super) async fn integer_key_range(
    conn: &mut Conn,
    plan: &TablePlan,
) -> Result<Option<(i128, i128)>, SourceError> {
    let [key] = plan.key[..] else {
        return Ok(None);
    };
    let integer = matches!(
        plan.map.columns[key].column_type,
        ColumnType::Tiny
            | ColumnType::Short
            | ColumnType::Int24
            | ColumnType::Long
            | ColumnType::LongLong
    );
    if !integer {
        return Ok(None);
    }
    let name = quote(&plan.schema.columns[key].name);
    let rs = conn
        .query(&format!(
            "SELECT MIN({name}), MAX({name}) FROM {}",
            qualified_name(plan)
        ))
        .await?;
    let value = |i: usize| -> Option<i128> { rs.rows.first()?.get(i)?.as_deref()?.parse().ok() };
    Ok(value(0).zip(value(1)))
}

/// The last key of each part but the last when keys from `min` to `max`
/// are cut into `parts` ranges of about as many values; empty when there
/// are too few values for two parts.
pub fn split_bounds((min, max): (i128, i128), parts: u64) -> Vec<i128> {
    let Some(span) = max.checked_sub(min).and_then(|s| s.checked_add(1)) else {
        return Vec::new();
    };
    let parts = i128::from(parts);
    if parts < 2 || span < parts {
        return Vec::new();
    }
    (1..parts)
        .map(|i| min - 1 + span / parts * i + span % parts * i / parts)
        .collect()
}

/// The server's own schemas, never snapshotted.
pub(super) fn is_system_schema(schema: &str) -> bool {
    ["mysql", "information_schema", "performance_schema", "sys"]
        .iter()
        .any(|s| s.eq_ignore_ascii_case(schema))
}

pub(super) async fn plan(
    ctx: &SnapshotContext,
    conn: &mut Conn,
) -> Result<SnapshotProgress, SnapshotError> {
    let rs = conn
        .query(
            "SELECT TABLE_SCHEMA, TABLE_NAME, TABLE_ROWS FROM information_schema.TABLES \
             WHERE TABLE_TYPE = 'BASE TABLE' \
             AND TABLE_SCHEMA NOT IN ('mysql', 'information_schema', 'performance_schema', 'sys') \
             ORDER BY TABLE_SCHEMA, TABLE_NAME",
        )
        .await
        .map_err(|source| SnapshotError::Source {
            table: "information_schema.TABLES".to_string(),
            source,
        })?;
    let mut tables = Vec::new();
    for row in &rs.rows {
        let (Some(Some(schema)), Some(Some(table))) = (row.first(), row.get(1)) else {
            continue;
        };
        if !(ctx.keeps)(schema, table) {
            continue;
        }
        let estimated = row
            .get(2)
            .and_then(|v| v.as_deref())
            .and_then(|v| v.parse().ok())
            .unwrap_or(0);
        tables.push(TableProgress {
            schema: schema.clone(),
            table: table.clone(),
            rows_estimated: estimated,
            ..Default::default()
        });
    }
    Ok(SnapshotProgress { tables })
}
