//! Parser tests: CREATE TABLE, ALTER TABLE forms and statements that change
//! no table.

use super::*;
use crate::model::Generated;

fn p(sql: &str) -> DdlStatement {
    parse_statement(sql, LexOptions::default()).unwrap_or_else(|e| panic!("{sql}: {e}"))
}

#[test]
fn create_table_columns_keys_options() {
    let s = p("CREATE TABLE IF NOT EXISTS `shop`.`t` (
            id INT UNSIGNED NOT NULL AUTO_INCREMENT,
            name VARCHAR(64) CHARACTER SET latin1 COLLATE latin1_bin DEFAULT 'x' COMMENT 'n',
            e ENUM('a','b''c') NOT NULL DEFAULT 'a',
            g INT AS (id * 2) VIRTUAL INVISIBLE,
            d DECIMAL(10,2) ZEROFILL,
            PRIMARY KEY (id),
            UNIQUE KEY uk (name(10), e),
            KEY k (name),
            CONSTRAINT fk FOREIGN KEY (id) REFERENCES o (id) ON DELETE CASCADE
        ) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 /*!50100 PARTITION BY HASH (id) PARTITIONS 4 */");
    let DdlStatement::CreateTable {
        table,
        columns,
        keys,
        options,
        if_not_exists,
        with_select,
        ..
    } = s
    else {
        panic!("{s:?}")
    };
    assert!(if_not_exists && !with_select);
    assert_eq!(table.db.as_deref(), Some("shop"));
    assert_eq!(columns.len(), 5);
    assert_eq!(columns[0].ty.data_type, "int unsigned");
    assert_eq!(columns[1].charset.as_deref(), Some("latin1"));
    assert_eq!(columns[1].default.as_deref(), Some("'x'"));
    assert_eq!(columns[2].ty.labels, vec!["a", "b'c"]);
    assert_eq!(columns[2].ty.data_type, "enum('a','b''c')");
    assert_eq!(
        columns[3].generated,
        Some(Generated::Virtual {
            expr: "id * 2".into()
        })
    );
    assert!(columns[3].invisible);
    assert_eq!(columns[4].ty.data_type, "decimal(10,2) unsigned zerofill");
    assert_eq!(keys.len(), 4);
    assert_eq!(keys[0].kind, KeyType::Primary);
    assert_eq!(keys[1].columns, vec!["name", "e"]);
    assert_eq!(options.charset.as_deref(), Some("utf8mb4"));
}

#[test]
fn alter_table_forms() {
    let s = p(
        "ALTER TABLE t ADD COLUMN IF NOT EXISTS c INT AFTER b, DROP COLUMN IF EXISTS d,
                   CHANGE a a2 BIGINT FIRST, MODIFY b TEXT, RENAME COLUMN x TO y,
                   ALTER COLUMN z SET DEFAULT 5, ADD (p INT, q INT), ALGORITHM=INPLACE, LOCK=NONE,
                   ADD PRIMARY KEY (a2), DROP INDEX i, ADD UNIQUE INDEX IF NOT EXISTS u (p),
                   CONVERT TO CHARACTER SET utf8mb4 COLLATE utf8mb4_bin, ENGINE=InnoDB,
                   ADD PARTITION (PARTITION p3 VALUES LESS THAN (30)), RENAME TO t2",
    );
    let DdlStatement::AlterTable { ops, .. } = s else {
        panic!()
    };
    let kinds: Vec<String> = ops
        .iter()
        .map(|o| {
            format!("{o:?}")
                .split([' ', '{', '('])
                .next()
                .unwrap()
                .to_string()
        })
        .collect();
    assert_eq!(
        kinds,
        [
            "AddColumn",
            "DropColumn",
            "ChangeColumn",
            "ChangeColumn",
            "RenameColumn",
            "SetDefault",
            "AddColumn",
            "AddColumn",
            "AddKey",
            "DropKey",
            "AddKey",
            "ConvertCharset",
            "RenameTable"
        ]
    );
}

#[test]
fn non_ddl_is_recognised_fast() {
    for sql in [
        "BEGIN",
        "COMMIT",
        "INSERT INTO t VALUES (1)",
        "GRANT ALL ON *.* TO x",
        "SET @a = 1",
        "FLUSH TABLES",
        "ANALYZE TABLE t",
    ] {
        assert!(matches!(p(sql), DdlStatement::NoChange(_)), "{sql}");
    }
    for sql in [
        "CREATE VIEW v AS SELECT 1",
        "CREATE DEFINER=`root`@`%` TRIGGER tr BEFORE INSERT ON t FOR EACH ROW SET NEW.a = 1",
        "CREATE INDEX i ON t (a)",
        "DROP VIEW v",
        "CREATE USER u",
        "ALTER USER u IDENTIFIED BY 'x'",
    ] {
        assert!(matches!(p(sql), DdlStatement::NoChange(_)), "{sql}");
    }
}
