//! The table filters of one destination's clients, and the one its shared
//! stream reads with.
//!
//! Each client id has its own filter: the one it subscribed with, or
//! `canal.instance.filter.regex` when it subscribed without one. The
//! stream reads the union of them (the configured filter alone while no
//! client is subscribed), and the store hands each client only what its
//! own filter keeps (a [`Selection`]). The black list, the DML/DDL/query
//! filters and the column filters are the destination's and apply to all.
//!
//! Pure bookkeeping: no I/O, no store; the destination applies what it
//! says.

use std::collections::{BTreeMap, BTreeSet};
use std::sync::Arc;

use sluice_canal::{FilterError, TableFilter};
use sluice_store::{ClientId, FilterVersion, Selection};

/// The filter the stream reads with now, and its version (entries carry
/// the version they passed, see [`sluice_store::EntryMeta::filter_version`]).
#[derive(Debug, Clone)]
pub struct StreamFilter {
    pub version: FilterVersion,
    pub filter: Arc<TableFilter>,
}

/// What a subscribe changed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FilterChange {
    /// The stream now reads tables it did not read before: what it read so
    /// far lacks them, so it must read again for the client to get them.
    pub widened: bool,
}

/// A filter's patterns as a set; `None` for one that keeps every table.
type PatternSet = Option<BTreeSet<String>>;

fn pattern_set(f: &TableFilter) -> PatternSet {
    if f.keeps_all() {
        None
    } else {
        Some(f.patterns().into_iter().collect())
    }
}

/// `schema.table` if the pattern names one table literally (`shop\.orders`).
fn literal_table(pattern: &str) -> Option<(String, String)> {
    let plain = pattern.replace("\\.", "\u{0}");
    if !plain
        .chars()
        .all(|c| c == '\u{0}' || c.is_ascii_alphanumeric() || c == '_' || c == '$')
    {
        return None;
    }
    let (schema, table) = plain.split_once('\u{0}')?;
    (!table.contains('\u{0}')).then(|| (schema.to_string(), table.to_string()))
}

/// Whether the stream filter (`outer`, its patterns `outer_set`) keeps at
/// least what `inner` keeps: each pattern of `inner` is one of `outer`'s,
/// or names one table `outer` keeps. Any other pattern counts as more:
/// reading again costs time, missing rows would lose them.
fn covers(outer: &TableFilter, outer_set: &PatternSet, inner: &PatternSet) -> bool {
    match (outer_set, inner) {
        (None, _) => true,
        (Some(_), None) => false,
        (Some(o), Some(i)) => i.iter().all(|p| {
            o.contains(p)
                || literal_table(p).is_some_and(|(schema, table)| outer.matches(&schema, &table))
        }),
    }
}

/// The filters of one destination's clients.
#[derive(Debug)]
pub struct ClientFilters {
    configured: Arc<TableFilter>,
    /// Each client's filter as it subscribed ("" for none), and compiled.
    clients: BTreeMap<ClientId, (String, Arc<TableFilter>)>,
    stream: StreamFilter,
    stream_set: PatternSet,
}

impl ClientFilters {
    /// No client yet: the stream reads with `configured`.
    pub fn new(configured: TableFilter) -> Self {
        let configured = Arc::new(configured);
        ClientFilters {
            stream_set: pattern_set(&configured),
            stream: StreamFilter {
                version: 0,
                filter: configured.clone(),
            },
            configured,
            clients: BTreeMap::new(),
        }
    }

    /// The configured filter (`canal.instance.filter.regex`).
    pub fn configured(&self) -> &Arc<TableFilter> {
        &self.configured
    }

    pub fn stream(&self) -> &StreamFilter {
        &self.stream
    }

    /// The filter a subscribe with `filter` gives a client.
    fn own_filter(&self, filter: &str) -> Result<Arc<TableFilter>, FilterError> {
        if filter.trim().is_empty() {
            Ok(self.configured.clone())
        } else {
            TableFilter::new(filter).map(Arc::new)
        }
    }

    /// A client subscribes with `filter` ("" for the configured one).
    pub fn subscribe(
        &mut self,
        client: ClientId,
        filter: &str,
    ) -> Result<FilterChange, FilterError> {
        let own = self.own_filter(filter)?;
        let widened = !covers(&self.stream.filter, &self.stream_set, &pattern_set(&own));
        self.clients.insert(client, (filter.to_string(), own));
        self.recompute();
        Ok(FilterChange { widened })
    }

    /// A client restored from the persisted subscriptions; an invalid
    /// stored filter (written by another version) falls back to the
    /// configured one, with a warning.
    pub fn restore(&mut self, destination: &str, client: ClientId, filter: &str) {
        let own = self.own_filter(filter).unwrap_or_else(|e| {
            tracing::warn!(destination, client, error = %e, "the stored filter of this client is invalid; it gets the configured filter until it subscribes again");
            self.configured.clone()
        });
        self.clients.insert(client, (filter.to_string(), own));
        self.recompute();
    }

    /// Another configured filter: the clients without one of their own
    /// get it.
    pub fn set_configured(&mut self, configured: TableFilter) {
        self.configured = Arc::new(configured);
        for (raw, own) in self.clients.values_mut() {
            if raw.trim().is_empty() {
                *own = self.configured.clone();
            }
        }
        self.recompute();
    }

    pub fn unsubscribe(&mut self, client: ClientId) {
        if self.clients.remove(&client).is_some() {
            self.recompute();
        }
    }

    /// The client's own filter, if it is subscribed.
    pub fn of(&self, client: ClientId) -> Option<&Arc<TableFilter>> {
        self.clients.get(&client).map(|(_, f)| f)
    }

    /// What the store hands the client: what its own filter keeps, without
    /// matching again what the stream filtered with that very filter.
    pub fn selection(&self, client: ClientId) -> Option<Selection> {
        let (_, own) = self.clients.get(&client)?;
        let same = pattern_set(own) == self.stream_set;
        Some(Selection::new(
            own.clone(),
            same.then_some(self.stream.version),
        ))
    }

    pub fn clients(&self) -> impl Iterator<Item = ClientId> + '_ {
        self.clients.keys().copied()
    }

    /// The union of the clients' filters (the configured one without
    /// clients); a new version when it changed.
    fn recompute(&mut self) {
        let sets: Vec<PatternSet> = if self.clients.is_empty() {
            vec![pattern_set(&self.configured)]
        } else {
            self.clients.values().map(|(_, f)| pattern_set(f)).collect()
        };
        let union: PatternSet = if sets.iter().any(Option::is_none) {
            None
        } else {
            Some(sets.into_iter().flatten().flatten().collect())
        };
        if union == self.stream_set {
            return;
        }
        let filter = match &union {
            None => TableFilter::all(),
            // Each pattern compiled already on its own: their list does too.
            Some(p) => TableFilter::new(&p.iter().cloned().collect::<Vec<_>>().join(","))
                .unwrap_or_else(|_| TableFilter::all()),
        };
        self.stream = StreamFilter {
            version: self.stream.version.wrapping_add(1) % sluice_store::NOT_STREAM_FILTERED,
            filter: Arc::new(filter),
        };
        self.stream_set = union;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn configured(f: &str) -> ClientFilters {
        ClientFilters::new(TableFilter::new(f).unwrap())
    }

    #[test]
    fn without_clients_the_stream_reads_the_configured_filter() {
        let f = configured("shop\\..*");
        assert_eq!(f.stream().filter.as_str(), "shop\\..*");
        assert_eq!(f.stream().version, 0);
    }

    #[test]
    fn one_client_with_a_filter_makes_it_the_streams() {
        let mut f = configured(".*\\..*");
        let change = f.subscribe(1001, "b19\\.a").unwrap();
        assert!(!change.widened, "the configured filter kept everything");
        assert!(f.stream().filter.matches("b19", "a"));
        assert!(!f.stream().filter.matches("b19", "b"));
        // Its entries pass without being matched again.
        let s = f.selection(1001).unwrap();
        assert!(s.filter().matches("b19", "a"));
    }

    #[test]
    fn the_stream_reads_the_union_and_each_client_keeps_its_own() {
        let mut f = configured(".*\\..*");
        f.subscribe(1002, "b19\\.a").unwrap();
        let v = f.stream().version;
        let change = f.subscribe(1001, "").unwrap();
        assert!(change.widened, "client 1001 wants every table again");
        assert!(f.stream().filter.matches("b19", "b"));
        assert!(f.stream().version > v);
        assert!(!f.selection(1002).unwrap().filter().matches("b19", "b"));
        assert!(f.selection(1001).unwrap().filter().matches("b19", "b"));
    }

    #[test]
    fn a_filter_inside_the_union_does_not_widen_and_leaving_narrows() {
        let mut f = configured("x\\.y");
        f.subscribe(1, "a\\.a,b\\.b").unwrap();
        assert!(!f.subscribe(2, "b\\.b").unwrap().widened);
        assert!(f.subscribe(3, "c\\.c").unwrap().widened);
        f.unsubscribe(1);
        f.unsubscribe(3);
        assert!(!f.stream().filter.matches("a", "a"));
        assert!(f.stream().filter.matches("b", "b"));
        // Back to the configured filter once nobody is subscribed.
        f.unsubscribe(2);
        assert!(f.stream().filter.matches("x", "y"));
        assert!(!f.stream().filter.matches("b", "b"));
    }

    #[test]
    fn a_literal_table_inside_a_wider_pattern_does_not_widen() {
        let mut f = configured("b19\\..*");
        f.subscribe(1001, "").unwrap();
        assert!(!f.subscribe(1002, "b19\\.a").unwrap().widened);
        assert!(f.subscribe(1003, "b20\\.a").unwrap().widened);
        assert!(
            f.subscribe(1004, "b19\\.a.*").unwrap().widened,
            "not a literal"
        );
    }

    #[test]
    fn an_invalid_filter_is_refused_and_changes_nothing() {
        let mut f = configured(".*\\..*");
        f.subscribe(1, "a\\.a").unwrap();
        assert!(f.subscribe(2, "a\\.(").is_err());
        assert!(f.of(2).is_none());
        assert!(!f.stream().filter.matches("b", "b"));
    }
}
