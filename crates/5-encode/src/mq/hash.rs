//! Canal's partition hash, bit for bit: Java's `String.hashCode` and the
//! arithmetic of `MQMessageUtils.messagePartition`. A record's partition
//! decides which consumer sees it and in which order, so a replacement that
//! placed rows differently would reorder a running Kafka pipeline.

/// Java's `String.hashCode()`: `h = 31 * h + c` over the UTF-16 code units
/// of `s`, with 32-bit wrap-around (characters outside the BMP count as two
/// surrogate units, as in Java).
pub fn java_string_hash(s: &str) -> i32 {
    s.encode_utf16().fold(0i32, |h, unit| {
        h.wrapping_mul(31).wrapping_add(i32::from(unit))
    })
}

/// Canal's partition of a hash: `Math.abs(Math.abs(hash) % partitions)` in
/// Java int arithmetic (`Math.abs(Integer.MIN_VALUE)` stays negative, `%`
/// keeps the dividend's sign, the outer `abs` makes it a valid index).
/// `partitions` is at least 1.
pub fn java_partition(hash: i32, partitions: i32) -> i32 {
    let partitions = partitions.max(1);
    (hash.wrapping_abs() % partitions).wrapping_abs()
}

/// The hash of one row under a column rule: the database name's hash when
/// `canal.mq.database.hash` is on (else 0), XOR the hash of each hash
/// column's value, SQL NULL or a missing column hashing as `""`.
pub fn row_hash<'a>(
    database: &str,
    database_hash: bool,
    values: impl IntoIterator<Item = Option<&'a str>>,
) -> i32 {
    let start = if database_hash {
        java_string_hash(database)
    } else {
        0
    };
    values
        .into_iter()
        .fold(start, |h, v| h ^ java_string_hash(v.unwrap_or_default()))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values Java prints for these strings (`"polygenelubricants"` is a
    /// known string whose hash is `Integer.MIN_VALUE`).
    #[test]
    fn known_java_hashes() {
        assert_eq!(java_string_hash(""), 0);
        assert_eq!(java_string_hash("a"), 97);
        assert_eq!(java_string_hash("hello"), 99_162_322);
        assert_eq!(java_string_hash("polygenelubricants"), i32::MIN);
    }

    #[test]
    fn the_partition_of_min_value_is_a_valid_index() {
        assert_eq!(java_partition(i32::MIN, 3), 2);
        assert_eq!(java_partition(i32::MIN, 2), 0);
        assert_eq!(java_partition(-7, 3), 1);
        assert_eq!(java_partition(7, 1), 0);
    }
}
