//! The statements the Debezium tests run on a private MariaDB: a table of
//! every column type, one row of it, and inserts, updates (one changing
//! the key), deletes, a transaction and a TRUNCATE.

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
