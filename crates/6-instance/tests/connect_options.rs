//! An instance's `instance.properties` reaches the source connection:
//! `canal.instance.defaultDatabaseName` and `canal.instance.connectionCharset`
//! are in the options every connection to the source is made with.

use std::path::Path;

use sluice_config::{InstanceConfig, Properties};
use sluice_instance::manager::source_connect_options;

fn config(text: &str) -> InstanceConfig {
    InstanceConfig::from_properties(
        Path::new("instance.properties"),
        "example",
        Properties::parse(&format!(
            "canal.instance.master.address = 127.0.0.1:3306\n{text}"
        )),
        None,
    )
    .unwrap()
}

#[test]
fn the_default_database_and_charset_reach_the_connection() {
    let opts = source_connect_options(&config(
        "canal.instance.defaultDatabaseName = shop\ncanal.instance.connectionCharset = UTF-8\n",
    ))
    .unwrap();
    assert_eq!(opts.database.as_deref(), Some("shop"));
    assert_eq!(opts.collation, 45, "utf8mb4_general_ci");

    let opts = source_connect_options(&config("")).unwrap();
    assert_eq!(opts.database, None);
    assert_eq!(opts.collation, 45);
}
