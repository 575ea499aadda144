//! A destination's source as the stages read it: connection options from
//! `instance.properties`, the row images accepted, failover candidates,
//! the configured start, the identity written into cursors, and the
//! destination's filters.

use sluice_canal::{LogIdentity, TableFilter};
use sluice_config::InstanceConfig;
use sluice_source::conn::ConnectOptions;
use sluice_source::position::StartPosition;
use sluice_source::tls::TlsOptions;
use sluice_source::{FailoverPolicy, RowImages};

/// The identity written into a destination's cursors: its source's address.
pub(crate) fn log_identity(connect: &ConnectOptions) -> LogIdentity {
    LogIdentity {
        slave_id: -1,
        source_address: sluice_canal::position::SourceAddress {
            address: connect.host.clone(),
            port: connect.port,
        },
    }
}

/// A start at `p`: its GTID set when the instance reads by GTID and `p`
/// has one, else its file and offset.
pub(crate) fn start_at(config: &InstanceConfig, p: sluice_canal::EntryPosition) -> StartPosition {
    // With failover candidates a cursor resumes by GTID, which holds on
    // whichever server is found to have it (file offsets hold on one).
    let failover = !config.standby_address.is_empty() || !config.source_candidates.is_empty();
    let at = p.binlog_position();
    match at.gtid {
        Some(g) if config.gtid_on || failover => StartPosition::Gtid(g),
        _ => StartPosition::FilePos {
            file: at.file,
            pos: at.offset,
        },
    }
}

/// How to reach an instance's source: `canal.instance.master.address`
/// (`host:port`) or `sluice.instance.master.socket`,
/// `canal.instance.dbUsername`/`dbPassword`, its TLS mode,
/// `canal.instance.connectionCharset` and `canal.instance.defaultDatabaseName`.
pub fn source_connect_options(config: &InstanceConfig) -> Result<ConnectOptions, String> {
    let (host, port) = config
        .master_address
        .rsplit_once(':')
        .and_then(|(h, p)| p.parse::<u16>().ok().map(|p| (h.to_string(), p)))
        .ok_or_else(|| {
            format!(
                "canal.instance.master.address {:?} is not host:port",
                config.master_address
            )
        })?;
    Ok(ConnectOptions {
        host,
        port,
        user: config.db_username.clone(),
        password: config.db_password.clone(),
        tls: TlsOptions {
            mode: config.ssl_mode,
            ..Default::default()
        },
        socket: config.master_socket.clone(),
        collation: config.connection_charset.collation_id(),
        database: Some(config.default_database_name.clone()).filter(|d| !d.is_empty()),
        ..Default::default()
    })
}

/// The `binlog_row_image` values the destination's source may have:
/// `canal.instance.binlog.image`. Canal's entries and FlatMessages leave out
/// the columns a row image does not hold, as Canal's own do.
pub fn source_row_images(config: &InstanceConfig) -> RowImages {
    RowImages::OneOf {
        images: config.binlog_images.clone(),
        because: format!(
            "canal.instance.binlog.image = {}",
            config.binlog_images.join(",")
        ),
        or_else: "add the source's value to canal.instance.binlog.image in instance.properties if the destination's clients can take rows that leave out the columns the image does not hold".to_string(),
    }
}

/// Where the instance's stream may go when its source is lost:
/// `canal.instance.standby.address`, then `sluice.instance.source.candidates`,
/// each reached as the source is (user, password, TLS). `None` without any.
pub fn source_failover(
    config: &InstanceConfig,
    connect: &ConnectOptions,
) -> Option<FailoverPolicy> {
    let candidates: Vec<ConnectOptions> = std::iter::once(&config.standby_address)
        .chain(&config.source_candidates)
        .filter_map(|addr| {
            let (host, port) = addr.rsplit_once(':')?;
            let port = port.parse::<u16>().ok()?;
            // Other servers are reached over TCP, whatever the source's
            // own socket.
            (!host.is_empty()).then(|| ConnectOptions {
                host: host.to_string(),
                port,
                socket: None,
                ..connect.clone()
            })
        })
        .filter(|c| c.addr() != connect.addr())
        .collect();
    (!candidates.is_empty()).then(|| FailoverPolicy {
        candidates,
        after: config.failover_after,
        ..Default::default()
    })
}

/// The start position an instance.properties names (Canal's keys), or the
/// end of the binlog when it names none.
pub fn configured_start(config: &InstanceConfig) -> StartPosition {
    if config.gtid_on && !config.master_gtid.is_empty() {
        if let Ok(g) = config.master_gtid.parse() {
            return StartPosition::Gtid(g);
        }
    }
    if !config.master_journal_name.is_empty() {
        return StartPosition::FilePos {
            file: config.master_journal_name.clone(),
            pos: config.master_position.unwrap_or(4).max(4),
        };
    }
    if let Some(ms) = config.master_timestamp {
        return StartPosition::Time(ms / 1000);
    }
    StartPosition::Latest
}

/// The destination's `canal.instance.filter.*`, with the table lists
/// compiled; an invalid list is an error naming it.
pub fn canal_filters(config: &InstanceConfig) -> Result<crate::filters::CanalFilters, String> {
    Ok(crate::filters::CanalFilters {
        tables: TableFilter::new(&config.filter_regex).map_err(|e| e.to_string())?,
        black: TableFilter::new(&config.filter_black_regex).map_err(|e| e.to_string())?,
        query_ddl: config.filter_query_ddl,
        query_dml: config.filter_query_dml,
        query_dcl: config.filter_query_dcl,
        dml_insert: config.filter_dml_insert,
        dml_update: config.filter_dml_update,
        dml_delete: config.filter_dml_delete,
        transaction_entry: config.filter_transaction_entry,
        table_error: config.filter_table_error,
    })
}
