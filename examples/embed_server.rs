//! A whole Sluice server in a Rust program, as the README's "Embedding"
//! shows: `cargo run -p sluice-examples --example embed_server -- CONF_DIR`, stopped
//! with Ctrl-C.

use sluice_server::Server;

#[tokio::main]
async fn main() -> Result<(), Box<dyn std::error::Error>> {
    let conf = std::env::args().nth(1).unwrap_or_else(|| "conf".into());
    let server = Server::start(sluice_server::load_config(conf)?).await?;
    match server.local_addr() {
        Some(addr) => println!("Canal clients connect to {addr}"),
        None => println!("publishing to the broker of canal.serverMode"),
    }
    tokio::signal::ctrl_c().await?;
    server.shutdown().await?; // cursors written, destinations released, folder unlocked
    Ok(())
}
