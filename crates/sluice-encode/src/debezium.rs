//! Debezium change-event JSON: to be written.
