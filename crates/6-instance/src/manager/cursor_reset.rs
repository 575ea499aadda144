//! Moving a client's cursor while its destination is stopped: to a binlog
//! position the source still has, or to the first transaction at a time
//! (looked up in the source's binlog).

use super::*;

/// Where [`InstanceManager::reset_cursor`] puts a cursor.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CursorTarget {
    /// A binlog position: file and offset of a transaction boundary, and
    /// the GTID set there (used by destinations that read by GTID).
    Position(EntryPosition),
    /// The first transaction at or after this time (seconds since the
    /// epoch), looked up in the source's binlog; the end of the binlog when
    /// none is that late.
    Time(i64),
}

/// A cursor reset: the cursor before (`None` if the client had acked
/// nothing) and the one written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CursorReset {
    pub previous: Option<LogPosition>,
    pub cursor: LogPosition,
}

/// Why a cursor was not reset.
#[derive(Debug, thiserror::Error)]
pub enum ResetError {
    #[error("destination {0} runs: stop it first (its clients would keep acking over the new cursor), reset the cursor, then start it")]
    Running(String),
    #[error("destination {destination} has no clientId {client}: only a client that subscribed has a cursor")]
    UnknownClient {
        destination: String,
        client: ClientId,
    },
    #[error(transparent)]
    Config(#[from] sluice_config::ConfigError),
    #[error("destination {0}: the cursor store failed: {1}")]
    Meta(String, MetaError),
    #[error("{0}")]
    Source(String),
    /// The position is not in the source's binlog.
    #[error("{0}")]
    NotInBinlog(String),
}

/// Checks that the source still has `position`: its file is listed by
/// `SHOW BINARY LOGS` and the offset is within it.
pub(super) async fn check_in_binlog(
    connect: &ConnectOptions,
    position: &EntryPosition,
) -> Result<(), ResetError> {
    let addr = connect.addr();
    let asked = async {
        let mut conn = sluice_source::Conn::connect(connect).await?;
        sluice_source::replica::binary_logs(&mut conn).await
    };
    let logs = match tokio::time::timeout(TIME_LOOKUP_TIMEOUT, asked).await {
        Ok(Ok(logs)) => logs,
        Ok(Err(e)) => {
            return Err(ResetError::Source(format!(
                "listing the binary logs of {addr}: {e}"
            )))
        }
        Err(_) => {
            return Err(ResetError::Source(format!(
                "listing the binary logs of {addr}: no answer within {} s",
                TIME_LOOKUP_TIMEOUT.as_secs()
            )))
        }
    };
    let at = format!("{}:{}", position.journal_name, position.position);
    match logs.iter().find(|(f, _)| *f == position.journal_name) {
        Some((_, size)) if position.position <= *size => Ok(()),
        Some((file, size)) => Err(ResetError::NotInBinlog(format!(
            "{at} is past the end of {file} on {addr} ({size} bytes)"
        ))),
        None => Err(ResetError::NotInBinlog(format!(
            "{at}: {addr} has no binary log {}; it has {}",
            position.journal_name,
            match (logs.first(), logs.last()) {
                (Some((first, _)), Some((last, _))) if first != last =>
                    format!("{first} to {last}"),
                (Some((only, _)), _) => only.clone(),
                _ => "none".to_string(),
            }
        ))),
    }
}

/// How long the binlog lookup of a time may take.
pub(super) const TIME_LOOKUP_TIMEOUT: Duration = Duration::from_secs(30);

/// The position of the first transaction at or after `seconds` in the
/// binlog of the source, or the binlog's end when none is that late.
pub(super) async fn position_at_time(
    connect: &ConnectOptions,
    seconds: i64,
) -> Result<EntryPosition, ResetError> {
    let addr = connect.addr();
    let failed = |e: String| {
        ResetError::Source(format!(
            "looking up the binlog position of time {} on {addr}: {e}",
            StartPosition::Time(seconds)
        ))
    };
    let lookup = async {
        let mut stream = sluice_source::BinlogStream::connect(SourceConfig {
            connect: connect.clone(),
            start: StartPosition::Time(seconds),
            stop_at_end: true,
            // Positions only: no row is read.
            row_images: RowImages::Any,
            ..Default::default()
        })
        .await
        .map_err(|e| e.to_string())?;
        while let Some(item) = stream.next().await.map_err(|e| e.to_string())? {
            if let sluice_source::StreamItem::Event(ev) = item {
                if ev.artificial {
                    continue;
                }
                return Ok(EntryPosition {
                    journal_name: ev.file.to_string(),
                    position: ev.pos,
                    server_id: i64::from(ev.raw.header.server_id),
                    timestamp: i64::from(ev.raw.header.timestamp) * 1000,
                    ..Default::default()
                });
            }
        }
        // Nothing that late: the end of the binlog.
        let mut conn = sluice_source::Conn::connect(connect)
            .await
            .map_err(|e| e.to_string())?;
        let (file, pos, _) = sluice_source::replica::master_status(&mut conn)
            .await
            .map_err(|e| e.to_string())?;
        Ok(EntryPosition {
            journal_name: file,
            position: pos,
            timestamp: seconds * 1000,
            ..Default::default()
        })
    };
    match tokio::time::timeout(TIME_LOOKUP_TIMEOUT, lookup).await {
        Ok(r) => r.map_err(failed),
        Err(_) => Err(failed(format!(
            "no answer within {} s",
            TIME_LOOKUP_TIMEOUT.as_secs()
        ))),
    }
}

impl InstanceManager {
    /// Sets the cursor of `client` of a destination that does not run here,
    /// so that when it starts the client gets the transactions from
    /// `target` on. Refused while the destination runs: its folder's lock is
    /// held from before the cursor is read until it is written, so the
    /// destination cannot start meanwhile either (its start fails with the
    /// lock held). The client must have subscribed before. Returns the
    /// cursor before and after.
    pub async fn reset_cursor(
        &self,
        destination: &str,
        client: ClientId,
        target: CursorTarget,
    ) -> Result<CursorReset, ResetError> {
        if self.lock().contains_key(destination) {
            return Err(ResetError::Running(destination.to_string()));
        }
        let config = InstanceConfig::load(&self.config, destination)?;
        let lock = DirLock::acquire(
            &self.config.data_dir.join(destination),
            &format!("destination {destination}"),
        )
        .map_err(|_| ResetError::Running(destination.to_string()))?;
        let connect = source_connect_options(&config).map_err(ResetError::Source)?;
        let unknown_client = || ResetError::UnknownClient {
            destination: destination.to_string(),
            client,
        };
        // The client is looked for before the source is asked anything.
        let meta = self.load_blocking(destination).await?;
        if !meta
            .client_datas
            .iter()
            .any(|c| c.client_identity.client_id == client)
        {
            return Err(unknown_client());
        }
        let position = match target {
            CursorTarget::Position(p) => {
                check_in_binlog(&connect, &p).await?;
                p
            }
            CursorTarget::Time(seconds) => position_at_time(&connect, seconds).await?,
        };
        let cursor = LogPosition {
            identity: log_identity(&connect),
            postion: position,
        };
        let cursors = self.cursors.clone();
        let name = destination.to_string();
        let written = cursor.clone();
        let previous = tokio::task::spawn_blocking(move || {
            let mut meta = cursors.load(&name)?;
            let Some(data) = meta
                .client_datas
                .iter_mut()
                .find(|c| c.client_identity.client_id == client)
            else {
                return Ok(Err(()));
            };
            let previous = data.cursor.replace(written);
            cursors.save(&meta)?;
            cursors.compact(&name)?;
            Ok(Ok(previous))
        })
        .await
        .map_err(|e| ResetError::Source(format!("the cursor write failed: {e}")))?
        .map_err(|e| ResetError::Meta(destination.to_string(), e))?
        .map_err(|()| unknown_client())?;
        drop(lock);
        tracing::warn!(
            destination,
            client,
            journal = %cursor.postion.journal_name,
            position = cursor.postion.position,
            gtid = %cursor.postion.gtid,
            "client cursor reset"
        );
        Ok(CursorReset { previous, cursor })
    }

    pub(super) async fn load_blocking(
        &self,
        destination: &str,
    ) -> Result<DestinationMeta, ResetError> {
        let cursors = self.cursors.clone();
        let name = destination.to_string();
        tokio::task::spawn_blocking(move || cursors.load(&name))
            .await
            .map_err(|e| ResetError::Source(format!("the cursor read failed: {e}")))?
            .map_err(|e| ResetError::Meta(destination.to_string(), e))
    }
}
