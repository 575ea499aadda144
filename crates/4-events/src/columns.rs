//! Column filters: which columns of a table the outputs show.
//!
//! Rules ([`ColumnRules`]) say it per column name: Canal's
//! `canal.instance.filter.field` / `.black.field` ([`CanalColumnRules`]),
//! Debezium's `column.include.list` / `.exclude.list` (in the Debezium
//! encoder's crate). They are resolved once per table description into a
//! [`ColumnProjection`], a flag per column, which the producer of the
//! change events puts on the table ([`crate::Table::keep`]); every encoder
//! then leaves the columns it does not keep out of everything it writes.
//! [`Projections`] keeps the resolved projections by table id, so that a
//! rows event costs a lookup and two name comparisons, not a match per
//! column; tables no rule names get no projection and pay nothing more.

use std::collections::HashMap;
use std::fmt;
use std::sync::Arc;

use crate::Table;

/// The columns of one table description that outputs show, by column
/// index. Cloning shares the flags.
#[derive(Clone, PartialEq, Eq)]
pub struct ColumnProjection {
    kept: Arc<[bool]>,
}

impl ColumnProjection {
    /// A projection keeping the columns whose flag is true.
    pub fn new(kept: impl Into<Arc<[bool]>>) -> Self {
        ColumnProjection { kept: kept.into() }
    }

    /// Whether column `index` is shown; a column past the flags is not.
    #[inline]
    pub fn keeps(&self, index: usize) -> bool {
        self.kept.get(index).copied().unwrap_or(false)
    }

    /// The number of columns the projection was resolved for.
    pub fn len(&self) -> usize {
        self.kept.len()
    }

    pub fn is_empty(&self) -> bool {
        self.kept.is_empty()
    }

    /// How many columns are shown.
    pub fn kept_count(&self) -> usize {
        self.kept.iter().filter(|k| **k).count()
    }
}

impl fmt::Debug for ColumnProjection {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let kept: Vec<usize> = (0..self.kept.len()).filter(|&i| self.kept[i]).collect();
        f.debug_struct("ColumnProjection")
            .field("columns", &self.kept.len())
            .field("kept", &kept)
            .finish()
    }
}

/// Rules saying which columns of which tables the outputs show.
pub trait ColumnRules: Send + Sync + fmt::Debug {
    /// Whether a rule names `schema.table`: without one every column is
    /// shown and the table gets no projection.
    fn applies_to(&self, schema: &str, table: &str) -> bool;

    /// Whether column `column` of `schema.table` (a table the rules apply
    /// to) is shown.
    fn keeps(&self, schema: &str, table: &str, column: &str) -> bool;

    /// The projection of `table`, `None` when no rule names it or it
    /// keeps every column. A column whose name is unknown (a table
    /// described by a binlog without column names) is not shown: a rule
    /// cannot be checked against it.
    fn projection(&self, table: &Table<'_>) -> Option<ColumnProjection> {
        let (schema, name) = (table.schema(), table.name());
        if !self.applies_to(schema, name) {
            return None;
        }
        let kept: Vec<bool> = (0..table.column_count())
            .map(|i| {
                table
                    .column(i)
                    .is_some_and(|c| !c.name.is_empty() && self.keeps(schema, name, c.name))
            })
            .collect();
        if kept.iter().all(|k| *k) {
            return None;
        }
        Some(ColumnProjection::new(kept))
    }
}

/// Canal's column filters (`canal.instance.filter.field` and
/// `canal.instance.filter.black.field`, each `db.table:col1/col2,...`),
/// with Canal's semantics (its `LogEventConvert.needField`): table and
/// column names compare without regard to case, the table part is a
/// literal `db.table` (not a pattern), a table on the white list shows
/// exactly its listed columns (its key columns too only when listed; the
/// black list is then not consulted for it), and a table only on the black
/// list shows every column but the listed ones.
#[derive(Debug, Clone, Default)]
pub struct CanalColumnRules {
    /// `DB.TABLE` in upper case → column names in upper case.
    white: HashMap<String, Vec<String>>,
    black: HashMap<String, Vec<String>>,
}

impl CanalColumnRules {
    /// Rules from the white and black lists, each as `(db.table, columns)`
    /// pairs. A table listed twice in one list gets the columns of both.
    pub fn new<'a, W, B, C, D>(white: W, black: B) -> Self
    where
        W: IntoIterator<Item = (&'a str, C)>,
        B: IntoIterator<Item = (&'a str, D)>,
        C: IntoIterator,
        C::Item: AsRef<str>,
        D: IntoIterator,
        D::Item: AsRef<str>,
    {
        fn map<'a, C>(list: impl IntoIterator<Item = (&'a str, C)>) -> HashMap<String, Vec<String>>
        where
            C: IntoIterator,
            C::Item: AsRef<str>,
        {
            let mut out: HashMap<String, Vec<String>> = HashMap::new();
            for (table, columns) in list {
                out.entry(table.trim().to_uppercase()).or_default().extend(
                    columns
                        .into_iter()
                        .map(|c| c.as_ref().trim().to_uppercase()),
                );
            }
            out
        }
        CanalColumnRules {
            white: map(white),
            black: map(black),
        }
    }

    /// Whether neither list names a table.
    pub fn is_empty(&self) -> bool {
        self.white.is_empty() && self.black.is_empty()
    }

    fn key(schema: &str, table: &str) -> String {
        let mut key = String::with_capacity(schema.len() + table.len() + 1);
        key.push_str(schema);
        key.push('.');
        key.push_str(table);
        key.to_uppercase()
    }
}

impl ColumnRules for CanalColumnRules {
    fn applies_to(&self, schema: &str, table: &str) -> bool {
        if self.is_empty() {
            return false;
        }
        let key = Self::key(schema, table);
        self.white.contains_key(&key) || self.black.contains_key(&key)
    }

    fn keeps(&self, schema: &str, table: &str, column: &str) -> bool {
        let key = Self::key(schema, table);
        let column = column.to_uppercase();
        match self.white.get(&key).filter(|w| !w.is_empty()) {
            Some(white) => white.contains(&column),
            None => self
                .black
                .get(&key)
                .is_none_or(|black| !black.contains(&column)),
        }
    }
}

/// What [`Projections`] keeps of a table id's last description.
#[derive(Debug)]
struct Resolved {
    schema: String,
    table: String,
    /// The column names the projection was resolved from (empty without
    /// a projection: then they do not matter).
    names: Vec<String>,
    projection: Option<ColumnProjection>,
}

impl Resolved {
    fn describes(&self, table: &Table<'_>) -> bool {
        if self.schema != table.schema() || self.table != table.name() {
            return false;
        }
        if self.projection.is_none() {
            return true;
        }
        self.names.len() == table.column_count()
            && self
                .names
                .iter()
                .enumerate()
                .all(|(i, n)| table.column(i).is_some_and(|c| c.name == n))
    }
}

/// Table ids grow on a server that reopens tables: past this many the
/// resolved projections start over rather than grow without end.
const MAX_TABLES: usize = 1024;

/// Projections resolved from rules, kept per table id and resolved again
/// when the table's name or columns change under the same id.
#[derive(Debug, Clone)]
pub struct Projections {
    rules: Arc<dyn ColumnRules>,
    tables: HashMap<u64, Arc<Resolved>>,
}

impl Projections {
    pub fn new(rules: Arc<dyn ColumnRules>) -> Self {
        Projections {
            rules,
            tables: HashMap::new(),
        }
    }

    pub fn rules(&self) -> &Arc<dyn ColumnRules> {
        &self.rules
    }

    /// The projection of `table`, the table of rows events of `table_id`;
    /// `None` when no rule names it.
    pub fn get(&mut self, table_id: u64, table: &Table<'_>) -> Option<ColumnProjection> {
        if let Some(r) = self.tables.get(&table_id) {
            if r.describes(table) {
                return r.projection.clone();
            }
        }
        if self.tables.len() >= MAX_TABLES {
            self.tables.clear();
        }
        let projection = self.rules.projection(table);
        let names = if projection.is_some() {
            table.columns().map(|c| c.name.to_string()).collect()
        } else {
            Vec::new()
        };
        self.tables.insert(
            table_id,
            Arc::new(Resolved {
                schema: table.schema().to_string(),
                table: table.name().to_string(),
                names,
                projection: projection.clone(),
            }),
        );
        projection
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ColumnInfo;
    use sluice_binlog::{ColumnDef, ColumnType, TableMap};

    fn map(schema: &str, table: &str, columns: usize) -> TableMap {
        TableMap {
            table_id: 7,
            flags: 0,
            schema: schema.into(),
            table: table.into(),
            columns: (0..columns)
                .map(|_| ColumnDef {
                    type_code: 3,
                    column_type: ColumnType::Long,
                    nullable: true,
                    unsigned: None,
                    collation: None,
                    name: None,
                    labels: None,
                    geometry_type: None,
                    primary_key_prefix: None,
                    visible: None,
                })
                .collect(),
            has_optional_metadata: false,
        }
    }

    fn infos(names: &[&str], key: &str) -> Vec<ColumnInfo> {
        names
            .iter()
            .map(|n| ColumnInfo {
                name: n.to_string(),
                mysql_type: "int(11)".into(),
                is_key: *n == key,
                default: None,
            })
            .collect()
    }

    fn table<'a>(map: &'a TableMap, info: Option<&'a [ColumnInfo]>) -> Table<'a> {
        Table {
            map,
            info,
            keep: None,
        }
    }

    fn kept(rules: &dyn ColumnRules, t: &Table<'_>) -> Option<Vec<usize>> {
        rules
            .projection(t)
            .map(|p| (0..p.len()).filter(|&i| p.keeps(i)).collect())
    }

    #[test]
    fn canal_white_list_shows_exactly_its_columns_key_included_only_when_listed() {
        let m = map("Shop", "Users", 4);
        let info = infos(&["id", "name", "email", "phone"], "id");
        let t = table(&m, Some(&info));
        // Case does not matter, in table or column names.
        let none = std::iter::empty::<(&str, [&str; 0])>;
        let rules = CanalColumnRules::new([("shop.USERS", ["ID", "Name"])], none());
        assert_eq!(kept(&rules, &t), Some(vec![0, 1]));
        // The key is not kept unless listed (Canal's needField).
        let rules = CanalColumnRules::new([("shop.users", ["name"])], none());
        assert_eq!(kept(&rules, &t), Some(vec![1]));
        // Another table: no projection at all.
        let other = map("shop", "orders", 2);
        assert_eq!(kept(&rules, &table(&other, None)), None);
    }

    #[test]
    fn canal_black_list_hides_its_columns_unless_the_white_list_names_the_table() {
        let m = map("shop", "users", 4);
        let info = infos(&["id", "name", "email", "phone"], "id");
        let t = table(&m, Some(&info));
        let rules = CanalColumnRules::new(
            std::iter::empty::<(&str, [&str; 0])>(),
            [("shop.users", ["EMAIL", "phone"])],
        );
        assert_eq!(kept(&rules, &t), Some(vec![0, 1]));
        // The white list wins for a table both name (Canal checks the
        // black list only without a white list for the table).
        let rules = CanalColumnRules::new(
            [("shop.users", ["id", "email"])],
            [("shop.users", ["email"])],
        );
        assert_eq!(kept(&rules, &t), Some(vec![0, 2]));
        // The table part is a literal name, not a pattern.
        let rules = CanalColumnRules::new(
            std::iter::empty::<(&str, [&str; 0])>(),
            [("shop.user.", ["email"])],
        );
        assert_eq!(kept(&rules, &t), None);
        let rules = CanalColumnRules::new(
            std::iter::empty::<(&str, [&str; 0])>(),
            [("shop.*", ["email"])],
        );
        assert_eq!(kept(&rules, &t), None);
    }

    #[test]
    fn a_rule_hiding_nothing_gives_no_projection() {
        let m = map("shop", "users", 2);
        let info = infos(&["id", "name"], "id");
        let rules = CanalColumnRules::new(
            std::iter::empty::<(&str, [&str; 0])>(),
            [("shop.users", ["email"])],
        );
        assert!(rules.applies_to("SHOP", "users"));
        assert_eq!(kept(&rules, &table(&m, Some(&info))), None);
    }

    #[test]
    fn unnamed_columns_of_a_ruled_table_are_not_shown() {
        let m = map("shop", "users", 3);
        let t = table(&m, None);
        let rules = CanalColumnRules::new(
            std::iter::empty::<(&str, [&str; 0])>(),
            [("shop.users", ["email"])],
        );
        assert_eq!(kept(&rules, &t), Some(vec![]));
    }

    #[test]
    fn projections_are_resolved_again_when_a_table_id_changes_meaning() {
        let rules = Arc::new(CanalColumnRules::new(
            std::iter::empty::<(&str, [&str; 0])>(),
            [("shop.users", ["email"])],
        ));
        let mut p = Projections::new(rules);
        let m = map("shop", "users", 3);
        let info = infos(&["id", "email", "name"], "id");
        let first = p.get(7, &table(&m, Some(&info))).unwrap();
        assert!(first.keeps(0) && !first.keeps(1) && first.keeps(2));
        // A column added before email under the same id.
        let m4 = map("shop", "users", 4);
        let info4 = infos(&["id", "age", "email", "name"], "id");
        let second = p.get(7, &table(&m4, Some(&info4))).unwrap();
        assert!(second.keeps(1) && !second.keeps(2) && second.keeps(3));
        // The id reused for another table.
        let o = map("shop", "orders", 3);
        assert!(p.get(7, &table(&o, Some(&info))).is_none());
        // And back.
        assert_eq!(p.get(7, &table(&m, Some(&info))), Some(first));
    }

    #[test]
    fn no_rules_no_projection() {
        let rules = CanalColumnRules::new(
            std::iter::empty::<(&str, [&str; 0])>(),
            std::iter::empty::<(&str, [&str; 0])>(),
        );
        assert!(rules.is_empty());
        let m = map("shop", "users", 3);
        assert_eq!(kept(&rules, &table(&m, None)), None);
    }
}
