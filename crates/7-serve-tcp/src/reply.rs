//! The replies a session hands the server ([`Reply`], [`Outcome`]) and
//! their encoding into frames, MESSAGES written field by field so entry
//! bytes are copied once (or not at all, with [`encode_messages_head`]).
//! Shared by the session that produces replies and the metrics that count
//! them.

use prost::Message;
use sluice_canal::proto::{Ack, Packet, PacketType};
use sluice_store::{Batch, EntryBytes};

use crate::frame::{self, FrameError};

/// A reply to write.
#[derive(Debug, Clone)]
pub enum Reply {
    /// ACK: success when `error` is `None`, else Canal's code and text.
    Ack { error: Option<(i32, String)> },
    /// MESSAGES with a batch (id -1 and no entries when empty).
    Batch(Batch<EntryBytes>),
}

/// What the server does after one packet.
#[derive(Debug, Clone)]
pub enum Outcome {
    /// Nothing to write (successful CLIENTACK or CLIENTROLLBACK, ack -1).
    Silent,
    /// Write this reply and read the next request.
    Reply(Reply),
    /// Write this reply, then close the connection.
    ReplyAndClose(Reply),
}

impl Reply {
    pub fn ok() -> Reply {
        Reply::Ack { error: None }
    }

    pub fn error(code: i32, message: impl Into<String>) -> Reply {
        Reply::Ack {
            error: Some((code, message.into())),
        }
    }

    /// The error code, if this is an error ACK.
    pub fn error_code(&self) -> Option<i32> {
        match self {
            Reply::Ack {
                error: Some((c, _)),
            } => Some(*c),
            _ => None,
        }
    }

    /// Appends the whole frame (length header and packet) to `out`.
    pub fn encode_frame(&self, out: &mut Vec<u8>) -> Result<(), FrameError> {
        match self {
            Reply::Ack { error } => {
                let body = match error {
                    None => Vec::new(),
                    Some((code, message)) => Ack {
                        error_code: Some(*code),
                        error_message: message.clone(),
                    }
                    .encode_to_vec(),
                };
                let packet = Packet {
                    version: Some(1),
                    r#type: PacketType::Ack as i32,
                    body,
                    ..Default::default()
                };
                frame::encode_into(&packet.encode_to_vec(), out)
            }
            Reply::Batch(batch) => encode_messages_frame(batch.id, &batch.entries, out),
        }
    }
}

/// `Packet{version: 1, type: MESSAGES, body: Messages{batch_id, messages}}`
/// written field by field so entry bytes are copied once, straight into the
/// output. Same bytes as prost would produce for the same messages.
pub fn encode_messages_frame(
    batch_id: i64,
    entries: &[EntryBytes],
    out: &mut Vec<u8>,
) -> Result<(), FrameError> {
    use prost::encoding::encode_varint;
    let (body_len, packet_len) = messages_lengths(batch_id, entries);
    out.reserve(frame::HEADER_LEN + packet_len);
    messages_prefix(batch_id, body_len, packet_len, out)?;
    for e in entries {
        out.push(0x12);
        encode_varint(e.len() as u64, out);
        out.extend_from_slice(e);
    }
    Ok(())
}

/// [`encode_messages_frame`] without the entries' bytes: `out` gets the
/// frame up to the first entry's bytes and every entry's key and length,
/// and `splits[i]` is where entry `i`'s bytes go in `out`. The frame is
/// `out[..splits[0]]`, `entries[0]`, `out[splits[0]..splits[1]]`, … ,
/// `out[splits[n-1]..]`: written with vectored writes, the entries go from
/// the store to the socket without a copy.
pub fn encode_messages_head(
    batch_id: i64,
    entries: &[EntryBytes],
    out: &mut Vec<u8>,
    splits: &mut Vec<usize>,
) -> Result<(), FrameError> {
    use prost::encoding::encode_varint;
    splits.clear();
    let (body_len, packet_len) = messages_lengths(batch_id, entries);
    messages_prefix(batch_id, body_len, packet_len, out)?;
    for e in entries {
        out.push(0x12);
        encode_varint(e.len() as u64, out);
        splits.push(out.len());
    }
    Ok(())
}

/// The frame header, the Packet's version, type and body key and length,
/// and the Messages' batch id: everything before the first entry.
fn messages_prefix(
    batch_id: i64,
    body_len: usize,
    packet_len: usize,
    out: &mut Vec<u8>,
) -> Result<(), FrameError> {
    use prost::encoding::encode_varint;
    let header = frame::header(packet_len)?;
    out.extend_from_slice(&header);
    // Packet: version 1 (field 2), type (field 3), body (field 5, bytes).
    out.extend_from_slice(&[0x10, 0x01, 0x18, PacketType::Messages as u8, 0x2a]);
    encode_varint(body_len as u64, out);
    if batch_id != 0 {
        out.push(0x08);
        encode_varint(batch_id as u64, out);
    }
    Ok(())
}

/// The Messages body's and the Packet's lengths for a batch.
fn messages_lengths(batch_id: i64, entries: &[EntryBytes]) -> (usize, usize) {
    use prost::encoding::encoded_len_varint;
    let mut body_len = 0usize;
    if batch_id != 0 {
        body_len += 1 + encoded_len_varint(batch_id as u64);
    }
    for e in entries {
        body_len = body_len
            .saturating_add(1 + encoded_len_varint(e.len() as u64))
            .saturating_add(e.len());
    }
    let packet_len = 4usize
        .saturating_add(1 + encoded_len_varint(body_len as u64))
        .saturating_add(body_len);
    (body_len, packet_len)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hand_built_messages_match_prost() {
        use sluice_canal::proto::Messages;
        for (id, entries) in [
            (-1i64, vec![]),
            (1, vec![vec![1u8, 2, 3]]),
            (300, vec![vec![0u8; 200], vec![], vec![7u8; 5]]),
            (i64::MAX, vec![vec![9u8; 70_000]]),
        ] {
            let arcs: Vec<EntryBytes> = entries
                .iter()
                .map(|e| EntryBytes::copy_from_slice(e))
                .collect();
            let mut out = Vec::new();
            encode_messages_frame(id, &arcs, &mut out).unwrap();
            let expected = Packet {
                version: Some(1),
                r#type: PacketType::Messages as i32,
                body: Messages {
                    batch_id: id,
                    messages: entries.clone(),
                }
                .encode_to_vec(),
                ..Default::default()
            }
            .encode_to_vec();
            assert_eq!(&out[..4], &(expected.len() as u32).to_be_bytes());
            assert_eq!(&out[4..], expected.as_slice());
        }
    }

    /// The head with the entries put in at its splits is the whole frame.
    #[test]
    fn messages_head_and_entries_make_the_whole_frame() {
        for (id, entries) in [
            (-1i64, vec![]),
            (0, vec![vec![1u8, 2, 3]]),
            (300, vec![vec![0u8; 200], vec![], vec![7u8; 5]]),
            (i64::MAX, vec![vec![9u8; 70_000], vec![4u8; 130]]),
        ] {
            let arcs: Vec<EntryBytes> = entries
                .iter()
                .map(|e| EntryBytes::copy_from_slice(e))
                .collect();
            let mut whole = Vec::new();
            encode_messages_frame(id, &arcs, &mut whole).unwrap();
            let (mut head, mut splits) = (Vec::new(), Vec::new());
            encode_messages_head(id, &arcs, &mut head, &mut splits).unwrap();
            assert_eq!(splits.len(), arcs.len());
            let mut joined = Vec::new();
            let mut at = 0;
            for (e, &split) in arcs.iter().zip(&splits) {
                joined.extend_from_slice(&head[at..split]);
                joined.extend_from_slice(e);
                at = split;
            }
            joined.extend_from_slice(&head[at..]);
            assert_eq!(joined, whole, "batch {id}");
        }
    }

    #[test]
    fn empty_batch_bytes_match_the_spec() {
        let mut out = Vec::new();
        encode_messages_frame(-1, &[], &mut out).unwrap();
        assert_eq!(
            out,
            [
                0, 0, 0, 17, 0x10, 0x01, 0x18, 0x07, 0x2a, 0x0b, 0x08, 0xff, 0xff, 0xff, 0xff,
                0xff, 0xff, 0xff, 0xff, 0xff, 0x01
            ]
        );
    }

    #[test]
    fn success_ack_bytes_match_the_spec() {
        let mut out = Vec::new();
        Reply::ok().encode_frame(&mut out).unwrap();
        assert_eq!(out, [0, 0, 0, 4, 0x10, 0x01, 0x18, 0x03]);
    }
}
