//! Embeds one destination's change stream in a program: reads the Canal
//! configuration folder (`canal.properties`, `DESTINATION/instance.properties`)
//! and prints the destination's changes as `sluice tail`'s JSON lines, from
//! its configured start position to the end of the binlog.
//!
//! `cargo run -p sluice-instance --example change_stream -- CONF_DIR DESTINATION`

use std::io::BufWriter;
use std::path::PathBuf;

use sluice_config::{InstanceConfig, ServerConfig};
use sluice_encode::tail::TailEncoder;
use sluice_instance::stream::{ChangeStream, WriteSink};

#[tokio::main(flavor = "multi_thread", worker_threads = 2)]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let (Some(conf_dir), Some(destination)) = (args.next(), args.next()) else {
        return Err("usage: change_stream CONF_DIR DESTINATION".into());
    };
    let server = ServerConfig::load(&PathBuf::from(conf_dir))?;
    let config = InstanceConfig::load(&server, &destination)?;
    let mut stream = ChangeStream::for_instance(&config, &server.file_data_dir)?;
    stream.source_mut().stop_at_end = true;
    let stdout = std::io::stdout();
    let mut sink = WriteSink(BufWriter::new(stdout.lock()));
    let end = stream.run(&mut TailEncoder::new(), &mut sink).await?;
    eprintln!("stopped at {end}");
    Ok(())
}
