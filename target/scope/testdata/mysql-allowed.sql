==== plain DML
UPDATE t SET v = 11 WHERE id = 1
==== multi-table UPDATE of own tables
UPDATE t a, u b SET a.v = b.v WHERE a.id = b.id
==== multi-table DELETE
DELETE a, b FROM t a JOIN u b ON a.id = b.id WHERE a.v > 1
==== DELETE … USING
DELETE FROM t1, t2 USING t1 JOIN t2 ON t1.id = t2.id
==== qualified by txlab's database
DELETE FROM txlab.t WHERE txlab.t.id = 1
==== backquoted own database
UPDATE `txlab`.`t` SET `v` = 1
==== INSERT IGNORE, REPLACE, no INTO
INSERT IGNORE t VALUES (1, 2)
==== REPLACE
REPLACE INTO t (id, v) VALUES (1, 2)
==== upsert
INSERT INTO t VALUES (1, 2) ON DUPLICATE KEY UPDATE v = VALUES(v) + 1, w = t.w
==== REPLACE() and INSERT() functions
SELECT REPLACE(v, 'a', 'b'), INSERT(v, 1, 2, 'x') FROM t
==== SELECT FOR UPDATE
SELECT * FROM t WHERE id = 1 FOR UPDATE
==== LOCK IN SHARE MODE
SELECT * FROM t LOCK IN SHARE MODE
==== SELECT INTO variables
SELECT v INTO @a FROM t WHERE id = 1
==== SELECT from information_schema
SELECT trx_started FROM information_schema.innodb_trx
==== performance_schema join
SELECT l.* FROM performance_schema.data_locks l JOIN information_schema.innodb_trx x ON x.trx_id = l.engine_transaction_id
==== mysql database read
SELECT * FROM mysql.transaction_registry
==== strings with names in them
INSERT INTO t VALUES ('DELETE FROM shop.orders', "UPDATE shop.x", 'it''s')
==== string with backslash-escaped quote that reads the same both ways
SELECT 'a\\b' FROM t
==== comments
/* c */ SELECT 1 -- trailing
==== hash comment
SELECT 1 # trailing
==== double minus is arithmetic
SELECT 1--1
==== hint comment
SELECT /*+ MAX_EXECUTION_TIME(1000) */ * FROM t
==== session settings
SET sql_mode = 'STRICT_TRANS_TABLES', @x = 1, SESSION innodb_lock_wait_timeout = 1, autocommit = 0
==== SET @@session
SET @@session.optimizer_switch = 'index_merge=off'
==== SET TRANSACTION
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED
==== transaction control
START TRANSACTION WITH CONSISTENT SNAPSHOT, READ ONLY
==== BEGIN WORK
BEGIN WORK
==== COMMIT AND CHAIN
COMMIT WORK AND NO CHAIN NO RELEASE
==== ROLLBACK TO SAVEPOINT
ROLLBACK TO SAVEPOINT sp1
==== CREATE TABLE with a foreign key
CREATE TABLE c (id INT PRIMARY KEY, pid INT, FOREIGN KEY (pid) REFERENCES p (id) ON DELETE CASCADE ON UPDATE CASCADE) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4
==== CREATE TABLE LIKE own
CREATE TABLE t2 LIKE t
==== CREATE TABLE AS SELECT
CREATE TABLE t2 AS SELECT * FROM t
==== CREATE OR REPLACE TEMPORARY TABLE
CREATE OR REPLACE TEMPORARY TABLE tt (a INT)
==== CREATE INDEX
CREATE UNIQUE INDEX i ON t (v)
==== DROP INDEX
DROP INDEX i ON t
==== CREATE VIEW
CREATE OR REPLACE VIEW v AS SELECT a FROM t WHERE a > 1
==== DROP TABLE list
DROP TABLE IF EXISTS t, u
==== ALTER TABLE
ALTER TABLE t ADD COLUMN w INT DEFAULT 0, ADD INDEX iw (w), ALGORITHM=INPLACE, LOCK=NONE
==== RENAME TABLE inside
RENAME TABLE t TO t_old, t_new TO t
==== LOCK TABLES
LOCK TABLES t READ, u AS x WRITE, w LOW_PRIORITY WRITE
==== UNLOCK TABLES
UNLOCK TABLES
==== TRUNCATE
TRUNCATE TABLE t
==== SHOW
SHOW ENGINE INNODB STATUS
==== SHOW VARIABLES
SHOW VARIABLES LIKE '%isolation%'
==== EXPLAIN
EXPLAIN FORMAT=JSON SELECT * FROM t WHERE id = 1
==== DESCRIBE
DESCRIBE t
==== SLEEP is fine
SELECT SLEEP(0.1)
==== sequences
CREATE SEQUENCE s1 ENGINE=InnoDB
==== NEXTVAL
SELECT NEXTVAL(s1), NEXT VALUE FOR s1, SETVAL(txlab.s1, 10)
==== subqueries at depth
SELECT * FROM t WHERE id IN (SELECT id FROM (SELECT id FROM u WHERE EXISTS (SELECT 1 FROM w)) x)
==== CTE
WITH RECURSIVE r (n) AS (SELECT 1 UNION ALL SELECT n + 1 FROM r WHERE n < 3) SELECT * FROM r
==== window
SELECT a, ROW_NUMBER() OVER (PARTITION BY b ORDER BY c) FROM t
==== EXTRACT FROM
SELECT EXTRACT(YEAR FROM t.d), SUBSTRING(t.s FROM 2 FOR 3), TRIM(LEADING 'x' FROM t.s) FROM t
==== GET_LOCK
SELECT GET_LOCK('x', 1)
==== VALUES
VALUES ROW(1, 2), ROW(3, 4)
==== ANALYZE TABLE
ANALYZE TABLE t1, t2
==== CHECK TABLE
CHECK TABLE t1
==== derived table with column list and comma join
SELECT * FROM (SELECT 1 AS a) x, t JOIN u USING (id), w
==== parenthesized join
SELECT * FROM (t JOIN u ON t.id = u.id) LEFT JOIN w ON w.id = t.id
==== numbers
SELECT 1e5, .5, 0x1F, 1.5e-3, -1
==== identifiers starting with digits
SELECT 1a FROM `2t`
==== user variable in quotes
SET @'my var' = 1
==== SET with a subquery
SET @n = (SELECT COUNT(*) FROM t)
==== partition clause
SELECT * FROM t PARTITION (p0) FORCE INDEX (PRIMARY) WHERE id = 1
==== system versioning
create or replace table t1 (pk int primary key) with system versioning
==== trailing semicolon
SELECT 1;
==== trailing semicolon and a comment
SELECT 1; -- done
==== from bugs/doc-innodb-rc-semi-consistent.txn
CREATE TABLE t (a INT, b VARCHAR(10))
==== from bugs/doc-innodb-rc-semi-consistent.txn
INSERT INTO t VALUES (1, ''), (5, '')
==== from bugs/doc-innodb-rc-semi-consistent.txn
BEGIN
==== from bugs/doc-innodb-rc-semi-consistent.txn
UPDATE t SET a = 5, b = 'tx1' WHERE a = 1
==== from bugs/doc-innodb-rc-semi-consistent.txn
UPDATE t SET b = 'tx2' WHERE a = 5
==== from bugs/doc-innodb-rc-semi-consistent.txn
COMMIT
==== from bugs/doc-innodb-rr-locking-read.txn
CREATE TABLE t (id INT PRIMARY KEY, v INT)
==== from bugs/doc-innodb-rr-locking-read.txn
INSERT INTO t VALUES (1, 10)
==== from bugs/doc-innodb-rr-locking-read.txn
SELECT * FROM t
==== from bugs/doc-innodb-rr-locking-read.txn
INSERT INTO t VALUES (2, 20)
==== from bugs/doc-innodb-rr-locking-read.txn
SELECT * FROM t FOR UPDATE
==== from bugs/doc-innodb-rr-lost-update.txn
SELECT * FROM t WHERE id = 1
==== from bugs/doc-innodb-rr-lost-update.txn
UPDATE t SET v = 11 WHERE id = 1
==== from bugs/doc-innodb-rr-lost-update.txn
UPDATE t SET v = 21 WHERE id = 1
==== from bugs/mdev-14868-replbug.txn
CREATE TABLE t (a TEXT) ENGINE = InnoDB
==== from bugs/mdev-14868-replbug.txn
INSERT INTO t VALUES (REPEAT('a', 20000))
==== from bugs/mdev-14868-replbug.txn
SAVEPOINT sp
==== from bugs/mdev-14868-replbug.txn
ROLLBACK TO sp
==== from bugs/mdev-16024-replbug.txn
create or replace table t1 (
    x int(11) default null,
    row_start bigint(20) unsigned generated always as row start invisible,
    row_end bigint(20) unsigned generated always as row end invisible,
    period for system_time (row_start, row_end)
) engine=innodb with system versioning
==== from bugs/mdev-16024-replbug.txn
START TRANSACTION
==== from bugs/mdev-16024-replbug.txn
set @ts = now(6)
==== from bugs/mdev-16024-replbug.txn
commit
==== from bugs/mdev-16024-replbug.txn
select @ts
==== from bugs/mdev-16024-replbug.txn
select * from mysql.transaction_registry
==== from bugs/mdev-16024-replbug.txn
select (select begin_timestamp from mysql.transaction_registry) < @ts
==== from bugs/mdev-16675-replbug.txn
CREATE TABLE t1(id INT PRIMARY KEY, a INT, b CHAR(1), UNIQUE KEY u(a,b)) ENGINE=InnoDB
==== from bugs/mdev-19535-replbug.txn
SET sql_mode=''
==== from bugs/mdev-19535-replbug.txn
SELECT a AS a_con1 FROM t1 INTO @a FOR UPDATE
==== from bugs/mdev-19535-replbug.txn
SELECT a AS a_con2 FROM t1 INTO @a FOR UPDATE
==== from bugs/mdev-19535-replbug.txn
UPDATE t1 SET a=a+100
==== from bugs/mdev-19535-replbug.txn
SELECT a AS con2 FROM t1
==== from bugs/mdev-21516-replbug.txn
SET @save_limit = @@innodb_limit_optimistic_insert_debug
==== from bugs/mdev-21516-replbug.txn
begin
==== from bugs/mdev-21516-replbug.txn
rollback
==== from bugs/mdev-21516-replbug.txn
check table t1
==== from bugs/mdev-21516-replbug.txn
drop table t1
==== from bugs/mdev-24082-replbug.txn
CREATE TEMPORARY TABLE t (id int unsigned NOT NULL PRIMARY KEY,flag tinyint NOT NULL DEFAULT 0)
==== from bugs/mdev-24082-replbug.txn
START TRANSACTION READ ONLY
==== from bugs/mdev-24083-replbug.txn
CREATE TEMPORARY TABLE t (id int unsigned NOT NULL AUTO_INCREMENT PRIMARY KEY,val int unsigned NOT NULL)
==== from bugs/mdev-24083-replbug.txn
DROP TEMPORARY TABLE t
==== from bugs/mdev-24224-replbug.txn
DELETE FROM test WHERE TEST1 = 'A.123a' and TEST2 = 'C' and TEST3 = 3
==== from bugs/mdev-24224-replbug.txn
SHOW ENGINE INNODB STATUS
==== from bugs/mdev-24545-replbug.txn
CREATE SEQUENCE s1 ENGINE=InnoDB
==== from bugs/mdev-24545-replbug.txn
SELECT NEXTVAL(s1)
==== from bugs/mdev-25297-replbug.txn
SET unique_checks=0
==== from bugs/mdev-25297-replbug.txn
SET foreign_key_checks=0
==== from bugs/mdev-25297-replbug.txn
ALTER TABLE ti CHANGE COLUMN c c BINARY (1)
==== from bugs/mdev-25297-replbug.txn
CREATE TEMPORARY TABLE t(a INT)
==== from bugs/mdev-25297-replbug.txn
SAVEPOINT a3
==== from bugs/mdev-25297-replbug.txn
CREATE OR REPLACE TEMPORARY TABLE t (a INT,b INT)
==== from bugs/mdev-25297-replbug.txn
ROLLBACK TO SAVEPOINT a3
==== from bugs/mdev-25457-replbug.txn
CREATE TEMPORARY TABLE t (a INT) ENGINE=InnoDB
==== from bugs/mdev-25457-replbug.txn
ROLLBACK
==== from bugs/mdev-25546-replbug.txn
create or replace table t1 (pk int primary key) with system versioning
partition by system_time limit 100 (
  partition p0 history,
  partition p1 history,
  partition pn current)
==== from bugs/mdev-25546-replbug.txn
start transaction
==== from bugs/mdev-25546-replbug.txn
replace into t1 select seq from seq_1_to_80
==== from bugs/mdev-25546-replbug.txn
replace into t1 select seq from seq_1_to_70
==== from bugs/mdev-25546-replbug.txn
replace into t1 select seq from seq_1_to_60
==== from bugs/mdev-25546-replbug.txn
select partition_name, table_rows
from information_schema.partitions
where table_name = 't1'
==== from bugs/mdev-25546-replbug.txn
replace into t1 select seq from seq_1_to_10
==== from bugs/mdev-27992-troc-listing3.txn
DELETE FROM t
==== from bugs/mdev-28040-replbug.txn
INSERT IGNORE INTO t VALUES (NULL, NULL), (NULL, 'aaa')
==== from bugs/mdev-28140-replbug.txn
INSERT IGNORE INTO t VALUES (NULL, NULL), (NULL, 'abc')
==== from bugs/mdev-28944-replbug.txn
ALTER TABLE t NOWAIT ADD KEY (a)
==== from bugs/mdev-28944-replbug.txn
DROP TABLE t
==== from bugs/mdev-29083-replbug.txn
delete from t_euhshb
==== from bugs/mdev-29118-replbug.txn
delete from t_davsbd
==== from bugs/mdev-29118-replbug.txn
update t_j4mbqd set wkey = 190
==== from bugs/mdev-29120-replbug.txn
update t_zefkic set wkey = 99
==== from bugs/mdev-29187-replbug.txn
update t1 set f1 = 3 where id = 1
==== from bugs/mdev-29187-replbug.txn
update t1 set f1 = 4 where id = 2
==== from bugs/mdev-29187-replbug.txn
update t1 set f1 = 3 where id = 2
==== from bugs/mdev-29187-replbug.txn
show engine innodb status
==== from bugs/mdev-29232-replbug.txn
select case when case when PI() in (
select
85.45 as c0
from
t_g2kscc as ref_0
where (ref_0.pkey <= (
select
ref_1.wkey as c0
from
t_g2kscc as ref_1))
) then 60 else 10 end
not in (
select
ref_4.c_tlumg as c0
from
t_d0pt_c as ref_4
) then 65.4 else 44.96 end
==== from bugs/mdev-29399-replbug.txn
update t_j_eqsc set wkey = 37, c_fm792b = PI()
==== from bugs/mdev-29483-replbug.txn
select
coalesce(subq_0.c0,
LAST_VALUE(
subq_0.c0) over (partition by subq_0.c1 order by subq_0.c2,subq_0.c0)) as c1
from
(select
ref_0.c_0m1mlc as c0,
ref_0.c__dk7dc as c1,
ref_0.c_evw_ic as c2
from
t_di9mld as ref_0
) as subq_0
where (subq_0.c1 = subq_0.c1) or subq_0.c0 in (
select distinct
ref_3.c_0m1mlc as c0
from
(t_di9mld as ref_2
cross join t_di9mld as ref_3
)
)
==== from bugs/mdev-29489-replbug.txn
update t_yfrkzd set wkey = 80
==== from bugs/mdev-29494-replbug.txn
select
subq_0.c0 as c0
from
(select
ref_0.c_s7edob as c0
from
t_dmvax as ref_0
where ref_0.c_s7edob not in (
select
ref_1.c_wwyiz as c0
from
t_dmvax as ref_1)
) as subq_0
where subq_0.c0 = (
select
ref_3.c_wwyiz as c0
from
(t_dmvax as ref_2
cross join t_dmvax as ref_3)
union
select
ref_4.c_wwyiz as c0
from
t_dmvax as ref_4)
==== from bugs/mdev-29565-replbug.txn
update t_g6ckkb set wkey = 162
==== from bugs/mdev-29565-replbug.txn
update t_rpjlsd set wkey = 63
where t_rpjlsd.c_pfd8ab <= (select min(wkey) from t_g6ckkb)
==== from bugs/mdev-29585-replbug.txn
WITH
cte_0 AS (select
ref_0.wkey as c0,
ref_0.pkey as c1,
ref_0.c_t4jlkc as c2,
ref_0.c_a047t as c3,
ref_0.c_bhsf6d as c4,
ref_0.c_t9_mu as c5
from
t_rry5a as ref_0)
select
ref_2.c0 as c0,
ref_2.c1 as c1,
ref_2.c2 as c2,
ref_2.c3 as c3,
ref_2.c4 as c4,
ref_2.c5 as c5
from
cte_0 as ref_2
where exists (
select
FIRST_VALUE(ref_2.c4) over (partition by ref_2.c1) as c0
)
==== from bugs/mdev-29585-replbug.txn
WITH
cte_0 AS (select
ref_0.wkey as c0,
ref_0.pkey as c1,
ref_0.c_t4jlkc as c2,
ref_0.c_a047t as c3,
ref_0.c_bhsf6d as c4,
ref_0.c_t9_mu as c5
from
t_rry5a as ref_0)
select
ref_2.c0 as c0,
ref_2.c1 as c1,
ref_2.c2 as c2,
ref_2.c3 as c3,
ref_2.c4 as c4,
ref_2.c5 as c5
from
cte_0 as ref_2
where exists (
select
FIRST_VALUE(ref_2.c4) over (partition by ref_2.c1) as c0
) or 17 <> 0
==== from bugs/mdev-30835-found-rc-replace.txn
UPDATE t2 SET c2 = c2 WHERE c1 NOT IN (TRUE, TRUE)
==== from bugs/mdev-30835-found-rc-replace.txn
SELECT s0.a0, s0.a1, s0.a2 FROM (SELECT (SELECT MAX(c0) FROM t0) AS a0, c2 AS a1, c1 AS a2 FROM t2 WHERE EXISTS (SELECT * FROM t0 WHERE c0 IS NOT NULL AND c0 BETWEEN 'ah' AND 'b')) AS s0
==== from bugs/mdev-30835-found-rc-replace.txn
UPDATE t2 SET c2 = UPPER(c2) WHERE c2 > 'add'
==== from bugs/mdev-30835-found-rc-replace.txn
UPDATE t0 SET c0 = (SELECT MAX(c2) FROM t2 WHERE NOT c1) WHERE c0 = 'ff' OR c0 BETWEEN 'cgg' AND 'eg'
==== from bugs/mdev-30835-found-rc-replace.txn
UPDATE t0 SET c0 = COALESCE(c0, 'aeh') WHERE c0 IN ('cgg', 'cgg') AND c0 IS NOT NULL OR c0 BETWEEN 'ah' AND 'dd'
==== from bugs/mdev-30835-found-rc-replace.txn
SELECT c1 FROM t2 FOR UPDATE
==== from bugs/mysql-100293-replbug.txn
SHOW STATUS LIKE "Qcache_hits"
==== from bugs/mysql-102722-replbug.txn
show variables like '%isolation%'
==== from bugs/mysql-102722-replbug.txn
SET @@optimizer_switch='index_condition_pushdown=off'
==== from bugs/mysql-102722-replbug.txn
select b,c,d from ts where b>=5 and b<8 and c=7 for update
==== from bugs/mysql-102722-replbug.txn
select INDEX_NAME,LOCK_TYPE,LOCK_MODE,LOCK_STATUS,LOCK_DATA from performance_schema.data_locks
==== from bugs/mysql-102722-replbug.txn
SET @@optimizer_switch='index_condition_pushdown=on'
==== from bugs/mysql-104245-replbug.txn
INSERT IGNORE INTO t1 (c2, c3, c4, c5) values (1,1,1,1)
==== from bugs/mysql-104245-replbug.txn
INSERT IGNORE INTO t1 (c2, c3, c4, c5) values (1,1,1,1),(1,1,1,1),(1,1,1,1),(1,1,1,1),(1,1,1,1)
==== from bugs/mysql-107066-replbug.txn
select pkey from t_zcfqb where wkey = 121
==== from bugs/mysql-107887-replbug.txn
update t_cqieb set
wkey = 116
where t_cqieb.c_rejdnc not in (
select
subq_0.c0 as c0
from
(select
ref_8.c_myvn4d as c0
from
t_b9lvzc as ref_8
where ref_8.c_lszpl < ref_8.c_t41kdd) as subq_0
where subq_0.c0 < (
select
ref_9.c_1xf8oc as c0
from
(t_b9lvzc as ref_9
left outer join t_b9lvzc as ref_10
on (ref_9.c_t41kdd = ref_10.wkey ))
where ref_9.c_t41kdd <> ref_10.pkey)
order by c0 asc)
==== from bugs/mysql-108528-replbug.txn
update t_rpjlsd set wkey = 63 where
t_rpjlsd.c_pfd8ab <= (select min(wkey) from t_g6ckkb)
==== from bugs/mysql-114389-replbug.txn
ALTER TABLE t ADD INDEX t_index(a)
==== from bugs/mysql-114389-replbug.txn
SELECT pkId, b, c FROM t
==== from bugs/mysql-114389-replbug.txn
SELECT pkId, b, c FROM t where b = 854 or c = 333 order by b
==== from bugs/mysql-90987-replbug.txn
update t4 set c=c+1 where b=3
==== from bugs/mysql-90987-replbug.txn
update t4 set c=c+1 where b=2
==== from bugs/mysql-91837-replbug.txn
SELECT SLEEP(2)
==== from bugs/mysql-91837-replbug.txn
select trx_started from information_schema.innodb_trx
==== from bugs/mysql-91837-replbug.txn
select count(*) from information_schema.innodb_trx where trx_started < date_sub(now(), interval 1 second)
==== from bugs/mysql-91837-replbug.txn
set session time_zone = '-09:00'
==== from bugs/mysql-92558-replbug.txn
SELECT name, comment, status, count FROM information_schema.innodb_metrics   WHERE name like 'trx%comm%'
==== from bugs/mysql-92558-replbug.txn
select count(*) from t
==== from bugs/mysql-92558-replbug.txn
select trx_is_read_only from information_schema.innodb_trx
==== from bugs/mysql-94338-replbug.txn
ANALYZE TABLE t1, t2
==== from bugs/mysql-94338-replbug.txn
SELECT t1.b_id
FROM t1
WHERE (
t1.a_id = 1
AND IFNULL(1 = (
SELECT state
FROM t2 FORCE INDEX(secondary)
WHERE
a_id = 1
AND b_id = t1.b_id
AND ((c_code = 'A' AND c_id = 11) OR (c_code = 'B' AND c_id = 11))
ORDER BY state LIMIT 1), 1))
LIMIT 10
==== from bugs/mysql-95049-replbug.txn
SAVEPOINT somepoint
==== from bugs/mysql-95049-replbug.txn
UPDATE person SET age = 30 WHERE id = 1
==== from bugs/mysql-95049-replbug.txn
ROLLBACK TO somepoint
==== from bugs/mysql-95049-replbug.txn
UPDATE person SET age = 40 WHERE id = 1
==== from examples/postgres-rr-double-update.txn
SELECT v FROM t WHERE id = 1
==== from executor/testdata/write-busy.txn
SELECT id, v FROM t ORDER BY id
==== from oracle/troc/testdata/innodb-rr-key-move-onto-deleted-key.txn
UPDATE t0 SET c0 = 'f' WHERE c0 = 'ad'
==== from oracle/troc/testdata/innodb-rc-delete-row-updated-during-wait.txn
UPDATE t0 SET c0 = 9.0
==== from oracle/troc/testdata/innodb-noop-update-no-conflict.txn
SELECT v FROM t
==== from oracle/troc/testdata/innodb-read-view-impossible-where.txn
SELECT a FROM t WHERE 1 = 0
==== from oracle/troc/testdata/rr-write-skew.txn
SELECT COUNT(*) FROM doctors WHERE oncall = 1
==== from oracle/troc/testdata/rr-write-skew.txn
UPDATE doctors SET oncall = 0 WHERE name = 'alice'
==== from oracle/troc/testdata/rr-write-skew.txn
UPDATE doctors SET oncall = 0 WHERE name = 'bob'
==== from oracle/troc/testdata/innodb-rc-delete-index-record-moved.txn
CREATE INDEX t0_i0 ON t0 (c0)
==== from oracle/troc/testdata/innodb-rc-locking-read-index-record-moved.txn
SELECT c0 FROM t0 FOR UPDATE
==== from oracle/troc/testdata/innodb-rr-lost-update.txn
SELECT v FROM t WHERE k = 1
==== from oracle/troc/testdata/innodb-rc-deadlock-victim-releases-write.txn
SELECT s0.a0 FROM (SELECT c0 AS a0 FROM t0 WHERE c0 = 1 AND ABS(c0) > 11) AS s0 WHERE s0.a0 IN (SELECT c0 FROM t0 WHERE c0 BETWEEN 11 AND 17) OR s0.a0 >= 7 ORDER BY s0.a0
==== from oracle/isorel/testdata/predicate-write-skew.txn
SELECT id FROM doctors WHERE oncall = 1
==== from oracle/isorel/testdata/predicate-write-skew.txn
UPDATE doctors SET oncall = 1 WHERE id = 2
==== from oracle/isorel/testdata/aggregate-write-skew.txn
UPDATE doctors SET oncall = 0 WHERE id = 1
==== from oracle/isorel/testdata/write-skew.txn
SELECT id, oncall FROM doctors WHERE oncall = 1
==== from oracle/isorel/testdata/lost-update.txn
SELECT id, bal FROM acct WHERE id = 1
==== from oracle/isorel/testdata/lost-update.txn
UPDATE acct SET bal = 150 WHERE id = 1
==== from oracle/isorel/testdata/lost-update.txn
UPDATE acct SET bal = 120 WHERE id = 1
==== from oracle/isorel/testdata/subquery-write-skew.txn
SELECT id FROM a WHERE v IN (SELECT v FROM b WHERE id = 1)
==== columns named like keywords
SELECT view, sequence, tables FROM t WHERE view = 1
==== isolation by variable
SET @@SESSION.TRANSACTION_ISOLATION = 'READ-COMMITTED'
==== partitions
CREATE TABLE p (a INT) ENGINE=InnoDB ROW_FORMAT=DYNAMIC PARTITION BY RANGE (a) (PARTITION p0 VALUES LESS THAN (10), PARTITION p1 VALUES LESS THAN MAXVALUE)
==== sequence functions on own sequences
SELECT PREVIOUS VALUE FOR s1, LASTVAL(s1)
==== DUAL and performance_schema
SELECT 1 FROM DUAL WHERE EXISTS (SELECT 1 FROM performance_schema.data_lock_waits)
==== MySQL DO evaluates expressions
DO SLEEP(0.1), GET_LOCK('x', 1)
==== a table name of 64 characters
CREATE TABLE tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt (a INT)
==== 64 two-byte characters
CREATE TABLE éééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé (a INT)
==== a string longer than a name
INSERT INTO t VALUES ('ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt')
==== a string in double quotes longer than a name
INSERT INTO t VALUES ("ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt")
==== UTF-8 in a string
INSERT INTO t VALUES ('café 漢字 ソ表')
==== CONVERT to another character set converts a value only
SELECT CONVERT(_utf8mb4'x' USING gbk)
==== a column's character set
CREATE TABLE tg (a VARCHAR(10) CHARACTER SET gbk)
==== a decimal after a column and a name that starts with digits stay allowed
SELECT t.c0, 1.5, .5e3, 2024_x FROM t WHERE t.c0 > 0.25
==== a table of txlab's own with a digit name, qualified by alias
SELECT a.1x FROM t AS a
