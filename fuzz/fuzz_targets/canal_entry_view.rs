//! Arbitrary bytes as a serialised Canal entry, read in place
//! (`sluice_canal::view`) as an MQ worker reads the store's entries: no
//! panic, and where prost decodes the same bytes into an `Entry` and a
//! `RowChange`, the views read the same header fields, rows and columns.
//! The bytes also go through the MQ router (FlatMessage JSON, rows placed
//! by primary key), which must refuse or route them, never panic.
#![no_main]

use libfuzzer_sys::fuzz_target;
use prost::Message;
use sluice_canal::proto::{Entry, RowChange};
use sluice_canal::view::{EntryView, RowChangeView};
use sluice_encode::mq::{MqRouter, RouteConfig};

fuzz_target!(|data: &[u8]| {
    let view = EntryView::parse(data);
    if let (Ok(entry), Ok(view)) = (Entry::decode(data), &view) {
        let header = entry.header.clone().unwrap_or_default();
        assert_eq!(view.header.schema_name, header.schema_name.as_deref().unwrap_or_default());
        assert_eq!(view.header.table_name, header.table_name.as_deref().unwrap_or_default());
        assert_eq!(view.header.logfile_offset, header.logfile_offset.unwrap_or_default());
        let store = entry.store_value.as_deref().unwrap_or_default();
        assert_eq!(view.store_value, store);
        if let (Ok(change), Ok(cv)) = (RowChange::decode(store), RowChangeView::parse(store)) {
            assert_eq!(cv.row_count, change.row_datas.len());
            for (rv, rd) in cv.rows().zip(&change.row_datas) {
                let after: Vec<_> = rv.after().collect();
                assert_eq!(after.len(), rd.after_columns.len());
                for (v, c) in after.iter().zip(&rd.after_columns) {
                    let v = v.as_ref().expect("prost decoded this column");
                    assert_eq!(v.name, c.name.as_deref().unwrap_or_default());
                    assert_eq!(v.value, c.value.as_deref());
                    assert_eq!(v.is_null, c.is_null.unwrap_or_default());
                }
            }
        }
    }
    let router = MqRouter::new(RouteConfig {
        topic: "fuzz".into(),
        partitions_num: Some(3),
        partition_hash: r".*\..*:$pk$".into(),
        ..RouteConfig::default()
    })
    .expect("a valid route");
    let mut out = Vec::new();
    let _ = router.messages(1, &[data], 0, &mut out);
});
