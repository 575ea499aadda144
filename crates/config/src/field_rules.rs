//! Column filters in Canal's syntax (`canal.instance.filter.field`,
//! `.black.field`): [`FieldRule`] and its parser.

/// One table's part of a column filter (`canal.instance.filter.field`,
/// `.black.field`, `sluice tail --columns`): `db.table` as written and
/// its columns.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct FieldRule {
    pub table: String,
    pub columns: Vec<String>,
}

/// Parses Canal's column filter syntax, `db.table:col1/col2,db2.table2:col3`
/// (spaces around names ignored, empty rules between commas skipped).
/// Canal itself skips a rule it cannot read; here it is an error saying
/// which rule and why, as is a table named twice.
pub fn parse_field_rules(text: &str) -> Result<Vec<FieldRule>, String> {
    const SYNTAX: &str = "expected db.table:col1/col2,db2.table2:col3";
    let mut rules: Vec<FieldRule> = Vec::new();
    for rule in text.split(',').map(str::trim).filter(|r| !r.is_empty()) {
        let bad = |why: &str| format!("rule {rule:?}: {why}; {SYNTAX}");
        let Some((table, columns)) = rule.split_once(':') else {
            return Err(bad("no ':' between the table and its columns"));
        };
        if columns.contains(':') {
            return Err(bad("more than one ':'"));
        }
        let table = table.trim();
        match table.split_once('.') {
            Some((db, name)) if !db.trim().is_empty() && !name.trim().is_empty() => {}
            _ => return Err(bad("the table is not db.table")),
        }
        let columns: Vec<String> = columns.split('/').map(|c| c.trim().to_string()).collect();
        if columns.iter().any(String::is_empty) {
            return Err(bad("an empty column name"));
        }
        if let Some(first) = rules
            .iter()
            .find(|r| r.table.to_uppercase() == table.to_uppercase())
        {
            return Err(bad(&format!(
                "{} is named twice (also as {:?}); list its columns once",
                table, first.table
            )));
        }
        rules.push(FieldRule {
            table: table.to_string(),
            columns,
        });
    }
    Ok(rules)
}
