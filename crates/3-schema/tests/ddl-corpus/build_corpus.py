#!/usr/bin/env python3
"""Rebuilds the DDL corpus from the SQL files that Debian 12 packages ship.

Usage: build_corpus.py EXTRACTED_DIR OUT_DIR

EXTRACTED_DIR holds one folder per package, each the result of
`apt-get download PKG && dpkg -x PKG_*.deb EXTRACTED_DIR/PKG` (see ORIGIN.md
for the package versions). Every data-definition statement of the selected
files is written to OUT_DIR/<origin>.sql, in file order, each statement ending
with a line that holds only `;;` (statements themselves may contain `;`).
Data manipulation (INSERT, UPDATE, SELECT, SET, ...) is left out.
"""

import glob
import gzip
import os
import re
import sys

DDL = re.compile(
    r"^(CREATE|ALTER|DROP|RENAME|TRUNCATE)\b",
    re.IGNORECASE,
)


def read(path):
    if path.endswith(".gz"):
        with gzip.open(path, "rb") as f:
            data = f.read()
    else:
        with open(path, "rb") as f:
            data = f.read()
    return data.decode("utf-8", "replace")


def split_sql(text, mysqltest=False):
    """Splits SQL text into statements, honouring quotes, comments and
    DELIMITER lines. With mysqltest=True, lines starting with `--` are test
    directives; a statement after an `--error` directive is marked failing."""
    out = []
    delim = ";"
    cur = []
    i = 0
    n = len(text)
    expect_error = False
    at_line_start = True
    while i < n:
        if at_line_start:
            # Skip leading blanks of the line to look at directives.
            j = i
            while j < n and text[j] in " \t":
                j += 1
            rest = text[j : j + 12]
            if not "".join(cur).strip():
                if re.match(r"delimiter\s", rest, re.IGNORECASE):
                    end = text.find("\n", j)
                    end = n if end < 0 else end
                    delim = text[j + 9 : end].strip() or ";"
                    i = end + 1
                    continue
                if mysqltest and text.startswith("--", j):
                    end = text.find("\n", j)
                    end = n if end < 0 else end
                    line = text[j:end]
                    if re.match(r"--\s*error\b", line):
                        expect_error = True
                    m = re.match(r"--\s*delimiter\s+(\S+)", line)
                    if m:
                        delim = m.group(1)
                    i = end + 1
                    continue
            at_line_start = False
        c = text[i]
        if c == "\n":
            at_line_start = True
            cur.append(c)
            i += 1
            continue
        if c in "'\"`":
            j = i + 1
            while j < n:
                if text[j] == "\\" and c != "`":
                    j += 2
                    continue
                if text[j] == c:
                    if j + 1 < n and text[j + 1] == c:
                        j += 2
                        continue
                    break
                j += 1
            cur.append(text[i : j + 1])
            i = j + 1
            continue
        if text.startswith("--", i) and (i + 2 >= n or text[i + 2] in " \t\r\n"):
            end = text.find("\n", i)
            end = n if end < 0 else end
            i = end
            continue
        if c == "#":
            end = text.find("\n", i)
            end = n if end < 0 else end
            i = end
            continue
        if text.startswith("/*", i) and not text.startswith("/*!", i):
            end = text.find("*/", i + 2)
            end = n if end < 0 else end + 2
            # Keep placeholder comments inside statements (MediaWiki's /*_*/).
            if "".join(cur).strip():
                cur.append(text[i:end])
            i = end
            continue
        if text.startswith(delim, i):
            stmt = "".join(cur).strip()
            if stmt:
                out.append((stmt, expect_error))
            expect_error = False
            cur = []
            i += len(delim)
            continue
        cur.append(c)
        i += 1
    stmt = "".join(cur).strip()
    if stmt:
        out.append((stmt, expect_error))
    return out


def keep(stmt, failing, mysqltest):
    if failing:
        return False
    if not DDL.match(stmt):
        return False
    if mysqltest:
        # Test-suite variables and engines this build may not have.
        if "$" in stmt or re.search(r"engine\s*=?\s*(connect|spider|rocksdb|s3|federated|sphinx|oqgraph|mroonga|archive|csv|blackhole|merge|mrg_myisam|ndb)", stmt, re.IGNORECASE):
            return False
        # Only table and database structure; skip users, roles, servers, events.
        if re.match(r"^(CREATE|ALTER|DROP)\s+(DEFINER|USER|ROLE|SERVER|EVENT|LOGFILE|TABLESPACE|FUNCTION|PROCEDURE|TRIGGER|SEQUENCE|OR\s+REPLACE\s+(USER|ROLE|SERVER|EVENT|FUNCTION|PROCEDURE|TRIGGER|SEQUENCE))\b", stmt, re.IGNORECASE):
            return False
    return True


ORIGINS = {
    "mediawiki": [
        "mediawiki/usr/share/mediawiki/maintenance/tables-generated.sql",
        "mediawiki/usr/share/mediawiki/maintenance/archives/*.sql",
        "mediawiki/usr/share/mediawiki/extensions-core/*/db_patches/mysql/*.sql",
        "mediawiki/usr/share/mediawiki/extensions-core/*/sql/mysql/*.sql",
    ],
    "zabbix": ["zabbix-server-mysql/usr/share/zabbix-server-mysql/schema.sql.gz"],
    "zoneminder": [
        "zoneminder/usr/share/zoneminder/db/zm_create.sql",
        "zoneminder/usr/share/zoneminder/db/zm_update-*.sql",
    ],
    "roundcube": [
        "roundcube-core/usr/share/roundcube/SQL/mysql.initial.sql",
        "roundcube-core/usr/share/roundcube/SQL/mysql/*.sql",
    ],
    "tt-rss": [
        "tt-rss/usr/share/tt-rss/schema/ttrss_schema_mysql.sql",
        "tt-rss/usr/share/tt-rss/schema/versions/mysql/*.sql",
    ],
    "icinga2": [
        "icinga2-ido-mysql/usr/share/icinga2-ido-mysql/schema/mysql.sql",
        "icinga2-ido-mysql/usr/share/icinga2-ido-mysql/schema/upgrade/*.sql",
    ],
    "request-tracker": [
        "request-tracker5/usr/share/request-tracker5/etc/schema.mysql",
        "request-tracker5/usr/share/request-tracker5/etc/upgrade/*/schema.mysql",
    ],
    "phpmyadmin": ["phpmyadmin/usr/share/phpmyadmin/sql/*.sql"],
    "cacti": ["cacti/usr/share/cacti/conf_templates/cacti.sql"],
    "mariadb-test": [
        "mariadb-test-data/usr/share/mysql/mysql-test/main/alter_table.test",
        "mariadb-test-data/usr/share/mysql/mysql-test/main/create.test",
        "mariadb-test-data/usr/share/mysql/mysql-test/main/invisible_field.test",
        "mariadb-test-data/usr/share/mysql/mysql-test/main/partition.test",
        "mariadb-test-data/usr/share/mysql/mysql-test/suite/versioning/t/alter.test",
        "mariadb-test-data/usr/share/mysql/mysql-test/suite/versioning/t/create.test",
        "mariadb-test-data/usr/share/mysql/mysql-test/suite/gcol/t/gcol_column_def_options_innodb.test",
    ],
}


def version_key(path):
    parts = re.findall(r"\d+|\D+", path)
    return [(0, int(p)) if p.isdigit() else (1, p) for p in parts]


def main():
    src, out_dir = sys.argv[1], sys.argv[2]
    total = 0
    for origin, patterns in ORIGINS.items():
        lines = []
        count = 0
        for pattern in patterns:
            paths = sorted(glob.glob(os.path.join(src, pattern)), key=version_key)
            for path in paths:
                mysqltest = path.endswith(".test")
                stmts = split_sql(read(path), mysqltest)
                kept = [s for s, f in stmts if keep(s, f, mysqltest)]
                if not kept:
                    continue
                rel = os.path.relpath(path, src)
                lines.append(f"-- file: {rel}\n")
                for s in kept:
                    lines.append(s.replace("\r", "") + "\n;;\n")
                    count += 1
        with open(os.path.join(out_dir, f"{origin}.sql"), "w") as f:
            f.write("".join(lines))
        print(f"{origin}: {count}")
        total += count
    print(f"total: {total}")


if __name__ == "__main__":
    main()
