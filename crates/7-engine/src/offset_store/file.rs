//! Offsets in a file, as Kafka's `FileOffsetBackingStore` keeps them (the
//! Debezium engine's `offset.storage.file.filename`): the whole map of
//! offsets as one Java-serialized `HashMap<byte[], byte[]>`, uncompressed.

use std::fs::{self, File, OpenOptions};
use std::io::{ErrorKind, Write};
use std::path::{Path, PathBuf};

use super::{find_offset, put_offset, OffsetStore};
use crate::java_map::{read_java_map, write_java_map_entries, JavaMapEntry};
use crate::{EngineError, OffsetKey, SourceOffset};

/// Offsets in a file in Kafka's `FileOffsetBackingStore` format. A commit
/// rewrites the file atomically (temporary file, fsync, rename, fsync of
/// the directory), keeping the entries of other keys as it finds them.
#[derive(Debug, Clone)]
pub struct FileOffsetStore {
    path: PathBuf,
}

impl FileOffsetStore {
    /// The store in `path`; a missing (or empty) file holds no offsets.
    /// An existing file is read once, so that one that is not an offset
    /// file is reported now rather than at the first load.
    pub fn open(path: impl Into<PathBuf>) -> Result<FileOffsetStore, EngineError> {
        let store = FileOffsetStore { path: path.into() };
        store.entries()?;
        Ok(store)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// Every entry of the file, in its order.
    pub fn entries(&self) -> Result<Vec<JavaMapEntry>, EngineError> {
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(self.error(format!("cannot read the offset file: {e}"))),
        };
        if bytes.is_empty() {
            return Ok(Vec::new());
        }
        read_java_map(&bytes).map_err(|e| self.error(e.to_string()))
    }

    fn error(&self, message: String) -> EngineError {
        EngineError::Store {
            location: self.location(),
            message,
        }
    }

    /// Replaces the file with `bytes`: a reader sees the old file or the
    /// new one, and the new one survives a crash once this returns.
    fn replace(&self, bytes: &[u8]) -> Result<(), EngineError> {
        let name = self
            .path
            .file_name()
            .ok_or_else(|| self.error("the path names no file".into()))?;
        let dir = match self.path.parent() {
            Some(d) if !d.as_os_str().is_empty() => d.to_path_buf(),
            _ => PathBuf::from("."),
        };
        let mut temp_name = name.to_os_string();
        temp_name.push(format!(".{}.tmp", std::process::id()));
        let temp = dir.join(temp_name);
        let written = (|| -> std::io::Result<()> {
            let mut file = OpenOptions::new()
                .write(true)
                .create(true)
                .truncate(true)
                .open(&temp)?;
            file.write_all(bytes)?;
            file.sync_all()
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&temp);
            return Err(self.error(format!(
                "cannot write the new offsets to {}: {e}",
                temp.display()
            )));
        }
        if let Err(e) = fs::rename(&temp, &self.path) {
            let _ = fs::remove_file(&temp);
            return Err(self.error(format!(
                "cannot move {} over the offset file: {e}",
                temp.display()
            )));
        }
        // The rename is durable only once the directory is.
        File::open(&dir)
            .and_then(|d| d.sync_all())
            .map_err(|e| self.error(format!("cannot sync directory {}: {e}", dir.display())))
    }
}

impl OffsetStore for FileOffsetStore {
    fn load(&mut self, key: &OffsetKey) -> Result<Option<SourceOffset>, EngineError> {
        let entries = self.entries()?;
        find_offset(&entries, key).map_err(|e| self.error(e))
    }

    fn commit(&mut self, key: &OffsetKey, offset: &SourceOffset) -> Result<(), EngineError> {
        let mut entries = self.entries()?;
        put_offset(&mut entries, key, offset);
        self.replace(&write_java_map_entries(&entries))
    }

    fn location(&self) -> String {
        self.path.display().to_string()
    }
}
