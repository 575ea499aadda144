//! PostgreSQL upserts by `COPY` (`sluice.sink.postgresUpsert = copy`): the
//! rows of a statement go by `COPY … FROM STDIN` (text format) into a
//! temporary table of text columns, which the upsert then reads with the
//! same casts as the `unnest` form. The temporary tables are named by their
//! width (`sluice_stage_3`: three `text` columns), so any target table of
//! that many written columns uses the same one, and a column added to a
//! target table needs no staging table changed.

use crate::value::Param;

/// The staging table of `width` text columns (in the session's temporary
/// schema).
pub fn staging_table(width: usize) -> String {
    format!("pg_temp.sluice_stage_{width}")
}

/// Creates the staging table of `width` columns when the session lacks it
/// (no notice when it has it, as `CREATE … IF NOT EXISTS` would give).
/// Its rows go at each commit; each upsert also deletes the rows it read,
/// so that the next upsert of the same transaction reads only its own.
pub fn create_staging(width: usize) -> String {
    let columns: Vec<String> = (0..width).map(|c| format!("c{c} text")).collect();
    let name = staging_table(width);
    format!(
        "DO $$BEGIN IF to_regclass('{name}') IS NULL THEN \
         CREATE TEMP TABLE sluice_stage_{width} ({}) ON COMMIT DELETE ROWS; END IF; END$$",
        columns.join(", ")
    )
}

/// The `COPY` that fills the staging table of `width` columns.
pub fn copy_statement(width: usize) -> String {
    format!("COPY {} FROM STDIN", staging_table(width))
}

/// `params` (rows of `width` values, row after row) as `COPY`'s text
/// format: values separated by tabs, rows ended by newlines, NULL as `\N`,
/// and backslash, tab, newline and carriage return escaped, so that each
/// value arrives as the same text the `unnest` form's `text[]` carries.
pub fn copy_text(params: &[Param], width: usize) -> Vec<u8> {
    let mut out = Vec::with_capacity(params.len() * 12);
    if width == 0 {
        return out;
    }
    for row in params.chunks(width) {
        for (c, p) in row.iter().enumerate() {
            if c > 0 {
                out.push(b'\t');
            }
            match p {
                Param::Null => out.extend_from_slice(b"\\N"),
                Param::Text(t) => escape_into(t, &mut out),
                Param::Bytes(b) => escape_into(&String::from_utf8_lossy(b), &mut out),
            }
        }
        out.push(b'\n');
    }
    out
}

/// Appends `value` escaped for `COPY`'s text format.
fn escape_into(value: &str, out: &mut Vec<u8>) {
    for &b in value.as_bytes() {
        match b {
            b'\\' => out.extend_from_slice(b"\\\\"),
            b'\t' => out.extend_from_slice(b"\\t"),
            b'\n' => out.extend_from_slice(b"\\n"),
            b'\r' => out.extend_from_slice(b"\\r"),
            _ => out.push(b),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(s: &str) -> Param {
        Param::Text(s.into())
    }

    #[test]
    fn rows_are_tab_separated_lines_with_null_as_backslash_n() {
        let params = [
            text("1"),
            Param::Null,
            text("a"),
            text("2"),
            text(""),
            Param::Null,
        ];
        assert_eq!(copy_text(&params, 3), b"1\t\\N\ta\n2\t\t\\N\n".to_vec());
    }

    #[test]
    fn tab_newline_return_and_backslash_are_escaped() {
        let params = [text("a\tb\nc\rd\\e"), text("\\N"), text("\\\\t")];
        assert_eq!(
            String::from_utf8(copy_text(&params, 3)).unwrap(),
            "a\\tb\\nc\\rd\\\\e\t\\\\N\t\\\\\\\\t\n"
        );
    }

    #[test]
    fn the_end_of_data_marker_cannot_end_the_copy() {
        let params = [text("a\n\\.\nb")];
        assert_eq!(copy_text(&params, 1), b"a\\n\\\\.\\nb\n".to_vec());
    }

    #[test]
    fn other_text_goes_as_it_is() {
        let params = [text("héllo \"quoted\" 'x', ; | 你好 \u{1}")];
        assert_eq!(
            copy_text(&params, 1),
            "héllo \"quoted\" 'x', ; | 你好 \u{1}\n".as_bytes().to_vec()
        );
    }

    #[test]
    fn bytes_go_as_their_text() {
        let params = [Param::Bytes(b"x\ty".to_vec())];
        assert_eq!(copy_text(&params, 1), b"x\\ty\n".to_vec());
    }

    #[test]
    fn staging_tables_are_named_by_width() {
        assert_eq!(copy_statement(3), "COPY pg_temp.sluice_stage_3 FROM STDIN");
        let create = create_staging(2);
        assert!(create.contains("to_regclass('pg_temp.sluice_stage_2') IS NULL"));
        assert!(create
            .contains("CREATE TEMP TABLE sluice_stage_2 (c0 text, c1 text) ON COMMIT DELETE ROWS"));
    }
}
