//! The statements the Debezium tests run on a private MariaDB: a table of
//! every column type, one row of it, and inserts, updates (one changing
//! the key), deletes, a transaction and a TRUNCATE; and a table of the
//! temporal types with their edge values.

pub const SETUP: &str = "
CREATE DATABASE inventory;
USE inventory;
CREATE TABLE customers (id INT PRIMARY KEY AUTO_INCREMENT, first_name VARCHAR(255),
  price DECIMAL(10,2), updated DATETIME);
CREATE TABLE nokey (a INT, b VARCHAR(10));
CREATE TABLE types (
  id INT NOT NULL PRIMARY KEY,
  ti TINYINT, tiu TINYINT UNSIGNED, si SMALLINT, siu SMALLINT UNSIGNED,
  mi MEDIUMINT, miu MEDIUMINT UNSIGNED, i INT, iu INT UNSIGNED,
  bi BIGINT, biu BIGINT UNSIGNED,
  f FLOAT, d DOUBLE,
  dec_pos DECIMAL(10,2), dec_neg DECIMAL(10,2), dec_zero DECIMAL(10,2), dec_big DECIMAL(65,30),
  y YEAR, dt DATE, tm TIME(1), tm0 TIME,
  dtm DATETIME, dtm3 DATETIME(3), dtm6 DATETIME(6),
  ts TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, ts6 TIMESTAMP(6) NULL,
  dz DATE NULL, dznn DATE NOT NULL, dtmz DATETIME NULL,
  c CHAR(10), vc VARCHAR(100), vc_latin1 VARCHAR(20) CHARACTER SET latin1, txt TEXT,
  bin4 BINARY(4), vb VARBINARY(10), bl BLOB,
  e ENUM('a','b','c'), s SET('x','y','z'),
  bit1 BIT(1), bit3 BIT(3), bit12 BIT(12),
  j JSON, g GEOMETRY, pt POINT,
  n INT NULL,
  y0 YEAR, fmd FLOAT(7,4), eu ENUM('Yes','No')
);
";

pub const INSERT_TYPES: &str = "
INSERT INTO types VALUES (
  1,
  -5, 200, -300, 60000,
  -8000000, 16000000, -2000000000, 4000000000,
  -9000000000000000000, 18446744073709551615,
  1.5, 2.25,
  12.34, -12.34, 0, 12345678901234567890.123456789012345678901234567890,
  2024, '2024-05-01', '12:30:45.5', '-01:00:00',
  '2018-06-20 06:37:03', '2018-06-20 06:37:03.123', '2000-01-01 00:00:00.000001',
  '2018-06-20 13:37:03', '2023-01-11 00:34:10', '2023-01-11 00:34:10.123',
  '0000-00-00', '0000-00-00', '0000-00-00 00:00:00',
  'chars', 'héllo \"q\"', 'café', 'line\\nnext',
  0x0102, 0xDEADBEEF, 0xFB,
  'b', 'x,z',
  b'1', b'101', b'101010101010',
  '{\"a\": [1, 2.5]}', ST_GeomFromText('LINESTRING(0 0,1 1)'), ST_GeomFromText('POINT(1.5 -2.25)'),
  NULL,
  0, 1.5, 'Yes'
);
";

pub const CHANGES: &str = "
USE inventory;
INSERT INTO customers VALUES (1004, 'Anne', 12.34, '2018-06-20 06:37:03');
UPDATE customers SET first_name = 'Anne Marie' WHERE id = 1004;
DELETE FROM customers WHERE id = 1004;
INSERT INTO customers VALUES (7, 'Bob', -12.34, '2018-06-20 06:37:03');
UPDATE customers SET id = 8 WHERE id = 7;
INSERT INTO nokey VALUES (1, 'one');
BEGIN;
INSERT INTO customers VALUES (20, 'Tx', 0, NULL);
INSERT INTO nokey VALUES (2, 'two');
INSERT INTO customers VALUES (21, NULL, NULL, NULL);
COMMIT;
TRUNCATE TABLE nokey;
";

/// The temporal types at their edges (run after `SETUP`, in a session of
/// its own): zero and partly zero dates, two-digit years (which Debezium
/// moves to 1970–2069), negative and 24-hour-plus TIMEs, each fractional
/// precision, and DATETIMEs at the limits of int64 nanoseconds. NOT NULL
/// columns hold only what every `time.precision.mode` can write (Debezium
/// stops on a NOT NULL value its mode cannot hold); the nullable ones hold
/// the rest, which such a mode writes as null.
pub const TEMPORAL: &str = "
SET SESSION sql_mode='';
USE inventory;
CREATE TABLE temporal (id INT PRIMARY KEY,
  d DATE, dnn DATE NOT NULL,
  t0 TIME, t1 TIME(1), t3 TIME(3), t6 TIME(6), tnn TIME NOT NULL, t6nn TIME(6) NOT NULL,
  dt0 DATETIME, dt3 DATETIME(3), dt4 DATETIME(4), dt6 DATETIME(6), dtnn DATETIME NOT NULL,
  dt6nn DATETIME(6) NOT NULL,
  ts0 TIMESTAMP NULL, ts3 TIMESTAMP(3) NULL, ts6 TIMESTAMP(6) NULL, tsnn TIMESTAMP(3) NOT NULL,
  y YEAR, ynn YEAR NOT NULL);
INSERT INTO temporal VALUES (1, '2024-05-01', '1969-12-31',
  '12:30:45', '12:30:45.5', '-01:00:00.123', '838:59:59.999999', '23:59:59', '00:00:00.000001',
  '2018-06-20 06:37:03', '2018-06-20 06:37:03.123', '1900-01-01 00:00:00.0001',
  '2000-01-01 00:00:00.000001', '1969-12-31 23:59:59', '1969-12-31 23:59:59.999999',
  '2018-06-20 13:37:03', '2023-01-11 00:34:10.010', '2023-01-11 00:34:10.123456',
  '1970-01-01 00:00:01', 2024, 1901);
INSERT INTO temporal VALUES (2, '0000-00-00', '0000-00-00',
  '00:00:00', '-00:00:00.5', '23:59:59.999', '24:00:00', '00:00:00', '24:00:00',
  '0000-00-00 00:00:00', '9999-12-31 23:59:59.999', '1969-12-31 23:59:59.9999',
  '1969-12-31 23:59:59.999999', '0000-00-00 00:00:00', '2262-04-11 23:47:16.854775',
  '0000-00-00 00:00:00', '1970-01-01 00:00:00.001', '2038-01-19 03:14:07.999999',
  '0000-00-00 00:00:00', 2155, 0);
INSERT INTO temporal (id, dnn, tnn, t6nn, dt6, dtnn, dt6nn, tsnn, ynn) VALUES
  (3, '2024-02-29', '00:00:01', '12:00:00.5', '1677-09-21 00:12:44', '2024-02-29 12:00:00', '1677-09-22 00:00:00',
   '2038-01-19 03:14:07.999', 2000);
INSERT INTO temporal VALUES (4, '9999-12-31', '1000-01-01',
  '-00:00:01', '00:00:00.1', '24:00:00', '-838:59:59', '24:00:00', '12:34:56.789012',
  '1677-09-21 00:12:43', '2262-04-11 23:47:16.855', '1583-01-01 00:00:00', '0001-01-01 00:00:00',
  '2024-01-01 00:00:00', '2000-02-29 12:00:00.5',
  '1970-01-01 00:00:01', '2000-02-29 12:00:00.500', '1999-12-31 23:59:59.000001',
  '2038-01-19 03:14:07', 1970, 2069);
INSERT INTO temporal VALUES (5, '0001-01-01', '0069-12-31',
  '-00:00:00.000001', '838:59:59.9', '00:00:00.999', '-00:00:00.000001', '00:00:00', '00:00:00',
  '0070-01-01 00:00:00', '0099-12-31 23:59:59.999', '0100-01-01 00:00:00', '2024-00-01 00:00:00',
  '0050-06-15 12:00:00', '0000-01-01 00:00:00.5',
  NULL, NULL, NULL, '2000-01-01 00:00:00', 1999, 2000);
INSERT INTO temporal VALUES (6, '0000-01-01', '2024-02-00',
  NULL, NULL, NULL, NULL, '00:00:00', '00:00:00',
  '2024-01-00 12:00:00', '0000-00-00 00:00:00.000', '0000-00-00 00:00:00', '0000-01-01 00:00:00',
  '2024-00-00 00:00:00', '0000-00-00 00:00:00.000001',
  NULL, NULL, NULL, '2000-01-01 00:00:00', NULL, 2000);
UPDATE temporal SET d = '2000-01-01' WHERE id = 1;
DELETE FROM temporal WHERE id = 2;
";
