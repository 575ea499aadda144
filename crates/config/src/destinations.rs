//! The destinations' section of `canal.properties`: where their
//! `instance.properties` are and how they are found (`canal.conf.dir`,
//! `canal.destinations`, `canal.auto.scan*`), when they start
//! (`canal.instance.global.lazy`), the data folder their cursors and
//! schema history go to (`canal.file.data.dir`) and the instance defaults
//! every `instance.properties` is read over.

use std::collections::HashMap;
use std::path::PathBuf;
use std::time::Duration;

use crate::Property;

/// What the instance manager is given of the server's configuration, and
/// nothing else.
#[derive(Debug, Clone)]
pub struct DestinationsConfig {
    /// `canal.conf.dir` (default: the folder of canal.properties): one
    /// folder per destination, each holding its `instance.properties`.
    pub conf_dir: PathBuf,
    /// `canal.file.data.dir` (default: `conf_dir`): each destination's
    /// cursors, schema history and lock in a folder of its name.
    pub data_dir: PathBuf,
    /// `canal.destinations`: the destinations named.
    pub names: Vec<String>,
    /// `canal.auto.scan` (default true): the folders of `conf_dir` holding
    /// an `instance.properties` are destinations too, started, stopped and
    /// reloaded as their files appear, vanish or change.
    pub auto_scan: bool,
    /// `canal.auto.scan.interval` (seconds, default 5).
    pub auto_scan_interval: Duration,
    /// `canal.instance.global.lazy` (default false): no destination starts
    /// with the server.
    pub lazy: bool,
    /// Every `canal.instance.*`, `canal.mq.*` and `sluice.instance.*` key
    /// of canal.properties: defaults for each instance.
    pub instance_defaults: HashMap<String, Property>,
    /// `canal.auto.reset.latest.pos.mode` (default false): a destination
    /// whose binlog position is purged skips to the end, unless its
    /// `sluice.instance.onPurged` says otherwise.
    pub auto_reset_latest_pos_mode: bool,
    /// The canal.properties that names them, for messages that point there.
    pub path: PathBuf,
}

impl DestinationsConfig {
    /// The destinations to run: `canal.destinations`, plus (with auto scan)
    /// every folder of the conf dir that holds an `instance.properties`.
    pub fn discover(&self) -> Vec<String> {
        let mut out = self.names.clone();
        if self.auto_scan {
            if let Ok(rd) = std::fs::read_dir(&self.conf_dir) {
                let mut found: Vec<String> = rd
                    .filter_map(|e| e.ok())
                    .filter(|e| e.path().join("instance.properties").is_file())
                    .filter_map(|e| e.file_name().to_str().map(str::to_string))
                    .collect();
                found.sort();
                for d in found {
                    if !out.contains(&d) {
                        out.push(d);
                    }
                }
            }
        }
        out
    }

    /// `conf_dir/{destination}/instance.properties`.
    pub fn instance_properties(&self, destination: &str) -> PathBuf {
        self.conf_dir.join(destination).join("instance.properties")
    }
}
