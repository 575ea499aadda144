//! `sluice binlog decode` on unusual input: decompression bombs (MariaDB
//! binlogs whose compressed QUERY event inflates to 1 GiB), which must stop
//! it with an error naming the file and offset, in bounded memory, never
//! abort; and partial JSON updates without their document, which are valid
//! and printed as their diffs.

use std::path::Path;
use std::process::{Command, Output};

use anyhow::{Context, Result};

const GIB: u64 = 1 << 30;
/// Where the compressed event starts: magic (4) + the FDE below.
const BOMB_OFFSET: u64 = 4 + FDE_LEN as u64;
const FDE_LEN: usize = 19 + 2 + 50 + 4 + 1 + POST_HEADER_LENS + 5;
const POST_HEADER_LENS: usize = 164;
const MARIADB_QUERY_COMPRESSED: u8 = 165;

/// An event: the v4 common header, then the body (no checksum).
fn event(type_code: u8, next_pos: u64, body: &[u8]) -> Vec<u8> {
    let size = 19 + body.len();
    let mut e = Vec::with_capacity(size);
    e.extend_from_slice(&1_700_000_000u32.to_le_bytes());
    e.push(type_code);
    e.extend_from_slice(&1u32.to_le_bytes());
    e.extend_from_slice(&(size as u32).to_le_bytes());
    e.extend_from_slice(&((next_pos + size as u64) as u32).to_le_bytes());
    e.extend_from_slice(&0u16.to_le_bytes());
    e.extend_from_slice(body);
    e
}

/// A MariaDB 10.11 FORMAT_DESCRIPTION_EVENT announcing no checksums.
fn format_description() -> Vec<u8> {
    let mut body = Vec::new();
    body.extend_from_slice(&4u16.to_le_bytes());
    let mut version = [0u8; 50];
    version[..20].copy_from_slice(b"10.11.6-MariaDB-log\0");
    body.extend_from_slice(&version);
    body.extend_from_slice(&0u32.to_le_bytes());
    body.push(19);
    let mut lens = [0u8; POST_HEADER_LENS];
    lens[1] = 13; // QUERY_EVENT
    body.extend_from_slice(&lens);
    body.push(0); // checksum algorithm: none
    body.extend_from_slice(&[0; 4]);
    let e = event(15, 4, &body);
    assert_eq!(e.len(), FDE_LEN);
    e
}

/// A zlib stream of `n` bytes `c` (n >= 1), written by hand so that a
/// gigabyte costs no time to make: one fixed-Huffman block of a literal,
/// then matches of 258 bytes at distance 1, then literals.
fn zlib_repeat(c: u8, n: u64) -> Vec<u8> {
    struct Bits {
        out: Vec<u8>,
        acc: u64,
        len: u32,
    }
    impl Bits {
        /// `count` bits of `v`, least significant first.
        fn put(&mut self, v: u64, count: u32) {
            self.acc |= v << self.len;
            self.len += count;
            while self.len >= 8 {
                self.out.push(self.acc as u8);
                self.acc >>= 8;
                self.len -= 8;
            }
        }
        /// A Huffman code, most significant bit first.
        fn code(&mut self, code: u64, count: u32) {
            let reversed = code.reverse_bits() >> (64 - count);
            self.put(reversed, count);
        }
    }
    let matches = (n - 1) / 258;
    let tail = (n - 1) % 258;
    let mut b = Bits {
        out: vec![0x78, 0x01],
        acc: 0,
        len: 0,
    };
    b.put(1, 1); // final block
    b.put(1, 2); // fixed Huffman codes
    let literal = |b: &mut Bits| {
        if c < 144 {
            b.code(0x30 + c as u64, 8)
        } else {
            b.code(0x190 + (c - 144) as u64, 9)
        }
    };
    literal(&mut b);
    for _ in 0..matches {
        b.code(0xc5, 8); // length 258 (code 285)
        b.code(0, 5); // distance 1
    }
    for _ in 0..tail {
        literal(&mut b);
    }
    b.code(0, 7); // end of block
    if b.len > 0 {
        b.put(0, 8 - b.len);
    }
    // Adler-32: a = 1 + n·c, b = n + c·n(n+1)/2, both modulo 65521.
    let (n128, c128) = (n as u128, c as u128);
    let a = (1 + n128 * c128) % 65521;
    let sum = (n128 + c128 * n128 * (n128 + 1) / 2) % 65521;
    let adler = ((sum as u32) << 16) | a as u32;
    b.out.extend_from_slice(&adler.to_be_bytes());
    b.out
}

/// A binlog whose second event is a compressed QUERY event declaring
/// `declared` bytes of SQL and inflating to `actual` zero bytes.
fn write_bomb(path: &Path, declared: u64, actual: u64) -> Result<()> {
    write_compressed_query(path, declared, 0, actual)
}

/// A binlog whose second event is a compressed QUERY event declaring
/// `declared` bytes of SQL and inflating to `actual` bytes `c`.
fn write_compressed_query(path: &Path, declared: u64, c: u8, actual: u64) -> Result<()> {
    let mut file = b"\xfebin".to_vec();
    file.extend(format_description());
    let mut body = Vec::new();
    body.extend_from_slice(&7u32.to_le_bytes()); // thread id
    body.extend_from_slice(&0u32.to_le_bytes()); // exec time
    body.push(1); // schema length
    body.extend_from_slice(&0u16.to_le_bytes()); // error code
    body.extend_from_slice(&0u16.to_le_bytes()); // status vars length
    body.extend_from_slice(b"d\0");
    body.push(0x84);
    body.extend_from_slice(&(declared as u32).to_be_bytes());
    body.extend(zlib_repeat(c, actual));
    file.extend(event(MARIADB_QUERY_COMPRESSED, BOMB_OFFSET, &body));
    std::fs::write(path, file).with_context(|| format!("writing {}", path.display()))
}

/// Runs `sluice binlog decode` with its address space limited to `limit_mib`,
/// so that a decoder allocating anything near the bomb's size fails.
fn decode_limited(limit_mib: u64, args: &[&str]) -> Result<Output> {
    let mut script = format!(
        "ulimit -v {} && exec \"$0\" binlog decode",
        limit_mib * 1024
    );
    for i in 1..=args.len() {
        script.push_str(&format!(" \"${i}\""));
    }
    Command::new("bash")
        .arg("-c")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_sluice"))
        .args(args)
        .output()
        .context("running sluice binlog decode")
}

fn check_refused(out: &Output, file: &str, wanted: &str) {
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(
        out.status.code(),
        Some(1),
        "sluice must exit with an error, not abort: {:?}\n{stderr}",
        out.status
    );
    let at = format!("{file}:{BOMB_OFFSET}: MARIADB_QUERY_COMPRESSED_EVENT");
    assert!(stderr.contains(&at), "no {at:?} in: {stderr}");
    assert!(stderr.contains(wanted), "no {wanted:?} in: {stderr}");
    // The format description before the bomb was printed.
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
}

#[test]
fn a_gigabyte_bomb_is_refused_by_its_declared_size() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bomb.000001");
    write_bomb(&path, GIB, GIB)?;
    assert!(std::fs::metadata(&path)?.len() < 8 << 20);
    let file = path.to_string_lossy().into_owned();

    // The default ceiling (256 MiB) refuses the 1 GiB it declares, before
    // inflating anything: 512 MiB of address space is plenty.
    let out = decode_limited(512, &[&file])?;
    check_refused(&out, "bomb.000001", "over the 268435456-byte ceiling");
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("--max-event-size"),
        "the error says what to do"
    );

    // So does a lower ceiling given on the command line.
    let out = decode_limited(512, &["--max-event-size", "1048576", &file])?;
    check_refused(&out, "bomb.000001", "over the 1048576-byte ceiling");
    Ok(())
}

#[test]
fn a_bomb_declaring_a_small_size_stops_at_that_size() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("bomb.000002");
    // 100 bytes declared, 1 GiB inside.
    write_bomb(&path, 100, GIB)?;
    let file = path.to_string_lossy().into_owned();
    let out = decode_limited(512, &[&file])?;
    check_refused(&out, "bomb.000002", "more than the 100 bytes it declares");
    Ok(())
}

#[test]
fn an_event_within_the_ceiling_decodes() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("big.000001");
    // 3 MiB of (zero-byte) SQL: fine by default, refused under a 2 MiB ceiling.
    write_bomb(&path, 3 << 20, 3 << 20)?;
    let file = path.to_string_lossy().into_owned();
    let out = decode_limited(512, &[&file])?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let stdout = String::from_utf8(out.stdout)?;
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(lines.len(), 2);
    assert_eq!(lines[1]["event"], "MARIADB_QUERY_COMPRESSED_EVENT");
    assert_eq!(lines[1]["sql"].as_str().map(str::len), Some(3 << 20));

    let out = decode_limited(512, &["--max-event-size", "2097152", &file])?;
    check_refused(&out, "big.000001", "over the 2097152-byte ceiling");
    Ok(())
}

/// A file of the binlog corpus (`testdata/binlogs`).
fn corpus_file(rel: &str) -> std::path::PathBuf {
    sluice_testkit::corpus::corpus_dir().join(rel)
}

#[test]
fn partial_json_updates_without_their_document_print_as_diffs() -> Result<()> {
    let path = corpus_file("rust_mysql_common/json.binlog.000001");
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["binlog", "decode"])
        .arg(&path)
        .output()
        .context("running sluice binlog decode")?;
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let lines: Vec<serde_json::Value> = String::from_utf8(out.stdout)?
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    assert_eq!(lines.len(), 36);
    let partial = lines
        .iter()
        .find(|l| l["pos"] == 3750)
        .context("no event at 3750")?;
    assert_eq!(partial["event"], "PARTIAL_UPDATE_ROWS_EVENT");
    let rows = partial["rows"].as_array().context("rows")?;
    assert_eq!(rows.len(), 6);
    assert_eq!(
        rows[0]["after"],
        serde_json::json!([null, "JSON_REPLACE(@2, '$.age', 26)", "Joe", "26"])
    );
    assert_eq!(rows[0]["partial_after"], serde_json::json!([1]));
    assert_eq!(rows[0]["absent_after"], serde_json::json!([0]));
    assert!(rows[0].get("partial_before").is_none());
    Ok(())
}

/// Runs `sluice` with its output thrown away; the exit status and the peak
/// resident memory (bytes) of the process.
fn run_measured(args: &[&str]) -> Result<(i32, u64)> {
    let child = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(args)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null())
        .spawn()
        .context("starting sluice")?;
    let mut status = 0;
    // SAFETY: plain wait4 on our own child, with valid out-pointers.
    let mut usage: libc::rusage = unsafe { std::mem::zeroed() };
    let pid = unsafe { libc::wait4(child.id() as i32, &mut status, 0, &mut usage) };
    anyhow::ensure!(pid > 0, "wait4: {}", std::io::Error::last_os_error());
    Ok((libc::WEXITSTATUS(status), usage.ru_maxrss as u64 * 1024))
}

#[test]
fn a_big_value_is_written_without_a_copy_of_it() -> Result<()> {
    let dir = tempfile::tempdir()?;
    let path = dir.path().join("big.000002");
    const SQL: u64 = 96 << 20;
    write_compressed_query(&path, SQL, b'a', SQL)?;
    let file = path.to_string_lossy().into_owned();
    let (code, peak) = run_measured(&["binlog", "decode", &file])?;
    assert_eq!(code, 0);
    // What the process takes for a small statement (its code and runtime,
    // which grow with the binary), measured rather than assumed.
    let small = dir.path().join("small.000002");
    write_compressed_query(&small, 1024, b'a', 1024)?;
    let (code, base) = run_measured(&["binlog", "decode", &small.to_string_lossy()])?;
    assert_eq!(code, 0);
    // The inflated event is in memory once; its rendering is not (a copy
    // would take another SQL bytes).
    let budget = base + SQL + SQL / 2;
    assert!(
        peak < budget,
        "peak RSS {} MiB for a {} MiB statement (budget {} MiB: {} MiB for a 1 KiB one, plus the statement once and half of it)",
        peak >> 20,
        SQL >> 20,
        budget >> 20,
        base >> 20
    );

    // What it wrote is the statement, whole.
    let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
        .args(["binlog", "decode", &file])
        .output()?;
    let stdout = String::from_utf8(out.stdout)?;
    let lines: Vec<serde_json::Value> = stdout
        .lines()
        .map(serde_json::from_str)
        .collect::<Result<_, _>>()?;
    let sql = lines[1]["sql"].as_str().context("sql")?;
    assert_eq!(sql.len() as u64, SQL);
    assert!(sql.bytes().all(|b| b == b'a'));
    assert_eq!(lines[1]["thread_id"], 7);
    assert_eq!(lines[1]["error_code"], 0);
    Ok(())
}

#[test]
fn big_rows_events_are_written_as_they_render() -> Result<()> {
    use sluice_testkit::{MariaDb, MariaDbConfig};
    let db = MariaDb::start(MariaDbConfig::default().arg("--max-allowed-packet=64M"))?;
    // A rows event of about 5 MiB: over the size written without a first
    // rendering pass into memory.
    db.exec(
        "CREATE DATABASE d; \
         CREATE TABLE d.t (id INT PRIMARY KEY, txt LONGTEXT CHARACTER SET utf8mb4, bin LONGBLOB); \
         INSERT INTO d.t VALUES (1, REPEAT('é\"\\n', 1 << 20), REPEAT(x'00ff', 1 << 20)), \
         (2, 'small', NULL)",
    )?;
    db.flush_binlogs()?;
    let mut rows = Vec::new();
    for path in db.binlog_files()? {
        let out = Command::new(env!("CARGO_BIN_EXE_sluice"))
            .args(["binlog", "decode"])
            .arg(&path)
            .output()?;
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        for line in String::from_utf8(out.stdout)?.lines() {
            let v: serde_json::Value = serde_json::from_str(line)?;
            if v["event"] == "WRITE_ROWS_EVENT_V1" && v["table"] == "t" {
                rows.extend(v["rows"].as_array().cloned().unwrap_or_default());
            }
        }
    }
    assert_eq!(rows.len(), 2);
    let after = &rows[0]["after"];
    assert_eq!(after[0], "1");
    assert_eq!(after[1].as_str(), Some("é\"\n".repeat(1 << 20).as_str()));
    assert_eq!(after[2].as_str().map(|s| s.len()), Some(2 + 4 * (1 << 20)));
    assert_eq!(after[2].as_str().map(|s| &s[..10]), Some("0x00ff00ff"));
    assert_eq!(rows[1]["after"], serde_json::json!(["2", "small", null]));
    Ok(())
}
