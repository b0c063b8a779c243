# Input of TestRewriteGolden's predicate reads: "view" lines are plain
# SELECTs Instrument's first pass chose to record as predicate reads (a
# level where plain reads lock nothing); the writes of their tables then
# evaluate every such WHERE on the versions they install.
setup CREATE TABLE d (id INT PRIMARY KEY, oncall INT NOT NULL, note VARCHAR(10))
setup CREATE TABLE e (id INT)
setup INSERT INTO d VALUES (1, 1, 'a'), (2, 0, NULL)
view SELECT id FROM d WHERE oncall = 1
view SELECT * FROM d AS x WHERE x.note IS NULL ORDER BY x.id
view SELECT * FROM d
# Not predicate reads, though marked: items that could fail on rows that
# do not match, a subquery, a volatile function, a WHERE of constants, a
# locking read, another table than one.
view SELECT id + 1 FROM d WHERE oncall = 1
view SELECT id FROM d WHERE oncall IN (SELECT id FROM e)
view SELECT id FROM d WHERE oncall < RAND()
view SELECT id FROM d WHERE 1 = 0
view SELECT id FROM d WHERE oncall = 1 FOR UPDATE
view SELECT d.id FROM d JOIN e ON d.id = e.id
# "txnview": in an explicit transaction whose reads see one snapshot, the
# uncorrelated subqueries' tables are read right after the statement (an
# EXISTS only says whether rows exist: no item reads); a correlated one is
# not, nor one with a subquery of its own.
txnview SELECT id FROM d WHERE oncall IN (SELECT id FROM e WHERE id > 0)
txnview SELECT id FROM d WHERE EXISTS (SELECT * FROM e AS y WHERE y.id = 2) AND id < (SELECT MAX(id) FROM e)
txnview SELECT id FROM d WHERE EXISTS (SELECT * FROM e WHERE e.id = d.id)
txnview SELECT id FROM d WHERE oncall IN (SELECT id FROM e WHERE id IN (SELECT oncall FROM d))
# An aggregate over one table: its table's view is read after it too
# (COUNT(*) alone uses no row's values: no item reads).
txnview SELECT COUNT(*) FROM d WHERE oncall = 1
txnview SELECT SUM(oncall) AS s FROM d AS x WHERE x.id > 1
# Unmarked: as before.
SELECT id FROM d WHERE oncall = 1
UPDATE d SET oncall = 1 WHERE id = 2
INSERT INTO d VALUES (3, 1, 'c')
INSERT INTO d (id, oncall) VALUES (4, 0) ON CONFLICT (id) DO UPDATE SET oncall = 1
DELETE FROM d WHERE id = 1
UPDATE e SET id = 2
INSERT INTO e VALUES (1)
