//! Java is the oracle for Canal's partition placement: a small Java
//! program, compiled and run here, prints `String.hashCode` and Canal's
//! partition arithmetic (`Math.abs(Math.abs(h) % n)`, the database hash
//! XOR the hash of each column value, NULL as `""`) for many inputs, and
//! the Rust side must agree on every one: the hash functions directly, and
//! the partitions the router gives rows in FlatMessage and protobuf records.

use std::path::Path;
use std::process::Command;

use prost::Message;
use sluice_canal::proto::{Column, Entry, EntryType, EventType, Header, RowChange, RowData};
use sluice_encode::mq::hash::{java_partition, java_string_hash};
use sluice_encode::mq::{MqMessage, MqRouter, RouteConfig};

const JAVA: &str = r#"
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;

public class CanalHash {
    static String unhex(String s) {
        byte[] b = new byte[s.length() / 2];
        for (int i = 0; i < b.length; i++) {
            b[i] = (byte) Integer.parseInt(s.substring(2 * i, 2 * i + 2), 16);
        }
        return new String(b, StandardCharsets.UTF_8);
    }

    // MQMessageUtils.messagePartition: Math.abs may stay negative, so twice.
    static int partition(int hashCode, int partitionsNum) {
        int pkHash = Math.abs(hashCode) % partitionsNum;
        return Math.abs(pkHash);
    }

    public static void main(String[] args) throws Exception {
        String[] nsText = args[2].split(",");
        int[] ns = new int[nsText.length];
        for (int i = 0; i < ns.length; i++) {
            ns[i] = Integer.parseInt(nsText[i]);
        }
        StringBuilder out = new StringBuilder();
        for (String line : Files.readAllLines(Paths.get(args[0]), StandardCharsets.US_ASCII)) {
            int h = unhex(line).hashCode();
            out.append("S ").append(h);
            for (int n : ns) {
                out.append(' ').append(partition(h, n));
            }
            out.append('\n');
        }
        // n, databaseHash, database, table, values ("~" is NULL)
        for (String line : Files.readAllLines(Paths.get(args[1]), StandardCharsets.US_ASCII)) {
            String[] f = line.split("\t", -1);
            int n = Integer.parseInt(f[0]);
            boolean databaseHash = f[1].equals("1");
            String database = unhex(f[2]);
            String table = unhex(f[3]);
            int hashCode = databaseHash ? database.hashCode() : 0;
            for (String v : f[4].split(",", -1)) {
                String value = v.equals("~") ? null : unhex(v);
                if (value == null) {
                    value = "";
                }
                hashCode = hashCode ^ value.hashCode();
            }
            out.append("R ").append(partition(hashCode, n)).append(' ')
                .append(partition(table.hashCode(), n)).append('\n');
        }
        System.out.print(out);
    }
}
"#;

/// Partition counts tried for every string.
const PARTITIONS: &[i32] = &[
    1,
    2,
    3,
    4,
    5,
    6,
    7,
    8,
    10,
    12,
    16,
    31,
    64,
    100,
    1000,
    i32::MAX,
];

fn hex(s: &str) -> String {
    s.bytes().map(|b| format!("{b:02x}")).collect()
}

/// A fixed-seed xorshift, so every run checks the same inputs.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }

    /// A string of ASCII, Latin-1, CJK and characters outside the BMP.
    fn string(&mut self) -> String {
        let len = self.below(24);
        (0..len)
            .map(|_| {
                let c = match self.below(5) {
                    0 => self.below(0x80) as u32,
                    1 => 0x80 + self.below(0x80) as u32,
                    2 => 0x4e00 + self.below(0x5000) as u32,
                    3 => 0x1_0000 + self.below(0x10_0000) as u32,
                    _ => 0x20 + self.below(0x5f) as u32,
                };
                char::from_u32(c).unwrap_or('?')
            })
            .collect()
    }
}

fn strings() -> Vec<String> {
    let mut out: Vec<String> = [
        "",
        "a",
        "id",
        "shop",
        "orders",
        "shop.orders",
        "polygenelubricants",
        "ö",
        "n\"ö",
        "中文表",
        "😀",
        "a😀b",
        "𝄞 music",
        "\u{ffff}",
        "\u{10ffff}",
        "\u{0}",
        "\u{ff}\u{80}\u{1}",
        "-1",
        "9223372036854775807",
        "12.50",
        "2024-01-02 03:04:05",
    ]
    .iter()
    .map(|s| s.to_string())
    .collect();
    out.push("x".repeat(1000));
    out.push("表".repeat(333));
    out.extend((0..200).map(|i| i.to_string()));
    let mut random = Random(0x5eed_cafe_f00d_d00d);
    out.extend((0..400).map(|_| random.string()));
    out
}

/// One row-placement case: partitions, database hash, database, table and
/// the hash columns' values.
struct RowCase {
    n: i32,
    database_hash: bool,
    database: String,
    table: String,
    values: Vec<Option<String>>,
}

fn row_cases() -> Vec<RowCase> {
    let databases = [
        "shop",
        "",
        "Shop",
        "商店",
        "db😀",
        "polygenelubricants",
        "a.b",
    ];
    let tables = ["orders", "T", "用户", "t😀", "polygenelubricants"];
    let mut random = Random(0xdead_beef_1234_5678);
    (0..300)
        .map(|i| {
            let values = (0..1 + random.below(4))
                .map(|_| (random.below(5) > 0).then(|| random.string()))
                .collect();
            RowCase {
                n: PARTITIONS[random.below(PARTITIONS.len() as u64) as usize],
                database_hash: i % 2 == 0,
                database: databases[random.below(databases.len() as u64) as usize].to_string(),
                table: tables[random.below(tables.len() as u64) as usize].to_string(),
                values,
            }
        })
        .collect()
}

/// What Java prints for the inputs: per string its hash and partitions, per
/// row case the column-hash and table-hash partitions.
fn java_answers(
    dir: &Path,
    strings: &[String],
    cases: &[RowCase],
) -> (Vec<Vec<i64>>, Vec<(i32, i32)>) {
    std::fs::write(dir.join("CanalHash.java"), JAVA).expect("write the Java source");
    let javac = Command::new("javac")
        .arg("CanalHash.java")
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| {
            panic!(
                "cannot run javac ({e}): the Java oracle tests need a JDK on PATH \
                 (Debian: apt-get install default-jdk-headless)"
            )
        });
    assert!(
        javac.status.success(),
        "javac failed: {}",
        String::from_utf8_lossy(&javac.stderr)
    );
    let lines: Vec<String> = strings.iter().map(|s| hex(s)).collect();
    std::fs::write(dir.join("strings.txt"), lines.join("\n")).expect("write the strings");
    let rows: Vec<String> = cases
        .iter()
        .map(|c| {
            let values: Vec<String> = c
                .values
                .iter()
                .map(|v| v.as_deref().map_or("~".to_string(), hex))
                .collect();
            format!(
                "{}\t{}\t{}\t{}\t{}",
                c.n,
                u8::from(c.database_hash),
                hex(&c.database),
                hex(&c.table),
                values.join(",")
            )
        })
        .collect();
    std::fs::write(dir.join("rows.txt"), rows.join("\n")).expect("write the row cases");
    let ns: Vec<String> = PARTITIONS.iter().map(i32::to_string).collect();
    let java = Command::new("java")
        .args([
            "-cp",
            ".",
            "CanalHash",
            "strings.txt",
            "rows.txt",
            &ns.join(","),
        ])
        .current_dir(dir)
        .output()
        .unwrap_or_else(|e| panic!("cannot run java ({e}): a Java runtime is needed on PATH"));
    assert!(
        java.status.success(),
        "java failed: {}",
        String::from_utf8_lossy(&java.stderr)
    );
    let text = String::from_utf8(java.stdout).expect("ASCII output");
    let mut hashes = Vec::new();
    let mut placements = Vec::new();
    for line in text.lines() {
        let numbers: Vec<i64> = line[2..]
            .split(' ')
            .map(|n| n.parse().expect("a number"))
            .collect();
        if line.starts_with("S ") {
            hashes.push(numbers);
        } else {
            placements.push((numbers[0] as i32, numbers[1] as i32));
        }
    }
    assert_eq!(hashes.len(), strings.len(), "one line per string");
    assert_eq!(placements.len(), cases.len(), "one line per row case");
    (hashes, placements)
}

/// An INSERT of one row of `values` in columns `c0..`, all of them key
/// columns (so `$pk$` hashes the same columns as `c0^c1^...`).
fn entry(case: &RowCase) -> Vec<u8> {
    let columns = case
        .values
        .iter()
        .enumerate()
        .map(|(i, v)| Column {
            index: Some(i as i32),
            name: Some(format!("c{i}")),
            is_key: Some(true),
            sql_type: Some(12),
            mysql_type: Some("varchar(64)".into()),
            is_null: Some(v.is_none()),
            value: v.clone(),
            updated: Some(false),
            ..Default::default()
        })
        .collect();
    let change = RowChange {
        event_type: Some(EventType::Insert as i32),
        is_ddl: Some(false),
        row_datas: vec![RowData {
            after_columns: columns,
            ..Default::default()
        }],
        ..Default::default()
    };
    Entry {
        header: Some(Header {
            logfile_name: Some("mysql-bin.000001".into()),
            logfile_offset: Some(4),
            schema_name: Some(case.database.clone()),
            table_name: Some(case.table.clone()),
            ..Default::default()
        }),
        entry_type: Some(EntryType::RowData as i32),
        store_value: Some(change.encode_to_vec().into()),
    }
    .encode_to_vec()
}

/// The partition of the single record the router makes of `entry`.
fn routed(config: RouteConfig, entry: &[u8]) -> i32 {
    let router = MqRouter::new(config).expect("a valid route config");
    let mut out: Vec<MqMessage> = Vec::new();
    router.messages(1, &[entry], 0, &mut out).expect("records");
    assert_eq!(out.len(), 1, "one row, one record");
    out[0].partition.expect("a partition")
}

#[test]
fn rust_places_rows_where_java_does() {
    let dir = tempfile::tempdir().expect("a temp dir");
    let strings = strings();
    let cases = row_cases();
    let (hashes, placements) = java_answers(dir.path(), &strings, &cases);

    for (s, java) in strings.iter().zip(&hashes) {
        let h = java_string_hash(s);
        assert_eq!(i64::from(h), java[0], "hashCode of {s:?}");
        for (n, p) in PARTITIONS.iter().zip(&java[1..]) {
            assert_eq!(i64::from(java_partition(h, *n)), *p, "{s:?} over {n}");
        }
    }

    for (case, (column_partition, table_partition)) in cases.iter().zip(placements) {
        let entry = entry(case);
        let columns: Vec<String> = (0..case.values.len()).map(|i| format!("c{i}")).collect();
        let what = format!(
            "{:?}.{:?} {:?} over {} (database hash {})",
            case.database, case.table, case.values, case.n, case.database_hash
        );
        let config = |flat_message: bool, partition_hash: String| RouteConfig {
            flat_message,
            topic: "t".into(),
            partitions_num: Some(case.n as u32),
            partition_hash,
            database_hash: case.database_hash,
            ..Default::default()
        };
        let by_columns = format!(r".*\..*:{}", columns.join("^"));
        assert_eq!(
            routed(config(true, by_columns), &entry),
            column_partition,
            "flat, columns: {what}"
        );
        assert_eq!(
            routed(config(false, r".*\..*:$pk$".into()), &entry),
            column_partition,
            "protobuf, $pk$: {what}"
        );
        assert_eq!(
            routed(config(true, r".*\..*".into()), &entry),
            table_partition,
            "flat, table: {what}"
        );
        assert_eq!(
            routed(config(false, r".*\..*".into()), &entry),
            table_partition,
            "protobuf, table: {what}"
        );
    }
}
