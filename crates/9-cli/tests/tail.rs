//! `sluice tail` against a private MariaDB: the JSON lines it prints.

use std::process::Command;

use anyhow::{Context, Result};
use serde_json::Value as Json;
use sluice_testkit::{MariaDb, MariaDbConfig};

fn tail(db: &MariaDb, extra: &[&str]) -> Result<(Vec<Json>, String)> {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["tail", "--source", &db.url(), "--stop-at-end"])
        .args(extra)
        .output()
        .context("running sluice tail")?;
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    assert!(out.status.success(), "sluice tail failed: {stderr}");
    let lines = String::from_utf8(out.stdout)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<Vec<Json>, _>>()?;
    Ok((lines, stderr))
}

#[test]
fn prints_committed_changes_with_boundaries() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec(
        "CREATE DATABASE shop; CREATE DATABASE other; \
         CREATE TABLE shop.orders (id INT PRIMARY KEY, item VARCHAR(20), qty INT, price DECIMAL(8,2)); \
         CREATE TABLE other.t (id INT PRIMARY KEY); \
         BEGIN; INSERT INTO shop.orders VALUES (1, 'apple', 3, 1.50), (2, 'pear', NULL, 0.99); \
         INSERT INTO other.t VALUES (7); COMMIT; \
         UPDATE shop.orders SET qty = 4 WHERE id = 1; \
         DELETE FROM shop.orders WHERE id = 2; \
         INSERT INTO other.t VALUES (8)",
    )?;
    let (lines, stderr) = tail(&db, &["--from", "earliest", "--filter", r"shop\..*"])?;
    assert!(stderr.contains("replication dump started"), "{stderr}");
    let kinds: Vec<&str> = lines
        .iter()
        .map(|l| l["type"].as_str().unwrap_or("?"))
        .collect();
    assert_eq!(
        kinds,
        [
            "ddl", // CREATE TABLE shop.orders (CREATE DATABASE names no table)
            "begin", "row", "row", "commit", // the two inserts, not other.t
            "begin", "row", "commit", //
            "begin", "row", "commit",
        ],
        "{lines:#?}"
    );
    assert!(lines[0]["sql"]
        .as_str()
        .unwrap_or("")
        .contains("shop.orders"));
    let first = &lines[2];
    assert_eq!(first["op"], "insert");
    assert_eq!(
        (first["db"].as_str(), first["table"].as_str()),
        (Some("shop"), Some("orders"))
    );
    assert_eq!(
        first["columns"],
        serde_json::json!(["id", "item", "qty", "price"])
    );
    assert_eq!(first["before"], Json::Null);
    assert_eq!(
        first["after"],
        serde_json::json!(["1", "apple", "3", "1.50"])
    );
    assert_eq!(
        lines[3]["after"],
        serde_json::json!(["2", "pear", null, "0.99"])
    );
    let upd = &lines[6];
    assert_eq!(upd["op"], "update");
    assert_eq!(upd["before"][2], "3");
    assert_eq!(upd["after"][2], "4");
    assert_eq!(lines[9]["op"], "delete");
    assert_eq!(lines[9]["after"], Json::Null);
    // Positions: the rows carry the transaction's GTID; a commit's position
    // is where the next transaction starts.
    let gtid = lines[1]["position"]["gtid"].as_str().context("gtid")?;
    assert_eq!(lines[2]["position"]["gtid"], gtid);
    assert_eq!(lines[4]["position"]["gtid"], gtid);
    assert_eq!(lines[4]["position"]["pos"], lines[5]["position"]["pos"]);
    assert!(lines[4]["gtid_state"].as_str().is_some());

    // Everything, without a filter: other.t's rows too.
    let (all, _) = tail(&db, &["--from", "earliest"])?;
    let rows = all.iter().filter(|l| l["type"] == "row").count();
    assert_eq!(rows, 6);

    // Resume from a commit position: only what follows.
    let resume = format!(
        "{}:{}",
        lines[7]["position"]["file"].as_str().unwrap_or(""),
        lines[7]["position"]["pos"]
    );
    let (rest, _) = tail(&db, &["--from", &resume])?;
    let rest_rows: Vec<&Json> = rest.iter().filter(|l| l["type"] == "row").collect();
    assert_eq!(rest_rows.len(), 2, "{rest:#?}");
    assert_eq!(rest_rows[0]["op"], "delete");
    Ok(())
}

#[test]
fn bad_arguments_say_what_is_wrong() -> Result<()> {
    for (args, want) in [
        (
            vec!["--source", "mysql://u@127.0.0.1:1", "--from", "yesterday"],
            "earliest, latest",
        ),
        (vec!["--source", "http://x", "--from", "latest"], "scheme"),
        (
            vec![
                "--source",
                "mysql://u@127.0.0.1:1",
                "--filter",
                "(",
                "--from",
                "latest",
            ],
            "--filter",
        ),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .arg("tail")
            .args(&args)
            .output()?;
        assert!(!out.status.success());
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(err.contains(want), "{args:?}: {err}");
    }
    Ok(())
}

/// MariaDB's default `binlog_row_metadata=NO_LOG` carries no names, no
/// signedness and no ENUM labels: the schema tracker supplies them, through
/// a DDL in the middle of the stream.
#[test]
fn names_and_types_come_from_the_tracked_schema() -> Result<()> {
    let db = MariaDb::start(
        MariaDbConfig::default().binlog_row_metadata(sluice_testkit::BinlogRowMetadata::NoLog),
    )?;
    db.exec(
        "CREATE DATABASE s; CREATE TABLE s.t (id INT UNSIGNED PRIMARY KEY, kind ENUM('x','y')); \
         INSERT INTO s.t VALUES (4294967295, 'y'); \
         ALTER TABLE s.t ADD COLUMN note VARCHAR(10) AFTER id; \
         INSERT INTO s.t VALUES (1, 'n', 'x')",
    )?;
    let (lines, stderr) = tail(&db, &["--from", "earliest"])?;
    let rows: Vec<&Json> = lines.iter().filter(|l| l["type"] == "row").collect();
    assert_eq!(rows.len(), 2, "{stderr}");
    assert_eq!(rows[0]["columns"], serde_json::json!(["id", "kind"]));
    assert_eq!(rows[0]["after"], serde_json::json!(["4294967295", "y"]));
    assert_eq!(
        rows[1]["columns"],
        serde_json::json!(["id", "note", "kind"])
    );
    assert_eq!(rows[1]["after"], serde_json::json!(["1", "n", "x"]));
    // Without the tracker the binlog alone knows neither names nor signedness.
    let (lines, _) = tail(&db, &["--from", "earliest", "--no-schema"])?;
    let first = lines
        .iter()
        .find(|l| l["type"] == "row")
        .context("a row line")?;
    assert_eq!(first["columns"], serde_json::json!(["@1", "@2"]));
    assert_eq!(first["after"], serde_json::json!(["-1", "2"]));
    Ok(())
}

/// A replication user with a password, for the tests that pass it outside
/// the URL.
const SECRET: &str = "Tail-S3cret-pw";

fn password_user(db: &MariaDb) -> Result<()> {
    db.exec(&format!(
        "CREATE USER 'repl'@'%' IDENTIFIED BY '{SECRET}'; \
         GRANT REPLICATION SLAVE, BINLOG MONITOR, SELECT ON *.* TO 'repl'@'%'; \
         CREATE DATABASE shop; CREATE TABLE shop.t (id INT PRIMARY KEY); \
         INSERT INTO shop.t VALUES (1)"
    ))
}

/// Runs `sluice tail` (following, not stopping at the end) with a source URL
/// that holds no password, configured by `setup`; waits for its first row
/// line, checks that the password is not in the process's command line, and
/// stops it.
fn tail_without_password_in_url(db: &MariaDb, setup: impl FnOnce(&mut Command)) -> Result<Json> {
    use std::io::BufRead;
    let url = format!("mysql://repl@127.0.0.1:{}", db.port());
    let mut cmd = Command::new(env!("CARGO_BIN_EXE_sluice"));
    cmd.args(["tail", "--source", &url, "--from", "earliest"])
        .env_remove("SLUICE_SOURCE_PASSWORD")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    setup(&mut cmd);
    let mut child = cmd.spawn().context("starting sluice tail")?;
    let stdout = child.stdout.take().context("the child's stdout")?;
    let first_row = std::io::BufReader::new(stdout)
        .lines()
        .map_while(Result::ok)
        .filter_map(|l| serde_json::from_str::<Json>(&l).ok())
        .find(|l| l["type"] == "row");
    // Read while it streams (right after the spawn it may not have exec'd yet).
    let cmdline = std::fs::read(format!("/proc/{}/cmdline", child.id()))?;
    let _ = child.kill();
    let out = child.wait_with_output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    let row = first_row.with_context(|| format!("no row line; stderr: {stderr}"))?;
    let cmdline = String::from_utf8_lossy(&cmdline);
    assert!(
        !cmdline.contains(SECRET),
        "the password is in /proc/PID/cmdline: {cmdline:?}"
    );
    assert!(cmdline.contains(&url), "{cmdline:?}");
    assert!(!stderr.contains("visible to"), "{stderr}");
    Ok(row)
}

#[test]
fn the_password_comes_from_the_environment_not_the_command_line() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    password_user(&db)?;
    let row = tail_without_password_in_url(&db, |cmd| {
        cmd.env("SLUICE_SOURCE_PASSWORD", SECRET);
    })?;
    assert_eq!(row["after"], serde_json::json!(["1"]));
    Ok(())
}

#[test]
fn the_password_comes_from_a_file() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    password_user(&db)?;
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("source-password");
    // A trailing newline (as `echo` writes) is not part of the password.
    std::fs::write(&file, format!("{SECRET}\n"))?;
    let row = tail_without_password_in_url(&db, |cmd| {
        cmd.arg("--password-file").arg(&file);
    })?;
    assert_eq!(row["after"], serde_json::json!(["1"]));
    Ok(())
}

#[test]
fn password_sources_conflict_or_are_unreadable_and_a_url_password_is_warned_about() -> Result<()> {
    let run = |args: &[&str], env: Option<&str>| -> Result<(bool, String)> {
        let mut cmd = Command::new(env!("CARGO_BIN_EXE_sluice"));
        cmd.arg("tail")
            .args(args)
            .env_remove("SLUICE_SOURCE_PASSWORD");
        if let Some(v) = env {
            cmd.env("SLUICE_SOURCE_PASSWORD", v);
        }
        let out = cmd.output()?;
        Ok((
            out.status.success(),
            String::from_utf8_lossy(&out.stderr).into_owned(),
        ))
    };
    let dir = tempfile::tempdir()?;
    let file = dir.path().join("pw");
    std::fs::write(&file, "x")?;
    let file = file.to_string_lossy().into_owned();
    let missing = dir.path().join("nope").to_string_lossy().into_owned();
    // Port 1: nothing listens, so a run that gets past the arguments fails
    // quickly at the connection.
    let (ok, err) = run(
        &[
            "--source",
            "mysql://u@127.0.0.1:1",
            "--password-file",
            &file,
        ],
        Some("y"),
    )?;
    assert!(
        !ok && err.contains("SLUICE_SOURCE_PASSWORD") && err.contains("--password-file"),
        "{err}"
    );
    let (ok, err) = run(
        &[
            "--source",
            "mysql://u:pw@127.0.0.1:1",
            "--password-file",
            &file,
        ],
        None,
    )?;
    assert!(!ok && err.contains("--password-file"), "{err}");
    assert!(!err.contains(":pw@"), "{err}");
    let (ok, err) = run(
        &[
            "--source",
            "mysql://u@127.0.0.1:1",
            "--password-file",
            &missing,
        ],
        None,
    )?;
    assert!(!ok && err.contains(&missing), "{err}");
    let (ok, err) = run(&["--source", "mysql://u:pw@127.0.0.1:1"], None)?;
    assert!(!ok, "{err}");
    assert!(
        err.contains("visible to"),
        "no warning about the URL's password: {err}"
    );
    Ok(())
}

#[test]
fn a_compressed_event_over_max_event_size_stops_tail_with_its_position() -> Result<()> {
    let db = MariaDb::start(
        MariaDbConfig::default()
            .log_bin_compress(true)
            .arg("--max-allowed-packet=64M"),
    )?;
    db.exec(
        "CREATE DATABASE d; CREATE TABLE d.t (id INT PRIMARY KEY, b LONGBLOB); \
         INSERT INTO d.t VALUES (1, REPEAT('a', 2 << 20))",
    )?;
    // Within the default ceiling: the row is printed.
    let (lines, _) = tail(&db, &["--from", "earliest", "--no-schema"])?;
    assert!(lines.iter().any(|l| l["type"] == "row"), "{lines:#?}");

    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["tail", "--source", &db.url(), "--stop-at-end"])
        .args([
            "--from",
            "earliest",
            "--no-schema",
            "--max-event-size",
            "1048576",
        ])
        .output()
        .context("running sluice tail")?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(stderr.contains("over the 1048576-byte ceiling"), "{stderr}");
    assert!(
        stderr.contains("binlog.000001:") && stderr.contains("COMPRESSED_EVENT"),
        "{stderr}"
    );
    assert!(
        !String::from_utf8_lossy(&out.stdout).contains("\"row\""),
        "no row of the refused event is printed"
    );
    Ok(())
}

/// The bytes `sluice tail --stop-at-end` prints from the start with `extra`.
fn tail_bytes(db: &MariaDb, extra: &[&str]) -> Result<Vec<u8>> {
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args([
            "tail",
            "--source",
            &db.url(),
            "--stop-at-end",
            "--from",
            "earliest",
        ])
        .args(extra)
        .output()
        .context("running sluice tail")?;
    assert!(
        out.status.success(),
        "sluice tail failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    Ok(out.stdout)
}

#[test]
fn encoding_threads_print_the_bytes_one_thread_prints() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec(
        "CREATE DATABASE shop; CREATE DATABASE other; \
         CREATE TABLE shop.note (id INT PRIMARY KEY, body VARCHAR(300), n BIGINT); \
         CREATE TABLE other.t (id INT PRIMARY KEY)",
    )?;
    // Enough transactions over enough bytes to make several chunks, with
    // DDL and transactions the filter leaves out between them.
    for batch in 0..24 {
        let base = batch * 200;
        db.exec(&format!(
            "BEGIN; \
             INSERT INTO shop.note (id, body, n) SELECT {base} + seq, REPEAT(CHAR(65 + seq % 26), 250), seq * 7 \
               FROM shop.seq_1_to_200; \
             INSERT INTO other.t VALUES ({batch}); COMMIT; \
             INSERT INTO other.t VALUES ({batch} + 1000)"
        ))?;
        if batch % 8 == 3 {
            db.exec(&format!(
                "ALTER TABLE shop.note ADD COLUMN c{batch} INT DEFAULT {batch}"
            ))?;
        }
    }
    db.exec(
        "UPDATE shop.note SET n = n + 1 WHERE id % 3 = 0; DELETE FROM shop.note WHERE id % 5 = 0",
    )?;

    let one = tail_bytes(&db, &["--threads", "0"])?;
    let rows = one
        .split(|b| *b == b'\n')
        .filter(|l| l.starts_with(b"{\"type\":\"row\""))
        .count();
    assert_eq!(rows, 24 * 200 + 24 * 200 / 3 + 24 * 200 / 5 + 24 * 2);
    for threads in ["1", "3"] {
        let many = tail_bytes(&db, &["--threads", threads])?;
        assert!(many == one, "--threads {threads} printed other bytes");
    }
    let one = tail_bytes(&db, &["--threads", "0", "--filter", r"shop\..*"])?;
    let many = tail_bytes(&db, &["--threads", "2", "--filter", r"shop\..*"])?;
    assert!(
        many == one,
        "with a filter, --threads 2 printed other bytes"
    );
    assert!(one.len() > 1 << 20, "only {} bytes", one.len());
    Ok(())
}

#[test]
fn exclude_columns_leaves_them_out_of_every_line() -> Result<()> {
    let db = MariaDb::start(MariaDbConfig::default())?;
    db.exec(
        "CREATE DATABASE shop; \
         CREATE TABLE shop.users (id INT PRIMARY KEY, name VARCHAR(20), email VARCHAR(40), phone VARCHAR(20)); \
         CREATE TABLE shop.orders (id INT PRIMARY KEY, email VARCHAR(40)); \
         INSERT INTO shop.users VALUES (1, 'alice', 'alice@example.org', '555-0101'); \
         UPDATE shop.users SET email = 'alicia@example.org' WHERE id = 1; \
         INSERT INTO shop.orders VALUES (7, 'kept@example.org'); \
         DELETE FROM shop.users WHERE id = 1",
    )?;
    for threads in ["0", "2"] {
        let (lines, _) = tail(
            &db,
            &[
                "--from",
                "earliest",
                "--threads",
                threads,
                "--exclude-columns",
                "SHOP.users:Email/phone",
            ],
        )?;
        let users: Vec<&Json> = lines
            .iter()
            .filter(|l| l["type"] == "row" && l["table"] == "users")
            .collect();
        // The update of the hidden email alone is still printed.
        let ops: Vec<&str> = users
            .iter()
            .map(|l| l["op"].as_str().unwrap_or("?"))
            .collect();
        assert_eq!(ops, ["insert", "update", "delete"]);
        for l in &users {
            assert_eq!(l["columns"], serde_json::json!(["id", "name"]));
            let text = l.to_string();
            assert!(
                !text.contains("example.org") && !text.contains("555-"),
                "{text}"
            );
        }
        assert_eq!(users[0]["after"], serde_json::json!(["1", "alice"]));
        assert_eq!(users[1]["before"], users[1]["after"]);
        // Another table's column of the same name is untouched.
        let order = lines
            .iter()
            .find(|l| l["type"] == "row" && l["table"] == "orders")
            .context("the order row")?;
        assert_eq!(order["after"], serde_json::json!(["7", "kept@example.org"]));
    }

    // A white list: only its columns, the key too only when listed.
    let (lines, _) = tail(&db, &["--from", "earliest", "--columns", "shop.users:name"])?;
    let first = lines
        .iter()
        .find(|l| l["type"] == "row" && l["table"] == "users")
        .context("a users row")?;
    assert_eq!(first["columns"], serde_json::json!(["name"]));
    assert_eq!(first["after"], serde_json::json!(["alice"]));

    // A wrong rule is an error naming the flag.
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["tail", "--source", &db.url(), "--stop-at-end"])
        .args(["--exclude-columns", "shop.users"])
        .output()?;
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(
        stderr.contains("--exclude-columns") && stderr.contains("shop.users"),
        "{stderr}"
    );
    Ok(())
}
