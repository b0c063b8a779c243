==== comma list in multi-table DELETE
DELETE b FROM t a, shop.orders b
==== multi-table UPDATE
UPDATE t a, shop.orders b SET b.total = 0 WHERE a.id = b.id
==== multi-table UPDATE with JOIN
UPDATE t JOIN shop.orders o ON t.id = o.id SET o.total = 0
==== DROP TABLE list
DROP TABLE t, shop.t
==== DROP TABLE IF EXISTS list
DROP TABLE IF EXISTS t, `shop`.`t`
==== comment after the keyword
UPDATE/**/shop.orders SET total = 0
==== -- comment after the keyword
UPDATE -- 
shop.orders SET total = 0
==== # comment after the keyword
UPDATE #
shop.orders SET total = 0
==== executable comment
/*!UPDATE*/ shop.orders SET total = 0
==== versioned executable comment
UPDATE /*!50000 shop.orders */ SET total = 0
==== MariaDB executable comment
/*M!100100 DROP TABLE shop.t */
==== UPDATE IGNORE
UPDATE IGNORE shop.orders SET total = 0
==== UPDATE LOW_PRIORITY
UPDATE LOW_PRIORITY shop.orders SET total = 0
==== INSERT without INTO
INSERT shop.orders VALUES (1)
==== REPLACE without INTO
REPLACE shop.orders VALUES (1)
==== INSERT IGNORE INTO
INSERT IGNORE INTO shop.orders VALUES (1)
==== INSERT … SELECT reading another database
INSERT INTO t SELECT * FROM shop.orders
==== TRUNCATE
TRUNCATE shop.orders
==== TRUNCATE TABLE
TRUNCATE TABLE shop.orders
==== CALL
CALL shop.cleanup()
==== CALL unqualified
CALL cleanup()
==== PREPARE
PREPARE s FROM 'DROP TABLE shop.t'
==== EXECUTE
EXECUTE s
==== EXECUTE IMMEDIATE
EXECUTE IMMEDIATE 'DROP TABLE shop.t'
==== DEALLOCATE
DEALLOCATE PREPARE s
==== LOAD DATA
LOAD DATA INFILE '/etc/passwd' INTO TABLE t
==== LOAD DATA LOCAL
LOAD DATA LOCAL INFILE 'x' INTO TABLE shop.t
==== LOAD XML
LOAD XML INFILE '/tmp/x.xml' INTO TABLE t
==== RENAME TABLE out of the database
RENAME TABLE t TO shop.stolen
==== RENAME TABLE into the database
RENAME TABLE shop.t TO txlab.stolen
==== RENAME TABLE list
RENAME TABLE a TO b, shop.t TO c
==== ALTER TABLE RENAME
ALTER TABLE t RENAME TO shop.t
==== ALTER TABLE RENAME AS
ALTER TABLE t RENAME AS shop.t
==== SET GLOBAL
SET GLOBAL event_scheduler=ON
==== SET @@global
SET @@global.event_scheduler = ON
==== SET @@GLOBAL upper case
SET @@GLOBAL.general_log = 1
==== SET PERSIST
SET PERSIST max_connections = 1
==== SET list hiding GLOBAL
SET @x = 1, GLOBAL max_connections = 1
==== SET list hiding @@global
SET sql_mode = '', @@global.read_only = 1
==== SET sql_log_bin
SET sql_log_bin = 0
==== SET SESSION sql_log_bin
SET SESSION sql_log_bin = 0
==== SET debug
SET debug_dbug = '+d,crash'
==== CREATE EVENT
CREATE EVENT e ON SCHEDULE EVERY 1 SECOND DO DELETE FROM shop.orders
==== SHUTDOWN
SHUTDOWN
==== RESTART
RESTART
==== GRANT
GRANT ALL ON *.* TO 'bob'@'%'
==== REVOKE
REVOKE ALL ON *.* FROM 'root'@'localhost'
==== CREATE USER
CREATE USER bob IDENTIFIED BY 'x'
==== DROP USER
DROP USER 'root'@'localhost'
==== ALTER USER
ALTER USER root IDENTIFIED BY 'x'
==== RENAME USER
RENAME USER root TO toor
==== SET PASSWORD
SET PASSWORD FOR root = PASSWORD('x')
==== SET ROLE
SET ROLE admin
==== SET DEFAULT ROLE
SET DEFAULT ROLE admin TO bob
==== KILL
KILL 1
==== KILL QUERY
KILL QUERY 1
==== INTO OUTFILE
SELECT * FROM t INTO OUTFILE '/tmp/x'
==== INTO DUMPFILE
SELECT 'x' INTO DUMPFILE '/var/lib/mysql/x'
==== INTO OUTFILE before FROM
SELECT a INTO OUTFILE '/tmp/x' FROM t
==== LOAD_FILE
SELECT LOAD_FILE('/etc/passwd')
==== LOAD_FILE in an INSERT
INSERT INTO t VALUES (LOAD_FILE('/etc/shadow'))
==== LOAD_FILE with a space and a comment
SELECT load_file /**/ ('/etc/passwd')
==== USE
USE shop
==== CREATE DATABASE
CREATE DATABASE x
==== DROP DATABASE
DROP DATABASE shop
==== DROP SCHEMA
DROP SCHEMA IF EXISTS shop
==== ALTER DATABASE
ALTER DATABASE shop CHARACTER SET latin1
==== reading another database
SELECT * FROM shop.orders
==== JOIN to another database
SELECT * FROM t JOIN shop.orders o ON o.id = t.id
==== comma after ON
SELECT * FROM t a JOIN u b ON a.id = b.id, shop.orders c
==== subquery in WHERE
DELETE FROM t WHERE id IN (SELECT id FROM shop.orders)
==== derived table
SELECT * FROM (SELECT * FROM shop.orders) x
==== CTE
WITH x AS (SELECT * FROM shop.orders) SELECT * FROM x
==== an alias named like the database
DELETE o FROM t AS shop, shop.orders o
==== multi-table DELETE USING
DELETE FROM t1, shop.t2 USING t1 JOIN shop.t2
==== DELETE target list qualified
DELETE shop.orders FROM shop.orders
==== DELETE target with .*
DELETE t.*, shop.orders.* FROM t, shop.orders
==== quoted database
UPDATE `shop`.`orders` SET a = 1
==== ANSI quotes
UPDATE "shop"."orders" SET a = 1
==== whitespace around the dot
UPDATE shop . orders SET a = 1
==== comment around the dot
UPDATE shop/**/./**/orders SET a = 1
==== case of txlab's database differs
UPDATE TXLAB.t SET a = 1
==== three-part name
SELECT shop.orders.id FROM t
==== CREATE TABLE LIKE
CREATE TABLE t LIKE shop.orders
==== CREATE TABLE AS SELECT
CREATE TABLE t AS SELECT * FROM shop.orders
==== CREATE TABLE SELECT
CREATE TABLE t SELECT * FROM shop.orders
==== REFERENCES another database
CREATE TABLE t (a INT, FOREIGN KEY (a) REFERENCES shop.orders (id))
==== ALTER TABLE ADD FOREIGN KEY
ALTER TABLE t ADD FOREIGN KEY (a) REFERENCES shop.orders (id)
==== CREATE VIEW over another database
CREATE VIEW v AS SELECT * FROM shop.orders
==== CREATE VIEW in another database
CREATE VIEW shop.v AS SELECT 1
==== CREATE VIEW with DEFINER
CREATE DEFINER = 'root'@'localhost' SQL SECURITY DEFINER VIEW v AS SELECT 1
==== CREATE INDEX on another database
CREATE INDEX i ON shop.orders (a)
==== DROP INDEX on another database
DROP INDEX i ON shop.orders
==== LOCK TABLES
LOCK TABLES t READ, shop.orders WRITE
==== LOCK TABLES after READ LOCAL
LOCK TABLES t AS shop READ LOCAL, shop.orders WRITE
==== LOCK INSTANCE
LOCK INSTANCE FOR BACKUP
==== FLUSH
FLUSH TABLES WITH READ LOCK
==== FLUSH PRIVILEGES
FLUSH PRIVILEGES
==== PURGE
PURGE BINARY LOGS BEFORE NOW()
==== INSTALL PLUGIN
INSTALL PLUGIN x SONAME 'x.so'
==== CHANGE MASTER
CHANGE MASTER TO MASTER_HOST = 'evil'
==== two statements
SELECT 1; DROP TABLE shop.t
==== two statements after a comment
SELECT 1 /* x */ ; -- y
DROP TABLE t
==== BEGIN NOT ATOMIC
BEGIN NOT ATOMIC DROP DATABASE shop END
==== START SLAVE
START SLAVE
==== ENGINE=CONNECT
CREATE TABLE t (a TEXT) ENGINE=CONNECT TABLE_TYPE=DOS FILE_NAME='/etc/passwd'
==== FEDERATED
CREATE TABLE t (a INT) ENGINE=FEDERATED CONNECTION='mysql://u@h/db/t'
==== DATA DIRECTORY
CREATE TABLE t (a INT) DATA DIRECTORY = '/tmp'
==== a function in another database
SELECT shop.f(1)
==== a sequence in another database
SELECT NEXTVAL(shop.s)
==== a sequence with an alias named like the database
SELECT SETVAL(shop.s, 100) FROM t AS shop
==== NEXT VALUE FOR
SELECT NEXT VALUE FOR shop.s
==== the registry
DELETE FROM txlab_owned_tables
==== the registry quoted
DROP TABLE `TXLAB_OWNED_TABLES`
==== the registry qualified
TRUNCATE txlab.txlab_owned_tables
==== string with a backslash hiding a name under NO_BACKSLASH_ESCAPES
UPDATE t, (SELECT '\') x, shop.orders o SET o.v = 0 WHERE '' = ''
==== a backslash hiding a name
DELETE FROM t WHERE a = '\' OR 1 IN (SELECT 1 FROM shop.orders) OR a = ''
==== unterminated string
SELECT 'abc
==== unterminated comment
SELECT 1 /* abc
==== ODBC escape
SELECT * FROM {oj t LEFT OUTER JOIN shop.orders o ON 1}
==== HANDLER [unknown]
HANDLER t OPEN
==== SET STATEMENT
SET STATEMENT max_statement_time = 1 FOR DELETE FROM shop.orders
==== INSERT … ON DUPLICATE KEY UPDATE reading another database
INSERT INTO t VALUES (1) ON DUPLICATE KEY UPDATE a = (SELECT max(id) FROM shop.orders)
==== SELECT FOR UPDATE of information_schema
SELECT * FROM information_schema.tables FOR UPDATE
==== UPDATE of performance_schema
UPDATE performance_schema.setup_consumers SET enabled = 'NO'
==== UPDATE joined to performance_schema
UPDATE t JOIN performance_schema.setup_consumers c ON 1 SET c.enabled = 'NO'
==== DELETE from performance_schema through an alias
DELETE c FROM t JOIN performance_schema.setup_actors c ON 1
==== mysql.user written
UPDATE mysql.user SET authentication_string = ''
==== mysql.user read in a write
INSERT INTO t SELECT user FROM mysql.user
==== an unknown statement [unknown]
OPTIMIZE TABLE t
==== an unknown session variable [unknown]
SET some_new_variable = 1
==== CALL of a routine in mysql
CALL mysql.rds_kill(1)
==== SHOW GRANTS (the case account's password hash; red team 3)
SHOW GRANTS
==== SHOW GRANTS FOR CURRENT_USER
SHOW GRANTS FOR CURRENT_USER()
==== SHOW CREATE USER
SHOW CREATE USER CURRENT_USER
==== show grants, lower case
show grants for root@localhost
==== SHOW is fine, this is not
SHOW TABLES; DROP TABLE t
==== a string as the table of a DELETE
DELETE FROM "shop".orders
==== EXPLAIN ANALYZE runs the statement
EXPLAIN ANALYZE DELETE FROM shop.orders
==== DESCRIBE of a DELETE
DESCRIBE DELETE FROM shop.orders
==== WITH then DELETE
WITH x AS (SELECT 1) DELETE shop.orders FROM shop.orders
==== CREATE TRIGGER
CREATE TRIGGER tr BEFORE INSERT ON t FOR EACH ROW DELETE FROM shop.orders
==== CREATE PROCEDURE
CREATE PROCEDURE p() DELETE FROM shop.orders
==== CREATE FUNCTION
CREATE FUNCTION f() RETURNS INT RETURN 1
==== ALTER EVENT
ALTER EVENT e ENABLE
==== DROP EVENT
DROP EVENT e
==== SET GLOBAL TRANSACTION
SET GLOBAL TRANSACTION ISOLATION LEVEL READ UNCOMMITTED
==== ANALYZE another database
ANALYZE TABLE t, shop.orders
==== CHECK another database
CHECK TABLE shop.orders
==== BINLOG
BINLOG 'abc'
==== table in digits-first form
UPDATE 1shop.orders SET a = 1
==== a backslash: read without escapes, the string ends early and the rest is code
UPDATE t, (SELECT '\') x, shop.orders o SET o.v = 0 -- ')
==== a backslash in a double-quoted string
UPDATE t, (SELECT "\") x, shop.orders o SET o.v = 0 -- ")
==== ANSI_QUOTES alone: '…' keeps its escapes, "…" is a name without them
UPDATE t, (SELECT "\") x, shop.orders o SET o.v = '\' -- ")
==== MySQL 8 hint setting a variable
SELECT /*+ SET_VAR(sql_log_bin = 0) */ 1
==== a lone carriage return in a comment
SELECT 1 # x, shop.orders
==== a column named like a keyword must not hide the FROM list
DELETE shop FROM t AS view JOIN shop.orders AS shop
==== the same with SEQUENCE
DELETE shop FROM t AS sequence JOIN shop.orders AS shop
==== the same with TABLES
DELETE shop FROM t AS tables JOIN shop.orders AS shop
==== an index hint's FOR must not end the table list
UPDATE t USE INDEX FOR JOIN (PRIMARY), shop.orders AS shop SET shop.v = 0
==== an index hint's FOR ORDER BY must not end the table list
DELETE shop FROM t IGNORE INDEX FOR ORDER BY (i), shop.orders AS shop
==== FOR SYSTEM_TIME must not end the table list
UPDATE t FOR SYSTEM_TIME ALL, shop.orders AS shop SET shop.v = 0
==== TiDB ADMIN
ADMIN CANCEL DDL JOBS 1
==== TiDB SET CONFIG
SET CONFIG tikv `split.qps-threshold` = 1000
==== TiDB FLASHBACK
FLASHBACK CLUSTER TO TIMESTAMP '2020-01-01 00:00:00'
==== ALTER VIEW of another database with an alias named like it
ALTER VIEW shop.v AS SELECT 1 FROM t AS shop
==== an unknown engine [unknown]
CREATE TABLE t (a INT) ENGINE=ColumnStore
==== MySQL DO with a denied function
DO LOAD_FILE('/etc/passwd')
==== MySQL DO reading another database
DO (SELECT COUNT(*) FROM shop.orders)
==== XA START: a prepared XA transaction outlives the run
XA START 'x1'
==== XA BEGIN
XA BEGIN 'x1'
==== XA END
XA END 'x1'
==== XA PREPARE
XA PREPARE 'x1'
==== XA COMMIT ends another application's prepared transaction
XA COMMIT 'x1'
==== XA COMMIT ONE PHASE
XA COMMIT 'x1' ONE PHASE
==== XA ROLLBACK
xa rollback 'tx1'
==== XA RECOVER lists other applications' xids
XA RECOVER
==== XA RECOVER FORMAT
XA RECOVER FORMAT='SQL'
==== XA with a full xid
XA START X'31',X'32',3
==== SET NAMES changes how the server reads the next statement's bytes
SET NAMES gbk
==== SET NAMES utf8mb4 too: txlab pins the encoding, a case never sets it
SET NAMES utf8mb4
==== SET NAMES with a collation
SET NAMES sjis COLLATE sjis_japanese_ci
==== SET NAMES DEFAULT
SET NAMES DEFAULT
==== SET CHARACTER SET
SET CHARACTER SET big5
==== SET CHARSET
SET CHARSET cp932
==== SET NAMES after an assignment
SET autocommit = 1, NAMES gbk
==== SET CHARACTER SET after an assignment
SET autocommit = 1, CHARACTER SET gbk
==== character_set_client
SET character_set_client = gbk
==== character_set_client in upper case, SESSION
SET SESSION CHARACTER_SET_CLIENT = gbk
==== @@character_set_client
SET @@character_set_client = 'gbk'
==== @@session.character_set_client
SET @@session.character_set_client = gbk
==== @@local.character_set_connection
SET @@local.character_set_connection = gbk
==== character_set_results
SET character_set_results = NULL
==== collation_connection changes character_set_connection
SET collation_connection = gbk_chinese_ci
==== quoted character_set_client
SET `character_set_client` = gbk
==== @@session. with a quoted name
SET @@session.`character_set_client` = gbk
==== a lone @@session.
SET @@session. = 1
==== a later assignment sets the encoding
SET sql_mode = '', character_set_client = sjis
==== GBK lead byte before a backslash: the server reads the string as ending there
SELECT '�\' ; CREATE USER x'
==== a statement that is not UTF-8
SELECT 'caf�'
==== a table name of 65 characters
CREATE TABLE ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt (a INT)
==== a quoted column name of 65 characters
SELECT `ttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttttt` FROM t
==== a 65-character name of 2-byte characters
CREATE TABLE ééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééééé (a INT)
==== a table name with a backslash (made, then never recorded: it blocked every later run)
CREATE TABLE `a\\` (id INT PRIMARY KEY)
==== a column name with a backslash
SELECT `c\\` FROM t
==== a table name after the dot that starts with digits (MySQL reads test.1e5 as database test, table 1e5)
CREATE TABLE test.1e5 (id INT)
==== the same, a user's table
UPDATE test.2024_orders SET amount = 0 WHERE id = 1
==== the same, read
SELECT * FROM test.2024_orders
==== the same, quoted database
DELETE FROM `test`.2024_orders WHERE id = 2
==== the same, dropped
DROP TABLE test.2024_orders
==== a case table renamed out under a digit name
RENAME TABLE t TO test.1stolen
==== a name with the #mysql50# prefix (the server's file-name encoding)
DELETE FROM `#mysql50#t` WHERE id = 0
==== txlab's record through the #mysql50# prefix
SELECT * FROM `#MySQL50#txlab_owned_tables`
==== a table made through the #mysql50# prefix
CREATE TABLE `#mysql50#shop@002forders` (id INT)
==== a column named with the #mysql50# prefix
SELECT `#mysql50#id` FROM t
