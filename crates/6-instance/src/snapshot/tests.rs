use super::*;

#[test]
fn hex_round_trips_every_byte() {
    let bytes: Vec<u8> = (0..=255).collect();
    assert_eq!(from_hex(&to_hex(&bytes)), Some(bytes));
    assert_eq!(from_hex("ABC"), None);
    assert_eq!(from_hex("ZZ"), None);
}

fn key(v: i128) -> Vec<Vec<u8>> {
    vec![v.to_string().into_bytes()]
}

#[test]
fn a_split_cuts_the_key_values_into_parts_of_about_as_many() {
    assert_eq!(split_bounds((1, 10), 2), [5]);
    assert_eq!(split_bounds((1, 11), 2), [5]);
    assert_eq!(split_bounds((1, 10), 3), [3, 6]);
    assert_eq!(split_bounds((-5, 4), 2), [-1]);
    let wide = (i128::from(i64::MIN), i128::from(u64::MAX));
    let bounds = split_bounds(wide, 4);
    assert_eq!(bounds.len(), 3);
    assert!(bounds.windows(2).all(|w| w[0] < w[1]) && bounds[0] > wide.0 && bounds[2] < wide.1);
    // Too few values, or one part: no split.
    assert!(split_bounds((7, 7), 2).is_empty());
    assert!(split_bounds((1, 2), 3).is_empty());
    assert!(split_bounds((1, 100), 1).is_empty());
}

#[test]
fn an_even_split_steps_by_the_key_values_per_row() {
    // Dense keys: one value a row, ranges one chunk wide.
    let dense = EvenSplit::new(1, 10_000, 10_000, 1_000).expect("dense keys split evenly");
    assert_eq!(dense.step, 1_000);
    assert_eq!(dense.up_to(None), Ok(Some(key(1_000))));
    assert_eq!(dense.up_to(Some(&key(1_000))), Ok(Some(key(2_000))));
    // The chunk that reaches the largest key reads to the end.
    assert_eq!(dense.up_to(Some(&key(9_000))), Ok(None));
    assert_eq!(dense.up_to(Some(&key(8_999))), Ok(Some(key(9_999))));
    // A key in three: ranges three chunks wide hold a chunk's rows.
    let thirds = EvenSplit::new(-500, 2_497, 1_000, 100).expect("a key in three splits evenly");
    assert_eq!(thirds.step, 300);
    assert_eq!(thirds.up_to(None), Ok(Some(key(-201))));
    // Sparser than one in four: the bounds are found by queries.
    assert_eq!(EvenSplit::new(1, 50_000, 10_000, 1_000), None);
    // An estimate far below the rows there are reads as sparse keys;
    // one far above them only makes chunks smaller.
    assert!(EvenSplit::new(1, 10_000, 1, 1_000).is_none());
    assert_eq!(
        EvenSplit::new(1, 10_000, 1_000_000, 1_000).map(|e| e.step),
        Some(1_000)
    );
    // Unsigned BIGINT keys fit.
    let top = EvenSplit::new(0, u64::MAX as i128, u64::MAX, 8_192).expect("splits");
    assert_eq!(top.up_to(Some(&key(u64::MAX as i128 - 1))), Ok(None));
    // A bound that is not an integer, or a key of two columns, is refused.
    assert!(dense.up_to(Some(&[b"x".to_vec()])).is_err());
    assert!(dense.up_to(Some(&[b"1".to_vec(), b"2".to_vec()])).is_err());
}
