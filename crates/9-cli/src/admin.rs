//! `sluice admin OPERATION`: the admin API of a running server; the
//! operations are read and shown by [`sluice_server::admin_api_client`].

use clap::Args;
use sluice_server::admin_api_client;

#[derive(Args)]
#[command(after_help = admin_api_client::USAGE)]
pub struct AdminArgs {
    /// The admin API: http://HOST:PORT of sluice.admin.http.host and .port.
    #[arg(long, env = "SLUICE_ADMIN_URL")]
    url: String,
    /// The bearer token (sluice.admin.http.token); better in SLUICE_ADMIN_TOKEN, unseen by `ps`.
    #[arg(long, env = "SLUICE_ADMIN_TOKEN", hide_env_values = true)]
    token: Option<String>,
    /// Print the API's JSON answer instead of text.
    #[arg(long)]
    json: bool,
    /// Seconds to wait for the answer (a release waits for its standby on top).
    #[arg(long, default_value_t = 30)]
    timeout: u64,
    /// The operation and its arguments (below).
    #[arg(required = true, trailing_var_arg = true, allow_hyphen_values = true)]
    operation: Vec<String>,
}

pub fn run(args: &AdminArgs) -> anyhow::Result<()> {
    let (url, token) = (&args.url, args.token.as_deref());
    let out = admin_api_client::run_blocking(url, token, args.json, args.timeout, &args.operation);
    print!("{}", out.map_err(anyhow::Error::msg)?);
    Ok(())
}
