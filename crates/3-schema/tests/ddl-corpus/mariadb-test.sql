-- file: mariadb-test-data/usr/share/mysql/mysql-test/main/alter_table.test
create table t1 (
col1 int not null auto_increment primary key,
col2 varchar(30) not null,
col3 varchar (20) not null,
col4 varchar(4) not null,
col5 enum('PENDING', 'ACTIVE', 'DISABLED') not null,
col6 int not null, to_be_deleted int)
;;
alter table t1
add column col4_5 varchar(20) not null after col4,
add column col7 varchar(30) not null after col5,
add column col8 datetime not null, drop column to_be_deleted,
change column col2 fourth varchar(30) not null after col3,
modify column col6 int not null first
;;
drop table t1
;;
create table t1 (bandID MEDIUMINT UNSIGNED NOT NULL PRIMARY KEY, payoutID SMALLINT UNSIGNED NOT NULL)
;;
alter table t1 add column new_col int, order by payoutid,bandid
;;
alter table t1 order by bandid,payoutid
;;
drop table t1
;;
CREATE TABLE t1 (
GROUP_ID int(10) unsigned DEFAULT '0' NOT NULL,
LANG_ID smallint(5) unsigned DEFAULT '0' NOT NULL,
NAME varchar(80) DEFAULT '' NOT NULL,
PRIMARY KEY (GROUP_ID,LANG_ID),
KEY NAME (NAME))
;;
ALTER TABLE t1 CHANGE NAME NAME CHAR(80) not null
;;
DROP TABLE t1
;;
create table t1 (n int)
;;
alter table t1 order by n
;;
drop table t1
;;
CREATE TABLE t1 (
  id int(11) unsigned NOT NULL default '0',
  category_id tinyint(4) unsigned NOT NULL default '0',
  type_id tinyint(4) unsigned NOT NULL default '0',
  body text NOT NULL,
  user_id int(11) unsigned NOT NULL default '0',
  status enum('new','old') NOT NULL default 'new',
  PRIMARY KEY (id)
) ENGINE=MyISAM
;;
ALTER TABLE t1 ORDER BY t1.id, t1.status, t1.type_id, t1.user_id, t1.body
;;
DROP TABLE t1
;;
CREATE TABLE t1 (AnamneseId int(10) unsigned NOT NULL auto_increment,B BLOB,PRIMARY KEY (AnamneseId)) engine=myisam
;;
ALTER TABLE t1 ADD Column new_col int not null
;;
DROP TABLE t1
;;
create table t1 (i int unsigned not null auto_increment primary key)
;;
alter table t1 drop i,add i int unsigned not null auto_increment, drop primary key, add primary key (i)
;;
drop table t1
;;
create table t1 (name char(15))
;;
create database mysqltest
;;
create table mysqltest.t1 (name char(15))
;;
drop table t1
;;
drop database mysqltest
;;
create table t1 (n1 int not null, n2 int, n3 int, n4 float,
                unique(n1),
                key (n1, n2, n3, n4),
                key (n2, n3, n4, n1),
                key (n3, n4, n1, n2),
                key (n4, n1, n2, n3) )
;;
alter table t1 disable keys
;;
alter table t1 enable keys
;;
drop table t1
;;
create table t1 (i int unsigned not null auto_increment primary key)
;;
alter table t1 rename t2
;;
alter table t2 rename t1, add c char(10) comment "no comment"
;;
drop table t1
;;
create table t1 (a int, b int)
;;
alter table t1 add unique (a,b), add key (b)
;;
drop table t1
;;
CREATE TABLE t1 (i int(10), index(i) ) ENGINE=MyISAM
;;
ALTER TABLE t1 DISABLE KEYS
;;
ALTER TABLE t1 ENABLE KEYS
;;
drop table t1
;;
CREATE TABLE t1 (
  Host varchar(16) binary NOT NULL default '',
  User varchar(16) binary NOT NULL default '',
  PRIMARY KEY  (Host,User)
) ENGINE=MyISAM
;;
ALTER TABLE t1 DISABLE KEYS
;;
ALTER TABLE t1 ENABLE KEYS
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
  Host varchar(16) binary NOT NULL default '',
  User varchar(16) binary NOT NULL default '',
  PRIMARY KEY  (Host,User),
  KEY  (Host)
) ENGINE=MyISAM
;;
ALTER TABLE t1 DISABLE KEYS
;;
ALTER TABLE t1 ENABLE KEYS
;;
ALTER TABLE t1 RENAME t2
;;
DROP TABLE t2
;;
CREATE TABLE t1 (
  Host varchar(16) binary NOT NULL default '',
  User varchar(16) binary NOT NULL default '',
  PRIMARY KEY  (Host,User),
  KEY  (Host)
) ENGINE=MyISAM
;;
ALTER TABLE t1 DISABLE KEYS
;;
DROP TABLE t1
;;
create table t1 (a int)
;;
drop table t1
;;
drop table if exists t1, t2
;;
create table t1 ( a varchar(10) not null primary key ) engine=myisam
;;
alter table t1 modify a varchar(10)
;;
alter table t1 modify a varchar(10) not null
;;
drop table if exists t1, t2
;;
create table t1 (a int, b int, c int, d int, e int, f int, g int, h int,i int, primary key (a,b,c,d,e,f,g,i,h)) engine=MyISAM
;;
alter table t1 modify a int
;;
drop table t1
;;
create table t1 (a int not null, b int not null, c int not null, d int not null, e int not null, f int not null, g int not null, h int not null,i int not null, primary key (a,b,c,d,e,f,g,i,h)) engine=MyISAM
;;
drop table t1
;;
create table t1 (a char(10) character set koi8r)
;;
alter table t1 change a a char(10) character set cp1251
;;
alter table t1 change a a binary(4)
;;
alter table t1 change a a char(10) character set cp1251
;;
alter table t1 change a a char(10) character set koi8r
;;
alter table t1 change a a varchar(10) character set cp1251
;;
alter table t1 change a a char(10) character set koi8r
;;
alter table t1 change a a text character set cp1251
;;
alter table t1 change a a char(10) character set koi8r
;;
alter table t1 DEFAULT CHARACTER SET latin1
;;
alter table t1 CONVERT TO CHARACTER SET latin1
;;
alter table t1 DEFAULT CHARACTER SET cp1251
;;
drop table t1
;;
create table t1 (myblob longblob,mytext longtext) 
default charset latin1 collate latin1_general_cs
;;
alter table t1 character set latin2
;;
drop table t1
;;
CREATE TABLE t1 (a int PRIMARY KEY, b INT UNIQUE)
;;
ALTER TABLE t1 DROP PRIMARY KEY
;;
DROP TABLE t1
;;
create table t1 (a int, b int, key(a))
;;
alter table t1 drop key a
;;
drop table t1
;;
CREATE TABLE T12207(a int) ENGINE=MYISAM
;;
DROP TABLE T12207
;;
create table t1 (a text) character set koi8r
;;
alter table t1 convert to character set cp1251
;;
drop table t1
;;
create table t1 ( a timestamp )
;;
drop table t1
;;
drop table if exists t1
;;
create table t1 (a int, key(a))
;;
alter table t1 modify a int, disable keys
;;
alter table t1 enable keys
;;
alter table t1 modify a bigint, disable keys
;;
alter table t1 enable keys
;;
alter table t1 add b char(10), disable keys
;;
alter table t1 add c decimal(10,2), enable keys
;;
alter table t1 disable keys
;;
alter table t1 add d decimal(15,5)
;;
drop table t1
;;
create table t1(a int, b char(10), unique(a))
;;
alter table t1 disable keys
;;
alter table t1 enable keys
;;
alter table t1 modify a int, disable keys
;;
alter table t1 modify a bigint, disable keys
;;
alter table t1 modify a bigint
;;
alter table t1 modify a int
;;
drop table t1
;;
create table t1(a int, b char(10), unique(a), key(b))
;;
alter table t1 disable keys
;;
alter table t1 enable keys
;;
alter table t1 modify a int, disable keys
;;
alter table t1 enable keys
;;
alter table t1 modify a bigint, disable keys
;;
alter table t1 modify a int
;;
alter table t1 modify a int
;;
drop table t1
;;
create database mysqltest
;;
create table t1 (c1 int)
;;
alter table t1 rename mysqltest.t1
;;
alter table mysqltest.t1 rename t1
;;
drop table t1
;;
create table t1 (c1 int)
;;
drop database mysqltest
;;
alter table test.t1 rename test.t1
;;
drop table t1
;;
CREATE TABLE t1(a INT) ROW_FORMAT=FIXED
;;
CREATE INDEX i1 ON t1(a)
;;
DROP INDEX i1 ON t1
;;
DROP TABLE t1
;;
DROP TABLE IF EXISTS bug24219
;;
DROP TABLE IF EXISTS bug24219_2
;;
CREATE TABLE bug24219 (a INT, INDEX(a))
;;
ALTER TABLE bug24219 RENAME TO bug24219_2, DISABLE KEYS
;;
DROP TABLE bug24219_2
;;
drop table if exists table_24562
;;
create table table_24562(
  section int,
  subsection int,
  title varchar(50))
;;
alter table table_24562 add column reviewer varchar(20),
order by title
;;
alter table table_24562
order by section ASC, subsection DESC
;;
alter table table_24562
order by table_24562.subsection ASC, table_24562.section DESC
;;
drop table table_24562
;;
create table t1 (mycol int(10) not null)
;;
alter table t1 alter column mycol set default 0
;;
drop table t1
;;
create table t1(id int(8) primary key auto_increment) engine=heap
;;
alter table t1 auto_increment = 50
;;
alter table t1 engine = myisam
;;
alter table t1 engine = heap
;;
drop table t1
;;
create table t1(f1 int)
;;
alter table t1 add column f2 datetime not null, add column f21 date not null
;;
alter table t1 add column f4 datetime not null default '2002-02-02',
  add column f41 date not null default '2002-02-02'
;;
drop table t1
;;
create table t1 (v varchar(32))
;;
alter table t1 change v v2 varchar(32)
;;
alter table t1 change v2 v varchar(64)
;;
alter table t1 add i int auto_increment not null primary key first
;;
alter table t1 change i i bigint
;;
alter table t1 add unique key (i, v)
;;
drop table t1
;;
create table t1 (t varchar(255) default null, key t (t(80)))
engine=myisam default charset=latin1
;;
alter table t1 change t t text
;;
drop table t1
;;
CREATE TABLE t1 (a varchar(500))
;;
ALTER TABLE t1 ADD b GEOMETRY NOT NULL, ADD SPATIAL INDEX(b)
;;
ALTER TABLE t1 ADD KEY(b(50))
;;
ALTER TABLE t1 ADD c POINT
;;
ALTER TABLE t1 ADD d INT
;;
DROP TABLE t1
;;
CREATE TABLE t1 (s CHAR(8) BINARY)
;;
ALTER TABLE t1 MODIFY s CHAR(10) BINARY
;;
DROP TABLE t1
;;
CREATE TABLE t1 (s BINARY(8))
;;
ALTER TABLE t1 MODIFY s BINARY(10)
;;
DROP TABLE t1
;;
CREATE TABLE t1 (v VARCHAR(3), b INT)
;;
ALTER TABLE t1 MODIFY COLUMN v VARCHAR(4)
;;
DROP TABLE t1
;;
create table t1 (a tinytext character set latin1)
;;
alter table t1 convert to character set utf8
;;
drop table t1
;;
create table t1 (a mediumtext character set latin1)
;;
alter table t1 convert to character set utf8
;;
drop table t1
;;
drop table if exists t1, t2, t3
;;
create table t1 (i int)
;;
create table t3 (j int)
;;
alter table t1 modify i int default 1
;;
alter table t1 change i c char(10) default "Two"
;;
alter table t1 modify c char(10) default "Three", rename to t2
;;
alter table t2 change c vc varchar(100) default "Four", rename to t1
;;
drop tables t1, t3
;;
DROP TABLE IF EXISTS `t+1`, `t+2`
;;
CREATE TABLE `t+1` (c1 INT)
;;
ALTER TABLE  `t+1` RENAME `t+2`
;;
CREATE TABLE `t+1` (c1 INT)
;;
DROP TABLE   `t+1`, `t+2`
;;
CREATE TEMPORARY TABLE `tt+1` (c1 INT)
;;
ALTER TABLE  `tt+1` RENAME `tt+2`
;;
CREATE TEMPORARY TABLE `tt+1` (c1 INT)
;;
DROP TABLE   `tt+1`, `tt+2`
;;
CREATE TABLE `#sql1` (c1 INT)
;;
CREATE TABLE `@0023sql2` (c1 INT)
;;
RENAME TABLE `#sql1`     TO `@0023sql1`
;;
RENAME TABLE `@0023sql2` TO `#sql2`
;;
ALTER TABLE `@0023sql1`  RENAME `#sql-1`
;;
ALTER TABLE `#sql2`      RENAME `@0023sql-2`
;;
DROP TABLE `#sql-1`, `@0023sql-2`
;;
CREATE TEMPORARY TABLE `#sql1` (c1 INT)
;;
CREATE TEMPORARY TABLE `@0023sql2` (c1 INT)
;;
ALTER TABLE `#sql1`      RENAME `@0023sql1`
;;
ALTER TABLE `@0023sql2`  RENAME `#sql2`
;;
DROP TABLE `#sql2`, `@0023sql1`
;;
DROP TABLE IF EXISTS t1
;;
DROP TABLE IF EXISTS t2
;;
CREATE TABLE t1 (
  int_field INTEGER UNSIGNED NOT NULL,
  char_field CHAR(10),
  INDEX(`int_field`)
)
;;
ALTER TABLE t1
  CHANGE int_field unsigned_int_field INTEGER UNSIGNED NOT NULL,
  RENAME t2
;;
ALTER TABLE t2 MODIFY unsigned_int_field BIGINT UNSIGNED NOT NULL
;;
DROP TABLE t2
;;
CREATE TABLE t1 (f1 INT, f2 INT, f3 INT)
;;
ALTER TABLE t1 MODIFY COLUMN f3 INT AFTER f1
;;
ALTER TABLE t1 MODIFY COLUMN f3 INT AFTER f2
;;
DROP TABLE t1
;;
create table t1 (c char(10) default "Two")
;;
alter table t1 modify c char(10) default "Three"
;;
drop table t1
;;
DROP TABLE IF EXISTS t1
;;
CREATE TABLE t1 (id int, c int) character set latin1
;;
ALTER TABLE t1 CHANGE c d int
;;
ALTER TABLE t1 CHANGE d c int
;;
ALTER TABLE t1 MODIFY c VARCHAR(10)
;;
ALTER TABLE t1 CHANGE c d varchar(10)
;;
ALTER TABLE t1 CHANGE d c varchar(10)
;;
DROP TABLE t1
;;
DROP TABLE IF EXISTS t1
;;
CREATE TABLE t1 (id int, c int) character set utf8
;;
ALTER TABLE t1 CHANGE c d int
;;
ALTER TABLE t1 CHANGE d c int
;;
ALTER TABLE t1 MODIFY c VARCHAR(10)
;;
ALTER TABLE t1 CHANGE c d varchar(10)
;;
ALTER TABLE t1 CHANGE d c varchar(10)
;;
DROP TABLE t1
;;
create table t1(f1 int not null, f2 int not null, key  (f1), key (f2))
;;
alter table t1 pack_keys=1
;;
alter table t1 max_rows=100
;;
drop table t1
;;
CREATE TABLE t1(a INT AUTO_INCREMENT PRIMARY KEY, 
  b ENUM('a', 'b', 'c') NOT NULL)
;;
ALTER TABLE t1 MODIFY b ENUM('a', 'z', 'b', 'c') NOT NULL
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a int NOT NULL default 42)
;;
ALTER TABLE t1 ALTER COLUMN a DROP DEFAULT
;;
DROP TABLE t1
;;
DROP TABLE IF EXISTS t1
;;
CREATE TABLE t1 (a ENUM('a1','a2'))
;;
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2')
;;
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','a3')
;;
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','xx','a5')
;;
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','xx')
;;
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','a0','xx')
;;
ALTER TABLE t1 MODIFY COLUMN a ENUM('a1','a2','a0','xx','a5','a6')
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a SET('a1','a2'))
;;
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2')
;;
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a3')
;;
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','xx','a5')
;;
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','xx')
;;
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a0','xx')
;;
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a0','xx','a5','a6')
;;
ALTER TABLE t1 MODIFY COLUMN a SET('a1','a2','a0','xx','a5','a6','a7','a8','a9','a10')
;;
DROP TABLE t1
;;
CREATE TABLE t1 (f1 TIMESTAMP NULL DEFAULT NULL,
                 f2 INT(11) DEFAULT NULL) ENGINE=MYISAM DEFAULT CHARSET=utf8
;;
ALTER TABLE t1 CHANGE COLUMN f1 f1_no_real_change TIMESTAMP NULL DEFAULT NULL
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a TEXT, id INT, b INT)
;;
ALTER TABLE t1 DROP COLUMN a, ADD COLUMN c TEXT FIRST
;;
DROP TABLE t1
;;
drop table if exists t1
;;
create table t1 (i int, j int) engine=myisam
;;
alter table t1 modify column j int first
;;
alter table t1 drop column i, add column k int default 0
;;
drop table t1
;;
CREATE TABLE t1(c CHAR(10), 
  i INT UNSIGNED AUTO_INCREMENT NOT NULL PRIMARY KEY)
;;
ALTER TABLE t1
  DROP i,
  ADD i INT UNSIGNED NOT NULL AUTO_INCREMENT,
  AUTO_INCREMENT = 1
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a CHAR(1))
;;
DROP TABLE t1
;;
CREATE TABLE t1 (id int)
;;
ALTER TABLE t1 ADD COLUMN (f1 INT), ADD COLUMN (f2 INT), ADD KEY f2k(f2)
;;
DROP TABLE t1
;;
DROP TABLE IF EXISTS t1
;;
CREATE TABLE t1 (a INT, b MEDIUMINT)
;;
ALTER TABLE t1 CHANGE a id INT
;;
DROP TABLE t1
;;
DROP DATABASE IF EXISTS db1
;;
CREATE DATABASE db1 CHARACTER SET utf8
;;
CREATE TABLE db1.t1 (bar TINYTEXT, KEY (bar(100)))
;;
ALTER TABLE db1.t1 ADD baz INT
;;
DROP DATABASE db1
;;
DROP TABLE IF EXISTS t1
;;
CREATE TEMPORARY TABLE t1 (i int) ENGINE=MyISAM
;;
DROP TABLE t1
;;
drop table if exists t1
;;
create table t1 (a int)
;;
rename table t2 to t1
;;
drop table t2
;;
CREATE TABLE t1 (
  `a` int(11) DEFAULT NULL
) DEFAULT CHARSET=utf8
;;
ALTER TABLE t1 ADD COLUMN `consultant_id` integer NOT NULL,
ALTER COLUMN `consultant_id` DROP DEFAULT
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
  `a` int(11) DEFAULT NULL
) DEFAULT CHARSET=utf8
;;
ALTER TABLE t1 ADD COLUMN `consultant_id` integer NOT NULL,
ALTER COLUMN `consultant_id` SET DEFAULT 2
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
  `a` int(11) DEFAULT NULL
) DEFAULT CHARSET=utf8
;;
ALTER TABLE t1 ADD COLUMN `consultant_id` integer NOT NULL DEFAULT 2,
ALTER COLUMN `consultant_id` DROP DEFAULT
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
  `a` int(11) DEFAULT NULL
) DEFAULT CHARSET=utf8
;;
ALTER TABLE t1 ADD COLUMN `consultant_id` integer NOT NULL DEFAULT 2,
ALTER COLUMN `consultant_id` DROP DEFAULT,
MODIFY COLUMN `consultant_id` BIGINT
;;
DROP TABLE t1
;;
CREATE TABLE t1 (t1_fld1 TEXT)
;;
CREATE TABLE t2 (t2_fld1 MEDIUMTEXT)
;;
CREATE TABLE t3 (t3_fld1 LONGTEXT)
;;
ALTER TABLE t1 CHANGE `t1_fld1` `my_t1_fld1` TINYTEXT
;;
ALTER TABLE t2 CHANGE `t2_fld1` `my_t2_fld1` TEXT
;;
ALTER TABLE t3 CHANGE `t3_fld1` `my_t3_fld1` MEDIUMTEXT
;;
DROP TABLE t1, t2, t3
;;
CREATE TABLE t1 (
  id INT(11) NOT NULL,
  x_param INT(11) DEFAULT NULL,
  PRIMARY KEY (id)
) ENGINE=MYISAM
;;
ALTER TABLE t1 ADD COLUMN IF NOT EXISTS id INT,
               ADD COLUMN IF NOT EXISTS lol INT AFTER id
;;
ALTER TABLE t1 ADD COLUMN IF NOT EXISTS lol INT AFTER id
;;
ALTER TABLE t1 DROP COLUMN IF EXISTS lol
;;
ALTER TABLE t1 DROP COLUMN IF EXISTS lol
;;
ALTER TABLE t1 ADD KEY IF NOT EXISTS x_param(x_param)
;;
ALTER TABLE t1 ADD KEY IF NOT EXISTS x_param(x_param)
;;
ALTER TABLE t1 MODIFY IF EXISTS lol INT
;;
DROP INDEX IF EXISTS x_param ON t1
;;
DROP INDEX IF EXISTS x_param ON t1
;;
CREATE INDEX IF NOT EXISTS x_param1 ON t1(x_param)
;;
CREATE INDEX IF NOT EXISTS x_param1 ON t1(x_param)
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
  id INT(11) NOT NULL,
  x_param INT(11) DEFAULT NULL,
  PRIMARY KEY (id)
) ENGINE=INNODB
;;
CREATE TABLE t2 (
  id INT(11) NOT NULL) ENGINE=INNODB
;;
ALTER TABLE t1 ADD COLUMN IF NOT EXISTS id INT,
               ADD COLUMN IF NOT EXISTS lol INT AFTER id
;;
ALTER TABLE t1 ADD COLUMN IF NOT EXISTS lol INT AFTER id
;;
ALTER TABLE t1 DROP COLUMN IF EXISTS lol
;;
ALTER TABLE t1 DROP COLUMN IF EXISTS lol
;;
ALTER TABLE t1 ADD KEY IF NOT EXISTS x_param(x_param)
;;
ALTER TABLE t1 ADD KEY IF NOT EXISTS x_param(x_param)
;;
ALTER TABLE t1 MODIFY IF EXISTS lol INT
;;
DROP INDEX IF EXISTS x_param ON t1
;;
DROP INDEX IF EXISTS x_param ON t1
;;
CREATE INDEX IF NOT EXISTS x_param1 ON t1(x_param)
;;
CREATE INDEX IF NOT EXISTS x_param1 ON t1(x_param)
;;
ALTER TABLE t2 ADD FOREIGN KEY IF NOT EXISTS fk(id) REFERENCES t1(id)
;;
ALTER TABLE t2 ADD FOREIGN KEY IF NOT EXISTS fk(id) REFERENCES t1(id)
;;
ALTER TABLE t2 DROP FOREIGN KEY IF EXISTS fk
;;
ALTER TABLE t2 DROP FOREIGN KEY IF EXISTS fk
;;
ALTER TABLE t2 ADD FOREIGN KEY (id) REFERENCES t1(id)
;;
ALTER TABLE t2 ADD FOREIGN KEY IF NOT EXISTS t2_ibfk_1(id) REFERENCES t1(id)
;;
ALTER TABLE t2 DROP FOREIGN KEY IF EXISTS t2_ibfk_1
;;
ALTER TABLE t2 DROP FOREIGN KEY IF EXISTS t2_ibfk_1
;;
DROP TABLE t2
;;
CREATE TABLE t2 (
  id INT(11) NOT NULL)
;;
ALTER TABLE t2 ADD COLUMN a INT, ADD COLUMN IF NOT EXISTS a INT
;;
ALTER TABLE t2 ADD KEY k_id(id), ADD KEY IF NOT EXISTS k_id(id)
;;
ALTER TABLE t2 DROP KEY k_id, DROP KEY IF EXISTS k_id
;;
ALTER TABLE t2 DROP COLUMN a, DROP COLUMN IF EXISTS a
;;
DROP TABLE t2
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
    `transaction_id` int(11) NOT NULL DEFAULT '0', 
    KEY `transaction_id` (`transaction_id`))
;;
ALTER TABLE t1 DROP KEY IF EXISTS transaction_id, ADD PRIMARY KEY IF NOT EXISTS (transaction_id)
;;
DROP TABLE t1
;;
CREATE TABLE t1 (c1 int unsigned , c2 char(100) not null default '')
;;
ALTER TABLE t1 ADD c3 char(16) NOT NULL DEFAULT '' AFTER c2,
               MODIFY c2 char(100) NOT NULL DEFAULT '' AFTER c1
;;
DROP TABLE t1
;;
DROP TABLE IF EXISTS t1
;;
CREATE TABLE t1(a INT PRIMARY KEY, b INT) engine=InnoDB
;;
CREATE TABLE m1(a INT PRIMARY KEY, b INT) engine=MyISAM
;;
ALTER TABLE t1 ADD INDEX i1(b)
;;
ALTER TABLE t1 ADD INDEX i2(b), ALGORITHM= DEFAULT
;;
ALTER TABLE t1 ADD INDEX i3(b), ALGORITHM= COPY
;;
ALTER TABLE t1 ADD INDEX i4(b), ALGORITHM= INPLACE
;;
ALTER TABLE m1 ENABLE KEYS
;;
ALTER TABLE m1 ENABLE KEYS, ALGORITHM= DEFAULT
;;
ALTER TABLE m1 ENABLE KEYS, ALGORITHM= COPY
;;
ALTER TABLE m1 ENABLE KEYS, ALGORITHM= INPLACE
;;
ALTER TABLE t1 DROP INDEX i1, DROP INDEX i2, DROP INDEX i3, DROP INDEX i4
;;
ALTER TABLE t1 ADD INDEX i1(b)
;;
ALTER TABLE t1 ADD INDEX i2(b), ALGORITHM= DEFAULT
;;
ALTER TABLE t1 ADD INDEX i3(b), ALGORITHM= COPY
;;
ALTER TABLE t1 ADD INDEX i4(b), ALGORITHM= INPLACE
;;
ALTER TABLE t1 DROP INDEX i1, DROP INDEX i2, DROP INDEX i3, DROP INDEX i4
;;
ALTER TABLE t1 ADD COLUMN (c1 INT)
;;
ALTER TABLE t1 ADD COLUMN (c2 INT), ALGORITHM= DEFAULT
;;
ALTER TABLE t1 ADD COLUMN (c3 INT), ALGORITHM= COPY
;;
ALTER TABLE t1 ADD COLUMN (c4 INT), ALGORITHM= INPLACE
;;
ALTER TABLE t1 DROP COLUMN c1, DROP COLUMN c2, DROP COLUMN c3, DROP COLUMN c4
;;
ALTER TABLE t1 ADD INDEX i1(b), LOCK= DEFAULT
;;
ALTER TABLE t1 ADD INDEX i2(b), LOCK= NONE
;;
ALTER TABLE t1 ADD INDEX i3(b), LOCK= SHARED
;;
ALTER TABLE t1 ADD INDEX i4(b), LOCK= EXCLUSIVE
;;
ALTER TABLE m1 ENABLE KEYS, LOCK= DEFAULT
;;
ALTER TABLE m1 ENABLE KEYS, LOCK= EXCLUSIVE
;;
ALTER TABLE t1 DROP INDEX i1, DROP INDEX i2, DROP INDEX i3, DROP INDEX i4
;;
ALTER TABLE t1 ADD INDEX i1(b), ALGORITHM= INPLACE, LOCK= NONE
;;
ALTER TABLE t1 ADD INDEX i2(b), ALGORITHM= INPLACE, LOCK= SHARED
;;
ALTER TABLE t1 ADD INDEX i3(b), ALGORITHM= INPLACE, LOCK= EXCLUSIVE
;;
ALTER TABLE t1 ADD INDEX i5(b), ALGORITHM= COPY, LOCK= SHARED
;;
ALTER TABLE t1 ADD INDEX i6(b), ALGORITHM= COPY, LOCK= EXCLUSIVE
;;
ALTER TABLE m1 ENABLE KEYS, ALGORITHM= INPLACE, LOCK= EXCLUSIVE
;;
ALTER TABLE m1 ENABLE KEYS, ALGORITHM= COPY, LOCK= SHARED
;;
ALTER TABLE m1 ENABLE KEYS, ALGORITHM= COPY, LOCK= EXCLUSIVE
;;
DROP TABLE t1, m1
;;
CREATE TABLE t1(a INT PRIMARY KEY, b INT)
;;
DROP TABLE t1
;;
DROP TABLE IF EXISTS ti1, ti2, ti3, tm1, tm2, tm3
;;
CREATE TABLE ti1(a INT NOT NULL, b INT, c INT) engine=InnoDB
;;
CREATE TABLE tm1(a INT NOT NULL, b INT, c INT) engine=MyISAM
;;
CREATE TABLE ti2(a INT PRIMARY KEY AUTO_INCREMENT, b INT, c INT) engine=InnoDB
;;
CREATE TABLE tm2(a INT PRIMARY KEY AUTO_INCREMENT, b INT, c INT) engine=MyISAM
;;
ALTER TABLE ti1
;;
ALTER TABLE tm1
;;
ALTER TABLE ti1 ADD COLUMN d VARCHAR(200)
;;
ALTER TABLE tm1 ADD COLUMN d VARCHAR(200)
;;
ALTER TABLE ti1 ADD COLUMN d2 VARCHAR(200)
;;
ALTER TABLE tm1 ADD COLUMN d2 VARCHAR(200)
;;
ALTER TABLE ti1 ADD COLUMN e ENUM('a', 'b') FIRST
;;
ALTER TABLE tm1 ADD COLUMN e ENUM('a', 'b') FIRST
;;
ALTER TABLE ti1 ADD COLUMN f INT AFTER a
;;
ALTER TABLE tm1 ADD COLUMN f INT AFTER a
;;
ALTER TABLE ti1 ADD INDEX ii1(b)
;;
ALTER TABLE tm1 ADD INDEX im1(b)
;;
ALTER TABLE ti1 ADD UNIQUE INDEX ii2 (c)
;;
ALTER TABLE tm1 ADD UNIQUE INDEX im2 (c)
;;
ALTER TABLE ti1 ADD FULLTEXT INDEX ii3 (d)
;;
ALTER TABLE tm1 ADD FULLTEXT INDEX im3 (d)
;;
ALTER TABLE ti1 ADD FULLTEXT INDEX ii4 (d2)
;;
ALTER TABLE tm1 ADD FULLTEXT INDEX im4 (d2)
;;
ALTER TABLE ti1 ADD PRIMARY KEY(a)
;;
ALTER TABLE tm1 ADD PRIMARY KEY(a)
;;
ALTER TABLE ti1 DROP INDEX ii3
;;
ALTER TABLE tm1 DROP INDEX im3
;;
ALTER TABLE ti1 DROP COLUMN d2
;;
ALTER TABLE tm1 DROP COLUMN d2
;;
ALTER TABLE ti1 ADD CONSTRAINT fi1 FOREIGN KEY (b) REFERENCES ti2(a)
;;
ALTER TABLE tm1 ADD CONSTRAINT fm1 FOREIGN KEY (b) REFERENCES tm2(a)
;;
ALTER TABLE ti1 ALTER COLUMN b SET DEFAULT 1
;;
ALTER TABLE tm1 ALTER COLUMN b SET DEFAULT 1
;;
ALTER TABLE ti1 ALTER COLUMN b DROP DEFAULT
;;
ALTER TABLE tm1 ALTER COLUMN b DROP DEFAULT
;;
ALTER TABLE ti1 CHANGE COLUMN f g INT
;;
ALTER TABLE tm1 CHANGE COLUMN f g INT
;;
ALTER TABLE ti1 CHANGE COLUMN g h VARCHAR(20)
;;
ALTER TABLE tm1 CHANGE COLUMN g h VARCHAR(20)
;;
ALTER TABLE ti1 MODIFY COLUMN e ENUM('a', 'b', 'c')
;;
ALTER TABLE tm1 MODIFY COLUMN e ENUM('a', 'b', 'c')
;;
ALTER TABLE ti1 MODIFY COLUMN e INT
;;
ALTER TABLE tm1 MODIFY COLUMN e INT
;;
ALTER TABLE ti1 MODIFY COLUMN e INT AFTER h
;;
ALTER TABLE tm1 MODIFY COLUMN e INT AFTER h
;;
ALTER TABLE ti1 MODIFY COLUMN e INT FIRST
;;
ALTER TABLE tm1 MODIFY COLUMN e INT FIRST
;;
ALTER TABLE ti1 MODIFY COLUMN c INT NOT NULL
;;
ALTER TABLE tm1 MODIFY COLUMN c INT NOT NULL
;;
ALTER TABLE ti1 MODIFY COLUMN c INT NULL
;;
ALTER TABLE tm1 MODIFY COLUMN c INT NULL
;;
ALTER TABLE ti1 MODIFY COLUMN h VARCHAR(30)
;;
ALTER TABLE tm1 MODIFY COLUMN h VARCHAR(30)
;;
ALTER TABLE ti1 MODIFY COLUMN h VARCHAR(30) AFTER d
;;
ALTER TABLE tm1 MODIFY COLUMN h VARCHAR(30) AFTER d
;;
ALTER TABLE ti1 DROP COLUMN h
;;
ALTER TABLE tm1 DROP COLUMN h
;;
ALTER TABLE ti1 DROP INDEX ii2
;;
ALTER TABLE tm1 DROP INDEX im2
;;
ALTER TABLE ti1 DROP PRIMARY KEY
;;
ALTER TABLE tm1 DROP PRIMARY KEY
;;
ALTER TABLE ti1 DROP FOREIGN KEY fi1
;;
ALTER TABLE ti1 RENAME TO ti3
;;
ALTER TABLE tm1 RENAME TO tm3
;;
ALTER TABLE ti3 RENAME TO ti1
;;
ALTER TABLE tm3 RENAME TO tm1
;;
ALTER TABLE ti1 ORDER BY b
;;
ALTER TABLE tm1 ORDER BY b
;;
ALTER TABLE ti1 CONVERT TO CHARACTER SET utf16
;;
ALTER TABLE tm1 CONVERT TO CHARACTER SET utf16
;;
ALTER TABLE ti1 DEFAULT CHARACTER SET utf8
;;
ALTER TABLE tm1 DEFAULT CHARACTER SET utf8
;;
ALTER TABLE ti1 FORCE
;;
ALTER TABLE tm1 FORCE
;;
ALTER TABLE ti1 AUTO_INCREMENT 3
;;
ALTER TABLE tm1 AUTO_INCREMENT 3
;;
ALTER TABLE ti1 AVG_ROW_LENGTH 10
;;
ALTER TABLE tm1 AVG_ROW_LENGTH 10
;;
ALTER TABLE ti1 CHECKSUM 1
;;
ALTER TABLE tm1 CHECKSUM 1
;;
ALTER TABLE ti1 COMMENT 'test'
;;
ALTER TABLE tm1 COMMENT 'test'
;;
ALTER TABLE ti1 MAX_ROWS 100
;;
ALTER TABLE tm1 MAX_ROWS 100
;;
ALTER TABLE ti1 MIN_ROWS 1
;;
ALTER TABLE tm1 MIN_ROWS 1
;;
ALTER TABLE ti1 PACK_KEYS 1
;;
ALTER TABLE tm1 PACK_KEYS 1
;;
DROP TABLE ti1, ti2, tm1, tm2
;;
CREATE TABLE ti1(a INT PRIMARY KEY AUTO_INCREMENT, b INT) engine=InnoDB
;;
ALTER TABLE ti1 RENAME TO ti3, ADD INDEX ii1(b)
;;
ALTER TABLE ti3 DROP INDEX ii1, AUTO_INCREMENT 5
;;
ALTER TABLE ti3 ADD INDEX ii1(b), AUTO_INCREMENT 7
;;
DROP TABLE ti3
;;
CREATE TABLE tm1(i INT DEFAULT 1) engine=MyISAM
;;
ALTER TABLE tm1 ADD INDEX ii1(i), ALTER COLUMN i DROP DEFAULT
;;
DROP TABLE tm1
;;
create table if not exists t1 (i int)
;;
alter table t1 add key (i)
;;
alter table t1 add key if not exists (i)
;;
DROP TABLE t1
;;
create table t1 (a int)
;;
alter table t1 change column if exists a b bigint
;;
DROP TABLE t1
;;
create table t1 (i int)
;;
alter table t1 add unique index if not exists idx(i)
;;
alter table t1 add unique index if not exists idx(i)
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
   `event_id` bigint(20) unsigned NOT NULL DEFAULT '0',
   `market_id` bigint(20) unsigned NOT NULL DEFAULT '0',
 PRIMARY KEY (`event_id`,`market_id`)
 )
;;
ALTER TABLE t1 ADD PRIMARY KEY IF NOT EXISTS event_id (event_id,market_id)
;;
DROP TABLE t1
;;
CREATE TABLE `tab1` (
  `id` bigint(20) NOT NULL AUTO_INCREMENT,
  `field2` set('option1','option2','option3','option4') NOT NULL,
  `field3` set('option1','option2','option3','option4','option5') NOT NULL,
  `field4` set('option1','option2','option3','option4') NOT NULL,
  `field5` varchar(32) NOT NULL,
  `field6` varchar(32) NOT NULL,
  `field7` varchar(32) NOT NULL,
  `field8` varchar(32) NOT NULL,
  `field9` int(11) NOT NULL DEFAULT '1',
  `field10` varchar(16) NOT NULL,
  `field11` enum('option1','option2','option3') NOT NULL DEFAULT 'option1',
  `v_col` varchar(128) AS (IF(field11='option1',CONCAT_WS(":","field1",field2,field3,field4,field5,field6,field7,field8,field9,field10), CONCAT_WS(":","field1",field11,field2,field3,field4,field5,field6,field7,field8,field9,field10))) PERSISTENT,
  PRIMARY KEY (`id`)
) DEFAULT CHARSET=latin1
;;
ALTER TABLE `tab1` CHANGE COLUMN v_col `v_col` varchar(128)
;;
ALTER TABLE `tab1` CHANGE COLUMN v_col `v_col` varchar(128) AS (IF(field11='option1',CONCAT_WS(":","field1",field2,field3,field4,field5,field6,field7,field8,field9,field10), CONCAT_WS(":","field1",field11,field2,field3,field4,field5,field6,field7,field8,field9,field10))) PERSISTENT
;;
DROP TABLE `tab1`
;;
CREATE TABLE t1 (id INT UNSIGNED NOT NULL PRIMARY KEY)
;;
CREATE TABLE t2 (id1 INT UNSIGNED NOT NULL)
;;
ALTER TABLE t2
ADD FOREIGN KEY IF NOT EXISTS (id1)
  REFERENCES t1 (id)
;;
ALTER TABLE t2
ADD FOREIGN KEY IF NOT EXISTS (id1)
REFERENCES t1 (id)
;;
DROP TABLE t2
;;
DROP TABLE t1
;;
CREATE TABLE t1 (id int(11) NOT NULL, a int(11) NOT NULL, b int(11))
  ENGINE=InnoDB DEFAULT CHARSET=latin1
;;
ALTER TABLE t1 CONVERT TO CHARACTER SET utf8
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT, b INT) ENGINE=InnoDB
;;
ALTER TABLE t1 DROP FOREIGN KEY IF EXISTS fk, DROP COLUMN b
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT, b INT) ENGINE=InnoDB
;;
ALTER TABLE t1 DROP INDEX IF EXISTS fk, DROP COLUMN b
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT, b INT, c INT, KEY(c)) ENGINE=InnoDB
;;
ALTER TABLE t1 DROP FOREIGN KEY IF EXISTS fk, DROP COLUMN c
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT, b INT, c INT, KEY c1(c)) ENGINE=InnoDB
;;
ALTER TABLE t1 DROP FOREIGN KEY IF EXISTS fk, DROP INDEX c1
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT, b INT) ENGINE=InnoDB
;;
ALTER TABLE t1 DROP INDEX IF EXISTS fk, DROP COLUMN IF EXISTS c
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
        `ID` BIGINT(20) NOT NULL,
            `RANK` MEDIUMINT(4) NOT NULL,
                `CHECK_POINT` BIGINT(20) NOT NULL,
                    UNIQUE INDEX `HORIZON_UIDX01` (`ID`, `RANK`)
    ) ENGINE=InnoDB
;;
ALTER TABLE t1 ADD PRIMARY KEY IF NOT EXISTS (`ID`, `CHECK_POINT`)
;;
ALTER TABLE t1 ADD PRIMARY KEY IF NOT EXISTS (`ID`, `CHECK_POINT`)
;;
DROP TABLE t1
;;
CREATE TABLE t1(i INT) ENGINE=INNODB
;;
ALTER TABLE t1 MODIFY i FLOAT
;;
DROP TABLE t1
;;
CREATE TABLE t1(a INT)
;;
CREATE INDEX i1 ON t1(a) COMMENT 'comment1'
;;
ALTER TABLE t1 DROP INDEX i1, ADD INDEX i1(a) COMMENT 'comment2'
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT, b INT) engine=myisam
;;
ALTER TABLE t1 ADD CONSTRAINT IF NOT EXISTS `min` CHECK (a+b > 100)
;;
ALTER TABLE t1 ADD CONSTRAINT IF NOT EXISTS `min` CHECK (a+b > 100)
;;
ALTER TABLE t1 ADD CONSTRAINT `mini` CHECK (a+b > 100)
;;
DROP TABLE t1
;;
create table t1 (a int, b int, check(a>b))
;;
alter table t1 drop column a, drop constraint constraint_1
;;
drop table t1
;;
create table t1 (a int, b int, check(a>0))
;;
alter table t1 drop column a
;;
drop table t1
;;
create table t1 (a int, b int, check(a>0))
;;
alter table t1 drop column a, add column a bigint first
;;
drop table t1
;;
create table t1 (a int, b int, c int, unique(a))
;;
alter table t1 drop column a
;;
drop table t1
;;
create table t1 (a int, b int, c int, unique(a,b))
;;
alter table t1 drop column a, drop index a
;;
drop table t1
;;
create table t1 (i int)
;;
alter table t1 alter column if exists a set default 1
;;
alter table t1 alter column if exists a drop default
;;
drop table t1
;;
create table t1 (a int, b int, check(a>b))
;;
alter table t1 change column a b int, change column b a int
;;
drop table t1
;;
create table t1 (a int primary key, b int, c int default (a+b) check (a+b>0),
                d int as (a+b),
	        key (b),
	        constraint test check (a+b > 1))
;;
alter table t1 change b new_b int not null, add column b char(1), add constraint new check (length(b) > 0)
;;
drop table t1
;;
CREATE TABLE t1 (d DATETIME DEFAULT CURRENT_TIMESTAMP, i INT) ENGINE=InnoDB
;;
DROP TABLE t1
;;
CREATE TABLE t1(id INT PRIMARY KEY, c1 INT) ENGINE= INNODB
;;
CREATE TABLE t2(id INT PRIMARY KEY, c1 INT, c2 INT NOT NULL,
    CONSTRAINT sid FOREIGN KEY (`c1`) REFERENCES t1 (`id`) ON DELETE NO ACTION ON UPDATE NO ACTION,
    CONSTRAINT UNIQUE `ui`(c2)) ENGINE= INNODB
;;
ALTER TABLE t2 DROP CONSTRAINT sid
;;
ALTER TABLE t2 DROP CONSTRAINT ui
;;
ALTER TABLE t2 DROP CONSTRAINT PRIMARY KEY
;;
DROP TABLE t2, t1
;;
CREATE TABLE t1 (k1 varchar(10) DEFAULT 5)
;;
CREATE TABLE t2 (i1 int)
;;
DROP TABLE t1,t2
;;
create table t1(t int, d date not null)
;;
alter table t1 change d d date not null after t, add i int
;;
drop table t1
;;
create table t1 (a int)engine=InnoDB
;;
alter table t1 change a b int
;;
drop table t1
;;
create or replace table t1 (pk int, i int, primary key (pk)) engine myisam
;;
create or replace view v1 as select * from t1
;;
alter table t1 add column if not exists i int after pk
;;
drop table t1
;;
drop view v1
;;
create or replace table person_principal (
  person_id bigint not null,
  insurant_id varchar(10) not null,
  principal_id bigint not null,
  principal_officer_id bigint not null,
  nursing_degree tinyint null,
  nursing_degree_valid_from date not null default cast(current_timestamp(6) as date),
  carma_user_id bigint not null,
  current_date_time timestamp(6) not null default current_timestamp(6) on update current_timestamp(6),
  constraint pk_person_principal primary key (person_id asc),
  constraint ck_person_principal_nursing_degree check (nursing_degree in (1,2,3,4,5)))
;;
create or replace table person_principal_hist (
  person_id bigint not null,
  insurant_id varchar(10) not null,
  principal_id bigint not null,
  principal_officer_id bigint not null,
  nursing_degree tinyint null,
  nursing_degree_valid_from date not null default cast(now() as date),
  carma_user_id bigint not null,
  orig_date_time datetime(6) not null,
  constraint pk_person_principal_hist primary key (person_id asc, orig_date_time asc),
  constraint ck_person_principal_hist_nursing_degree check (nursing_degree in (1,2,3,4,5)))
;;
alter table person_principal add column if not exists date_mask tinyint null
;;
alter table person_principal modify column date_mask tinyint not null
;;
drop tables person_principal_hist, person_principal
;;
CREATE OR REPLACE TABLE `t1` (   `id` varchar(64) NOT NULL,   `name` varchar(255) NOT NULL,   `extra` text DEFAULT NULL,   `password` varchar(128) DEFAULT NULL,   `enabled` tinyint(1) DEFAULT NULL,   `domain_id` varchar(64) NOT NULL,   `default_project_id` varchar(64) DEFAULT NULL,   PRIMARY KEY (`id`),  CONSTRAINT `CONSTRAINT_1` CHECK (`enabled` in (0,1)) ) ENGINE=InnoDB DEFAULT CHARSET=utf8
;;
ALTER TABLE t1 ADD CONSTRAINT ixu_user2_name_domain_id UNIQUE (domain_id, name)
;;
DROP TABLE t1
;;
create table t1 (pk int primary key, i int, j int, key a(i))
;;
alter table t1 rename key a to b
;;
alter table t1 rename index b to c
;;
alter table t1 rename key if exists d to e
;;
alter table t1 add key d(j)
;;
alter table t1 drop key d
;;
alter table t1 add key d(j)
;;
alter table t1 drop key c, rename key d to c
;;
drop table t1
;;
create table t1 (a int, unique u(a), b int, key k(b))
;;
alter table t1 rename key u to uu
;;
alter table t1 rename key k to kk
;;
alter table t1 rename key kk to kkk, add column c int
;;
alter table t1 rename key uu to uuu, add key c(c)
;;
alter table t1 rename key kkk to k, drop key uuu
;;
alter table t1 rename key k to kk, rename to t2
;;
drop table t2
;;
create table t1 (i int, key k(i)) engine=myisam
;;
create table t2 (i int, key k(i)) engine=memory
;;
alter table t1 algorithm=inplace, rename key k to kk
;;
alter table t2 algorithm=inplace, rename key k to kk
;;
alter table t1 rename key kk to kkk
;;
alter table t2 rename key kk to kkk
;;
alter table t1 algorithm=copy, rename key kkk to kkkk
;;
alter table t2 algorithm=copy, rename key kkk to kkkk
;;
alter table t1 algorithm=inplace, rename key kkkk to k, alter column i set default 100
;;
alter table t2 algorithm=inplace, rename key kkkk to k, alter column i set default 100
;;
drop table t1, t2
;;
create table t1 (i int, key k(i)) engine=innodb
;;
alter table t1 algorithm=inplace, rename key k to kk
;;
alter table t1 algorithm=copy, rename key kk to kkk
;;
drop table t1
;;
create table t1 ( a int, b int, c int, d int,
                  primary key (a), index i1 (b), index i2 (c) ) engine=innodb
;;
alter table t1 add index i1 (d), rename index i1 to x
;;
drop table t1
;;
create table t1 (a int, b int, c int, d int,
                 primary key (a), index i1 (b), index i2 (c)) engine=innodb
;;
alter table t1 add index i1 (d), rename index i1 to i2, drop index i2
;;
drop table t1
;;
create table t1 (a int)
;;
alter table if exists t1 add column b int
;;
alter table if exists t2 add column c int
;;
alter table if exists t9 rename t1
;;
alter table if exists t1 rename t2
;;
drop table t2
;;
create table t1 (a int check (a >= 0))
;;
alter table t1 rename column a to a
;;
alter table t1 rename key if exists x to xx
;;
drop table t1
;;
create table t1 (abc int)
;;
alter table t1 rename column abc to Abc, algorithm=copy
;;
alter table t1 rename column abc to ABc, algorithm=inplace
;;
alter table t1 rename column abc to ABC
;;
drop table t1
;;
create table t1 (a int, key idx1(a), key idx2 using btree(a)) engine=memory
;;
alter table t1 rename index idx1 to idx3, algorithm=inplace
;;
drop table t1
;;
CREATE TABLE t1 (
  `altcol1` blob DEFAULT '',
  KEY `altcol1` (`altcol1`(2300))
) ROW_FORMAT=PAGE, ENGINE=Aria
;;
ALTER TABLE t1 ADD FOREIGN KEY h (`altcol1`) REFERENCES t1 (`altcol1`) ON UPDATE SET DEFAULT, ALGORITHM=COPY
;;
create or replace table t2 like t1
;;
drop table t1,t2
;;
CREATE TABLE t1 (a POINT, b POINT, KEY(a)) ENGINE=Aria
;;
ALTER TABLE t1 ADD FOREIGN KEY (a) REFERENCES t (b)
;;
CREATE TEMPORARY TABLE t2 LIKE t1
;;
DROP TEMPORARY TABLE t2
;;
DROP TABLE t1
;;
create table t2(id int primary key) engine=innodb
;;
create table t1(id int primary key, t2_id int, constraint t1_fk_t2_id foreign key(t2_id) references t2(id)) engine=innodb
;;
drop table t1, t2
;;
CREATE TABLE t (a INT, b INT, KEY(a), KEY(b)) ENGINE=INNODB
;;
ALTER TABLE t RENAME KEY b TO B
;;
DROP TABLE t
;;
CREATE TABLE t (c INT UNIQUE) ENGINE=InnoDB
;;
ALTER TABLE t RENAME KEY c TO C
;;
DROP TABLE t
;;
CREATE TABLE t (c POINT GENERATED ALWAYS AS (POINT(1,1)) UNIQUE) ENGINE=InnoDB
;;
ALTER TABLE t RENAME KEY c to C
;;
DROP TABLE t
;;
CREATE TABLE t (c POINT GENERATED ALWAYS AS (POINT(1,1)) UNIQUE) ENGINE=InnoDB
;;
ALTER TABLE t RENAME KEY c to C
;;
DROP TABLE t
;;
create table t1 (
  a int,
  b int default 0,
  c int not null,
  d int not null default 1)
;;
alter table t1
  alter a drop default,
  alter b drop default,
  alter c drop default,
  alter d drop default
;;
drop table t1
;;
CREATE TABLE t (a INT,b INT,c INT,x TEXT,y TEXT,z TEXT,id INT UNSIGNED AUTO_INCREMENT,i INT,KEY(id),UNIQUE KEY a (a,b,c))
;;
DROP TABLE t
;;
create table t1 (d time default '00:00:00')
;;
alter table t1 alter column d drop default
;;
create table t2 (d datetime not null default current_timestamp())
;;
alter table t2 alter column d drop default
;;
create table t3 (d datetime not null)
;;
alter table t3 alter column d set default current_timestamp()
;;
drop tables t1, t2, t3
;;
-- file: mariadb-test-data/usr/share/mysql/mysql-test/main/create.test
create table t1 (b char(0))
;;
drop table if exists t1
;;
create table t1 (b char(0) not null)
;;
create table if not exists t1 (b char(0) not null)
;;
drop table t1
;;
create table t1 (a int not null auto_increment,primary key (a)) engine=heap
;;
drop table t1
;;
drop table if exists t1,t2
;;
drop table if exists t1
;;
create table `a/a` (a int)
;;
create table t1 like `a/a`
;;
drop table `a/a`
;;
drop table `t1`
;;
create table t1 (a datetime default now())
;;
drop table t1
;;
create table t1 (a datetime on update now())
;;
drop table t1
;;
create table t1 (a varchar(5) default 'abcde')
;;
drop table t1
;;
create table 1ea10 (1a20 int,1e int)
;;
drop table 1ea10
;;
create table t1 (t1.index int)
;;
drop table t1
;;
drop database if exists mysqltest
;;
create database mysqltest
;;
drop database mysqltest
;;
create table t1 (i int)
;;
create temporary table t2 (j int)
;;
drop temporary table t2
;;
drop table t1
;;
create table t1 (a int auto_increment not null primary key, B CHAR(20))
;;
create table t2 (key (b)) select * from t1
;;
drop table t1,t2
;;
create table t1(x varchar(50) )
;;
create table t2 select x from t1 where 1=2
;;
drop table t2
;;
create table t2 select now() as a , curtime() as b, curdate() as c , 1+1 as d , 1.0 + 1 as e , 33333333333333333 + 3 as f
;;
drop table t2
;;
create table t2 select CAST("2001-12-29" AS DATE) as d, CAST("20:45:11" AS TIME) as t, CAST("2001-12-29  20:45:11" AS DATETIME) as dt
;;
drop table t1,t2
;;
create table t1 (a tinyint)
;;
create table t2 (a int) select * from t1
;;
drop table if exists t2
;;
drop table if exists t2
;;
drop table if exists t2
;;
drop table if exists t1,t2
;;
CREATE TABLE t1 (a int not null)
;;
DROP TABLE t1
;;
DROP TABLE IF EXISTS t2
;;
create table t1 (a int not null, b int, primary key(a), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b), key (b))
;;
drop table t1
;;
create table t1 select if(1,'1','0'), month("2002-08-02")
;;
drop table t1
;;
create table t1 select if('2002'='2002','Y','N')
;;
drop table if exists t1
;;
CREATE TABLE t1 (a int not null)
;;
drop table t1
;;
CREATE TABLE t1 (a int not null)
;;
drop table t1
;;
create table t1 ( k1 varchar(2), k2 int, primary key(k1,k2))
;;
drop table t1
;;
create table t1 select x'4132'
;;
drop table t1
;;
create table t1 select 1,2,3
;;
create table if not exists t1 select 1,2
;;
create table if not exists t1 select 1,2,3,4
;;
create table if not exists t1 select 1
;;
drop table t1
;;
create table t1 (a int not null, b int, primary key (a))
;;
create table if not exists t1 select 2
;;
create table if not exists t1 select 3 as 'a',4 as 'b'
;;
drop table t1
;;
create table t1 (a int, key(a))
;;
create table t2 (b int, foreign key(b) references t1(a), key(b))
;;
drop table if exists t2,t1
;;
create table t1(id int not null, name char(20))
;;
create table t2(id int not null)
;;
create table t3 like t1
;;
create table if not exists t3 like t1
;;
create temporary table t3 like t2
;;
drop table t3
;;
drop table t2, t3
;;
create database mysqltest
;;
create table mysqltest.t3 like t1
;;
create temporary table t3 like mysqltest.t3
;;
create table t2 like t3
;;
create table t3 like t1
;;
drop table t1, t2, t3
;;
drop table t3
;;
drop database mysqltest
;;
create table t1 (i int)
;;
create table t2 (j int)
;;
create temporary table t3 like t1
;;
drop temporary table t3
;;
drop tables t1, t2
;;
CREATE TABLE t1 (a int not null)
;;
drop table t1
;;
CREATE TABLE t1 (a int not null)
;;
drop table t1
;;
create table t1(a int,b int,c int unsigned,d date,e char,f datetime,g time,h blob)
;;
create table t2
select
    a, 
    ifnull(b,cast(-7                        as signed))   as b,
    ifnull(c,cast(7                         as unsigned)) as c,
    ifnull(d,cast('2000-01-01'              as date))     as d,
    ifnull(e,cast('b'                       as char))     as e,
    ifnull(f,cast('2000-01-01'              as datetime)) as f,
    ifnull(g,cast('5:4:3'                   as time))     as g,
    ifnull(h,cast('yet another binary data' as binary))   as h,
    addtime(cast('1:0:0' as time),cast('1:0:0' as time))  as dd
from t1
;;
drop table t1, t2
;;
CREATE TABLE t1 (
  c_tinytext tinytext,
  c_text text,
  c_mediumtext mediumtext,
  c_longtext longtext
)
;;
CREATE TABLE t2 AS SELECT
  ifnull(c_tinytext,   CAST('yet another binary data' AS BINARY)),
  ifnull(c_text,       CAST('yet another binary data' AS BINARY)),
  ifnull(c_mediumtext, CAST('yet another binary data' AS BINARY)),
  ifnull(c_longtext,   CAST('yet another binary data' AS BINARY))
FROM t1
;;
DROP TABLE t2
;;
DROP TABLE t1
;;
create table t1 (a tinyint, b smallint, c mediumint, d int, e bigint, f float(3,2), g double(4,3), h decimal(5,4), i year, j date, k timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, l datetime, m enum('a','b'), n set('a','b'), o char(10))
;;
create table t2 select ifnull(a,a), ifnull(b,b), ifnull(c,c), ifnull(d,d), ifnull(e,e), ifnull(f,f), ifnull(g,g), ifnull(h,h), ifnull(i,i), ifnull(j,j), ifnull(k,k), ifnull(l,l), ifnull(m,m), ifnull(n,n), ifnull(o,o) from t1
;;
drop table t1,t2
;;
create table t1(str varchar(10) default 'def',strnull varchar(10),intg int default '10',rel double default '3.14')
;;
create table t2 select default(str) as str, default(strnull) as strnull, default(intg) as intg, default(rel) as rel from t1
;;
drop table t1, t2
;;
create table t1(name varchar(10), age smallint default -1)
;;
create table t2(name varchar(10), age smallint default - 1)
;;
drop table t1, t2
;;
create table t1(cenum enum('a'), cset set('b'))
;;
drop table t1, t2, t3
;;
create database mysqltest
;;
drop database mysqltest
;;
create table t1 (`primary` int, index(`primary`))
;;
create table t2 (`PRIMARY` int, index(`PRIMARY`))
;;
create table t3 (a int)
;;
create table t4 (`primary` int)
;;
alter table t4 add index(`primary`)
;;
create table t5 (`PRIMARY` int)
;;
alter table t5 add index(`PRIMARY`)
;;
drop table t1, t2, t3, t4, t5
;;
CREATE TABLE t1(id varchar(10) NOT NULL PRIMARY KEY, dsc longtext)
;;
CREATE TABLE t2(id varchar(15) NOT NULL, proc varchar(100) NOT NULL, runID varchar(16) NOT NULL, start datetime NOT NULL, PRIMARY KEY  (id,proc,runID,start))
;;
CREATE TABLE t3  SELECT t1.dsc,COUNT(DISTINCT t2.id) AS countOfRuns  FROM t1 LEFT JOIN t2 ON (t1.id=t2.id) GROUP BY t1.id
;;
drop table t1, t2, t3
;;
create table t1 (b bool not null default false)
;;
create table t2 (b bool not null default true)
;;
drop table t1,t2
;;
create table t1 (a int)
;;
drop table t1
;;
create table t1(t1.name int)
;;
create table t2(test.t2.name int)
;;
drop table t1,t2
;;
CREATE TABLE t1 (f1 VARCHAR(255) CHARACTER SET utf8)
;;
CREATE TABLE t2 AS SELECT LEFT(f1,171) AS f2 FROM t1 UNION SELECT LEFT(f1,171) AS f2 FROM t1
;;
DROP TABLE t1,t2
;;
CREATE TABLE t12913 (f1 ENUM ('a','b')) AS SELECT 'a' AS f1
;;
DROP TABLE t12913
;;
create database mysqltest
;;
drop database mysqltest
;;
drop table if exists test.t1
;;
create database mysqltest
;;
create view v1 as select 'foo' from dual
;;
drop view v1
;;
drop database mysqltest
;;
create database mysqltest
;;
create database if not exists mysqltest character set latin2
;;
drop database mysqltest
;;
create table t1 (a int)
;;
create table if not exists t1 (a int)
;;
drop table t1
;;
create table t1 (
  a varchar(112) charset utf8 collate utf8_bin not null,
  primary key (a)
) select 'test' as a
;;
drop table t1
;;
CREATE TABLE t2 (
  a int(11) default NULL
)
;;
create table t1 ( 
  a varchar(12) charset utf8 collate utf8_bin not null, 
  b int not null, primary key (a)
) select a, 1 as b from t2
;;
drop table t1
;;
drop table t1
;;
create table t1 ( 
  a varchar(12) charset utf8 collate utf8_bin not null, 
  b int null, primary key (a)
) select a, 1 as c from t2
;;
drop table t1
;;
create table t1 ( 
  a varchar(12) charset utf8 collate utf8_bin not null,
  b int not null, primary key (a)
) select 'a' as a , 1 as b from t2
;;
drop table t1
;;
create table t1 ( 
  a varchar(12) charset utf8 collate utf8_bin,
  b int not null, primary key (a)
) select 'a' as a , 1 as b from t2
;;
drop table t1, t2
;;
create table t1 ( 
  a1 int not null,
  a2 int, a3 int, a4 int, a5 int, a6 int, a7 int, a8 int, a9 int
)
;;
create table t2 ( 
  a1 varchar(12) charset utf8 collate utf8_bin not null,
  a2 int, a3 int, a4 int, a5 int, a6 int, a7 int, a8 int, a9 int,
  primary key (a1)
) select a1,a2,a3,a4,a5,a6,a7,a8,a9 from t1
;;
drop table t2
;;
create table t2 ( 
  a1 varchar(12) charset utf8 collate utf8_bin,
  a2 int, a3 int, a4 int, a5 int, a6 int, a7 int, a8 int, a9 int
) select a1,a2,a3,a4,a5,a6,a7,a8,a9 from t1
;;
drop table t1, t2
;;
create table t1 ( 
  a1 int, a2 int, a3 int, a4 int, a5 int, a6 int, a7 int, a8 int, a9 int
)
;;
create table t2 ( 
  a1 varchar(12) charset utf8 collate utf8_bin not null,
  a2 int, a3 int, a4 int, a5 int, a6 int, a7 int, a8 int, a9 int,
  primary key (a1)
) select a1,a2,a3,a4,a5,a6,a7,a8,a9 from t1
;;
drop table t2
;;
create table t2 ( a int default 3, b int default 3)
  select a1,a2 from t1
;;
drop table t1, t2
;;
create table t1 (i int) engine=myisam max_rows=100000000000
;;
alter table t1 max_rows=100
;;
alter table t1 max_rows=100000000000
;;
drop table t1
;;
create table t1 (a int)
;;
create table if not exists t1 select 1 as a, 2 as b
;;
drop table t1
;;
create table t1 (i int)
;;
create table if not exists t1 select 1 as i
;;
create table if not exists t1 select * from t1
;;
drop table t1
;;
create temporary table t1 (j int)
;;
create table if not exists t1 select 1
;;
drop temporary table t1
;;
drop table t1
;;
create table t1 (i int)
;;
create table t2 (j int)
;;
create table if not exists t2 select * from t1
;;
drop table t2
;;
create temporary table t2 select * from t1
;;
create temporary table if not exists t2 select * from t1
;;
drop table t1, t2
;;
create table t1 (upgrade int)
;;
drop table t1
;;
drop table if exists t1,t2
;;
create table t1(a int not null, b int not null, primary key (a, b))
;;
drop table t1
;;
create table t1(f1 int,f2 int)
;;
create table t2 select sql_big_result f1,count(f2) from t1 group by f1
;;
drop table t1,t2
;;
CREATE TABLE t1(c1 VARCHAR(33), KEY USING BTREE (c1))
;;
DROP TABLE t1
;;
CREATE TABLE t1(c1 VARCHAR(33), KEY (c1) USING BTREE)
;;
DROP TABLE t1
;;
CREATE TABLE t1(c1 VARCHAR(33), KEY USING BTREE (c1) USING HASH) ENGINE=MEMORY
;;
DROP TABLE t1
;;
CREATE TABLE t1(c1 VARCHAR(33), KEY USING HASH (c1) USING BTREE) ENGINE=MEMORY
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INTEGER AUTO_INCREMENT PRIMARY KEY, b INTEGER NOT NULL)
;;
CREATE TABLE IF NOT EXISTS t2 (a INTEGER NOT NULL AUTO_INCREMENT PRIMARY KEY)
  SELECT a FROM t1
;;
DROP TABLE t1, t2
;;
CREATE TABLE t1 (a INT)
;;
CREATE TABLE t2 (a INT)
;;
CREATE VIEW v1 AS SELECT t1.a FROM t1, t2
;;
DROP VIEW v1
;;
DROP TABLE t1,t2
;;
CREATE TABLE t1 (a int, b int)
;;
drop table if exists t2
;;
drop table if exists t2
;;
CREATE TABLE t2 (a int, b int, primary key (a))
;;
TRUNCATE table t2
;;
drop table t2
;;
CREATE TEMPORARY TABLE t2 (a int, b int, primary key (a))
;;
drop table t1,t2
;;
drop table if exists t1,t2,t3
;;
create table t1 as select 1
;;
create table t2 as select f1() from t1
;;
drop table t1,t2
;;
create table t1 like information_schema.processlist
;;
drop table t1
;;
create temporary table t1 like information_schema.processlist
;;
drop table t1
;;
create table t1 like information_schema.character_sets
;;
drop table t1
;;
DROP TABLE IF EXISTS t1
;;
DROP TABLE IF EXISTS t2
;;
DROP TABLE IF EXISTS t3
;;
CREATE TABLE t1(c1 TIMESTAMP NOT NULL DEFAULT CURRENT_TIMESTAMP ON UPDATE CURRENT_TIMESTAMP, c2 TIMESTAMP NOT NULL DEFAULT '0000-00-00 00:00:00')
;;
CREATE TABLE t2(c1 TIMESTAMP NULL)
;;
CREATE TABLE t3(c1 DATETIME NOT NULL)
;;
DROP TABLE t1
;;
DROP TABLE t2
;;
DROP TABLE t3
;;
DROP TABLE IF EXISTS t1
;;
CREATE TABLE t1(c1 YEAR DEFAULT 2008, c2 YEAR DEFAULT 0)
;;
ALTER TABLE t1 MODIFY c1 YEAR DEFAULT 0
;;
DROP TABLE t1
;;
create table `me:i`(id int)
;;
drop table `me:i`
;;
drop table if exists t1,t2,t3
;;
create table t1 (a int) transactional=0
;;
create table t2 (a int) page_checksum=1
;;
create table t3 (a int) row_format=page
;;
drop table t1,t2,t3
;;
create table t1 (a int) engine=myisam
;;
create table `t-1` (a int)
;;
drop table `t-1`
;;
create table t1 (a int)
;;
alter table t1 rename `t-1`
;;
drop table `t-1`
;;
create table t1 (a int)
;;
rename table t1 to `t-1`
;;
drop table `#mysql50#t-1`, `t-1`
;;
CREATE TABLE B (
  pk INTEGER AUTO_INCREMENT,
  int_key INTEGER NOT NULL,
  PRIMARY KEY (pk),
  KEY (int_key)
)
;;
CREATE TABLE IF NOT EXISTS t1 ( 
  `pk` INTEGER NOT NULL AUTO_INCREMENT , 
  `int` INTEGER ,
   PRIMARY KEY ( `pk` ) 
) SELECT `pk` , `int_key` FROM B
;;
DROP TABLE t1
;;
DROP TABLE B
;;
DROP TABLE IF EXISTS t1
;;
CREATE TABLE t1(f1 integer)
;;
CREATE TABLE t2(f1 integer)
;;
DROP TABLE t2
;;
DROP TABLE t1
;;
CREATE TEMPORARY TABLE t1 (a INT)
;;
CREATE TABLE t1 (a INT)
;;
CREATE TEMPORARY TABLE t2 (a INT)
;;
CREATE VIEW t2 AS SELECT 1
;;
CREATE TABLE t3 (a INT)
;;
CREATE TEMPORARY TABLE t3 SELECT 1
;;
CREATE TEMPORARY TABLE t4 (a INT)
;;
CREATE TABLE t4 AS SELECT 1
;;
DROP TEMPORARY TABLE t1, t2, t3, t4
;;
DROP TABLE t1, t3, t4
;;
DROP VIEW t2
;;
CREATE TEMPORARY TABLE t2 (ID INT)
;;
CREATE TEMPORARY TABLE t1 (ID INT)
;;
CREATE TABLE IF NOT EXISTS t1 (ID INT)
;;
DROP TEMPORARY TABLE t1
;;
DROP TABLE t1
;;
CREATE TEMPORARY TABLE t1 (ID INT)
;;
CREATE TABLE IF NOT EXISTS t1 SELECT * FROM t2
;;
DROP TEMPORARY TABLE t1
;;
DROP TABLE t1
;;
CREATE TEMPORARY TABLE t1 (ID INT)
;;
CREATE TABLE t1 SELECT * FROM t2
;;
DROP TEMPORARY TABLE t1
;;
DROP TABLE t1
;;
DROP TEMPORARY TABLE t2
;;
drop tables if exists t1, t2
;;
create table t1 (dt datetime default '2008-02-31 00:00:00')
;;
create table t2 like t1
;;
drop tables t1, t2
;;
CREATE TABLE t1 (id int)
;;
CREATE TABLE t2 (id int)
;;
CREATE VIEW v1 AS SELECT id FROM t2
;;
CREATE TABLE IF NOT EXISTS v1(a int, b int) SELECT id, id as di FROM t1
;;
DROP VIEW v1
;;
CREATE TEMPORARY TABLE tt1 AS SELECT id FROM t2
;;
CREATE TEMPORARY TABLE IF NOT EXISTS tt1(a int, b int) SELECT id, id FROM t1
;;
DROP TEMPORARY TABLE tt1
;;
DROP TABLE t1, t2
;;
create table if not exists t1 (a int) select 1 as a
;;
create table if not exists t1 (a int) select 2 as a
;;
drop table t1
;;
create temporary table if not exists t1 (a int) select 1 as a
;;
create temporary table if not exists t1 (a int) select 2 as a
;;
drop temporary table t1
;;
create table t1 (a int)
;;
create view v1 as select a from t1
;;
drop table t1
;;
create temporary table t1 (a int) select 1 as a
;;
create table if not exists t1 (a int) select 2 as a
;;
create table if not exists t1 (a int) select 3 as a
;;
drop temporary table t1
;;
drop view v1
;;
drop table t1
;;
create table t1 (a int) select 1 as a
;;
create temporary table if not exists t1 select 2 as a
;;
create temporary table if not exists t1 select 3 as a
;;
drop temporary table t1
;;
drop table t1
;;
create table t2 (a int unique)
;;
create view t1 as select a from t2
;;
create table if not exists t1 (a int)
;;
create table if not exists t1 (a int) select 2 as a
;;
create temporary table if not exists t1 (a int) select 3 as a
;;
create temporary table if not exists t1 (a int) select 4 as a
;;
drop temporary table t1
;;
drop view t1
;;
create view t1 as select a + 5 as a from t2
;;
create table if not exists t1 (a int)
;;
create table if not exists t1 (a int) select 2 as a
;;
create temporary table if not exists t1 (a int) select 3 as a
;;
create temporary table if not exists t1 (a int) select 4 as a
;;
drop temporary table t1
;;
drop view t1
;;
drop table t2
;;
create view t1 as select 1 as a
;;
create table if not exists t1 (a int)
;;
create table if not exists t1 (a int) select 2 as a
;;
create temporary table if not exists t1 (a int) select 3 as a
;;
create temporary table if not exists t1 (a int) select 4 as a
;;
drop temporary table t1
;;
drop view t1
;;
create table t1 (a int) select 1 as a
;;
create temporary table if not exists t1 (a int) select * from t1
;;
create temporary table if not exists t1 (a int) select * from t1
;;
drop temporary table t1
;;
drop table t1
;;
create temporary table t1 (a int) select 1 as a
;;
create table if not exists t1 (a int) select * from t1
;;
create table if not exists t1 (a int) select * from t1
;;
drop temporary table t1
;;
drop table t1
;;
create table t1 (a int) select 1 as b, 2 as c
;;
drop table t1
;;
create table if not exists t1 (a int, b date, c date) select 1 as b, 2 as c
;;
drop table t1
;;
create table if not exists t1 (a int, b date, c date) 
  ignore select 1 as b, 2 as c
;;
drop table t1
;;
create table if not exists t1 (a int unique, b int)
  replace select 1 as a, 1 as b union select 1 as a, 2 as b
;;
drop table t1
;;
create table if not exists t1 (a int unique, b int)
  ignore select 1 as a, 1 as b union select 1 as a, 2 as b
;;
drop table t1
;;
create table t1 (a int, b int) engine=myisam
;;
create table t2 (a int, b int) engine=myisam
;;
create table if not exists t1 (a int, b int)
;;
create table if not exists t1 (a int, b int) select 2,2
;;
create table if not exists t1 like t2
;;
drop table t1,t2
;;
create table t1 (
  color char(32) as (COLUMN_GET(dynamic_cols, 1 as char)) persistent,
  cl char(32) as (COLUMN_GET(COLUMN_ADD(COLUMN_CREATE(1 , 'blue' as char), 2, 'ttt'), i as char)) persistent,
  item_name varchar(32) primary key, 
  i int,
  dynamic_cols  blob  
)
;;
drop table t1
;;
create table t1 (
  n int,
  c char(32) as (convert(cast(n as char), char)) persistent
)
;;
drop table t1
;;
drop table t1
;;
-- file: mariadb-test-data/usr/share/mysql/mysql-test/main/invisible_field.test
create table t1(abc int primary key, xyz int invisible)
;;
drop table t1
;;
create or replace table t1 (pk int auto_increment primary key invisible, i int)
;;
drop table t1
;;
create table t1(a int invisible, b int)
;;
drop table t1
;;
create table t1(a int , b int invisible , c int invisible auto_increment unique, d blob , e int unique, f int)
;;
drop table t1
;;
create table t1(a int , b int invisible , c int invisible auto_increment unique, d blob , e int unique, f int)
;;
drop table t1
;;
create table t1(a int,abc int as (a mod 3) virtual invisible)
;;
drop table t1
;;
create table t1(abc int primary key invisible auto_increment, a int)
;;
drop table t1
;;
create table t1(abc int)
;;
alter table t1 add column xyz int
;;
alter table t1 modify column abc  int
;;
alter table t1 modify column abc  int invisible
;;
drop table t1
;;
create table t1(a int , b int invisible , c int invisible auto_increment unique, d blob , e int unique, f int)
;;
create table t2 as select * from t1
;;
drop table t2
;;
create table t2 as select a,b,c,d,e,f from t1
;;
drop table t2,t1
;;
create table t1(a int , b int invisible , c int invisible auto_increment unique, d blob , e int unique, f int)
;;
create table t2(a int , b int invisible , c int invisible , d blob , e int unique, f int)
;;
truncate t2
;;
truncate t2
;;
drop table t1,t2
;;
create table t1(a int , b int invisible , c int invisible auto_increment unique, d blob , e int unique, f int)
;;
create view v as select * from t1
;;
drop view v
;;
create view v as select a,b,c,d,e,f from t1
;;
drop view v
;;
drop table t1
;;
create table t1 (a int unique , b int invisible unique, c int unique  invisible)
;;
create table t2 as select a,b,c from t1
;;
drop table t1,t2
;;
create table t1 (a int primary key, b int invisible, c int invisible unique)
;;
alter table t1 modify column b int
;;
alter table t1 change column c d int
;;
drop table t1
;;
create table t1(a int unique , invisible int invisible, c int )
;;
alter table t1 change column invisible hid int invisible
;;
drop table t1
;;
CREATE TABLE t1 (b int)
;;
CREATE TABLE t2 (a int invisible) SELECT * FROM t1
;;
CREATE TABLE t3 (b int, a int invisible) SELECT * FROM t1
;;
drop table t1,t2,t3
;;
create table t1 (a int , b int invisible default 3, c int , d int invisible default 6)
;;
-- file: mariadb-test-data/usr/share/mysql/mysql-test/main/partition.test
drop table if exists t1, t2
;;
CREATE TABLE t1 (
       id MEDIUMINT NOT NULL AUTO_INCREMENT,
       dt DATE, st VARCHAR(255), uid INT,
       id2nd LONGBLOB, filler VARCHAR(255), PRIMARY KEY(id, dt)
)
;;
ALTER TABLE t1 PARTITION BY LIST (YEAR(dt)) (
    PARTITION d1 VALUES IN (1991, 1994),
    PARTITION d2 VALUES IN (1993),
    PARTITION d3 VALUES IN (1992, 1995, 1996)
)
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
a char(2) NOT NULL,
b char(2) NOT NULL,
c int(10) unsigned NOT NULL,
d varchar(255) DEFAULT NULL,
e varchar(1000) DEFAULT NULL,
PRIMARY KEY (a, b, c),
KEY (a),
KEY (a, b)
)
/*!50100 PARTITION BY KEY (a)
PARTITIONS 20 */
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a VARCHAR(51) CHARACTER SET latin1)
ENGINE=MyISAM
PARTITION BY KEY (a) PARTITIONS 1
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT NOT NULL, b INT NOT NULL)
PARTITION BY KEY (a) PARTITIONS 2
;;
ALTER TABLE t1 ADD PRIMARY KEY (a)
;;
ALTER TABLE t1 DROP PRIMARY KEY
;;
DROP TABLE t1
;;
CREATE TABLE t1
(id INT NOT NULL PRIMARY KEY,
 name VARCHAR(16) NOT NULL,
 year YEAR,
 INDEX name (name(8))
)
PARTITION BY HASH(id) PARTITIONS 2
;;
CREATE TABLE t2 (id INT)
;;
DROP TABLE t1, t2
;;
CREATE TABLE t1 (
  `id` int NOT NULL,
  `user_num` int DEFAULT NULL,
  PRIMARY KEY (`id`)
) ENGINE=MyISAM CHARSET=latin1
;;
CREATE TABLE t2 (
  `id` int(11) NOT NULL,
  `user_num` int DEFAULT NULL,
  `name` varchar(64) NOT NULL,
  PRIMARY KEY (`id`)
) ENGINE=MyISAM CHARSET=latin1
PARTITION BY HASH (id)
PARTITIONS 2
;;
DROP TABLE t1, t2
;;
CREATE TABLE t1 (
    ID int(11) NOT NULL,
    `aaaa,aaaaa` tinyint(3) UNSIGNED NOT NULL DEFAULT '0',
    ddddddddd int(11) NOT NULL DEFAULT '0',
    new_field0 varchar(50),
    PRIMARY KEY(ID, `aaaa,aaaaa`, ddddddddd))
PARTITION BY RANGE(ID)
PARTITIONS 3
SUBPARTITION BY LINEAR KEY(ID,`aaaa,aaaaa`)
SUBPARTITIONS 2 (
    PARTITION p01 VALUES LESS THAN(100),
    PARTITION p11 VALUES LESS THAN(200),
    PARTITION p21 VALUES LESS THAN MAXVALUE)
;;
drop table t1
;;
CREATE TABLE t1 (a INT, b INT)
PARTITION BY LIST (a)
SUBPARTITION BY HASH (b)
(PARTITION p1 VALUES IN (1))
;;
ALTER TABLE t1 ADD COLUMN c INT
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
  a int NOT NULL,
  b int NOT NULL)
;;
CREATE TABLE t2 (
  a int NOT NULL,
  b int NOT NULL,
  INDEX(b)
)
PARTITION BY HASH(a) PARTITIONS 2
;;
DROP TABLE t1, t2
;;
CREATE TABLE t1 (
  a timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  b varchar(10),
  PRIMARY KEY (a)
)
PARTITION BY RANGE (UNIX_TIMESTAMP(a)) (
 PARTITION p1 VALUES LESS THAN (1199134800),
 PARTITION pmax VALUES LESS THAN MAXVALUE
)
;;
ALTER TABLE t1 REORGANIZE PARTITION pmax INTO (
 PARTITION p3 VALUES LESS THAN (1247688000),
 PARTITION pmax VALUES LESS THAN MAXVALUE)
;;
DROP TABLE t1
;;
create table t1 (a int NOT NULL, b varchar(5) NOT NULL)
default charset=utf8
partition by list (a)
subpartition by key (b)
(partition p0 values in (1),
 partition p1 values in (2))
;;
drop table t1
;;
create table t1 (a int, b int, key(a))
partition by list (a)
( partition p0 values in (1),
  partition p1 values in (2))
;;
drop table t1
;;
create table t1 (a int)
partition by hash (a)
;;
create index i on t1 (a)
;;
create index i2 on t1 (a)
;;
drop table t1
;;
CREATE TABLE t1 (
  pk INT NOT NULL AUTO_INCREMENT,
  PRIMARY KEY (pk)
)
/*!50100 PARTITION BY HASH (pk)
PARTITIONS 2 */
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT)
ENGINE=Memory
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT)
ENGINE=NonExistentEngine
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT)
ENGINE=NonExistentEngine
PARTITION BY HASH (a)
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT)
ENGINE=Memory
;;
ALTER TABLE t1 ENGINE=NonExistentEngine
;;
ALTER TABLE t1
PARTITION BY HASH (a)
(PARTITION p0 ENGINE=Memory,
 PARTITION p1 ENGINE=NonExistentEngine)
;;
ALTER TABLE t1 ENGINE=NonExistentEngine
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a INT NOT NULL, KEY(a))
PARTITION BY RANGE(a)
(PARTITION p1 VALUES LESS THAN (200), PARTITION pmax VALUES LESS THAN MAXVALUE)
;;
DROP TABLE t1
;;
CREATE TABLE t1 (
  a INT NOT NULL,   
  b MEDIUMINT NOT NULL,   
  c INT NOT NULL,
  KEY b (b)
) ENGINE=MyISAM
PARTITION BY LIST (a) (
  PARTITION p0 VALUES IN (1) 
)
;;
ALTER TABLE t1 DROP INDEX b
;;
ALTER TABLE t1 ENGINE = Memory
;;
ALTER TABLE t1 ADD INDEX b USING HASH (b)
;;
DROP TABLE t1
;;
CREATE TABLE `t1` (
  `c1` int(11) DEFAULT NULL,
  KEY `c1` (`c1`)
) ENGINE=MyISAM DEFAULT CHARSET=latin1
;;
CREATE TABLE `t2` (
  `c1` int(11) DEFAULT NULL,
  KEY `c1` (`c1`)
) ENGINE=MyISAM DEFAULT CHARSET=latin1 /*!50100 PARTITION BY RANGE (c1) (PARTITION a VALUES LESS THAN (100) ENGINE = MyISAM, PARTITION b VALUES LESS THAN MAXVALUE ENGINE = MyISAM) */
;;
DROP TABLE t1,t2
;;
CREATE TABLE `t1` (
  `c1` int(11) DEFAULT NULL,
  KEY `c1` (`c1`)
) ENGINE=MyISAM DEFAULT CHARSET=latin1
;;
CREATE TABLE `t2` (
  `c1` int(11) DEFAULT NULL,
  KEY `c1` (`c1`)
) ENGINE=MyISAM DEFAULT CHARSET=latin1
/*!50100 PARTITION BY RANGE (c1)
(PARTITION a VALUES LESS THAN (100) ENGINE = MyISAM,
 PARTITION b VALUES LESS THAN MAXVALUE ENGINE = MyISAM) */
;;
DROP TABLE t1,t2
;;
CREATE TABLE t1 (
    d DATE NOT NULL
)
PARTITION BY RANGE( YEAR(d) ) (
    PARTITION p0 VALUES LESS THAN (1960),
    PARTITION p1 VALUES LESS THAN (1970),
    PARTITION p2 VALUES LESS THAN (1980),
    PARTITION p3 VALUES LESS THAN (1990)
)
;;
ALTER TABLE t1 ADD PARTITION (
PARTITION `p5` VALUES LESS THAN (2010)
COMMENT 'APSTART \' APEND'
)
;;
DROP TABLE t1
;;
create table t1 (id int auto_increment, s1 int, primary key (id))
;;
alter table t1 partition by range (id) (
  partition p0 values less than (3),
  partition p1 values less than maxvalue
)
;;
drop table t1
;;
create table t1 (a int)
partition by list (a)
(partition p0 values in (1))
;;
drop table t1
;;
create table t1 (a bigint unsigned)
partition by range (a)
(partition p0 values less than (100),
 partition p1 values less than MAXVALUE)
;;
drop table t1
;;
create table t1 (a bigint unsigned)
partition by hash (a)
;;
drop table t1
;;
create table t1 (a int)
partition by key(a)
(partition p0 engine = MEMORY)
;;
drop table t1
;;
create table t1 (a int)
partition by range (a)
subpartition by key (a)
(partition p0 values less than (1))
;;
alter table t1 add partition (partition p1 values less than (2))
;;
alter table t1 reorganize partition p1 into (partition p1 values less than (3))
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by key (a)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by key (a, b)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by key (a)
partitions 3
(partition x1, partition x2, partition x3)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by key (a)
partitions 3
(partition x1 nodegroup 0,
 partition x2 nodegroup 1,
 partition x3 nodegroup 2)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by key (a)
partitions 3
(partition x1 engine myisam,
 partition x2 engine myisam,
 partition x3 engine myisam)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by key (a)
partitions 3
(partition x1 tablespace ts1,
 partition x2 tablespace ts2,
 partition x3 tablespace ts3)
;;
CREATE TABLE t2 LIKE t1
;;
drop table t2
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by list (a)
partitions 3
(partition x1 values in (1,2,9,4) tablespace ts1,
 partition x2 values in (3, 11, 5, 7) tablespace ts2,
 partition x3 values in (16, 8, 5+19, 70-43) tablespace ts3)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by list (b*a)
partitions 3
(partition x1 values in (1,2,9,4) tablespace ts1,
 partition x2 values in (3, 11, 5, 7) tablespace ts2,
 partition x3 values in (16, 8, 5+19, 70-43) tablespace ts3)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null,
b int not null,
c int not null,
primary key(a,b))
partition by list (b*a)
(partition x1 values in (1) tablespace ts1,
 partition x2 values in (3, 11, 5, 7) tablespace ts2,
 partition x3 values in (16, 8, 5+19, 70-43) tablespace ts3)
;;
drop table t1
;;
CREATE TABLE t1 (
a int not null)
partition by key(a)
;;
drop table t1
;;
CREATE TABLE t1 (a int, name VARCHAR(50), purchased DATE)
PARTITION BY RANGE (a)
(PARTITION p0 VALUES LESS THAN (3),
 PARTITION p1 VALUES LESS THAN (7),
 PARTITION p2 VALUES LESS THAN (9),
 PARTITION p3 VALUES LESS THAN (11))
;;
ALTER TABLE t1 DROP PARTITION p0
;;
drop table t1
;;
CREATE TABLE t1 (a int)
PARTITION BY LIST (a)
(PARTITION p0 VALUES IN (1,2,3), PARTITION p1 VALUES IN (4,5,6))
;;
truncate t1
;;
truncate t1
;;
drop table t1
;;
CREATE TABLE t1 (a int, b int, primary key(a,b))
PARTITION BY KEY(b,a) PARTITIONS 4
;;
drop table t1
;;
CREATE TABLE t1 (c1 INT, c2 INT, PRIMARY KEY USING BTREE (c1,c2)) ENGINE=MEMORY
  PARTITION BY KEY(c2,c1) PARTITIONS 4
;;
DROP TABLE t1
;;
CREATE TABLE t1 (a int)
PARTITION BY LIST (a)
PARTITIONS 1
(PARTITION x1 VALUES IN (1) ENGINE=MEMORY)
;;
drop table t1
;;
CREATE TABLE t1 (a int, unique(a))
PARTITION BY LIST (a)
(PARTITION x1 VALUES IN (10), PARTITION x2 VALUES IN (20))
;;
drop table t1
;;
CREATE TABLE t1 (a int)
PARTITION BY LIST (a)
(PARTITION x1 VALUES IN (2), PARTITION x2 VALUES IN (3))
;;
drop table t1
;;
CREATE TABLE t1 (a int)
PARTITION BY HASH(a)
PARTITIONS 5
;;
drop table t1
;;
CREATE TABLE t1 (a int)
PARTITION BY RANGE (a)
(PARTITION x1 VALUES LESS THAN (2))
;;
drop table t1
;;
CREATE TABLE t1 (a int)
PARTITION BY LIST (a)
(PARTITION x1 VALUES IN (10), PARTITION x2 VALUES IN (20))
;;
drop table t1
;;
create table t1
(a int)
partition by range (a)
  ( partition p0 values less than(10),
    partition p1 values less than (20),
    partition p2 values less than (25))
;;
alter table t1 reorganize partition p2 into (partition p2 values less than (30))
;;
drop table t1
;;
CREATE TABLE t1 (a int, b int)
PARTITION BY RANGE (a)
(PARTITION x0 VALUES LESS THAN (2),
 PARTITION x1 VALUES LESS THAN (4),
 PARTITION x2 VALUES LESS THAN (6),
 PARTITION x3 VALUES LESS THAN (8),
 PARTITION x4 VALUES LESS THAN (10),
 PARTITION x5 VALUES LESS THAN (12),
 PARTITION x6 VALUES LESS THAN (14),
 PARTITION x7 VALUES LESS THAN (16),
 PARTITION x8 VALUES LESS THAN (18),
 PARTITION x9 VALUES LESS THAN (20))
;;
ALTER TABLE t1 REORGANIZE PARTITION x0,x1,x2 INTO
(PARTITION x1 VALUES LESS THAN (6))
;;
drop table t1
;;
create table t1 (a int not null, b int not null) partition by LIST (a+b) (
  partition p0 values in (12),
  partition p1 values in (14)
)
;;
drop table t1
;;
create table t1 (f1 integer,f2 integer, f3 varchar(10), primary key(f1,f2))
partition by range(f1) subpartition by hash(f2) subpartitions 2
(partition p1 values less than (0),
 partition p2 values less than (2),
 partition p3 values less than (2147483647))
;;
drop table t1
;;
create table t1 (f1 integer,f2 integer, unique index(f1))
partition by range(f1 div 2)
subpartition by hash(f1) subpartitions 2
(partition partb values less than (2),
partition parte values less than (4),
partition partf values less than (10000))
;;
drop table t1
;;
create table t1 (f_int1 int(11) default null) engine = memory
  partition by range (f_int1) subpartition by hash (f_int1)
  (partition part1 values less than (1000)
   (subpartition subpart11 engine = memory))
;;
drop table t1
;;
create table t1 (f_int1 integer, f_int2 integer, primary key (f_int1))
  partition by hash(f_int1) partitions 2
;;
drop table t1
;;
create table t1 (s1 int, unique (s1)) partition by list (s1) (partition x1 VALUES in (10), partition x2 values in (20))
;;
alter table t1 add partition (partition x3 values in (30))
;;
drop table t1
;;
create table t1 (a int)
partition by key(a)
partitions 2
(partition p0 engine=myisam, partition p1 engine=myisam)
;;
alter table t1
;;
alter table t1 engine=myisam
;;
alter table t1 engine=heap
;;
alter table t1 remove partitioning
;;
drop table t1
;;
create table t1 (a int)
engine=myisam
partition by key(a)
partitions 2
(partition p0 engine=myisam, partition p1 engine=myisam)
;;
alter table t1 add column b int remove partitioning
;;
alter table t1
engine=myisam
partition by key(a)
(partition p0 engine=myisam, partition p1)
;;
alter table t1
engine=heap
partition by key(a)
(partition p0, partition p1 engine=heap)
;;
alter table t1 engine=myisam, add column c int remove partitioning
;;
alter table t1
engine=heap
partition by key (a)
(partition p0, partition p1)
;;
alter table t1
partition by key (a)
(partition p0, partition p1)
;;
alter table t1
engine=heap
partition by key (a)
(partition p0, partition p1)
;;
alter table t1
partition by key(a)
(partition p0, partition p1 engine=heap)
;;
alter table t1
partition by key(a)
(partition p0 engine=heap, partition p1)
;;
drop table t1
;;
CREATE TABLE t1 (
 f_int1 INTEGER, f_int2 INTEGER,
 f_char1 CHAR(10), f_char2 CHAR(10), f_charbig VARCHAR(1000)
 )
 PARTITION BY RANGE(f_int1 DIV 2)
 SUBPARTITION BY HASH(f_int1)
 SUBPARTITIONS 2
 (PARTITION parta VALUES LESS THAN (0),
  PARTITION partb VALUES LESS THAN (5),
  PARTITION parte VALUES LESS THAN (10),
  PARTITION partf VALUES LESS THAN (2147483647))
;;
drop table t1
;;
CREATE TABLE t1 (
 f_int1 INTEGER, f_int2 INTEGER,
 f_char1 CHAR(10), f_char2 CHAR(10), f_charbig VARCHAR(1000)  )
 PARTITION BY LIST(MOD(f_int1,2))
 SUBPARTITION BY KEY(f_int1)
 (PARTITION part1 VALUES IN (-1) (SUBPARTITION sp1, SUBPARTITION sp2),
  PARTITION part2 VALUES IN (0) (SUBPARTITION sp3, SUBPARTITION sp5),
  PARTITION part3 VALUES IN (1) (SUBPARTITION sp4, SUBPARTITION sp6))
;;
drop table t1
;;
-- file: mariadb-test-data/usr/share/mysql/mysql-test/suite/versioning/t/alter.test
create table t(
  a int
)
;;
alter table t add system versioning
;;
alter table t drop system versioning
;;
alter table t add system versioning
;;
alter table t drop system versioning
;;
alter table t
  add column trx_start timestamp(6) as row start invisible,
  add column trx_end timestamp(6) as row end invisible,
  add period for system_time(trx_start, trx_end),
  add system versioning
;;
alter table t drop column trx_start, drop column trx_end
;;
alter table t drop system versioning
;;
alter table t add system versioning
;;
alter table t add column b int
;;
alter table t add column c int
;;
alter table t add column d int first
;;
alter table t add column e int after d
;;
alter table t drop column a
;;
create or replace table t (
  a int,
  row_start timestamp(6) as row start invisible,
  row_end timestamp(6) as row end invisible,
  period for system_time(row_start, row_end))
with system versioning
;;
alter table t drop column row_start, drop column row_end
;;
create or replace table t (
  a int,
  row_start timestamp(6) as row start invisible,
  row_end timestamp(6) as row end invisible,
  period for system_time(row_start, row_end))
with system versioning
;;
alter table t drop column row_start, drop column row_end
;;
create or replace table t(
  a int
)
;;
alter table t add system versioning
;;
alter table t add column b int
;;
alter table t drop system versioning
;;
alter table t add system versioning
;;
alter table t modify a int without system versioning
;;
alter table t modify a int with system versioning
;;
create or replace table t(
  a int
) engine=innodb
;;
alter table t
  add column trx_start timestamp(6) as row start invisible,
  add column trx_end timestamp(6) as row end invisible,
  add period for system_time(trx_start, trx_end),
  add system versioning
;;
alter table t drop column trx_start, drop column trx_end
;;
alter table t drop system versioning
;;
alter table t
  add column trx_start bigint(20) unsigned as row start invisible,
  add column trx_end bigint(20) unsigned as row end invisible,
  add period for system_time(trx_start, trx_end),
  add system versioning
;;
alter table t drop column trx_start, drop column trx_end
;;
alter table t drop system versioning, algorithm=copy
;;
alter table t add system versioning, algorithm=copy
;;
alter table t add column b int, algorithm=copy
;;
alter table t drop column b, algorithm=copy
;;
alter table t add system versioning, algorithm=inplace
;;
alter table t add column b int, algorithm=inplace
;;
alter table t drop column b, algorithm=inplace
;;
create or replace table t (a int)
;;
alter table t add b int auto_increment null unique
;;
drop table t
;;
create or replace table t (a int) with system versioning engine=innodb
;;
alter table t add b int auto_increment null unique
;;
alter table t add c int, drop system versioning
;;
create or replace table t (a int) with system versioning
;;
alter table t add b int auto_increment null unique
;;
create or replace table t (a int, b int primary key, c int unique) with system versioning
;;
alter table t drop system versioning
;;
create or replace table t (
  a int,
  row_start timestamp(6) as row start invisible,
  row_end timestamp(6) as row end invisible,
  period for system_time(row_start, row_end)
) with system versioning
;;
alter table t add column b int
;;
create or replace table t (a int) with system versioning engine myisam
;;
alter table t add column b int
;;
create or replace table non_empty (
  a int,
  row_start bigint(20) unsigned,
  row_end bigint(20) unsigned
) engine innodb
;;
drop table non_empty
;;
create or replace table t (a int primary key) with system versioning
;;
alter table t drop primary key, add primary key (a), drop system versioning
;;
create or replace table t (a int primary key) with system versioning
;;
alter table t drop system versioning
;;
create or replace table t(x int, y int) with system versioning engine=innodb
;;
alter table t modify y int without system versioning
;;
create or replace table t1 (pk int auto_increment unique) with system versioning
;;
alter table t1 engine=myisam
;;
create or replace temporary table t (a int)
;;
drop table t
;;
create or replace table t (c text) engine=innodb with system versioning
;;
alter table t add fulltext key (c)
;;
create or replace table t (a int) with system versioning
;;
create or replace table t1 (row_start int)
;;
create or replace table t1 (row_end int)
;;
create or replace table t1 (a int) with system versioning
;;
create or replace table t (
  a int,
  row_start timestamp(6) generated always as row start,
  row_end timestamp(6) generated always as row end,
  period for system_time(row_start, row_end)
) with system versioning
;;
alter table t
  drop column row_start,
  drop column row_end,
  drop period for system_time,
  drop system versioning
;;
create or replace table t (
  a int,
  row_start timestamp(6) generated always as row start,
  row_end timestamp(6) generated always as row end,
  period for system_time(row_start, row_end)
) with system versioning
;;
create or replace table t1 (i int, j int as (i), s timestamp(6) as row start, e timestamp(6) as row end, period for system_time(s,e)) with system versioning
;;
create or replace table t (a int) with system versioning
;;
alter table t add check (a > 0)
;;
drop table t
;;
create or replace table t1 (a int, b int generated always as (0) stored) engine=innodb with system versioning
;;
alter table t1 modify a int without system versioning, algorithm=copy
;;
alter table t1 modify a int with system versioning, algorithm=copy
;;
alter table t1 modify a int without system versioning
;;
alter table t1 modify a int with system versioning
;;
alter table t1 modify b int without system versioning
;;
create or replace table t1 (a int, b int generated always as (0) virtual) engine=innodb with system versioning
;;
alter table t1 modify a int without system versioning, algorithm=copy
;;
alter table t1 modify a int with system versioning, algorithm=copy
;;
alter table t1 modify a int without system versioning
;;
alter table t1 modify a int with system versioning
;;
create or replace table t1 (a int, s timestamp(6) as row start, e timestamp(6) as row end, period for system_time(s,e)) engine=myisam with system versioning
;;
alter table t1 force
;;
create or replace table t1 (x int) with system versioning
;;
create or replace table t1 (f1 int) with system versioning
;;
alter table t1 add f2 int with system versioning, drop system versioning
;;
create or replace table t1 (f1 int) with system versioning
;;
drop table t1
;;
create or replace table t (a int) with system versioning engine=innodb
;;
alter table t
  change column a a int without system versioning,
  add column b int with system versioning
;;
alter table t
  change column a new_a int,
  drop system versioning
;;
alter table t add system versioning
;;
alter table t change column new_a a int without system versioning
;;
alter table t
  add column c int without system versioning,
  change column c c int,
  change column b b int without system versioning
;;
drop table t
;;
create or replace table t1 (a int) with system versioning
;;
drop table t1
;;
create table t1 (a int, b int primary key) with system versioning
;;
alter table t1 drop column b
;;
create or replace table t1 (
  a int, b int primary key,
  row_start timestamp(6) as row start,
  row_end timestamp(6) as row end,
  period for system_time(row_start, row_end)
) with system versioning
;;
create or replace table t1 (
a int, b int primary key,
  row_start timestamp(6) as row start invisible,
  row_end timestamp(6) as row end invisible,
  period for system_time(row_start, row_end)
) with system versioning
;;
drop table t1
;;
create or replace table t1 (x int)
;;
drop table t1
;;
create table t1 (pk int, a int, primary key (pk), key (a))
with system versioning
;;
alter table t1 drop pk
;;
drop table t1
;;
create table t1 (pk int, a int, primary key (pk), key (a))
with system versioning
;;
alter ignore table t1 drop pk
;;
drop table t1
;;
create or replace table t1 (a int)
;;
drop table t1
;;
create table t1 (
    a int,
    va int as (a) virtual,
    b int,
    vb int as (b) virtual,
    c int,
    vc int as (c) virtual,
    d int,
    e int,
    index(va)
) engine=innodb with system versioning
;;
alter table t1 algorithm=inplace, drop system versioning
;;
drop table t1
;;
create table t1 (
    a int,
    b int as (a) virtual,
    c int,
    d int as (c) virtual,
    e int,
    f int as (e) virtual,
    g int,
    h int,
    i int,
    index(d),
    key(h),
    foreign key (g) references t1 (h)
) engine=innodb with system versioning
;;
alter table t1 drop column i
;;
drop table t1
;;
create table b (
    pk integer auto_increment,
    col_int_key integer,
    col_varchar_key varchar(1),
    o bit, n bit,
    h float as ( n + 2 ) virtual,
    v bit,
    primary key (pk),
    key (col_varchar_key, col_int_key)
) engine = innodb
;;
alter table `b` add system versioning
;;
alter table `b` add column if not exists ( w bit, v serial )
;;
alter table `b` add column if not exists ( p bit )
;;
drop table `b`
;;
CREATE TABLE t(f TEXT) WITH SYSTEM VERSIONING CHARACTER SET utf8 ENGINE=InnoDB
;;
ALTER TABLE t ADD FULLTEXT (f)
;;
DROP TABLE t
;;
create or replace table t1 (a int) with system versioning
;;
create or replace table t1 (
  a int,
  row_start timestamp(6) as row start invisible,
  row_end timestamp(6) as row end invisible,
  period for system_time (row_start, row_end)
) with system versioning
;;
alter table t1 rename column row_start to x
;;
alter table t1 rename column row_end to y
;;
drop table t1
;;
-- file: mariadb-test-data/usr/share/mysql/mysql-test/suite/versioning/t/create.test
create or replace table t1 (
  x2 int unsigned
) with system versioning
;;
create or replace table t1 (
  x15 int with system versioning,
  B int
)
;;
create or replace table t1 (
  x16 int with system versioning,
  B int
) with system versioning
;;
create or replace table t1 (
  x17 int,
  B int without system versioning
)
;;
create or replace table t1 (
  x18 int,
  B int without system versioning
) with system versioning
;;
create or replace table t1 (
  x19 int with system versioning,
  B int without system versioning
)
;;
create or replace table t1 (
  x20 int with system versioning,
  B int without system versioning
) with system versioning
;;
create or replace table t1 (
  x21 int without system versioning
)
;;
create or replace table t1 (a int) with system versioning
;;
create table tt1 like t1
;;
drop table tt1
;;
create temporary table tt1 like t1
;;
create or replace table t1 (x23 int) with system versioning
;;
create or replace table t2 as select * from t1
;;
create or replace table t3 as select * from t0
;;
create or replace table t2 with system versioning as select * from t1
;;
create or replace table t3 with system versioning as select * from t0
;;
create or replace table t3 with system versioning select x23 from t1
;;
create or replace table t2 (y int)
;;
create or replace table t3 with system versioning select * from t1 for system_time all, t2
;;
create or replace table t2 like t0
;;
create or replace table t3 select * from t2 for system_time all
;;
create or replace table t2
as select x25, row_start, row_end from t1 for system_time all
;;
create or replace table t2 with system versioning
as select x25, row_start rs, row_end re from t1
;;
create or replace table t1 (
  x26 int,
  st bigint unsigned as row start,
  en bigint unsigned as row end,
  period for system_time (st, en)
) with system versioning engine innodb
;;
create or replace table t2 with system versioning engine myisam
as select * from t1
;;
create or replace table t2 (b int, id int)
;;
create or replace table t3 with system versioning
as select t2.b, t1.x27, t1.row_start rs, t1.row_end re from t2 inner join t1 on t2.id=t1.id
;;
create or replace table t1 (x30 int) with system versioning
;;
create or replace table t3
as select x30, y, row_start, row_end, st, en from t1, t2
;;
create or replace table t1 (x int) with system versioning
;;
create or replace table t1 with system versioning as select 1 as i
;;
create or replace table t1 (i int) with system versioning as select 1 as i
;;
create or replace table t1 (x int without system versioning)
with system versioning
select 1 as y
;;
drop tables t0, t1, t2, t3
;;
create table t1 (id int primary key) with system versioning
;;
create temporary table t2 like t1
;;
drop temporary table t2
;;
create or replace table t1 (
  a int,
  row_start timestamp(6) as row start,
  row_end timestamp(6) as row end,
  period for system_time (row_start, row_end),
  index(row_start),
  index(row_end),
  primary key(row_end, a, row_start),
  index(row_end, row_start, a)) with system versioning
;;
create temporary table t2 like t1
;;
drop temporary table t2
;;
drop table t1
;;
create or replace table t1 (id int primary key, x int) with system versioning
;;
drop table t1
;;
create or replace table t1 (x int, y int with system versioning)
;;
create or replace table t1 (
    x int, y int with system versioning,
    row_start timestamp(6) as row start,
    row_end timestamp(6) as row end,
    period for system_time(row_start, row_end))
;;
drop table t1
;;
create or replace table t (
  a int with system versioning,
  b int with system versioning,
  s timestamp(6) as row start,
  e timestamp(6) as row end,
  period for system_time (s, e))
;;
drop table t
;;
