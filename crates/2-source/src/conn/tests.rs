use super::*;
use crate::packet::{put_lenenc_bytes, put_lenenc_int};

fn packet(values: &[Option<&[u8]>]) -> Vec<u8> {
    let mut p = Vec::new();
    for v in values {
        match v {
            Some(v) => put_lenenc_bytes(&mut p, v),
            None => p.push(0xfb),
        }
    }
    p
}

#[test]
fn raw_rows_keep_values_nulls_and_empty_strings_apart() {
    let long = vec![b'x'; 300];
    let huge = vec![b'y'; 70_000];
    let mut rs = RawResultSet::new(vec!["a".into(), "b".into(), "c".into()]);
    assert!(rs.is_empty() && rs.last().is_none());
    rs.push_text_row(&packet(&[Some(b"1"), None, Some(b"")]))
        .unwrap();
    rs.push_text_row(&packet(&[Some(&long), Some(&huge), Some(b"\0\xff")]))
        .unwrap();
    assert_eq!(rs.len(), 2);
    let first = rs.row(0).unwrap();
    assert_eq!(
        first.iter().collect::<Vec<_>>(),
        vec![Some(&b"1"[..]), None, Some(&b""[..])]
    );
    assert_eq!(first.value(1), None);
    assert_eq!(first.value(2), Some(&b""[..]));
    assert_eq!(first.value(3), None);
    let last = rs.last().unwrap();
    assert_eq!(last.len(), 3);
    assert_eq!(last.value(0), Some(&long[..]));
    assert_eq!(last.value(1), Some(&huge[..]));
    assert_eq!(last.value(2), Some(&b"\0\xff"[..]));
    assert_eq!(rs.rows().len(), 2);
    assert!(rs.row(2).is_none());
    assert_eq!(rs.data_len(), 1 + 300 + 70_000 + 2);
    // A value's place, found with or without its row, is the same.
    for r in 0..3 {
        for c in 0..4 {
            assert_eq!(
                rs.span_of(r, c),
                rs.row(r).and_then(|row| row.span(c)),
                "row {r}, column {c}"
            );
        }
    }
    // Room made for more rows changes none of them.
    rs.reserve_rows_like_last(1000);
    assert_eq!(rs.len(), 2);
    assert_eq!(rs.last().unwrap().value(1), Some(&huge[..]));
}

#[test]
fn a_short_row_packet_is_an_error_and_adds_nothing() {
    let mut rs = RawResultSet::new(vec!["a".into(), "b".into()]);
    rs.push_text_row(&packet(&[Some(b"ok"), None])).unwrap();
    // The second value claims 10 bytes, 3 follow.
    let mut p = packet(&[Some(b"v")]);
    p.extend_from_slice(&[10, b'a', b'b', b'c']);
    assert!(rs.push_text_row(&p).is_err());
    // A 3-byte length with too few bytes after it.
    let mut p = packet(&[Some(b"v")]);
    put_lenenc_int(&mut p, 70_000);
    assert!(rs.push_text_row(&p).is_err());
    // One value for two columns.
    assert!(rs.push_text_row(&packet(&[Some(b"v")])).is_err());
    assert!(rs.push_text_row(&[0xff]).is_err());
    assert_eq!(rs.len(), 1);
    assert_eq!(rs.data_len(), 2);
    assert_eq!(
        rs.last().unwrap().iter().collect::<Vec<_>>(),
        vec![Some(&b"ok"[..]), None]
    );
    rs.push_text_row(&packet(&[None, Some(b"z")])).unwrap();
    assert_eq!(rs.last().unwrap().value(1), Some(&b"z"[..]));
}
