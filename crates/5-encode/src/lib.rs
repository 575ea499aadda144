//! Encoders of the change-event model ([`sluice_events`]): one module per
//! output. Each takes [`sluice_events::ChangeEvent`]s and writes its format;
//! none reaches back into the pipeline.
//!
//! - [`canal`]: Canal `Entry` protobuf, as Canal's MySQL parser fills it.
//! - [`flat`]: Canal's FlatMessage JSON (MQ mode).
//! - [`mq`]: a Canal batch routed into broker records (MQ mode).
//! - [`debezium`]: Debezium's change-event JSON (key and value).
//! - [`tail`]: the JSON lines of `sluice tail`.
//! - [`binlog_json`]: the JSON lines of `sluice binlog decode` (raw events).

pub mod binlog_json;
pub mod canal;
pub mod debezium;
pub mod flat;
mod json_escape;
pub mod mq;
pub mod tail;
