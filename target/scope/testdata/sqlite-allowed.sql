==== main and temp
DELETE FROM main.t WHERE id IN (SELECT id FROM temp.u)
==== MAIN upper case
UPDATE MAIN.t SET v = 1
==== INSERT OR REPLACE
INSERT OR REPLACE INTO t VALUES (1, 2)
==== REPLACE
REPLACE INTO t VALUES (1, 2)
==== upsert
INSERT INTO t VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET v = excluded.v
==== identifiers
SELECT "a", `b`, [c d] FROM [t]
==== parameters
SELECT * FROM t WHERE id = ?1 OR id = :id OR id = @id OR id = $id
==== blob
SELECT x'00ff'
==== BEGIN IMMEDIATE
BEGIN IMMEDIATE TRANSACTION
==== END TRANSACTION
END TRANSACTION
==== SAVEPOINT
SAVEPOINT sp
==== RELEASE
RELEASE sp
==== ROLLBACK TO
ROLLBACK TRANSACTION TO SAVEPOINT sp
==== CREATE TABLE
CREATE TABLE IF NOT EXISTS t (id INTEGER PRIMARY KEY, v TEXT REFERENCES p (id)) WITHOUT ROWID, STRICT
==== CREATE TEMP TABLE
CREATE TEMP TABLE x (a)
==== CREATE INDEX
CREATE UNIQUE INDEX IF NOT EXISTS i ON t (v) WHERE v IS NOT NULL
==== CREATE VIEW
CREATE VIEW v AS SELECT * FROM t
==== DROP
DROP TABLE IF EXISTS main.t
==== ALTER TABLE
ALTER TABLE t ADD COLUMN w INT
==== PRAGMA reads
PRAGMA table_info(t)
==== PRAGMA foreign_keys read
PRAGMA main.foreign_keys
==== sqlite_master
SELECT name FROM sqlite_master WHERE type = 'table'
==== pragma functions
SELECT * FROM pragma_table_info('t')
==== json_each
SELECT value FROM t, json_each(t.j)
==== RETURNING
DELETE FROM t WHERE id = 1 RETURNING *
==== ANALYZE
ANALYZE t
==== EXPLAIN QUERY PLAN
EXPLAIN QUERY PLAN SELECT * FROM t WHERE id = 1
==== WITH
WITH x AS (SELECT 1 AS a) UPDATE t SET v = (SELECT a FROM x)
==== INDEXED BY
SELECT * FROM t INDEXED BY i WHERE v = 1
==== from bugs/doc-sqlite-deferred-upgrade.txn
CREATE TABLE t (id INT PRIMARY KEY, v INT)
==== from bugs/doc-sqlite-deferred-upgrade.txn
INSERT INTO t VALUES (1, 10)
==== from bugs/doc-sqlite-deferred-upgrade.txn
BEGIN
==== from bugs/doc-sqlite-deferred-upgrade.txn
SELECT * FROM t
==== from bugs/doc-sqlite-deferred-upgrade.txn
UPDATE t SET v = 11 WHERE id = 1
==== from bugs/doc-sqlite-deferred-upgrade.txn
COMMIT
==== from bugs/doc-sqlite-deferred-upgrade.txn
UPDATE t SET v = 12 WHERE id = 1
==== from examples/design-read-committed.txn
CREATE TABLE t (c1 DOUBLE PRECISION)
==== from examples/design-read-committed.txn
INSERT INTO t VALUES (1.0)
==== from examples/design-read-committed.txn
INSERT INTO t VALUES (2.0)
==== from examples/design-read-committed.txn
UPDATE t SET c1 = 3.0 WHERE c1 = 2.0
==== from examples/mariadb-rc-update-delete.txn
INSERT INTO t VALUES (1, 10), (2, 20)
==== from examples/mariadb-rc-update-delete.txn
DELETE FROM t WHERE v = 10
==== from examples/postgres-rr-double-update.txn
SELECT v FROM t WHERE id = 1
==== from examples/postgres-rr-double-update.txn
UPDATE t SET v = v + 1 WHERE id = 1
==== from convert/testdata/troc/mysql104833.txn
CREATE TABLE t(a INT, b INT)
==== from convert/testdata/troc/mariadb26671.txn
CREATE TABLE t ( c1 INT , c2 INT )
==== from convert/testdata/troc/tidb28095.txn
ROLLBACK
==== from convert/testdata/troc/tidb28092.txn
INSERT IGNORE INTO t VALUES (NULL, NULL)
==== from convert/testdata/troc/tidb30239.txn
DELETE FROM t WHERE a = 1
==== from convert/testdata/troc/tidb30239.txn
DELETE FROM t WHERE a = 1 OR a = 2
==== from convert/testdata/troc/mysql105670.txn
DELETE FROM t WHERE c1 = 1
==== from convert/testdata/troc/mariadb27992.txn
SELECT * FROM t FOR UPDATE
==== from executor/testdata/write-busy.txn
SELECT id, v FROM t ORDER BY id
==== from oracle/troc/testdata/innodb-rr-read-view-in-locking-subquery.txn
SELECT * FROM t0 WHERE 1 = 0
==== from oracle/troc/testdata/innodb-rr-read-view-in-locking-subquery.txn
SELECT * FROM t0 WHERE c0 IN (SELECT c0 FROM t0) ORDER BY c0 DESC FOR UPDATE
==== from oracle/troc/testdata/innodb-rr-key-move-onto-deleted-key.txn
UPDATE t0 SET c0 = 'f' WHERE c0 = 'ad'
==== from oracle/troc/testdata/innodb-rc-delete-row-updated-during-wait.txn
UPDATE t0 SET c0 = 9.0
==== from oracle/troc/testdata/innodb-noop-update-no-conflict.txn
SELECT v FROM t
==== from oracle/troc/testdata/innodb-read-view-impossible-where.txn
SELECT a FROM t WHERE 1 = 0
==== from oracle/troc/testdata/innodb-read-view-impossible-where.txn
SELECT a FROM t
==== from oracle/troc/testdata/rr-write-skew.txn
SELECT COUNT(*) FROM doctors WHERE oncall = 1
==== from oracle/troc/testdata/rr-write-skew.txn
UPDATE doctors SET oncall = 0 WHERE name = 'alice'
==== from oracle/troc/testdata/rr-write-skew.txn
UPDATE doctors SET oncall = 0 WHERE name = 'bob'
==== from oracle/troc/testdata/innodb-rc-delete-index-record-moved.txn
CREATE INDEX t0_i0 ON t0 (c0)
==== from oracle/troc/testdata/innodb-rc-locking-read-index-record-moved.txn
UPDATE t0 SET c0 = NULL
==== from oracle/troc/testdata/innodb-rc-locking-read-index-record-moved.txn
SELECT c0 FROM t0 FOR UPDATE
==== from oracle/troc/testdata/innodb-rc-deadlock-victim-releases-write.txn
UPDATE t0 SET c0 = 18 WHERE c0 <= 18 OR ABS(c0) > 18
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
==== from oracle/isorel/testdata/replace-select-same-row.txn
REPLACE INTO t SELECT * FROM s
==== from oracle/isorel/testdata/replace-same-row.txn
REPLACE INTO t VALUES (1, 1)
==== from oracle/isorel/testdata/lost-update.txn
SELECT id, bal FROM acct WHERE id = 1
==== from oracle/isorel/testdata/lost-update.txn
UPDATE acct SET bal = 150 WHERE id = 1
==== from oracle/isorel/testdata/lost-update.txn
UPDATE acct SET bal = 120 WHERE id = 1
==== from oracle/isorel/testdata/replace-select-lost-update.txn
REPLACE INTO acct SELECT 1, 100 + amount FROM dep WHERE id = 1
==== from oracle/isorel/testdata/replace-select-lost-update.txn
REPLACE INTO acct SELECT 1, 100 + amount FROM dep WHERE id = 2
==== from oracle/isorel/testdata/subquery-write-skew.txn
SELECT id FROM a WHERE v IN (SELECT v FROM b WHERE id = 1)
==== from oracle/isorel/testdata/subquery-write-skew.txn
SELECT id FROM b WHERE v IN (SELECT v FROM a WHERE id = 1)
==== from oracle/isorel/testdata/subquery-write-skew.txn
UPDATE a SET v = 1 WHERE id = 1
==== from oracle/isorel/testdata/subquery-write-skew.txn
UPDATE b SET v = 1 WHERE id = 1
==== from oracle/wss/testdata/pg-rr-documented-views.txn
CREATE INDEX t0_i0 ON t0 (c0, c1)
==== from oracle/wss/testdata/pg-rr-documented-views.txn
CREATE INDEX t1_i0 ON t1 (c0)
==== from oracle/wss/testdata/pg-rr-documented-views.txn
SELECT t0.c1 FROM t0 WHERE t0.c0 <> 'bg' FOR UPDATE
==== from oracle/wss/testdata/pg-rr-documented-views.txn
SELECT t0.c2, t0.c1, t0.c1 FROM t0 WHERE t0.c2 < 'h' AND NOT (t0.c2 BETWEEN 'bd' AND 'g') ORDER BY t0.c1, t0.c2 DESC FOR UPDATE
==== from oracle/wss/testdata/pg-rr-documented-views.txn
UPDATE t1 SET c0 = c0 - 4 WHERE NOT EXISTS (SELECT * FROM t0 WHERE c2 BETWEEN 'che' AND 'hf') OR EXISTS (SELECT * FROM t0 WHERE c2 <= c0 OR LOWER(c0) >= 'bg')
==== from oracle/wss/testdata/pg-rr-documented-views.txn
SELECT DISTINCT c2, c0, COALESCE(c1, 'b') AS a2 FROM t0 WHERE c1 <= c0
==== from oracle/wss/testdata/pg-rr-documented-views.txn
UPDATE t1 SET c0 = -3.25 WHERE ABS(c0) <= -3.25
==== from oracle/wss/testdata/pg-rr-documented-views.txn
UPDATE t1 SET c0 = 11.0 WHERE c0 > 8.0
==== from oracle/wss/testdata/pg-rr-documented-views.txn
SELECT MAX(c1) AS a0 FROM t0 WHERE NOT (UPPER(c1) <> c2)
==== from oracle/wss/testdata/pg-rr-documented-views.txn
UPDATE t1 SET c0 = c0 - 1.75 WHERE c0 <= -3.25
==== from oracle/wss/testdata/pg-rr-documented-views.txn
SELECT COUNT(*) AS a0, COUNT(*) AS a1 FROM t1
==== from oracle/wss/testdata/replbug-mdev-25297-ser.txn
ALTER TABLE ti CHANGE COLUMN c c BINARY (1)
==== from oracle/wss/testdata/replbug-mdev-25297-ser.txn
CREATE TEMPORARY TABLE t(a INT)
==== from oracle/wss/testdata/replbug-mdev-25297-ser.txn
SAVEPOINT a3
==== from oracle/wss/testdata/replbug-mdev-25297-ser.txn
CREATE OR REPLACE TEMPORARY TABLE t (a INT,b INT)
==== from oracle/wss/testdata/replbug-mdev-25297-ser.txn
ROLLBACK TO SAVEPOINT a3
==== from oracle/wss/testdata/ser-orders-not-searched.txn
SELECT COUNT(c0) AS a0, COUNT(*) AS a1, MAX(c1) AS a2 FROM t0
==== from oracle/wss/testdata/replbug-mdev-16024-ser.txn
create or replace table t1 (
    x int(11) default null,
    row_start bigint(20) unsigned generated always as row start invisible,
    row_end bigint(20) unsigned generated always as row end invisible,
    period for system_time (row_start, row_end)
) engine=innodb with system versioning
==== from oracle/wss/testdata/replbug-mdev-16024-ser.txn
START TRANSACTION
==== from oracle/wss/testdata/replbug-mdev-16024-ser.txn
commit
==== from oracle/wss/testdata/replbug-mdev-16024-ser.txn
select @ts
==== from oracle/wss/testdata/ser-limit-ties.txn
SELECT t0.c0, t0.c0 FROM t0 LOCK IN SHARE MODE
==== from oracle/wss/testdata/failed-autocommit-sqlite.txn
SELECT DISTINCT (SELECT MAX(c0) FROM t0) AS a0 FROM t0
==== from htmlreport/testdata/bundles/0022-troc-incorrect-affected-bug/case.orig.txn
SELECT COALESCE(c2, TRUE) AS a0, COALESCE(c0, 'hc') AS a1, c1 FROM t0 WHERE c0 BETWEEN 'f' AND 'g'
==== from htmlreport/testdata/bundles/0022-troc-incorrect-affected-bug/case.orig.txn
SELECT c2, c2, c0 FROM t0 WHERE EXISTS (SELECT * FROM t0 WHERE c1) LOCK IN SHARE MODE
==== from htmlreport/testdata/bundles/0022-troc-incorrect-affected-bug/case.orig.txn
SELECT COUNT(c2) AS a0, COUNT(*) AS a1 FROM t0 WHERE c1 = FALSE OR c1 <> FALSE
==== from reduce/testdata/mdev-27992-padded.txn
SELECT k, v FROM u WHERE k = 2
==== from reduce/testdata/mdev-27992-padded.txn
UPDATE u SET v = v + 1 WHERE k = 4
==== from reduce/testdata/mdev-27992-padded.txn
SELECT COUNT(*) FROM u
==== from reduce/testdata/mdev-27992-padded.txn
UPDATE u SET w = 'x' WHERE k = 1
==== from reduce/testdata/mdev-26643-padded.txn
UPDATE u SET v = 0 WHERE k = 3
==== from reduce/testdata/mdev-26643-padded.txn
SELECT v FROM u WHERE k = 1
==== from reduce/testdata/mdev-26643-padded.txn
UPDATE u SET v = v + 1 WHERE k = 2
==== CRLF line endings
SELECT 1 -- x
FROM t
==== dollar in a name
SELECT a$b FROM t$1
