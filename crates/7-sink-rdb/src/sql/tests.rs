use std::path::PathBuf;

use super::*;

fn plan(kind: TargetKind) -> TablePlan {
    let col = |name: &str, cast: &str, class| TargetColumn {
        name: name.into(),
        cast: cast.into(),
        class,
    };
    let mapping = Mapping {
        file: PathBuf::from("rdb/t.yml"),
        name: "t".into(),
        concurrent: true,
        database: "s".into(),
        table: "t".into(),
        target_schema: Some("public".into()),
        target_table: "t".into(),
        target_pk: vec![("id".into(), "id".into())],
        map_all: true,
        target_columns: vec![],
        commit_batch: None,
    };
    let info = TableInfo {
        columns: vec![
            col("id", "bigint", TargetClass::Numeric),
            col("b", "bytea", TargetClass::Binary),
            col("f", "bit(8)", TargetClass::Bit),
        ],
        primary_key: vec![],
    };
    TablePlan::new(&mapping, info, kind).unwrap()
}

fn upsert(id: &str) -> RowOp {
    RowOp {
        plan: 0,
        kind: OpKind::Upsert,
        columns: vec![0, 1, 2],
        values: vec![
            Param::Text(id.into()),
            Param::Bytes(vec![0, 255]),
            Param::Text("5".into()),
        ],
        key: vec![Param::Text(id.into())],
        origin: Origin::default(),
    }
}

fn delete(id: &str) -> RowOp {
    RowOp {
        plan: 0,
        kind: OpKind::Delete,
        columns: vec![],
        values: vec![],
        key: vec![Param::Text(id.into())],
        origin: Origin::default(),
    }
}

#[test]
fn rows_with_distinct_keys_share_a_statement_and_a_repeated_key_starts_another() {
    let plans = [plan(TargetKind::Postgres)];
    let ops = [
        upsert("1"),
        upsert("2"),
        upsert("1"),
        delete("1"),
        delete("2"),
    ];
    let s = statements(TargetKind::Postgres, &plans, &ops, 100);
    let rows: Vec<usize> = s.iter().map(|s| s.rows).collect();
    assert_eq!(rows, [2, 1, 2]);
    assert_eq!(
        s[0].sql,
        "INSERT INTO \"public\".\"t\" (\"id\", \"b\", \"f\") VALUES ($1::text::bigint, $2::text::bytea, $3::text::bigint::bit(8)), ($4::text::bigint, $5::text::bytea, $6::text::bigint::bit(8)) ON CONFLICT (\"id\") DO UPDATE SET \"b\" = EXCLUDED.\"b\", \"f\" = EXCLUDED.\"f\""
    );
    assert_eq!(s[0].params[1], Param::Text("\\x00ff".into()));
    assert_eq!(
        s[2].sql,
        "DELETE FROM \"public\".\"t\" WHERE \"id\" IN ($1::text::bigint, $2::text::bigint)"
    );
}

#[test]
fn mysql_upserts_on_duplicate_key_and_casts_bits() {
    let plans = [plan(TargetKind::MySql)];
    let s = statements(TargetKind::MySql, &plans, &[upsert("1")], 100);
    assert_eq!(
        s[0].sql,
        "INSERT INTO `public`.`t` (`id`, `b`, `f`) VALUES (?, ?, CAST(? AS UNSIGNED)) ON DUPLICATE KEY UPDATE `b` = VALUES(`b`), `f` = VALUES(`f`)"
    );
    assert_eq!(s[0].params[1], Param::Bytes(vec![0, 255]));
}

#[test]
fn statements_hold_at_most_max_rows() {
    let plans = [plan(TargetKind::Postgres)];
    let ops: Vec<RowOp> = (0..5).map(|i| upsert(&i.to_string())).collect();
    let s = statements(TargetKind::Postgres, &plans, &ops, 2);
    assert_eq!(s.iter().map(|s| s.rows).collect::<Vec<_>>(), [2, 2, 1]);
}
