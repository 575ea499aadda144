//! Private, throwaway MariaDB servers for Sluice's tests.
//!
//! Sluice reads MySQL/MariaDB binary logs, so most of its tests need a real
//! server that writes real binlogs. This crate starts one per test, in a fresh
//! temporary datadir, on a free port on 127.0.0.1 and its own Unix socket, with
//! the binlog settings the test asks for ([`MariaDbConfig`]). It never touches a
//! server already running on the machine (it uses `--no-defaults`, so nothing in
//! `/etc/mysql` applies).
//!
//! ```no_run
//! use sluice_testkit::{BinlogRowImage, MariaDb, MariaDbConfig};
//!
//! # fn main() -> anyhow::Result<()> {
//! let db = MariaDb::start(MariaDbConfig::default().binlog_row_image(BinlogRowImage::Minimal))?;
//! db.exec("CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY, name TEXT)")?;
//! db.exec("INSERT INTO shop.t VALUES (1, 'a'), (2, NULL)")?;
//! let rows = db.query("SELECT id, name FROM shop.t ORDER BY id")?;
//! assert_eq!(rows[1], vec![Some("2".to_string()), None]);
//! let (file, pos) = db.current_binlog_position()?;
//! println!("binlog at {file}:{pos}, files {:?}", db.datadir());
//! # Ok(())
//! # }
//! ```
//!
//! Needs `mariadbd` and `mariadb-install-db` (Debian: `apt-get install mariadb-server`).
//! A server starts in a fraction of a second: `mariadb-install-db` runs once per
//! machine into a cached template datadir under the temp dir, and each instance
//! gets a copy (see `SLUICE_TESTKIT_NO_TEMPLATE` below).
//!
//! The [`zookeeper`] module starts ZooKeeper servers the same way
//! ([`ZooKeeperEnsemble`]), the [`kafka`] module a Kafka-compatible broker
//! ([`kafka::Tansu`]), the [`rabbitmq`] module RabbitMQ brokers
//! ([`RabbitMq`]), the [`redis`] and [`nats`] modules Redis and NATS
//! JetStream servers; the [`python`] module makes virtualenvs with the
//! official Canal Python client or a Kafka client for tests that run them
//! against Sluice; the [`canal_admin`] module serves a stand-in for
//! canal-admin's configuration API.
//!
//! Cleanup: dropping a [`MariaDb`] stops the server and deletes its datadir. If the
//! test process dies instead, the kernel kills its servers (Linux
//! `PR_SET_PDEATHSIG`); their datadirs (`$TMPDIR/sluice-mariadb-*`) stay behind.
//!
//! Environment:
//! - `SLUICE_KEEP_TEST_DB=1`: keep datadirs (binlogs, `error.log`) after the
//!   test and print their paths.
//! - `SLUICE_TESTKIT_NO_TEMPLATE=1`: run `mariadb-install-db` for every
//!   instance instead of copying the cached template.
//! - `TMPDIR`: where datadirs and the template go; keep it short (Unix socket
//!   paths are limited to about 100 bytes).

pub mod bench_binlog;
pub mod bench_docs;
pub mod canal_admin;
mod config;
pub mod corpus;
mod daemon;
pub mod java;
pub mod kafka;
pub mod nats;
pub mod postgres;
mod process;
pub mod python;
pub mod rabbitmq;
pub mod redis;
mod server;
mod template;
mod util;
pub mod zookeeper;

pub use config::{BinlogChecksum, BinlogFormat, BinlogRowImage, BinlogRowMetadata, MariaDbConfig};
pub use rabbitmq::{RabbitMq, RabbitMqConfig};
pub use server::MariaDb;
pub use util::{find_free_port, keep_test_dirs, TempDirGuard, KEEP_ENV};
pub use zookeeper::ZooKeeperEnsemble;

/// The `mysql` client crate this kit connects with, for [`MariaDb::connect`]'s
/// connections.
pub use mysql;
