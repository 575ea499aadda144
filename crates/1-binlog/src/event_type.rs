//! Event type codes of MySQL (0–42) and MariaDB (160–171), with the names the
//! servers' own sources give them. MariaDB's codes get a `MARIADB_` prefix
//! where MySQL has an event of the same name (GTID) and for clarity elsewhere.

/// A binlog event type code.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct EventType(pub u8);

macro_rules! event_types {
    ($($name:ident = $code:expr, $text:expr;)*) => {
        impl EventType {
            $(pub const $name: EventType = EventType($code);)*

            /// The server's own name for this event type, e.g. `WRITE_ROWS_EVENT`.
            pub fn name(self) -> &'static str {
                match self.0 {
                    $($code => $text,)*
                    _ => "UNKNOWN_EVENT",
                }
            }

            /// Whether this code is one Sluice knows.
            pub fn is_known(self) -> bool {
                matches!(self.0, $($code)|*)
            }
        }
    };
}

event_types! {
    UNKNOWN = 0, "UNKNOWN_EVENT";
    START_V3 = 1, "START_EVENT_V3";
    QUERY = 2, "QUERY_EVENT";
    STOP = 3, "STOP_EVENT";
    ROTATE = 4, "ROTATE_EVENT";
    INTVAR = 5, "INTVAR_EVENT";
    LOAD = 6, "LOAD_EVENT";
    SLAVE = 7, "SLAVE_EVENT";
    CREATE_FILE = 8, "CREATE_FILE_EVENT";
    APPEND_BLOCK = 9, "APPEND_BLOCK_EVENT";
    EXEC_LOAD = 10, "EXEC_LOAD_EVENT";
    DELETE_FILE = 11, "DELETE_FILE_EVENT";
    NEW_LOAD = 12, "NEW_LOAD_EVENT";
    RAND = 13, "RAND_EVENT";
    USER_VAR = 14, "USER_VAR_EVENT";
    FORMAT_DESCRIPTION = 15, "FORMAT_DESCRIPTION_EVENT";
    XID = 16, "XID_EVENT";
    BEGIN_LOAD_QUERY = 17, "BEGIN_LOAD_QUERY_EVENT";
    EXECUTE_LOAD_QUERY = 18, "EXECUTE_LOAD_QUERY_EVENT";
    TABLE_MAP = 19, "TABLE_MAP_EVENT";
    PRE_GA_WRITE_ROWS = 20, "PRE_GA_WRITE_ROWS_EVENT";
    PRE_GA_UPDATE_ROWS = 21, "PRE_GA_UPDATE_ROWS_EVENT";
    PRE_GA_DELETE_ROWS = 22, "PRE_GA_DELETE_ROWS_EVENT";
    WRITE_ROWS_V1 = 23, "WRITE_ROWS_EVENT_V1";
    UPDATE_ROWS_V1 = 24, "UPDATE_ROWS_EVENT_V1";
    DELETE_ROWS_V1 = 25, "DELETE_ROWS_EVENT_V1";
    INCIDENT = 26, "INCIDENT_EVENT";
    HEARTBEAT = 27, "HEARTBEAT_LOG_EVENT";
    IGNORABLE = 28, "IGNORABLE_LOG_EVENT";
    ROWS_QUERY = 29, "ROWS_QUERY_LOG_EVENT";
    WRITE_ROWS = 30, "WRITE_ROWS_EVENT";
    UPDATE_ROWS = 31, "UPDATE_ROWS_EVENT";
    DELETE_ROWS = 32, "DELETE_ROWS_EVENT";
    GTID = 33, "GTID_LOG_EVENT";
    ANONYMOUS_GTID = 34, "ANONYMOUS_GTID_LOG_EVENT";
    PREVIOUS_GTIDS = 35, "PREVIOUS_GTIDS_LOG_EVENT";
    TRANSACTION_CONTEXT = 36, "TRANSACTION_CONTEXT_EVENT";
    VIEW_CHANGE = 37, "VIEW_CHANGE_EVENT";
    XA_PREPARE = 38, "XA_PREPARE_LOG_EVENT";
    PARTIAL_UPDATE_ROWS = 39, "PARTIAL_UPDATE_ROWS_EVENT";
    TRANSACTION_PAYLOAD = 40, "TRANSACTION_PAYLOAD_EVENT";
    HEARTBEAT_V2 = 41, "HEARTBEAT_LOG_EVENT_V2";
    GTID_TAGGED = 42, "GTID_TAGGED_LOG_EVENT";
    MARIADB_ANNOTATE_ROWS = 160, "MARIADB_ANNOTATE_ROWS_EVENT";
    MARIADB_BINLOG_CHECKPOINT = 161, "MARIADB_BINLOG_CHECKPOINT_EVENT";
    MARIADB_GTID = 162, "MARIADB_GTID_EVENT";
    MARIADB_GTID_LIST = 163, "MARIADB_GTID_LIST_EVENT";
    MARIADB_START_ENCRYPTION = 164, "MARIADB_START_ENCRYPTION_EVENT";
    MARIADB_QUERY_COMPRESSED = 165, "MARIADB_QUERY_COMPRESSED_EVENT";
    MARIADB_WRITE_ROWS_COMPRESSED_V1 = 166, "MARIADB_WRITE_ROWS_COMPRESSED_EVENT_V1";
    MARIADB_UPDATE_ROWS_COMPRESSED_V1 = 167, "MARIADB_UPDATE_ROWS_COMPRESSED_EVENT_V1";
    MARIADB_DELETE_ROWS_COMPRESSED_V1 = 168, "MARIADB_DELETE_ROWS_COMPRESSED_EVENT_V1";
    MARIADB_WRITE_ROWS_COMPRESSED = 169, "MARIADB_WRITE_ROWS_COMPRESSED_EVENT";
    MARIADB_UPDATE_ROWS_COMPRESSED = 170, "MARIADB_UPDATE_ROWS_COMPRESSED_EVENT";
    MARIADB_DELETE_ROWS_COMPRESSED = 171, "MARIADB_DELETE_ROWS_COMPRESSED_EVENT";
}

/// Which rows operation an event carries.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RowsKind {
    Write,
    Update,
    Delete,
    /// MySQL 8 PARTIAL_UPDATE_ROWS: an update whose JSON after-images may be diffs.
    PartialUpdate,
}

/// How a rows event is laid out on the wire.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RowsLayout {
    pub kind: RowsKind,
    /// v2 events (30–32, 39) carry an extra-data block after the flags.
    pub has_extra_data: bool,
    /// MariaDB 166–171: the row data is zlib-compressed.
    pub compressed: bool,
}

impl EventType {
    /// The layout of a rows event, or `None` if this is not a rows event.
    pub fn rows_layout(self) -> Option<RowsLayout> {
        use RowsKind::*;
        let (kind, has_extra_data, compressed) = match self.0 {
            20 | 23 => (Write, false, false),
            21 | 24 => (Update, false, false),
            22 | 25 => (Delete, false, false),
            30 => (Write, true, false),
            31 => (Update, true, false),
            32 => (Delete, true, false),
            39 => (PartialUpdate, true, false),
            166 => (Write, false, true),
            167 => (Update, false, true),
            168 => (Delete, false, true),
            169 => (Write, true, true),
            170 => (Update, true, true),
            171 => (Delete, true, true),
            _ => return None,
        };
        Some(RowsLayout {
            kind,
            has_extra_data,
            compressed,
        })
    }
}

impl std::fmt::Display for EventType {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(self.name())
    }
}
