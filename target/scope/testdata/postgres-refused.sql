==== UPDATE ONLY
UPDATE ONLY shop.orders SET total = 0
==== DELETE FROM ONLY
DELETE FROM ONLY shop.orders
==== DELETE FROM ONLY inside WITH
WITH x AS (DELETE FROM ONLY shop.orders RETURNING *) SELECT * FROM x
==== UPDATE inside WITH
WITH x AS (UPDATE shop.orders SET total = 0 RETURNING 1) SELECT 1
==== INSERT inside WITH
WITH x AS (INSERT INTO shop.orders VALUES (1) RETURNING 1) SELECT 1
==== UPDATE … FROM another schema
UPDATE t SET v = o.total FROM shop.orders o WHERE o.id = t.id
==== DELETE … USING another schema
DELETE FROM t USING shop.orders o WHERE o.id = t.id
==== TRUNCATE
TRUNCATE shop.orders
==== TRUNCATE list
TRUNCATE t, shop.orders
==== TRUNCATE ONLY
TRUNCATE ONLY shop.orders
==== TRUNCATE CASCADE
TRUNCATE t CASCADE
==== DROP TABLE CASCADE
DROP TABLE t CASCADE
==== COPY FROM a file
COPY t FROM '/etc/passwd'
==== COPY TO PROGRAM
COPY t TO PROGRAM 'rm -rf /'
==== COPY query TO
COPY (SELECT 1) TO '/tmp/x'
==== SET search_path
SET search_path = shop
==== SET search_path TO
SET search_path TO shop, public
==== SET LOCAL search_path
SET LOCAL search_path = shop
==== SET SESSION search_path
SET SESSION search_path = 'shop'
==== set_config
SELECT set_config('search_path', 'shop', false)
==== set_config qualified
SELECT pg_catalog.set_config('search_path', 'shop', false)
==== set_config quoted
SELECT "set_config"('search_path', 'shop', false)
==== RESET search_path
RESET search_path
==== RESET ALL
RESET ALL
==== DISCARD ALL
DISCARD ALL
==== DO block
DO $$ BEGIN DELETE FROM shop.orders; END $$
==== DO block with a tag
DO $x$ BEGIN EXECUTE 'DROP TABLE shop.orders'; END $x$
==== DO LANGUAGE
DO LANGUAGE plpgsql 'BEGIN NULL; END'
==== E string ending in a backslash hid the table name
DELETE FROM t WHERE a = E'\\' OR a IN (SELECT 1 FROM shop.orders) OR a = ''
==== E string escaped quote
SELECT E'\'' , (SELECT count(*) FROM shop.orders)
==== standard_conforming_strings off: string ending in a backslash
SELECT '\' , pg_terminate_backend(1) -- '
==== standard_conforming_strings off: hidden write in a CTE
WITH a AS (SELECT '\'), b AS (DELETE FROM shop.orders RETURNING 1) SELECT 1 -- ')
==== SET standard_conforming_strings
SET standard_conforming_strings = off
==== CALL
CALL shop.p()
==== PREPARE
PREPARE p AS DELETE FROM shop.orders
==== EXECUTE
EXECUTE p
==== CREATE TABLE AS EXECUTE
CREATE TABLE x AS EXECUTE p
==== PREPARE TRANSACTION
PREPARE TRANSACTION 'x'
==== COMMIT PREPARED
COMMIT PREPARED 'x'
==== ROLLBACK PREPARED
ROLLBACK PREPARED 'foreign'
==== comment before DROP DATABASE
/* */ DROP DATABASE otherdb
==== nested comment before DROP DATABASE
/* /* */ */ DROP DATABASE otherdb
==== nested comment hiding a name
SELECT 1 /* /* */ FROM shop.orders */ FROM shop.orders
==== DROP OWNED
DROP OWNED BY bob
==== REASSIGN OWNED
REASSIGN OWNED BY bob TO alice
==== ALTER SYSTEM
ALTER SYSTEM SET fsync = off
==== ALTER ROLE SUPERUSER
ALTER ROLE bob SUPERUSER
==== CREATE ROLE
CREATE ROLE evil SUPERUSER LOGIN
==== CREATE USER
CREATE USER evil
==== DROP ROLE
DROP ROLE bob
==== GRANT
GRANT ALL ON ALL TABLES IN SCHEMA shop TO PUBLIC
==== SET ROLE
SET ROLE postgres
==== SET SESSION AUTHORIZATION
SET SESSION AUTHORIZATION postgres
==== SET SCHEMA (search_path by another name; red team 3, --trust-case)
SET SCHEMA 'public'
==== SET SESSION SCHEMA
SET SESSION SCHEMA 'public'
==== SET LOCAL SCHEMA
SET LOCAL SCHEMA public
==== SET search_path
SET search_path = public
==== SET LOCAL search_path TO
SET LOCAL search_path TO shop, public
==== SET session_replication_role
SET session_replication_role = replica
==== pg_terminate_backend
SELECT pg_terminate_backend(pid) FROM pg_stat_activity
==== pg_cancel_backend
SELECT pg_cancel_backend(1)
==== NOTIFY
NOTIFY userchan, 'hello'
==== LISTEN
LISTEN userchan
==== pg_notify (NOTIFY as a function; red team 3)
SELECT pg_notify('userchan', 'hello')
==== pg_reload_conf
SELECT pg_reload_conf()
==== pg_read_file
SELECT pg_read_file('/etc/passwd')
==== pg_read_binary_file
SELECT pg_read_binary_file('/etc/passwd')
==== pg_ls_dir
SELECT pg_ls_dir('/')
==== lo_import
SELECT lo_import('/etc/passwd')
==== lo_export
SELECT lo_export(1, '/tmp/x')
==== dblink
SELECT * FROM dblink('dbname=other', 'DELETE FROM t') AS x(a int)
==== dblink_exec
SELECT dblink_exec('dbname=other', 'DROP TABLE t')
==== query_to_xml
SELECT query_to_xml('DELETE FROM shop.orders RETURNING 1', true, true, '')
==== ts_stat runs the SQL of its argument (the red team's probe wrote a user's table)
SELECT * FROM ts_stat('SELECT to_tsvector(public.add_note(''x'')::text)')
==== ts_stat qualified
SELECT * FROM pg_catalog.ts_stat('SELECT to_tsvector(set_config(''search_path'', ''public'', false))')
==== ts_rewrite's two-argument form runs the SQL of its second
SELECT ts_rewrite('a'::tsquery, 'SELECT ''a''::tsquery, (public.add_note(''x'')::text)::tsquery')
==== a quoted name with a backslash
CREATE TABLE "a\" (id INT)
SELECT setval('shop.orders_id_seq', 1)
==== setval on a quoted qualified name
SELECT setval('"shop".orders_id_seq', 1)
==== nextval on a computed name
SELECT nextval('shop.' || 'seq')
==== nextval with a regclass cast
SELECT nextval('shop.s'::regclass)
==== DEFAULT nextval of another schema's sequence
CREATE TABLE t (id int DEFAULT nextval('shop.s'))
==== CREATE INDEX on a user table
CREATE INDEX i ON shop.orders (a)
==== CREATE INDEX CONCURRENTLY on a user table
CREATE INDEX CONCURRENTLY IF NOT EXISTS i ON ONLY shop.orders USING btree (a)
==== CREATE INDEX without a name
CREATE INDEX ON shop.orders (a)
==== DROP INDEX qualified
DROP INDEX shop.orders_pkey
==== LOCK on a user table
LOCK shop.orders
==== LOCK TABLE on a user table
LOCK TABLE ONLY t, shop.orders IN ACCESS EXCLUSIVE MODE
==== dollar-quoted string hiding nothing, name outside
SELECT $$x$$, * FROM shop.orders
==== dollar-quoted string with a tag
SELECT $a$ $$ $a$ FROM shop.orders
==== two statements after a dollar string
SELECT $$;$$; DROP TABLE t
==== U& identifier
DELETE FROM U&"txlab_owned_t\0061bles"
==== U& string
SELECT U&'\0041'
==== the registry
DELETE FROM txlab_owned_tables
==== the registry upper-case quoted
DELETE FROM "TXLAB_OWNED_TABLES"
==== quoted schema differing in case
DELETE FROM "TXLAB".t
==== pg_catalog write
UPDATE pg_catalog.pg_authid SET rolsuper = true
==== unqualified catalog write
UPDATE pg_authid SET rolsuper = true
==== unqualified catalog delete
DELETE FROM pg_largeobject
==== information_schema in a write
INSERT INTO t SELECT 1 FROM information_schema.tables, shop.x
==== SELECT INTO another schema
SELECT * INTO shop.copy FROM t
==== CREATE TABLE LIKE
CREATE TABLE t (LIKE shop.orders INCLUDING ALL)
==== CREATE TABLE INHERITS
CREATE TABLE t (a int) INHERITS (shop.orders)
==== CREATE TABLE PARTITION OF
CREATE TABLE t PARTITION OF shop.orders FOR VALUES IN (1)
==== ALTER TABLE ATTACH PARTITION
ALTER TABLE t ATTACH PARTITION shop.orders FOR VALUES IN (1)
==== ALTER TABLE SET SCHEMA
ALTER TABLE t SET SCHEMA shop
==== ALTER TABLE OWNER TO
ALTER TABLE t OWNER TO bob
==== ALTER TABLE REFERENCES
ALTER TABLE t ADD CONSTRAINT f FOREIGN KEY (a) REFERENCES shop.orders (id)
==== a function in another schema
SELECT shop.transfer(1, 2)
==== a function in public
SELECT public.f()
==== a three-part table name
SELECT * FROM txlab.shop.orders
==== TABLE statement
TABLE shop.orders
==== VACUUM
VACUUM FULL
==== CLUSTER
CLUSTER
==== CHECKPOINT
CHECKPOINT
==== CREATE EXTENSION
CREATE EXTENSION dblink
==== CREATE FUNCTION
CREATE FUNCTION f() RETURNS int LANGUAGE sql AS 'DELETE FROM shop.orders RETURNING 1'
==== CREATE TRIGGER
CREATE TRIGGER tr AFTER INSERT ON t EXECUTE FUNCTION f()
==== CREATE SCHEMA
CREATE SCHEMA evil
==== DROP SCHEMA
DROP SCHEMA shop CASCADE
==== CREATE RULE
CREATE RULE r AS ON INSERT TO t DO ALSO DELETE FROM shop.orders
==== CREATE FOREIGN TABLE
CREATE FOREIGN TABLE f (a int) SERVER s
==== IMPORT FOREIGN SCHEMA
IMPORT FOREIGN SCHEMA s FROM SERVER x INTO txlab
==== LISTEN, another channel
LISTEN chan
==== CREATE DOMAIN [unknown]
CREATE DOMAIN d AS int
==== an unknown setting [unknown]
SET some.custom_setting = 1
==== ALTER DEFAULT PRIVILEGES
ALTER DEFAULT PRIVILEGES GRANT ALL ON TABLES TO PUBLIC
==== SECURITY LABEL
SECURITY LABEL ON TABLE t IS 'x'
==== EXPLAIN ANALYZE runs the statement
EXPLAIN (ANALYZE, BUFFERS) DELETE FROM shop.orders
==== EXPLAIN ANALYZE without parens
EXPLAIN ANALYZE UPDATE shop.orders SET total = 0
==== two statements
SELECT 1; SELECT 2
==== SELECT FOR UPDATE on a catalog
SELECT * FROM pg_catalog.pg_class FOR UPDATE
==== MERGE, qualified
MERGE INTO shop.orders o USING t ON true WHEN MATCHED THEN DELETE
==== MERGE using a system catalog
MERGE INTO t USING pg_catalog.pg_class c ON t.id = c.oid::int WHEN MATCHED THEN DELETE
==== MERGE using an unqualified catalog
MERGE INTO t USING pg_class c ON t.id = c.relpages WHEN MATCHED THEN UPDATE SET v = 1
==== MERGE using another schema's table
MERGE INTO t USING shop.orders o ON t.id = o.id WHEN NOT MATCHED THEN INSERT (id) VALUES (o.id)
==== MERGE using a subquery over another schema
MERGE INTO t USING (SELECT id FROM shop.orders) AS s ON t.id = s.id WHEN MATCHED THEN DELETE
==== MERGE using a subquery over a catalog
MERGE INTO t USING (SELECT oid::int AS id FROM pg_catalog.pg_class) AS s ON t.id = s.id WHEN MATCHED THEN DELETE
==== MERGE with a WHEN condition over another schema
MERGE INTO t USING u ON t.id = u.id WHEN MATCHED AND EXISTS (SELECT 1 FROM shop.orders) THEN DELETE
==== MERGE with an UPDATE value from another schema
MERGE INTO t USING u ON t.id = u.id WHEN MATCHED THEN UPDATE SET v = (SELECT max(total) FROM shop.orders)
==== MERGE inserting a value from another schema
MERGE INTO t USING u ON t.id = u.id WHEN NOT MATCHED THEN INSERT VALUES (u.id, (SELECT max(total) FROM shop.orders))
==== data-modifying CTE writing another schema
WITH d AS (DELETE FROM shop.orders RETURNING id) SELECT * FROM d
==== data-modifying CTE writing a catalog
WITH d AS (UPDATE pg_catalog.pg_class SET relpages = 0 RETURNING oid) SELECT * FROM d
==== UPDATE … FROM another schema
UPDATE t SET v = o.total FROM shop.orders o WHERE o.id = t.id
==== DELETE … USING a catalog, in a write
DELETE FROM t USING pg_catalog.pg_class c WHERE c.relpages = t.id
==== COMMENT [unknown]
COMMENT ON TABLE t IS 'x'
==== COMMENT on another schema
COMMENT ON TABLE shop.orders IS 'x'
==== ALTER SEQUENCE [unknown]
ALTER SEQUENCE s RESTART
==== pg_stat_reset
SELECT pg_stat_reset()
==== pg_advisory is fine, pg_terminate_backend is not
SELECT pg_advisory_lock(1), pg_terminate_backend(2)
==== REFRESH MATERIALIZED VIEW elsewhere
REFRESH MATERIALIZED VIEW shop.mv
==== ALTER TABLE … RENAME TO qualified
ALTER TABLE t RENAME TO shop_t; DROP TABLE t
==== unbalanced parentheses
SELECT (1
==== a keyword made a name by quoting
DELETE FROM "shop"."orders"
==== PG 18 statistics writes on another schema's table
SELECT pg_restore_relation_stats('schemaname', 'shop', 'relname', 'orders', 'reltuples', 0)
==== binary upgrade support
SELECT binary_upgrade_set_next_pg_type_oid(1)
==== a carriage return ends a comment in PostgreSQL only: a WITH hides its DELETE
WITH x AS (SELECT 1) -- x
DELETE FROM shop.orders
==== WITH ORDINALITY must not end the table list
DELETE FROM t USING unnest(ARRAY[1]) WITH ORDINALITY AS x, shop.orders AS shop
==== CockroachDB SET CLUSTER SETTING
SET CLUSTER SETTING kv.rangefeed.enabled = true
==== CockroachDB CANCEL
CANCEL QUERY '1'
==== CockroachDB ALTER RANGE
ALTER RANGE default CONFIGURE ZONE USING num_replicas = 1
==== REINDEX SCHEMA
REINDEX SCHEMA shop
==== COMMENT on another schema
COMMENT ON SCHEMA shop IS 'x'
==== brin_summarize_new_values
SELECT brin_summarize_new_values('shop.idx')
==== SET client_encoding: in SJIS a lead byte swallows the backslash after it
SET client_encoding = 'SJIS'
==== SET client_encoding TO
SET client_encoding TO 'GBK'
==== SET client_encoding UTF8 too: a case never sets it
SET client_encoding = 'UTF8'
==== SET LOCAL client_encoding
SET LOCAL client_encoding = 'BIG5'
==== SET SESSION client_encoding
SET SESSION client_encoding TO DEFAULT
==== SET NAMES
SET NAMES 'GB18030'
==== SET NAMES in upper case, unquoted
SET NAMES SJIS
==== quoted client_encoding
SET "client_encoding" = 'SJIS'
==== set_config of client_encoding
SELECT set_config('client_encoding', 'SJIS', false)
==== pg_catalog.set_config
SELECT pg_catalog.set_config('client_encoding', 'SJIS', false)
==== pg_settings is an updatable view over set_config
UPDATE pg_settings SET setting = 'SJIS' WHERE name = 'client_encoding'
==== pg_catalog.pg_settings
UPDATE pg_catalog.pg_settings SET setting = 'SJIS' WHERE name = 'client_encoding'
==== RESET client_encoding
RESET client_encoding
==== PREPARE TRANSACTION leaves a transaction behind
PREPARE TRANSACTION 'x1'
==== COMMIT PREPARED may end another application's
COMMIT PREPARED 'x1'
==== ROLLBACK PREPARED
ROLLBACK PREPARED 'x1'
==== XA is no PostgreSQL statement, and never runs
XA START 'x1'
==== SJIS lead byte before a backslash, with escapes on
SELECT E'�\' ; CREATE ROLE x SUPERUSER; SELECT '
==== a statement that is not UTF-8
SELECT 'caf�'
==== a lone continuation byte
SELECT '�'
==== a table name of 64 bytes, cut to 63 by the server
CREATE TABLE tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt (a INT)
==== a quoted table name of 64 bytes
CREATE TABLE "tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt" (a INT)
==== a 64-byte name in a query
SELECT * FROM txlab.tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt
==== a 64-byte column name
CREATE TABLE t (tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt INT)
==== 32 two-byte characters: 64 bytes
CREATE TABLE éééééééééééééééééééééééééééééééé (a INT)
==== a 64-byte sequence name
CREATE SEQUENCE tttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt
==== comments nested 33 deep (60,000 kept the server's process parsing for minutes after txlab ended)
SELECT 1 /*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/* x */*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/*/
