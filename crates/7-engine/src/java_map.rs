//! A `java.util.HashMap<byte[], byte[]>` in Java's object serialization
//! format: what Kafka's `FileOffsetBackingStore` writes to its file, and
//! what Debezium fleets that keep offsets in ZooKeeper write (gzipped) to
//! their offset node.
//!
//! The writer produces the bytes `ObjectOutputStream.writeObject` writes
//! for such a map; the reader accepts what any Java writer produces for
//! one: entries in any order, `null` keys and values, arrays written again
//! by reference, any `threshold` and capacity. Anything else is an error
//! that names the byte offset where reading stopped; arbitrary input never
//! makes the reader panic or allocate more than the input's size.

use std::fmt;

const STREAM_MAGIC: [u8; 2] = [0xAC, 0xED];
const STREAM_VERSION: [u8; 2] = [0x00, 0x05];

const TC_NULL: u8 = 0x70;
const TC_REFERENCE: u8 = 0x71;
const TC_CLASSDESC: u8 = 0x72;
const TC_OBJECT: u8 = 0x73;
const TC_ARRAY: u8 = 0x75;
const TC_BLOCKDATA: u8 = 0x77;
const TC_ENDBLOCKDATA: u8 = 0x78;
const TC_BLOCKDATALONG: u8 = 0x7A;

/// The first handle a stream assigns.
const BASE_HANDLE: u32 = 0x7E_0000;

const SC_WRITE_METHOD: u8 = 0x01;
const SC_SERIALIZABLE: u8 = 0x02;

const HASH_MAP: &str = "java.util.HashMap";
const HASH_MAP_UID: u64 = 362_498_820_763_181_265;
const BYTE_ARRAY: &str = "[B";
const BYTE_ARRAY_UID: u64 = 0xACF3_17F8_0608_54E0;

const LOAD_FACTOR: f32 = 0.75;
const DEFAULT_CAPACITY: u32 = 16;

/// One entry as a Java map holds it: Java allows a `null` key and `null`
/// values.
pub type JavaMapEntry = (Option<Vec<u8>>, Option<Vec<u8>>);

/// An entry to write, borrowing its arrays.
type BorrowedEntry<'a> = (Option<&'a [u8]>, Option<&'a [u8]>);

/// Why bytes are not a serialized `HashMap<byte[], byte[]>`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct JavaMapError {
    /// Where in the input reading stopped.
    pub offset: usize,
    pub message: String,
}

impl fmt::Display for JavaMapError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "not a serialized java.util.HashMap<byte[],byte[]>: at byte {}: {}",
            self.offset, self.message
        )
    }
}

impl std::error::Error for JavaMapError {}

/// Serializes `entries` as `ObjectOutputStream` does a
/// `HashMap<byte[], byte[]>` holding them (in this order).
pub fn write_java_map(entries: &[(Vec<u8>, Vec<u8>)]) -> Vec<u8> {
    let entries: Vec<BorrowedEntry> = entries
        .iter()
        .map(|(k, v)| (Some(k.as_slice()), Some(v.as_slice())))
        .collect();
    write_entries(&entries)
}

/// [`write_java_map`] for entries that may hold Java `null`s, as
/// [`read_java_map`] returns them.
pub fn write_java_map_entries(entries: &[JavaMapEntry]) -> Vec<u8> {
    let entries: Vec<BorrowedEntry> = entries
        .iter()
        .map(|(k, v)| (k.as_deref(), v.as_deref()))
        .collect();
    write_entries(&entries)
}

fn write_entries(entries: &[BorrowedEntry]) -> Vec<u8> {
    let bytes: usize = entries
        .iter()
        .map(|(k, v)| k.map_or(1, |k| k.len() + 10) + v.map_or(1, |v| v.len() + 10))
        .sum();
    let mut out = Vec::with_capacity(96 + bytes);
    out.extend_from_slice(&STREAM_MAGIC);
    out.extend_from_slice(&STREAM_VERSION);
    out.extend_from_slice(&[TC_OBJECT, TC_CLASSDESC]);
    put_utf(&mut out, HASH_MAP);
    out.extend_from_slice(&HASH_MAP_UID.to_be_bytes());
    out.push(SC_SERIALIZABLE | SC_WRITE_METHOD);
    out.extend_from_slice(&2u16.to_be_bytes());
    out.push(b'F');
    put_utf(&mut out, "loadFactor");
    out.push(b'I');
    put_utf(&mut out, "threshold");
    out.extend_from_slice(&[TC_ENDBLOCKDATA, TC_NULL]);
    // The map's fields, then what HashMap.writeObject adds: the bucket
    // count and the size as block data, then key and value of each entry.
    let (capacity, threshold) = table_size(entries.len());
    out.extend_from_slice(&LOAD_FACTOR.to_be_bytes());
    out.extend_from_slice(&threshold.to_be_bytes());
    out.extend_from_slice(&[TC_BLOCKDATA, 8]);
    out.extend_from_slice(&capacity.to_be_bytes());
    out.extend_from_slice(&(entries.len() as u32).to_be_bytes());
    let mut byte_array_described = false;
    for (key, value) in entries {
        for array in [key, value] {
            let Some(array) = array else {
                out.push(TC_NULL);
                continue;
            };
            out.push(TC_ARRAY);
            if byte_array_described {
                // The `[B` class descriptor is the stream's third handle.
                out.push(TC_REFERENCE);
                out.extend_from_slice(&(BASE_HANDLE + 2).to_be_bytes());
            } else {
                out.push(TC_CLASSDESC);
                put_utf(&mut out, BYTE_ARRAY);
                out.extend_from_slice(&BYTE_ARRAY_UID.to_be_bytes());
                out.push(SC_SERIALIZABLE);
                out.extend_from_slice(&0u16.to_be_bytes());
                out.extend_from_slice(&[TC_ENDBLOCKDATA, TC_NULL]);
                byte_array_described = true;
            }
            out.extend_from_slice(&(array.len() as u32).to_be_bytes());
            out.extend_from_slice(array);
        }
    }
    out.push(TC_ENDBLOCKDATA);
    out
}

/// The bucket count and resize threshold a `new HashMap<>()` has after
/// `size` puts (an empty one was never sized: threshold 0, 16 buckets
/// written).
fn table_size(size: usize) -> (u32, u32) {
    if size == 0 {
        return (DEFAULT_CAPACITY, 0);
    }
    let mut capacity: u64 = DEFAULT_CAPACITY as u64;
    while (capacity * 3 / 4) < size as u64 && capacity < (1 << 30) {
        capacity *= 2;
    }
    (capacity as u32, (capacity * 3 / 4) as u32)
}

fn put_utf(out: &mut Vec<u8>, ascii: &str) {
    out.extend_from_slice(&(ascii.len() as u16).to_be_bytes());
    out.extend_from_slice(ascii.as_bytes());
}

/// Reads a serialized `HashMap<byte[], byte[]>`: its entries in stream
/// order.
pub fn read_java_map(bytes: &[u8]) -> Result<Vec<JavaMapEntry>, JavaMapError> {
    let mut reader = Reader {
        input: bytes,
        at: 0,
        handles: Vec::new(),
    };
    let entries = reader.map()?;
    if reader.at != bytes.len() {
        return Err(reader.error_at(
            reader.at,
            format!(
                "{} bytes follow the end of the map",
                bytes.len() - reader.at
            ),
        ));
    }
    Ok(entries)
}

/// What a stream handle stands for.
#[derive(Clone)]
enum Handle {
    /// A class descriptor; `byte_array` when it describes `[B`.
    Class { byte_array: bool },
    /// The map object itself.
    Map,
    /// A byte array, as its range in the input.
    Array(std::ops::Range<usize>),
}

struct Reader<'a> {
    input: &'a [u8],
    at: usize,
    handles: Vec<Handle>,
}

impl<'a> Reader<'a> {
    fn error_at(&self, offset: usize, message: impl Into<String>) -> JavaMapError {
        JavaMapError {
            offset,
            message: message.into(),
        }
    }

    fn take(&mut self, n: usize, what: &str) -> Result<&'a [u8], JavaMapError> {
        let end = self.at.checked_add(n).filter(|&e| e <= self.input.len());
        match end {
            Some(end) => {
                let input: &'a [u8] = self.input;
                let bytes = &input[self.at..end];
                self.at = end;
                Ok(bytes)
            }
            None => Err(self.error_at(
                self.at,
                format!(
                    "the data ends inside {what} ({n} bytes needed, {} left)",
                    self.input.len() - self.at
                ),
            )),
        }
    }

    fn u8(&mut self, what: &str) -> Result<u8, JavaMapError> {
        Ok(self.take(1, what)?[0])
    }

    fn u16(&mut self, what: &str) -> Result<u16, JavaMapError> {
        let b = self.take(2, what)?;
        Ok(u16::from_be_bytes([b[0], b[1]]))
    }

    fn u32(&mut self, what: &str) -> Result<u32, JavaMapError> {
        let b = self.take(4, what)?;
        Ok(u32::from_be_bytes([b[0], b[1], b[2], b[3]]))
    }

    fn u64(&mut self, what: &str) -> Result<u64, JavaMapError> {
        let b = self.take(8, what)?;
        let mut a = [0u8; 8];
        a.copy_from_slice(b);
        Ok(u64::from_be_bytes(a))
    }

    /// A class or field name (modified UTF-8 with a 16-bit length); the
    /// names this format uses are ASCII.
    fn utf(&mut self, what: &str) -> Result<String, JavaMapError> {
        let len = self.u16(what)? as usize;
        let bytes = self.take(len, what)?;
        Ok(String::from_utf8_lossy(bytes).into_owned())
    }

    fn expect(&mut self, expected: u8, what: &str) -> Result<(), JavaMapError> {
        let at = self.at;
        let found = self.u8(what)?;
        if found != expected {
            return Err(self.error_at(
                at,
                format!("expected {what} (0x{expected:02X}), found 0x{found:02X}"),
            ));
        }
        Ok(())
    }

    fn new_handle(&mut self, handle: Handle) {
        self.handles.push(handle);
    }

    /// The handle a `TC_REFERENCE` names.
    fn reference(&mut self) -> Result<(usize, Handle), JavaMapError> {
        let at = self.at;
        let handle = self.u32("a reference's handle")?;
        let index = handle
            .checked_sub(BASE_HANDLE)
            .map(|i| i as usize)
            .filter(|&i| i < self.handles.len());
        match index {
            Some(i) => Ok((at, self.handles[i].clone())),
            None => Err(self.error_at(
                at,
                format!("reference to handle 0x{handle:08X}, which the stream has not assigned"),
            )),
        }
    }

    fn map(&mut self) -> Result<Vec<JavaMapEntry>, JavaMapError> {
        let magic = self.take(4, "the stream header")?;
        if magic[..2] != STREAM_MAGIC {
            return Err(self.error_at(
                0,
                format!(
                    "no Java serialization stream magic AC ED (found {:02X} {:02X})",
                    magic[0], magic[1]
                ),
            ));
        }
        if magic[2..] != STREAM_VERSION {
            return Err(self.error_at(
                2,
                format!(
                    "stream version {}, expected 5",
                    u16::from_be_bytes([magic[2], magic[3]])
                ),
            ));
        }
        self.expect(TC_OBJECT, "TC_OBJECT, the map")?;
        let fields = self.hash_map_class()?;
        self.new_handle(Handle::Map);
        // Field values in descriptor order; HashMap has loadFactor and
        // threshold, and readObject only checks the load factor.
        let mut load_factor = None;
        for (code, name, size) in &fields {
            let at = self.at;
            let value = self.take(*size, "the map's fields")?;
            if name == "loadFactor" && *code == b'F' {
                let f = f32::from_be_bytes([value[0], value[1], value[2], value[3]]);
                if f.is_nan() || f <= 0.0 {
                    return Err(self.error_at(at, format!("illegal load factor {f}")));
                }
                load_factor = Some(f);
            }
        }
        if load_factor.is_none() {
            return Err(self.error_at(self.at, "the map class has no float field loadFactor"));
        }
        let header = self.block_data(8)?;
        let size_at = self.at - 4;
        let size = u32::from_be_bytes([header[4], header[5], header[6], header[7]]);
        if size > i32::MAX as u32 {
            return Err(self.error_at(size_at, format!("illegal map size {}", size as i32)));
        }
        // Each entry takes at least two bytes: never trust the size further.
        let room = (self.input.len() - self.at) / 2;
        let mut entries = Vec::with_capacity((size as usize).min(room));
        for _ in 0..size {
            let key = self.byte_array("a key")?;
            let value = self.byte_array("a value")?;
            entries.push((key, value));
        }
        self.expect(TC_ENDBLOCKDATA, "TC_ENDBLOCKDATA after the entries")?;
        Ok(entries)
    }

    /// The class descriptor of `java.util.HashMap`; returns its primitive
    /// fields (type code, name, size in bytes).
    fn hash_map_class(&mut self) -> Result<Vec<(u8, String, usize)>, JavaMapError> {
        let at = self.at;
        self.expect(TC_CLASSDESC, "TC_CLASSDESC, the map's class")?;
        let name = self.utf("the class name")?;
        if name != HASH_MAP {
            return Err(self.error_at(at + 1, format!("the object is a {name}, not a {HASH_MAP}")));
        }
        let uid_at = self.at;
        let uid = self.u64("the serialVersionUID")?;
        if uid != HASH_MAP_UID {
            return Err(self.error_at(
                uid_at,
                format!("{HASH_MAP} serialVersionUID {uid}, expected {HASH_MAP_UID}"),
            ));
        }
        let flags_at = self.at;
        let flags = self.u8("the class flags")?;
        if flags & (SC_SERIALIZABLE | SC_WRITE_METHOD) != SC_SERIALIZABLE | SC_WRITE_METHOD {
            return Err(self.error_at(
                flags_at,
                format!("class flags 0x{flags:02X}: a HashMap is serializable with a writeObject method"),
            ));
        }
        let count = self.u16("the field count")?;
        let mut fields = Vec::new();
        for _ in 0..count {
            let code_at = self.at;
            let code = self.u8("a field's type code")?;
            let name = self.utf("a field name")?;
            let size = match code {
                b'B' | b'Z' => 1,
                b'C' | b'S' => 2,
                b'I' | b'F' => 4,
                b'J' | b'D' => 8,
                _ => {
                    return Err(self.error_at(
                        code_at,
                        format!(
                            "field {name} has type code 0x{code:02X}; a HashMap has primitive fields only"
                        ),
                    ))
                }
            };
            fields.push((code, name, size));
        }
        self.expect(
            TC_ENDBLOCKDATA,
            "TC_ENDBLOCKDATA ending the class annotation",
        )?;
        self.expect(TC_NULL, "TC_NULL, no serializable superclass")?;
        self.new_handle(Handle::Class { byte_array: false });
        Ok(fields)
    }

    /// `n` bytes of block data, possibly spread over several blocks.
    fn block_data(&mut self, n: usize) -> Result<Vec<u8>, JavaMapError> {
        let mut data = Vec::with_capacity(n);
        while data.len() < n {
            let at = self.at;
            let tag = self.u8("block data")?;
            let len = match tag {
                TC_BLOCKDATA => self.u8("a block's length")? as usize,
                TC_BLOCKDATALONG => self.u32("a block's length")? as usize,
                other => {
                    return Err(self.error_at(
                        at,
                        format!(
                            "expected the map's bucket count and size as block data, found 0x{other:02X}"
                        ),
                    ))
                }
            };
            if data.len() + len > n {
                return Err(self.error_at(
                    at,
                    format!(
                        "a block of {len} bytes where the map's {} header bytes that remain were expected",
                        n - data.len()
                    ),
                ));
            }
            let block = self.take(len, "block data")?;
            data.extend_from_slice(block);
        }
        Ok(data)
    }

    /// A `byte[]` object, a reference to an earlier one, or `null`.
    fn byte_array(&mut self, what: &str) -> Result<Option<Vec<u8>>, JavaMapError> {
        let at = self.at;
        match self.u8(what)? {
            TC_NULL => Ok(None),
            TC_REFERENCE => match self.reference()? {
                (_, Handle::Array(range)) => Ok(Some(self.input[range].to_vec())),
                (at, _) => Err(self.error_at(
                    at,
                    format!("{what} refers to an earlier object that is not a byte[]"),
                )),
            },
            TC_ARRAY => {
                self.byte_array_class()?;
                let len_at = self.at;
                let len = self.u32("an array's length")?;
                if len > i32::MAX as u32 {
                    return Err(
                        self.error_at(len_at, format!("illegal array length {}", len as i32))
                    );
                }
                let start = self.at;
                self.take(len as usize, "a byte array")?;
                self.new_handle(Handle::Array(start..self.at));
                Ok(Some(self.input[start..self.at].to_vec()))
            }
            other => Err(self.error_at(
                at,
                format!("{what}: expected a byte[] (TC_ARRAY), a reference or null, found 0x{other:02X}"),
            )),
        }
    }

    /// The class descriptor of an array, which must be `[B`.
    fn byte_array_class(&mut self) -> Result<(), JavaMapError> {
        let at = self.at;
        match self.u8("an array's class")? {
            TC_REFERENCE => match self.reference()? {
                (_, Handle::Class { byte_array: true }) => Ok(()),
                (at, _) => Err(self.error_at(
                    at,
                    "an array whose class refers to an earlier handle that is not [B",
                )),
            },
            TC_CLASSDESC => {
                let name = self.utf("the array's class name")?;
                if name != BYTE_ARRAY {
                    return Err(
                        self.error_at(at + 1, format!("an array of class {name}, not byte[] ([B)"))
                    );
                }
                let uid_at = self.at;
                let uid = self.u64("the serialVersionUID")?;
                if uid != BYTE_ARRAY_UID {
                    return Err(self.error_at(
                        uid_at,
                        format!("[B serialVersionUID {uid}, expected {BYTE_ARRAY_UID}"),
                    ));
                }
                self.u8("the class flags")?;
                let fields_at = self.at;
                let fields = self.u16("the field count")?;
                if fields != 0 {
                    return Err(
                        self.error_at(fields_at, format!("[B with {fields} fields, expected 0"))
                    );
                }
                self.expect(
                    TC_ENDBLOCKDATA,
                    "TC_ENDBLOCKDATA ending the class annotation",
                )?;
                self.expect(TC_NULL, "TC_NULL, no superclass")?;
                self.new_handle(Handle::Class { byte_array: true });
                Ok(())
            }
            other => Err(self.error_at(
                at,
                format!("expected the array's class descriptor, found 0x{other:02X}"),
            )),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hex(s: &str) -> Vec<u8> {
        let s: String = s.split_whitespace().collect();
        (0..s.len())
            .step_by(2)
            .map(|i| u8::from_str_radix(&s[i..i + 2], 16).unwrap())
            .collect()
    }

    /// The layout of the specification, byte for byte, for one entry.
    #[test]
    fn one_entry_is_written_as_object_output_stream_does() {
        let written = write_java_map(&[(b"k".to_vec(), b"vv".to_vec())]);
        let mut expected = hex("ACED0005 7372 0011");
        expected.extend_from_slice(b"java.util.HashMap");
        expected.extend(hex("0507DAC1C31660D1 03 0002 46 000A"));
        expected.extend_from_slice(b"loadFactor");
        expected.extend(hex("49 0009"));
        expected.extend_from_slice(b"threshold");
        expected.extend(hex("7870 3F400000 0000000C 7708 00000010 00000001"));
        expected.extend(hex(
            "7572 0002 5B42 ACF317F8060854E0 02 0000 7870 00000001 6B",
        ));
        expected.extend(hex("7571 007E0002 00000002 7676 78"));
        assert_eq!(written, expected);
        assert_eq!(
            read_java_map(&written).unwrap(),
            vec![(Some(b"k".to_vec()), Some(b"vv".to_vec()))]
        );
    }

    #[test]
    fn sizes_follow_a_default_hash_map() {
        assert_eq!(table_size(0), (16, 0));
        assert_eq!(table_size(1), (16, 12));
        assert_eq!(table_size(12), (16, 12));
        assert_eq!(table_size(13), (32, 24));
        assert_eq!(table_size(100), (256, 192));
    }

    #[test]
    fn many_entries_and_nulls_round_trip() {
        let mut entries: Vec<JavaMapEntry> = (0..40)
            .map(|i| {
                (
                    Some(format!("[\"e{i}\",{{\"server\":\"s\"}}]").into_bytes()),
                    Some(vec![i as u8; i * 7]),
                )
            })
            .collect();
        entries.push((None, Some(b"null key".to_vec())));
        entries.push((Some(b"null value".to_vec()), None));
        entries.push((Some(Vec::new()), Some(Vec::new())));
        let bytes = write_java_map_entries(&entries);
        assert_eq!(read_java_map(&bytes).unwrap(), entries);
        assert_eq!(read_java_map(&write_java_map(&[])).unwrap(), vec![]);
    }

    /// A map where the same array object is both key and value, as Java
    /// writes it when one `byte[]` is put twice; a threshold and capacity
    /// a default map would not have; the header split in two blocks.
    #[test]
    fn references_to_earlier_arrays_and_split_blocks_are_read() {
        let mut bytes = hex("ACED0005 7372 0011");
        bytes.extend_from_slice(b"java.util.HashMap");
        bytes.extend(hex("0507DAC1C31660D1 03 0002 46 000A"));
        bytes.extend_from_slice(b"loadFactor");
        bytes.extend(hex("49 0009"));
        bytes.extend_from_slice(b"threshold");
        bytes.extend(hex(
            "7870 3F400000 00000003 7704 00000004 7A00000004 00000002",
        ));
        bytes.extend(hex(
            "7572 0002 5B42 ACF317F8060854E0 02 0000 7870 00000003 616263",
        ));
        bytes.extend(hex("71 007E0003"));
        bytes.extend(hex("70 7571 007E0002 00000000 78"));
        assert_eq!(
            read_java_map(&bytes).unwrap(),
            vec![
                (Some(b"abc".to_vec()), Some(b"abc".to_vec())),
                (None, Some(Vec::new()))
            ]
        );
    }

    #[test]
    fn errors_name_the_offset() {
        let good = write_java_map(&[(b"k".to_vec(), b"v".to_vec())]);
        let e = read_java_map(&good[..good.len() - 1]).unwrap_err();
        assert_eq!(e.offset, good.len() - 1);
        assert!(e.message.contains("TC_ENDBLOCKDATA"), "{e}");
        // The last array's length field starts 6 bytes from the end.
        let e = read_java_map(&good[..good.len() - 3]).unwrap_err();
        assert_eq!(e.offset, good.len() - 6);
        assert!(e.to_string().contains("at byte"), "{e}");
        let e = read_java_map(b"{\"json\":1}").unwrap_err();
        assert_eq!(e.offset, 0);
        let mut other_class = good.clone();
        other_class[8..8 + 17].copy_from_slice(b"java.util.TreeMap");
        let e = read_java_map(&other_class).unwrap_err();
        assert!(e.message.contains("java.util.TreeMap"), "{e}");
        let mut trailing = good.clone();
        trailing.push(0);
        let e = read_java_map(&trailing).unwrap_err();
        assert_eq!(e.offset, good.len());
        let mut bad_reference = good.clone();
        let i = bad_reference.len() - 1 - 1 - 4 - 4;
        bad_reference[i..i + 4].copy_from_slice(&(BASE_HANDLE + 1).to_be_bytes());
        let e = read_java_map(&bad_reference).unwrap_err();
        assert!(e.message.contains("not [B"), "{e}");
    }

    /// Truncations at every length and many random byte changes: the
    /// reader returns, never panics, and a truncated map is never read as
    /// a shorter one.
    #[test]
    fn truncated_and_mutated_input_never_panics() {
        let good = write_java_map(&[
            (
                b"[\"a\",{\"server\":\"x\"}]".to_vec(),
                b"{\"pos\":4}".to_vec(),
            ),
            (b"[\"b\",{\"server\":\"y\"}]".to_vec(), vec![0xFF; 300]),
        ]);
        for len in 0..good.len() {
            assert!(
                read_java_map(&good[..len]).is_err(),
                "prefix of {len} bytes"
            );
        }
        let mut state: u64 = 0x9E37_79B9_7F4A_7C15;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for _ in 0..20_000 {
            let mut bytes = good.clone();
            for _ in 0..(next() % 4 + 1) {
                let i = (next() as usize) % bytes.len();
                bytes[i] = match next() % 3 {
                    0 => next() as u8,
                    1 => 0xFF,
                    _ => 0x7F,
                };
            }
            if next() % 5 == 0 {
                let cut = (next() as usize) % bytes.len();
                bytes.truncate(cut);
            }
            let _ = read_java_map(&bytes);
        }
    }
}
