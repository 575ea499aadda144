//! Server settings for a test instance and the command-line flags they become.

use std::fmt;
use std::time::Duration;

macro_rules! server_enum {
    (
        $(#[$meta:meta])*
        $name:ident { $( $(#[$vmeta:meta])* $variant:ident => $text:literal ),+ $(,)? }
    ) => {
        $(#[$meta])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $( $(#[$vmeta])* $variant ),+
        }

        impl $name {
            /// The value as the server spells it on its command line and in `SHOW VARIABLES`.
            pub fn as_str(self) -> &'static str {
                match self {
                    $( $name::$variant => $text ),+
                }
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str(self.as_str())
            }
        }
    };
}

server_enum! {
    /// `binlog_format`.
    BinlogFormat {
        Row => "ROW",
        Statement => "STATEMENT",
        Mixed => "MIXED",
    }
}

server_enum! {
    /// `binlog_row_image`.
    BinlogRowImage {
        Full => "FULL",
        Minimal => "MINIMAL",
        NoBlob => "NOBLOB",
    }
}

server_enum! {
    /// `binlog_row_metadata` (which optional metadata TABLE_MAP events carry).
    BinlogRowMetadata {
        NoLog => "NO_LOG",
        Minimal => "MINIMAL",
        Full => "FULL",
    }
}

server_enum! {
    /// `binlog_checksum`.
    BinlogChecksum {
        Crc32 => "CRC32",
        None => "NONE",
    }
}

/// How to start a test MariaDB server.
///
/// Every field is public; the methods of the same names are chainable setters:
///
/// ```
/// use sluice_testkit::{BinlogRowImage, MariaDbConfig};
///
/// let cfg = MariaDbConfig::default()
///     .binlog_row_image(BinlogRowImage::Minimal)
///     .log_bin_compress(true)
///     .server_id(7)
///     .arg("--gtid-domain-id=3");
/// assert!(cfg.server_args().contains(&"--binlog-row-image=MINIMAL".to_string()));
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MariaDbConfig {
    /// Default [`BinlogFormat::Row`].
    pub binlog_format: BinlogFormat,
    /// Default [`BinlogRowImage::Full`].
    pub binlog_row_image: BinlogRowImage,
    /// Default [`BinlogRowMetadata::Full`] (the server's own default is `NO_LOG`).
    pub binlog_row_metadata: BinlogRowMetadata,
    /// `--log-bin-compress`: write compressed query and row events. Default off.
    pub log_bin_compress: bool,
    /// `--log-bin-compress-min-len` (the server's default is 256 bytes; smaller
    /// events are written uncompressed). `None` keeps the server's default.
    pub log_bin_compress_min_len: Option<u32>,
    /// Default [`BinlogChecksum::Crc32`].
    pub binlog_checksum: BinlogChecksum,
    /// `--gtid-strict-mode`. Default off, as in the server.
    pub gtid_strict_mode: bool,
    /// `--server-id`. Default 1.
    pub server_id: u32,
    /// Fixed TCP port; `None` (the default) picks a free one on 127.0.0.1.
    pub port: Option<u16>,
    /// `--character-set-server`; default `utf8mb4`, `None` leaves the server's default.
    pub character_set_server: Option<String>,
    /// `--collation-server`; default `utf8mb4_general_ci`, `None` leaves the server's default.
    pub collation_server: Option<String>,
    /// Extra `mariadbd` arguments, appended last, so they override anything set above
    /// (for `--option=value` options the last occurrence wins).
    pub extra_args: Vec<String>,
    /// How long to wait for the server to accept connections. Default 60 s.
    pub startup_timeout: Duration,
}

impl Default for MariaDbConfig {
    fn default() -> Self {
        MariaDbConfig {
            binlog_format: BinlogFormat::Row,
            binlog_row_image: BinlogRowImage::Full,
            binlog_row_metadata: BinlogRowMetadata::Full,
            log_bin_compress: false,
            log_bin_compress_min_len: None,
            binlog_checksum: BinlogChecksum::Crc32,
            gtid_strict_mode: false,
            server_id: 1,
            port: None,
            character_set_server: Some("utf8mb4".to_string()),
            collation_server: Some("utf8mb4_general_ci".to_string()),
            extra_args: Vec::new(),
            startup_timeout: Duration::from_secs(60),
        }
    }
}

impl MariaDbConfig {
    /// Same as `MariaDbConfig::default()`.
    pub fn new() -> Self {
        Self::default()
    }

    pub fn binlog_format(mut self, v: BinlogFormat) -> Self {
        self.binlog_format = v;
        self
    }

    pub fn binlog_row_image(mut self, v: BinlogRowImage) -> Self {
        self.binlog_row_image = v;
        self
    }

    pub fn binlog_row_metadata(mut self, v: BinlogRowMetadata) -> Self {
        self.binlog_row_metadata = v;
        self
    }

    pub fn log_bin_compress(mut self, v: bool) -> Self {
        self.log_bin_compress = v;
        self
    }

    pub fn log_bin_compress_min_len(mut self, v: Option<u32>) -> Self {
        self.log_bin_compress_min_len = v;
        self
    }

    pub fn binlog_checksum(mut self, v: BinlogChecksum) -> Self {
        self.binlog_checksum = v;
        self
    }

    pub fn gtid_strict_mode(mut self, v: bool) -> Self {
        self.gtid_strict_mode = v;
        self
    }

    pub fn server_id(mut self, v: u32) -> Self {
        self.server_id = v;
        self
    }

    pub fn port(mut self, v: Option<u16>) -> Self {
        self.port = v;
        self
    }

    pub fn character_set_server(mut self, v: Option<&str>) -> Self {
        self.character_set_server = v.map(str::to_string);
        self
    }

    pub fn collation_server(mut self, v: Option<&str>) -> Self {
        self.collation_server = v.map(str::to_string);
        self
    }

    /// Appends one extra `mariadbd` argument, e.g. `"--log-slave-updates"`.
    pub fn arg(mut self, arg: impl Into<String>) -> Self {
        self.extra_args.push(arg.into());
        self
    }

    /// Appends several extra `mariadbd` arguments.
    pub fn args<I, S>(mut self, args: I) -> Self
    where
        I: IntoIterator<Item = S>,
        S: Into<String>,
    {
        self.extra_args.extend(args.into_iter().map(Into::into));
        self
    }

    pub fn startup_timeout(mut self, v: Duration) -> Self {
        self.startup_timeout = v;
        self
    }

    /// The `mariadbd` flags that follow from these settings (binlog, server id,
    /// character set, extra args), without the per-instance paths and port.
    pub fn server_args(&self) -> Vec<String> {
        let mut args = vec![
            format!("--server-id={}", self.server_id),
            format!("--binlog-format={}", self.binlog_format),
            format!("--binlog-row-image={}", self.binlog_row_image),
            format!("--binlog-checksum={}", self.binlog_checksum),
            format!("--binlog-row-metadata={}", self.binlog_row_metadata),
            format!(
                "--gtid-strict-mode={}",
                if self.gtid_strict_mode { "ON" } else { "OFF" }
            ),
        ];
        if self.log_bin_compress {
            args.push("--log-bin-compress".to_string());
        }
        if let Some(len) = self.log_bin_compress_min_len {
            args.push(format!("--log-bin-compress-min-len={len}"));
        }
        if let Some(cs) = &self.character_set_server {
            args.push(format!("--character-set-server={cs}"));
        }
        if let Some(coll) = &self.collation_server {
            args.push(format!("--collation-server={coll}"));
        }
        args.extend(self.extra_args.iter().cloned());
        args
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn defaults_give_full_row_logging() {
        let args = MariaDbConfig::default().server_args();
        for want in [
            "--server-id=1",
            "--binlog-format=ROW",
            "--binlog-row-image=FULL",
            "--binlog-checksum=CRC32",
            "--binlog-row-metadata=FULL",
            "--gtid-strict-mode=OFF",
            "--character-set-server=utf8mb4",
            "--collation-server=utf8mb4_general_ci",
        ] {
            assert!(args.iter().any(|a| a == want), "missing {want} in {args:?}");
        }
        assert!(!args.iter().any(|a| a.starts_with("--log-bin-compress")));
    }

    #[test]
    fn setters_and_extra_args_come_last() {
        let args = MariaDbConfig::default()
            .binlog_format(BinlogFormat::Mixed)
            .binlog_row_image(BinlogRowImage::NoBlob)
            .binlog_row_metadata(BinlogRowMetadata::NoLog)
            .binlog_checksum(BinlogChecksum::None)
            .log_bin_compress(true)
            .log_bin_compress_min_len(Some(10))
            .gtid_strict_mode(true)
            .server_id(42)
            .character_set_server(None)
            .collation_server(None)
            .args(["--a=1", "--b=2"])
            .server_args();
        assert_eq!(
            args,
            [
                "--server-id=42",
                "--binlog-format=MIXED",
                "--binlog-row-image=NOBLOB",
                "--binlog-checksum=NONE",
                "--binlog-row-metadata=NO_LOG",
                "--gtid-strict-mode=ON",
                "--log-bin-compress",
                "--log-bin-compress-min-len=10",
                "--a=1",
                "--b=2",
            ]
        );
    }
}
