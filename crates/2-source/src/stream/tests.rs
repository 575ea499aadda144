use super::state::{classify_query, is_gtid_era, Effect};

#[test]
fn queries_classify() {
    for (q, want) in [
        ("BEGIN", "begin"),
        ("  begin", "begin"),
        ("COMMIT", "end"),
        ("commit;", "end"),
        ("ROLLBACK", "end"),
        ("ROLLBACK TO SAVEPOINT a", "other"),
        ("ROLLBACK  to a", "other"),
        ("XA START X'01',X'',1", "begin"),
        ("XA END X'01',X'',1", "other"),
        ("XA COMMIT X'01',X'',1", "end"),
        ("XA ROLLBACK X'01',X'',1", "end"),
        ("BEGINNING", "other"),
        ("CREATE TABLE t (a int)", "other"),
        ("COMMITTED", "other"),
        ("SAVEPOINT a", "other"),
    ] {
        let got = match classify_query(q.as_bytes()) {
            Effect::QueryBegin => "begin",
            Effect::QueryEnd => "end",
            Effect::QueryOther => "other",
            _ => "?",
        };
        assert_eq!(got, want, "{q}");
    }
}

#[test]
fn gtid_era() {
    assert!(is_gtid_era("10.11.19-MariaDB-log"));
    assert!(is_gtid_era("8.0.36"));
    assert!(is_gtid_era("5.7.44-log"));
    assert!(!is_gtid_era("5.6.51-log"));
    assert!(!is_gtid_era("5.5.5-5.5.68-MariaDB"));
}
