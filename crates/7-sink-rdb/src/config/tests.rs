use super::*;

fn examples() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../../examples/adapter")
}

#[test]
fn canal_adapters_example_files_parse() {
    let conf = load(&examples()).unwrap();
    assert_eq!(conf.sinks.len(), 2, "{:?}", conf.sinks);
    let mysql = &conf.sinks[0];
    assert_eq!(mysql.destination, "example");
    assert_eq!(mysql.group_id, "g1");
    assert_eq!(mysql.key, "mysql1");
    assert_eq!(mysql.target.kind, TargetKind::MySql);
    assert_eq!(mysql.target.host, "127.0.0.1");
    assert_eq!(mysql.target.port, 3306);
    assert_eq!(mysql.target.database, "mytest2");
    assert_eq!(mysql.target.password, "121212");
    assert_eq!(mysql.mappings.len(), 1);
    let m = &mysql.mappings[0];
    assert_eq!(m.name, "mytest_user");
    assert_eq!((m.database.as_str(), m.table.as_str()), ("mytest", "user"));
    assert_eq!(m.target_schema.as_deref(), Some("mytest2"));
    assert_eq!(m.target_table, "user");
    assert_eq!(m.target_pk, vec![("id".to_string(), "id".to_string())]);
    assert!(!m.map_all);
    assert_eq!(m.target_columns.len(), 5);
    assert!(m.concurrent);
    let pg = &conf.sinks[1];
    assert_eq!(pg.target.kind, TargetKind::Postgres);
    assert_eq!((pg.threads, pg.commit_size), (1, 3000));
    assert_eq!(pg.mappings[0].commit_batch, Some(3000));
    assert!(pg.mappings[0].map_all);
    // The logger adapter and dataSourceKey are named in warnings.
    assert!(
        conf.warnings.iter().any(|w| w.contains("`logger`")),
        "{:?}",
        conf.warnings
    );
    assert!(conf.warnings.iter().any(|w| w.contains("dataSourceKey")));
}

#[test]
fn nested_canal_conf_and_mariadb_urls_are_read() {
    let yml = "canal:\n  conf:\n    canalAdapters:\n    - instance: d\n      groups:\n      - groupId: g\n        outerAdapters:\n        - name: rdb\n          properties:\n            jdbc.url: jdbc:mariadb://db:3307/t\n";
    let sinks = parse_application(Path::new("a.yml"), yml, &mut Vec::new()).unwrap();
    assert_eq!(sinks[0].target.kind, TargetKind::MySql);
    assert_eq!(sinks[0].target.port, 3307);
    assert_eq!(sinks[0].key, "rdb0");
}

#[test]
fn a_wrong_url_names_the_file_and_the_key() {
    let yml = "canal.conf:\n  canalAdapters:\n  - instance: d\n    groups:\n    - groupId: g\n      outerAdapters:\n      - name: rdb\n        key: k\n        properties:\n          jdbc.url: jdbc:oracle:thin:@x:1521:XE\n";
    let e = parse_application(Path::new("/c/application.yml"), yml, &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/c/application.yml: "), "{e}");
    assert!(
        e.contains("canal.conf.canalAdapters[0].groups[0].outerAdapters[0].properties.jdbc.url"),
        "{e}"
    );
}

#[test]
fn a_misspelt_mapping_key_names_the_file_and_the_key() {
    let yml =
        "destination: d\ndbMapping:\n  database: a\n  tabel: b\n  targetTable: c\n  mapAll: true\n";
    let e = parse_mapping(Path::new("/c/rdb/t.yml"), yml, &mut Vec::new())
        .unwrap_err()
        .to_string();
    assert!(e.starts_with("/c/rdb/t.yml: "), "{e}");
    assert!(e.contains("dbMapping: unknown field `tabel`"), "{e}");
    assert!(e.contains("line 4"), "{e}");
}

/// A sink of `application.yml` writing to `url`.
fn sink_to(url: &str) -> SinkConfig {
    let app = format!(
        "canal.conf:\n  canalAdapters:\n  - instance: d\n    groups:\n    - groupId: g1\n      outerAdapters:\n      - name: rdb\n        key: k\n        properties:\n          jdbc.url: {url}\n"
    );
    parse_application(Path::new("application.yml"), &app, &mut Vec::new())
        .unwrap()
        .remove(0)
}

#[test]
fn mirror_db_mappings_take_every_table_of_the_database() {
    let mirror = "destination: d\ndbMapping:\n  mirrorDb: true\n  database: a\n  table: ignored\n";
    let mut warnings = Vec::new();
    let (_, m) = parse_mapping(Path::new("m.yml"), mirror, &mut warnings)
        .unwrap()
        .unwrap();
    assert!(m.mirror_db && m.map_all);
    assert_eq!((m.database.as_str(), m.table.as_str()), ("a", ""));
    // Without targetDb, the target database has the source's name.
    assert_eq!(m.mirror_target_db(), "a");
    assert!(
        warnings
            .iter()
            .any(|w| w.contains("dbMapping.table is not used by a mirrorDb mapping")),
        "{warnings:?}"
    );
    let to_b = "destination: d\ndbMapping:\n  mirrorDb: true\n  database: a\n  targetDb: b\n";
    let (_, m) = parse_mapping(Path::new("m.yml"), to_b, &mut Vec::new())
        .unwrap()
        .unwrap();
    assert_eq!(m.mirror_target_db(), "b");
    // A mirror without its database names the key.
    let e = parse_mapping(
        Path::new("m.yml"),
        "destination: d\ndbMapping:\n  mirrorDb: true\n",
        &mut Vec::new(),
    )
    .unwrap_err()
    .to_string();
    assert!(e.contains("dbMapping.database` is missing"), "{e}");
}

#[test]
fn mirror_db_is_refused_for_postgresql_and_twice_for_one_database() {
    let mirror = "destination: d\ndbMapping:\n  mirrorDb: true\n  database: a\n";
    let (_, m) = parse_mapping(Path::new("m.yml"), mirror, &mut Vec::new())
        .unwrap()
        .unwrap();
    let pg = sink_to("jdbc:postgresql://127.0.0.1:5432/t");
    let e = check_mirror(Path::new("m.yml"), &pg, &m)
        .unwrap_err()
        .to_string();
    assert!(e.contains("writes to PostgreSQL"), "{e}");
    let mut maria = sink_to("jdbc:mariadb://127.0.0.1:3306/t");
    check_mirror(Path::new("m.yml"), &maria, &m).unwrap();
    maria.mappings.push(m.clone());
    let e = check_mirror(Path::new("m2.yml"), &maria, &m)
        .unwrap_err()
        .to_string();
    assert!(e.contains("is mirrored by m.yml already"), "{e}");
}

#[test]
fn etl_condition_is_kept_for_the_etl() {
    let yml = "destination: d\ndbMapping:\n  database: a\n  table: b\n  targetTable: c\n  mapAll: true\n  etlCondition: \"where x>={}\"\n";
    let mut warnings = Vec::new();
    let (target, m) = parse_mapping(Path::new("e.yml"), yml, &mut warnings)
        .unwrap()
        .unwrap();
    assert_eq!(target.destination, "d");
    assert_eq!(m.target_schema, None);
    assert_eq!(m.etl_condition.as_deref(), Some("where x>={}"));
    assert!(warnings.is_empty(), "{warnings:?}");
}
