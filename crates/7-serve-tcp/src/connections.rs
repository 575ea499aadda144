//! Which clients are connected: each connection counts once per
//! destination and clientId it made a request for, until it closes. A
//! Canal client keeps its subscription between connections; this tells
//! whether it is there now.

use std::collections::HashMap;
use std::sync::Mutex;

use sluice_store::ClientId;

/// The open connections of a server, by destination and clientId.
#[derive(Debug, Default)]
pub struct Connections(Mutex<HashMap<(String, ClientId), usize>>);

impl Connections {
    fn lock(&self) -> std::sync::MutexGuard<'_, HashMap<(String, ClientId), usize>> {
        self.0.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub(crate) fn opened(&self, destination: &str, client: ClientId) {
        *self
            .lock()
            .entry((destination.to_string(), client))
            .or_insert(0) += 1;
    }

    pub(crate) fn closed(&self, destination: &str, client: ClientId) {
        let mut map = self.lock();
        let key = (destination.to_string(), client);
        if let Some(n) = map.get_mut(&key) {
            *n = n.saturating_sub(1);
            if *n == 0 {
                map.remove(&key);
            }
        }
    }

    /// How many open connections made requests as `client` of `destination`.
    pub fn count(&self, destination: &str, client: ClientId) -> usize {
        self.lock()
            .get(&(destination.to_string(), client))
            .copied()
            .unwrap_or(0)
    }
}
