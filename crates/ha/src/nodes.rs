//! Small node operations shared by the ZooKeeper stores.

use zookeeper_client::{Acls, Client, CreateMode};

use crate::HaError;

/// A persistent node with `acls` (see [`crate::ZkConfig::node_acls`]).
pub(crate) fn persistent(acls: Acls<'static>) -> zookeeper_client::CreateOptions<'static> {
    CreateMode::Persistent.with_acls(acls)
}

/// Reads a node's data; `None` if it does not exist.
pub(crate) async fn read(client: &Client, path: &str) -> Result<Option<Vec<u8>>, HaError> {
    match client.get_data(path).await {
        Ok((data, _)) => Ok(Some(data)),
        Err(zookeeper_client::Error::NoNode) => Ok(None),
        Err(e) => Err(HaError::zk("read", path)(e)),
    }
}

/// Deletes a node without children if it exists.
pub(crate) async fn delete(client: &Client, path: &str) -> Result<(), HaError> {
    match client.delete(path, None).await {
        Ok(()) | Err(zookeeper_client::Error::NoNode) => Ok(()),
        Err(e) => Err(HaError::zk("delete", path)(e)),
    }
}

/// Deletes a node and everything under it (nothing if it does not exist).
pub async fn delete_recursive(client: &Client, path: &str) -> Result<(), HaError> {
    let mut nodes = vec![path.to_string()];
    let mut i = 0;
    while i < nodes.len() {
        match client.list_children(&nodes[i]).await {
            Ok(children) => {
                let parent = nodes[i].clone();
                nodes.extend(children.into_iter().map(|c| format!("{parent}/{c}")));
            }
            Err(zookeeper_client::Error::NoNode) => {}
            Err(e) => return Err(HaError::zk("list", &nodes[i])(e)),
        }
        i += 1;
    }
    for node in nodes.iter().rev() {
        delete(client, node).await?;
    }
    Ok(())
}
