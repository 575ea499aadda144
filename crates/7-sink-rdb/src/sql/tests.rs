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
        etl_condition: None,
        mirror_db: false,
        target_db: None,
    };
    let info = TableInfo {
        columns: vec![
            col("id", "bigint", TargetClass::Numeric),
            col("b", "bytea", TargetClass::Binary),
            col("f", "bit(8)", TargetClass::Bit),
        ],
        primary_key: vec![],
    };
    TablePlan::new(&mapping, info, kind, 0).unwrap()
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
    let s = statements(
        TargetKind::Postgres,
        &plans,
        &ops,
        100,
        PostgresUpsert::Unnest,
    );
    let rows: Vec<usize> = s.iter().map(|s| s.rows).collect();
    assert_eq!(rows, [2, 1, 2]);
    assert_eq!(
        s[0].sql,
        "INSERT INTO \"public\".\"t\" (\"id\", \"b\", \"f\") SELECT u.c0::bigint, u.c1::bytea, u.c2::bigint::bit(8) FROM unnest($1::text[], $2::text[], $3::text[]) AS u(c0, c1, c2) ON CONFLICT (\"id\") DO UPDATE SET \"b\" = EXCLUDED.\"b\", \"f\" = EXCLUDED.\"f\""
    );
    assert_eq!((s[0].params.len(), s[0].arrays), (6, 3));
    assert_eq!(s[0].params[1], Param::Text("\\x00ff".into()));
    assert_eq!(
        s[2].sql,
        "DELETE FROM \"public\".\"t\" WHERE (\"id\") IN (SELECT u.c0::bigint FROM unnest($1::text[]) AS u(c0))"
    );
    assert_eq!((s[2].params.len(), s[2].arrays), (2, 1));
}

#[test]
fn copy_upserts_read_the_staging_table_with_the_same_casts_and_the_same_split() {
    let plans = [plan(TargetKind::Postgres)];
    let ops = [
        upsert("1"),
        upsert("2"),
        upsert("1"),
        delete("1"),
        delete("2"),
    ];
    let by_unnest = statements(
        TargetKind::Postgres,
        &plans,
        &ops,
        100,
        PostgresUpsert::Unnest,
    );
    let s = statements(
        TargetKind::Postgres,
        &plans,
        &ops,
        100,
        PostgresUpsert::Copy,
    );
    let shape = |s: &[Statement]| s.iter().map(|s| s.rows).collect::<Vec<_>>();
    assert_eq!(shape(&s), shape(&by_unnest));
    assert_eq!(
        s[0].sql,
        "WITH s AS (DELETE FROM pg_temp.sluice_stage_3 RETURNING *) INSERT INTO \"public\".\"t\" (\"id\", \"b\", \"f\") SELECT s.c0::bigint, s.c1::bytea, s.c2::bigint::bit(8) FROM s ON CONFLICT (\"id\") DO UPDATE SET \"b\" = EXCLUDED.\"b\", \"f\" = EXCLUDED.\"f\""
    );
    assert!(s[0].staged && s[1].staged && !s[2].staged);
    assert_eq!(s[0].params, by_unnest[0].params);
    assert_eq!(s[0].arrays, 3);
    // Deletes are the same in both forms.
    assert_eq!(s[2], by_unnest[2]);
    // MariaDB/MySQL has no COPY form.
    let plans = [plan(TargetKind::MySql)];
    let ops = [upsert("1")];
    assert_eq!(
        statements(TargetKind::MySql, &plans, &ops, 100, PostgresUpsert::Copy),
        statements(TargetKind::MySql, &plans, &ops, 100, PostgresUpsert::Unnest)
    );
}

#[test]
fn mysql_upserts_on_duplicate_key_and_casts_bits() {
    let plans = [plan(TargetKind::MySql)];
    let s = statements(
        TargetKind::MySql,
        &plans,
        &[upsert("1")],
        100,
        PostgresUpsert::Unnest,
    );
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
    let s = statements(
        TargetKind::Postgres,
        &plans,
        &ops,
        2,
        PostgresUpsert::Unnest,
    );
    assert_eq!(s.iter().map(|s| s.rows).collect::<Vec<_>>(), [2, 2, 1]);
}

#[test]
fn interleaved_changes_of_a_concurrent_mapping_become_one_statement_per_kind_keeping_each_keys_order(
) {
    let plans = [plan(TargetKind::Postgres)];
    let ops = [
        upsert("1"),
        delete("2"),
        upsert("3"),
        delete("4"),
        // Key 2 again: its insert must come after its delete.
        upsert("2"),
        upsert("5"),
    ];
    let s = statements(
        TargetKind::Postgres,
        &plans,
        &ops,
        100,
        PostgresUpsert::Unnest,
    );
    let shape: Vec<(bool, usize)> = s
        .iter()
        .map(|s| (s.sql.starts_with("INSERT"), s.rows))
        .collect();
    assert_eq!(shape, [(true, 2), (false, 2), (true, 2)]);
}

#[test]
fn changes_of_a_mapping_without_concurrent_keep_their_order() {
    let mut p = plan(TargetKind::Postgres);
    p.mapping.concurrent = false;
    let plans = [p];
    let ops = [upsert("1"), delete("2"), upsert("3"), upsert("4")];
    let s = statements(
        TargetKind::Postgres,
        &plans,
        &ops,
        100,
        PostgresUpsert::Unnest,
    );
    assert_eq!(s.iter().map(|s| s.rows).collect::<Vec<_>>(), [1, 1, 2]);
}

#[test]
fn changes_never_move_past_another_tables_changes() {
    let plans = [plan(TargetKind::Postgres), plan(TargetKind::Postgres)];
    let other = |mut op: RowOp| {
        op.plan = 1;
        op
    };
    let ops = [upsert("1"), other(upsert("1")), upsert("2")];
    let s = statements(
        TargetKind::Postgres,
        &plans,
        &ops,
        100,
        PostgresUpsert::Unnest,
    );
    assert_eq!(s.iter().map(|s| s.rows).collect::<Vec<_>>(), [1, 1, 1]);
}

#[test]
fn keyless_rows_are_inserted_and_deleted_one_by_matching_every_column() {
    let mut plans = [plan(TargetKind::Postgres), plan(TargetKind::MySql)];
    for p in &mut plans {
        p.key.clear();
        p.mapping.concurrent = false;
    }
    let matching = |mut op: RowOp| {
        op.columns = vec![0, 2];
        op.values = vec![Param::Text("1".into()), Param::Null];
        op.key.clear();
        op
    };
    let ops = [
        upsert("1"),
        upsert("1"),
        matching(delete("1")),
        matching(delete("1")),
    ];
    let s = statements(
        TargetKind::Postgres,
        &plans[..1],
        &ops,
        100,
        PostgresUpsert::Unnest,
    );
    assert_eq!(s.iter().map(|s| s.rows).collect::<Vec<_>>(), [2, 1, 1]);
    assert!(!s[0].sql.contains("ON CONFLICT"), "{}", s[0].sql);
    assert_eq!(
        s[1].sql,
        "DELETE FROM \"public\".\"t\" WHERE ctid = (SELECT ctid FROM \"public\".\"t\" WHERE \"id\" IS NOT DISTINCT FROM $1::text::bigint AND \"f\" IS NOT DISTINCT FROM $2::text::bigint::bit(8) LIMIT 1)"
    );
    let ops: Vec<RowOp> = ops
        .into_iter()
        .map(|mut o| {
            o.plan = 0;
            o
        })
        .collect();
    let s = statements(
        TargetKind::MySql,
        &plans[1..],
        &ops,
        100,
        PostgresUpsert::Unnest,
    );
    assert!(!s[0].sql.contains("ON DUPLICATE"), "{}", s[0].sql);
    assert_eq!(
        s[1].sql,
        "DELETE FROM `public`.`t` WHERE `id` <=> ? AND `f` <=> CAST(? AS UNSIGNED) LIMIT 1"
    );
}

#[test]
fn a_concurrent_mapping_of_a_keyless_table_is_refused_naming_the_mapping_and_table() {
    let mut m = plan(TargetKind::Postgres).mapping;
    m.target_pk.clear();
    let info = TableInfo {
        columns: vec![TargetColumn {
            name: "id".into(),
            cast: "bigint".into(),
            class: TargetClass::Numeric,
        }],
        primary_key: vec![],
    };
    let e = TablePlan::new(&m, info.clone(), TargetKind::Postgres, 0).unwrap_err();
    assert!(e.contains("rdb/t.yml: mapping t: concurrent: true"), "{e}");
    assert!(e.contains("public.t has no primary key"), "{e}");
    m.concurrent = false;
    assert!(TablePlan::new(&m, info, TargetKind::Postgres, 0)
        .unwrap()
        .key
        .is_empty());
}

#[test]
fn added_columns_get_the_nearest_type() {
    let pg = |t| nearest_type(TargetKind::Postgres, t).unwrap();
    assert_eq!(pg("int(11)"), "integer");
    assert_eq!(pg("int(10) unsigned"), "bigint");
    assert_eq!(pg("bigint(20) unsigned"), "numeric(20)");
    assert_eq!(pg("decimal(20,6)"), "numeric(20,6)");
    assert_eq!(pg("varchar(64)"), "varchar(64)");
    assert_eq!(pg("datetime(6)"), "timestamp(6)");
    assert_eq!(pg("enum('a','b')"), "text");
    assert_eq!(pg("longblob"), "bytea");
    assert_eq!(pg("bit(8)"), "bit(8)");
    assert_eq!(
        nearest_type(TargetKind::MySql, "int(10) unsigned").unwrap(),
        "int(10) unsigned"
    );
    assert_eq!(nearest_type(TargetKind::MySql, "int; DROP TABLE t"), None);
}
