-- setup, in autocommit, in any terminal:
CREATE TABLE t0 (c0 VARCHAR(20));
CREATE TABLE t1 (c0 INT NOT NULL, c1 DECIMAL(10,2) NOT NULL, c2 DECIMAL(10,2) NOT NULL DEFAULT 22.11, PRIMARY KEY (c0, c1));
CREATE TABLE t2 (c0 DECIMAL(10,2) NOT NULL, c1 BOOLEAN, c2 VARCHAR(20) NOT NULL, PRIMARY KEY (c0, c2));
INSERT INTO t0 (c0) VALUES ('ah'), ('cgg'), ('ah'), ('cgg');
INSERT INTO t1 (c0, c1, c2) VALUES (25, 1.63, 7.15), (10, 1.63, 7.15), (30, 1.63, 25.57), (68, 8.16, 25.57);
INSERT INTO t2 (c0, c1, c2) VALUES (14.12, NULL, 'hb'), (14.12, TRUE, 'a'), (14.12, TRUE, 'add'), (1.25, TRUE, 'hb');

-- connection 3
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
BEGIN;
SELECT * FROM (SELECT c0 AS a0, c1 AS a1 FROM t2) AS s0 WHERE s0.a1 <> TRUE ORDER BY s0.a1;

-- connection 2
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
BEGIN;

-- connection 1
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
BEGIN;
UPDATE t2 SET c2 = c2 WHERE c1 NOT IN (TRUE, TRUE);

-- connection 5
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
BEGIN;

-- connection 1
SELECT s0.a0, s0.a1, s0.a2 FROM (SELECT (SELECT MAX(c0) FROM t0) AS a0, c2 AS a1, c1 AS a2 FROM t2 WHERE EXISTS (SELECT * FROM t0 WHERE c0 IS NOT NULL AND c0 BETWEEN 'ah' AND 'b')) AS s0;

-- connection 4
SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED;
BEGIN;

-- connection 2
DELETE FROM t1 WHERE c1 <> c0;
REPLACE INTO t2 (c0, c1, c2) VALUES (1.25, TRUE, 'hc');

-- connection 5
UPDATE t1 SET c1 = 8.16 WHERE c0 = 21;

-- connection 3
UPDATE t2 SET c2 = UPPER(c2) WHERE c2 > 'add';

-- connection 1
INSERT INTO t2 (c0, c1, c2) VALUES (14.12, FALSE, 'hb'), (14.03, FALSE, 'add'), (-0.16, TRUE, 'b');  -- waits for a lock; go on in the next terminal
UPDATE t0 SET c0 = (SELECT MAX(c2) FROM t2 WHERE NOT c1) WHERE c0 = 'ff' OR c0 BETWEEN 'cgg' AND 'eg';  -- waits for a lock; go on in the next terminal

-- connection 5
UPDATE t0 SET c0 = COALESCE(c0, 'aeh') WHERE c0 IN ('cgg', 'cgg') AND c0 IS NOT NULL OR c0 BETWEEN 'ah' AND 'dd';

-- connection 4
SELECT c1 FROM t2 FOR UPDATE;  -- waits for a lock; go on in the next terminal
ROLLBACK;

-- connection 3
UPDATE t1 SET c2 = 25.57 WHERE c1 * c2 < 28.99 OR c2 < 17.27 AND EXISTS (SELECT * FROM t0 WHERE c0 BETWEEN 'ab' AND 'cgg');  -- waits for a lock; go on in the next terminal

-- connection 5
INSERT INTO t0 (c0) VALUES ('cgg'), ('cgg'), ('cgg');

-- connection 1
ROLLBACK;

-- connection 2
COMMIT;

-- connection 5
DELETE FROM t0 WHERE c0 IN ('cgg', 'ah');

-- connection 3
COMMIT;

-- connection 5
ROLLBACK;
