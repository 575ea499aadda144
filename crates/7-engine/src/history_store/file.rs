//! Debezium's `FileSchemaHistory` layout: one JSON record per line.

use std::fs::{File, OpenOptions};
use std::io::{Read, Seek, SeekFrom, Write};
use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde_json::Value;
use sluice_schema::{HistoryRecord, SchemaError, SchemaHistoryStore};
use tracing::warn;

use super::codec::{HistoryCodec, SourceContext};
use crate::EngineError;

/// The schema history in a file Debezium's `FileSchemaHistory` reads and
/// writes (`schema.history.internal.file.filename`): one compact JSON
/// record per line, appended and synced. A last line without its line end
/// (a crash in the middle of an append) is left out with a warning and cut
/// off before the next append; any other line that is not JSON is an error
/// naming the file and the line.
#[derive(Debug)]
pub struct DebeziumFileHistoryStore {
    path: PathBuf,
    file: File,
    codec: HistoryCodec,
    loaded: bool,
    torn_tail: Option<String>,
    /// Where the intact lines end when the last line is torn.
    cut_before_append: Option<u64>,
}

impl DebeziumFileHistoryStore {
    /// Opens (creating if needed) the history file of the connector whose
    /// `topic.prefix` is `server`.
    pub fn open(
        path: impl AsRef<Path>,
        server: impl Into<String>,
    ) -> Result<DebeziumFileHistoryStore, EngineError> {
        let path = path.as_ref().to_path_buf();
        let file = OpenOptions::new()
            .create(true)
            .read(true)
            .append(true)
            .open(&path)
            .map_err(|e| EngineError::Store {
                location: path.display().to_string(),
                message: format!("cannot open the schema history: {e}"),
            })?;
        Ok(DebeziumFileHistoryStore {
            path,
            file,
            codec: HistoryCodec::new(server),
            loaded: false,
            torn_tail: None,
            cut_before_append: None,
        })
    }

    /// Takes `server_id`, `ts_sec` and `gtids` of the records' positions
    /// from `context`.
    pub fn with_source_context(mut self, context: Arc<SourceContext>) -> Self {
        self.codec =
            HistoryCodec::new(self.codec.server().to_string()).with_source_context(context);
        self.loaded = false;
        self
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    fn error(&self, message: String) -> SchemaError {
        SchemaError::History {
            path: self.path.display().to_string(),
            message,
        }
    }
}

impl SchemaHistoryStore for DebeziumFileHistoryStore {
    fn append(&mut self, record: &HistoryRecord) -> sluice_schema::Result<()> {
        if !self.loaded {
            // The records name what they remove against the history so far.
            self.load()?;
        }
        if let Some(end) = self.cut_before_append {
            self.file
                .set_len(end)
                .and_then(|_| self.file.sync_data())
                .map_err(|e| self.error(format!("cannot cut the torn last line off: {e}")))?;
            self.cut_before_append = None;
            self.torn_tail = None;
        }
        let records = self.codec.encode(record).map_err(|e| {
            self.error(format!(
                "cannot write the record at {}: {e}",
                record.position()
            ))
        })?;
        let mut text = String::new();
        for r in records {
            text.push_str(&Value::Object(r).to_string());
            text.push('\n');
        }
        self.file
            .write_all(text.as_bytes())
            .and_then(|_| self.file.sync_data())
            .map_err(|e| self.error(format!("cannot append: {e}")))?;
        self.codec.written(record);
        Ok(())
    }

    fn load(&mut self) -> sluice_schema::Result<Vec<HistoryRecord>> {
        let mut text = Vec::new();
        self.file
            .seek(SeekFrom::Start(0))
            .and_then(|_| self.file.read_to_end(&mut text))
            .map_err(|e| self.error(format!("cannot read: {e}")))?;
        self.torn_tail = None;
        self.cut_before_append = None;
        let mut documents = Vec::new();
        let mut offset = 0usize;
        for (i, line) in text.split_inclusive(|&b| b == b'\n').enumerate() {
            let start = offset;
            offset += line.len();
            let body = line.strip_suffix(b"\n").unwrap_or(line);
            if body.iter().all(u8::is_ascii_whitespace) {
                continue;
            }
            if !line.ends_with(b"\n") {
                let shown = String::from_utf8_lossy(&body[..body.len().min(120)]).into_owned();
                warn!(
                    path = %self.path.display(),
                    line = i + 1,
                    "schema history ends with a torn record (a crash in the middle of an append); left out: {shown}"
                );
                self.torn_tail = Some(shown);
                self.cut_before_append = Some(start as u64);
                break;
            }
            match serde_json::from_slice::<Value>(body) {
                Ok(v) => documents.push((format!("{}:{}", self.path.display(), i + 1), v)),
                Err(e) => {
                    return Err(self.error(format!(
                        "line {} (byte {start}) is not a JSON record: {e}",
                        i + 1
                    )))
                }
            }
        }
        let records = self.codec.decode_all(documents);
        self.loaded = true;
        Ok(records)
    }

    fn location(&self) -> String {
        self.path.display().to_string()
    }

    fn torn_tail(&self) -> Option<&str> {
        self.torn_tail.as_deref()
    }
}
