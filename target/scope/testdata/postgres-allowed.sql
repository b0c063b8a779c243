==== UPDATE ONLY own
UPDATE ONLY t SET v = 1 WHERE id = 1
==== DELETE FROM ONLY own with USING
DELETE FROM ONLY t * USING u WHERE u.id = t.id
==== UPDATE … FROM own
UPDATE t SET v = u.v FROM u WHERE u.id = t.id RETURNING t.*
==== qualified by txlab's schema
UPDATE txlab.t SET v = 1 WHERE txlab.t.id = 1
==== quoted own schema
DELETE FROM "txlab"."t"
==== upsert
INSERT INTO t AS x VALUES (1, 2) ON CONFLICT (id) DO UPDATE SET v = excluded.v + x.v
==== ON CONFLICT DO NOTHING
INSERT INTO t VALUES (1) ON CONFLICT DO NOTHING
==== data-modifying CTE on own tables
WITH d AS (DELETE FROM t WHERE v < 0 RETURNING *) INSERT INTO log SELECT * FROM d
==== FOR NO KEY UPDATE
SELECT * FROM t WHERE id = 1 FOR NO KEY UPDATE OF t SKIP LOCKED
==== FOR SHARE
SELECT * FROM t FOR SHARE NOWAIT
==== catalog reads
SELECT c.relname FROM pg_catalog.pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = current_schema()
==== information_schema read
SELECT column_name FROM information_schema.columns WHERE table_name = 't'
==== pg_locks
SELECT locktype, mode FROM pg_locks WHERE pid = pg_backend_pid()
==== casts and operators
SELECT '1'::int, x::pg_catalog.text, a->>'k', b #> '{a}', c @> d, e || f FROM t
==== dollar-quoted strings
SELECT $$it's$$, $tag$ DELETE FROM shop.orders $tag$
==== E strings
SELECT E'it\'s', E'a\\b'
==== nested comments
SELECT /* a /* b */ c */ 1
==== parameters
SELECT * FROM t WHERE id = $1
==== advisory locks
SELECT pg_advisory_xact_lock(1), pg_sleep(0.01)
==== own sequences
SELECT nextval('s'), setval('txlab.s', 10), currval('"s"'::regclass)
==== SET
SET lock_timeout = '1s'
==== SET LOCAL statement_timeout
SET LOCAL statement_timeout TO 1000
==== SET TRANSACTION
SET TRANSACTION ISOLATION LEVEL SERIALIZABLE
==== SET SESSION CHARACTERISTICS
SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL REPEATABLE READ
==== SET TIME ZONE
SET TIME ZONE 'UTC'
==== SET CONSTRAINTS
SET CONSTRAINTS ALL DEFERRED
==== SET enable_seqscan
SET enable_seqscan = off
==== transaction control
BEGIN ISOLATION LEVEL SERIALIZABLE, READ ONLY, DEFERRABLE
==== BEGIN NOT DEFERRABLE
START TRANSACTION ISOLATION LEVEL REPEATABLE READ NOT DEFERRABLE
==== END
END
==== ABORT
ABORT
==== SAVEPOINT
SAVEPOINT a3
==== RELEASE
RELEASE SAVEPOINT a3
==== ROLLBACK TO
ROLLBACK TO a3
==== CREATE TABLE
CREATE TABLE c (id int PRIMARY KEY, pid int REFERENCES p (id) ON DELETE CASCADE, v text CHECK (v LIKE 'a%'))
==== CREATE TABLE LIKE own
CREATE TABLE t2 (LIKE t INCLUDING ALL)
==== CREATE TEMP TABLE AS
CREATE TEMP TABLE t2 AS SELECT * FROM t WITH NO DATA
==== CREATE UNLOGGED TABLE
CREATE UNLOGGED TABLE IF NOT EXISTS u (a serial, b int GENERATED ALWAYS AS (a * 2) STORED)
==== CREATE INDEX
CREATE UNIQUE INDEX CONCURRENTLY IF NOT EXISTS i ON ONLY t USING btree (v) WHERE v > 0
==== CREATE INDEX without a name
CREATE INDEX ON t (v)
==== DROP INDEX
DROP INDEX IF EXISTS i
==== CREATE VIEW
CREATE OR REPLACE VIEW v AS SELECT * FROM t
==== CREATE MATERIALIZED VIEW
CREATE MATERIALIZED VIEW mv AS SELECT count(*) FROM t
==== ALTER TABLE
ALTER TABLE t ADD COLUMN w int DEFAULT 0, ALTER COLUMN v SET NOT NULL, RENAME TO t3
==== ALTER TABLE RENAME COLUMN
ALTER TABLE t RENAME COLUMN v TO w
==== DROP TABLE list
DROP TABLE IF EXISTS t, u RESTRICT
==== TRUNCATE
TRUNCATE t, u RESTART IDENTITY
==== LOCK
LOCK TABLE t IN SHARE ROW EXCLUSIVE MODE NOWAIT
==== LOCK without TABLE
LOCK t, u
==== TABLE
TABLE t
==== VALUES
VALUES (1, 'a'), (2, 'b')
==== SHOW
SHOW transaction_isolation
==== EXPLAIN ANALYZE own
EXPLAIN (ANALYZE, COSTS OFF) SELECT * FROM t
==== IS DISTINCT FROM
SELECT * FROM t a WHERE a.v IS DISTINCT FROM a.w
==== generate_series
SELECT * FROM generate_series(1, 3) g, LATERAL (SELECT g * 2) x
==== EXTRACT
SELECT EXTRACT(epoch FROM t.ts), substring(t.s FROM 2), position('a' IN t.s), overlay(t.s PLACING 'x' FROM 1) FROM t
==== row field
SELECT (t.c).f, (t).* FROM t
==== array
SELECT ARRAY[1, 2][1], '{1,2}'::int[]
==== standard string with a backslash reads the same both ways
SELECT 'a\b'
==== SELECT INTO own
SELECT * INTO TEMP t9 FROM t
==== ANALYZE
ANALYZE t
==== RETURNING
DELETE FROM t WHERE id = 1 RETURNING id, v
==== sequence create
CREATE SEQUENCE s START 1
==== from bugs/doc-pg-rc-update-recheck.txn
CREATE TABLE website (hits INT)
==== from bugs/doc-pg-rc-update-recheck.txn
INSERT INTO website VALUES (9), (10)
==== from bugs/doc-pg-rc-update-recheck.txn
BEGIN
==== from bugs/doc-pg-rc-update-recheck.txn
UPDATE website SET hits = hits + 1
==== from bugs/doc-pg-rc-update-recheck.txn
DELETE FROM website WHERE hits = 10
==== from bugs/doc-pg-rc-update-recheck.txn
COMMIT
==== from bugs/doc-pg-rr-write-skew.txn
CREATE TABLE doctors (name VARCHAR(10) PRIMARY KEY, on_call INT)
==== from bugs/doc-pg-rr-write-skew.txn
INSERT INTO doctors VALUES ('alice', 1), ('bob', 1)
==== from bugs/doc-pg-rr-write-skew.txn
SELECT COUNT(*) FROM doctors WHERE on_call = 1
==== from bugs/doc-pg-rr-write-skew.txn
UPDATE doctors SET on_call = 0 WHERE name = 'alice'
==== from bugs/doc-pg-rr-write-skew.txn
UPDATE doctors SET on_call = 0 WHERE name = 'bob'
==== from bugs/pg-ssi-on-conflict-do-nothing.txn
CREATE TABLE t0 (c0 VARCHAR(20) UNIQUE)
==== from bugs/pg-ssi-on-conflict-do-nothing.txn
INSERT INTO t0 (c0) VALUES ('bh')
==== from bugs/pg-ssi-on-conflict-do-nothing.txn
INSERT INTO t0 (c0) VALUES ('bh') ON CONFLICT (c0) DO NOTHING
==== from bugs/pg-ssi-on-conflict-do-nothing.txn
DELETE FROM t0
==== from examples/design-read-committed.txn
CREATE TABLE t (c1 DOUBLE PRECISION)
==== from examples/design-read-committed.txn
UPDATE t SET c1 = 3.0 WHERE c1 = 2.0
==== from examples/mariadb-rc-update-delete.txn
UPDATE t SET v = 11 WHERE id = 1
==== from examples/mariadb-rc-update-delete.txn
DELETE FROM t WHERE v = 10
==== from examples/postgres-rr-double-update.txn
SELECT v FROM t WHERE id = 1
==== from examples/postgres-rr-double-update.txn
UPDATE t SET v = v + 1 WHERE id = 1
==== from examples/sqlite-write-busy.txn
UPDATE t SET v = 1 WHERE id = 1
==== from convert/testdata/troc/mariadb26671.txn
SELECT * FROM t
==== from convert/testdata/troc/tidb28095.txn
ROLLBACK
==== from convert/testdata/troc/tidb28092.txn
INSERT IGNORE INTO t VALUES (NULL, NULL)
==== from convert/testdata/troc/tidb30239.txn
DELETE FROM t WHERE a = 1
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
==== from oracle/wss/testdata/failed-autocommit-pg.txn
SELECT MAX(c1) AS a0, COUNT(c1) AS a1, MAX(c0) AS a2 FROM t0 WHERE NOT (c1 IS NULL)
==== from oracle/wss/testdata/failed-autocommit-pg.txn
SELECT c0 AS a0, c0 AS a1 FROM t1 UNION ALL SELECT c0, c0 FROM t1 WHERE c0 NOT IN (SELECT c1 FROM t0) ORDER BY a1
==== from oracle/wss/testdata/failed-autocommit-pg.txn
SELECT MIN(c0) AS a0, COUNT(*) AS a1, COUNT(*) AS a2 FROM t1 WHERE EXISTS (SELECT * FROM t1 WHERE c0 = 21 OR c0 = 2)
==== from oracle/wss/testdata/failed-autocommit-pg.txn
SELECT COUNT(*) AS a0 FROM t0 WHERE c0 IN ('fgh', 'fgh') AND c0 > 'fgh'
==== from oracle/wss/testdata/failed-autocommit-pg.txn
SELECT MAX(c0) AS a0 FROM t0 WHERE c1 NOT BETWEEN 12.75 AND 24.74 OR c0 >= 'fgh'
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
UPDATE u SET w = 'x' WHERE k = 1
==== from reduce/testdata/mdev-26643-padded.txn
UPDATE u SET v = 0 WHERE k = 3
==== from reduce/testdata/mdev-26643-padded.txn
SELECT v FROM u WHERE k = 1
==== from reduce/testdata/mdev-26643-padded.txn
UPDATE u SET v = v + 1 WHERE k = 2
==== partitions of own tables
CREATE TABLE p (a int) PARTITION BY LIST (a)
==== a partition of an own table
CREATE TABLE p1 PARTITION OF p FOR VALUES IN (1)
==== identity and serial
CREATE TABLE t (id int GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY, n serial)
==== activity
SELECT pid, state FROM pg_stat_activity WHERE datname = current_database()
==== datestyle
SET datestyle TO ISO, YMD
==== txid
SELECT txid_current(), pg_current_xact_id()
==== MERGE on own tables
MERGE INTO t USING (SELECT 1 AS a) s ON true WHEN MATCHED THEN DELETE
==== MERGE with an alias, WHEN conditions and every action
MERGE INTO t AS x USING u AS s ON x.id = s.id WHEN MATCHED AND s.v > 0 THEN UPDATE SET v = s.v + x.v WHEN MATCHED THEN DELETE WHEN NOT MATCHED AND s.v IS NOT NULL THEN INSERT (id, v) VALUES (s.id, s.v) WHEN NOT MATCHED THEN DO NOTHING
==== MERGE qualified by txlab's schema, INSERT without columns
MERGE INTO txlab.t USING txlab.u ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (u.id, 0)
==== MERGE using a subquery over own tables
MERGE INTO t USING (SELECT id, max(v) AS v FROM u GROUP BY id) AS s ON t.id = s.id WHEN MATCHED THEN UPDATE SET v = s.v
==== data-modifying CTE followed by a write
WITH w AS (UPDATE t SET v = v + 1 WHERE id > 1 RETURNING id) DELETE FROM u WHERE id IN (SELECT id FROM w)
==== a table name of 63 bytes
CREATE TABLE ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt (a INT)
==== a quoted name of 63 bytes
SELECT * FROM "ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt"
==== a string longer than a name
INSERT INTO t VALUES ('tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt')
==== UTF-8 in a string
INSERT INTO t VALUES ('café 漢字 ソ表')
==== convert_to makes bytes in another encoding, as a value
SELECT convert_to('x', 'SJIS')
==== reading client_encoding
SHOW client_encoding
==== comments nested 32 deep
SELECT 1 /*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/* x */*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/
