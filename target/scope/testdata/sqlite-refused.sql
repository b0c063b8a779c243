==== ATTACH after a comment
/**/ATTACH 'victim.db' AS v
==== ATTACH DATABASE
ATTACH DATABASE '/tmp/victim.db' AS v
==== DETACH
DETACH v
==== DELETE from an attached database after a comment
DELETE FROM/**/v.data
==== DELETE from an attached database
DELETE FROM v.data WHERE 1
==== quoted attached database
DELETE FROM "v"."data"
==== bracketed attached database
DELETE FROM [v].[data]
==== string names
DELETE FROM 'v'.'data'
==== backquoted
UPDATE `v`.data SET a = 1
==== INSERT into an attached database
INSERT INTO v.data VALUES (1)
==== INSERT OR REPLACE into an attached database
INSERT OR REPLACE INTO v.data VALUES (1)
==== REPLACE into an attached database
REPLACE INTO v.data VALUES (1)
==== reading an attached database
SELECT * FROM v.data
==== VACUUM INTO a new file
VACUUM INTO '/tmp/copy.db'
==== VACUUM
VACUUM
==== VACUUM a schema
VACUUM main INTO 'x.db'
==== PRAGMA writable_schema
PRAGMA writable_schema = ON
==== PRAGMA journal_mode write
PRAGMA journal_mode = DELETE
==== PRAGMA journal_mode call form
PRAGMA journal_mode(OFF)
==== PRAGMA of another database
PRAGMA v.table_info(data)
==== PRAGMA busy_timeout write
PRAGMA busy_timeout = 5000
==== PRAGMA unknown [unknown]
PRAGMA some_new_pragma
==== load_extension
SELECT load_extension('/tmp/evil.so')
==== readfile
SELECT readfile('/etc/passwd')
==== writefile
SELECT writefile('/tmp/x', 'y')
==== fts3_tokenizer
SELECT fts3_tokenizer('x', x'00')
==== two statements
SELECT 1; ATTACH 'x' AS y
==== CREATE TABLE in an attached database
CREATE TABLE v.t (a INT)
==== CREATE INDEX on an attached database
CREATE INDEX v.i ON t (a)
==== DROP TABLE in an attached database
DROP TABLE IF EXISTS v.data
==== ALTER TABLE in an attached database
ALTER TABLE v.data RENAME TO x
==== CREATE TRIGGER
CREATE TRIGGER tr AFTER INSERT ON t BEGIN DELETE FROM v.data; END
==== CREATE VIEW over an attached database
CREATE TEMP VIEW x AS SELECT * FROM v.data
==== CTE over an attached database
WITH x AS (SELECT * FROM v.data) DELETE FROM t WHERE a IN (SELECT a FROM x)
==== sqlite_dbpage
UPDATE sqlite_dbpage SET data = zeroblob(4096) WHERE pgno = 1
==== CREATE VIRTUAL TABLE over a file
CREATE VIRTUAL TABLE temp.f USING csv(filename = '/etc/passwd')
==== the registry
DELETE FROM txlab_owned_tables
==== the registry in brackets
DROP TABLE [txlab_owned_tables]
==== REINDEX [unknown]
REINDEX t
==== unterminated comment
SELECT 1 /* x
==== nested comments do not nest in SQLite
SELECT 1 /* /* */ FROM v.data */
==== a USE
USE v
==== UPDATE OR REPLACE with an alias named like the database
UPDATE OR REPLACE v.data AS v SET a = 1
==== dollar in a name
DELETE FROM v$x.data
