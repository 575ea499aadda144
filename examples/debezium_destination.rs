//! One destination embedded in a program, every row change printed as
//! Debezium JSON: one line per record, `{"destination":…,"key":…,"value":…}`,
//! with key and value as the Debezium engine's `Json` format gives them
//! (here with `converter.schemas.enable=false`, payload only).
//!
//! - `cargo run -p sluice-examples --example debezium_destination -- CONF_DIR DESTINATION`
//!   reads a Canal configuration folder (`canal.properties`,
//!   `DESTINATION/instance.properties`) and prints the destination's changes
//!   from its configured start to the end of the binlog.
//! - Without arguments it starts a private MariaDB (binlog on, in a
//!   temporary folder, on a free port), writes a few rows into `shop.orders`
//!   and prints their change events.

use std::error::Error;
use std::io::Write;
use std::path::Path;

use sluice_server::change_stream::{self, FnSink};
use sluice_server::encode::debezium::{DebeziumEncoder, DebeziumOptions, DebeziumRecord};

/// Prints the change events of `destination` (configured in `conf_dir`) up
/// to the end of its binlog; returns how many records were printed.
async fn print_debezium(
    conf_dir: &Path,
    destination: &str,
    out: &mut impl Write,
) -> Result<usize, Box<dyn Error>> {
    let mut stream = change_stream::open(conf_dir, destination)?;
    stream.source_mut().stop_at_end = true;
    let mut options = DebeziumOptions::new("sluice");
    options.set("converter.schemas.enable", "false")?;
    let mut encoder = DebeziumEncoder::new(options);
    let mut printed = 0;
    let mut print = FnSink(|records: &mut Vec<DebeziumRecord>| -> std::io::Result<()> {
        for r in records.drain(..) {
            let (key, value) = (r.key.as_deref(), r.value.as_deref());
            writeln!(
                out,
                r#"{{"destination":"{}","key":{},"value":{}}}"#,
                r.destination,
                key.unwrap_or("null"),
                value.unwrap_or("null"),
            )?;
            printed += 1;
        }
        out.flush()
    });
    stream.run(&mut encoder, &mut print).await?;
    Ok(printed)
}

/// A private MariaDB with a few row changes in its binlog, and a
/// configuration folder whose destination `example` starts just before them.
fn private_mariadb(dir: &Path) -> Result<sluice_testkit::MariaDb, Box<dyn Error>> {
    let db = sluice_testkit::MariaDb::start(
        sluice_testkit::MariaDbConfig::default().arg("--default-time-zone=+00:00"),
    )?;
    db.exec(
        "CREATE DATABASE shop; CREATE TABLE shop.orders (id INT PRIMARY KEY, \
         customer VARCHAR(32), total DECIMAL(10,2), placed DATETIME)",
    )?;
    let (file, pos) = db.current_binlog_position()?;
    db.exec(
        "INSERT INTO shop.orders VALUES (1, 'Anne', 12.34, '2018-06-20 06:37:03'), \
         (2, 'Bob', -12.34, '2024-05-01 00:00:00'); \
         UPDATE shop.orders SET customer = 'Anne Marie' WHERE id = 1; \
         DELETE FROM shop.orders WHERE id = 2",
    )?;
    std::fs::write(
        dir.join("canal.properties"),
        format!(
            "canal.destinations = example\ncanal.file.data.dir = {}\n",
            dir.join("data").display()
        ),
    )?;
    std::fs::create_dir_all(dir.join("example"))?;
    std::fs::write(
        dir.join("example/instance.properties"),
        format!(
            "canal.instance.master.address = 127.0.0.1:{}\n\
             canal.instance.dbUsername = root\n\
             canal.instance.dbPassword =\n\
             canal.instance.master.journal.name = {file}\n\
             canal.instance.master.position = {pos}\n",
            db.port()
        ),
    )?;
    Ok(db)
}

#[cfg_attr(test, allow(dead_code))]
#[tokio::main]
async fn main() -> Result<(), Box<dyn Error>> {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let stdout = std::io::stdout();
    let mut out = stdout.lock();
    match args.as_slice() {
        [conf, destination] => {
            print_debezium(Path::new(conf), destination, &mut out).await?;
        }
        [] => {
            let dir = tempfile::tempdir()?;
            let _db = private_mariadb(dir.path())?;
            print_debezium(dir.path(), "example", &mut out).await?;
        }
        _ => return Err("usage: debezium_destination [CONF_DIR DESTINATION]".into()),
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The example's own run: every row change of the private MariaDB comes
    /// out as a Debezium record, with Debezium's value encodings.
    #[tokio::test(flavor = "multi_thread", worker_threads = 2)]
    async fn prints_every_row_change_as_debezium_json() -> Result<(), Box<dyn Error>> {
        let dir = tempfile::tempdir()?;
        let _db = private_mariadb(dir.path())?;
        let mut out = Vec::new();
        let printed = print_debezium(dir.path(), "example", &mut out).await?;
        let lines: Vec<serde_json::Value> = String::from_utf8(out)?
            .lines()
            .map(serde_json::from_str)
            .collect::<Result<_, _>>()?;
        // Two inserts, an update, a delete and its tombstone.
        assert_eq!(printed, 5);
        assert_eq!(lines.len(), 5);
        let ops: Vec<&str> = lines
            .iter()
            .map(|l| l["value"]["op"].as_str().unwrap_or("tombstone"))
            .collect();
        assert_eq!(ops, ["c", "c", "u", "d", "tombstone"]);
        for l in &lines {
            assert_eq!(l["destination"], "sluice.shop.orders");
        }
        let first = &lines[0];
        assert_eq!(first["key"], serde_json::json!({"id": 1}));
        let after = &first["value"]["after"];
        assert_eq!(after["total"], "BNI=", "DECIMAL 12.34 as Debezium's bytes");
        assert_eq!(after["placed"], 1529476623000i64, "DATETIME as epoch ms");
        assert_eq!(after["customer"], "Anne");
        assert_eq!(
            lines[1]["value"]["after"]["total"], "+y4=",
            "DECIMAL -12.34"
        );
        assert_eq!(lines[2]["value"]["before"]["customer"], "Anne");
        assert_eq!(lines[2]["value"]["after"]["customer"], "Anne Marie");
        assert_eq!(lines[3]["value"]["before"]["id"], 2);
        assert!(lines[3]["value"]["after"].is_null());
        assert_eq!(lines[4]["key"], serde_json::json!({"id": 2}));
        let source = &first["value"]["source"];
        assert_eq!(source["db"], "shop");
        assert_eq!(source["table"], "orders");
        assert_eq!(source["connector"], "mysql");
        assert!(source["file"].as_str().is_some_and(|f| !f.is_empty()));
        Ok(())
    }
}
