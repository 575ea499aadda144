//! The DDL corpus (real schemas and migrations, see tests/ddl-corpus/ORIGIN.md):
//! at least 99 % of its statements must be readable, and where sqlparser and
//! the fallback both read a statement they must agree on its meaning.

mod common;

use common::corpus;

#[test]
fn corpus_parse_rate() {
    let r = corpus::measure();
    let md = corpus::markdown(&r);
    println!("{md}");
    let t = corpus::totals(&r);
    let (total, combined) = (t.total, t.combined);
    for (origin, sql, err) in r.failures.iter().take(40) {
        println!("FAIL [{origin}] {err}\n  {}\n", sql.replace('\n', " "));
    }
    assert!(total >= 1000, "corpus has only {total} statements");
    let rate = corpus::pct(combined, total);
    assert!(
        rate >= 99.0,
        "only {rate:.2} % of {total} statements usable"
    );
}

#[test]
fn parsers_agree_where_both_read() {
    let r = corpus::measure();
    for (origin, sql, diff) in r.disagreements.iter().take(20) {
        println!("DIFF [{origin}] {}\n{diff}\n", sql.replace('\n', " "));
    }
    assert!(
        r.disagreements.is_empty(),
        "{} disagreements",
        r.disagreements.len()
    );
}
