package sqlast

// Capabilities of each dialect, for generators: Format renders every AST in
// every dialect, but only what a dialect supports means the same there.

// SupportsBool reports whether BOOLEAN columns and TRUE/FALSE are real
// booleans. SQLite stores them as integers with numeric affinity.
func (d Dialect) SupportsBool() bool { return d == MySQL || d == Postgres }

// SupportsLocking reports whether SELECT ... FOR UPDATE / FOR SHARE exists.
func (d Dialect) SupportsLocking() bool { return d == MySQL || d == Postgres }

// SupportsReplace reports whether REPLACE INTO is rendered with its MySQL
// meaning (delete the conflicting rows, then insert).
func (d Dialect) SupportsReplace() bool { return d == MySQL }

// SupportsOnConflict reports whether the upsert clause is spelled
// ON CONFLICT (target) DO ... . The MySQL family renders OnConflict as
// ON DUPLICATE KEY UPDATE, which ignores the conflict target and fires on
// any unique key.
func (d Dialect) SupportsOnConflict() bool { return d == Postgres || d == SQLite }

// SupportsNestedSetOp reports whether a parenthesized compound query may be
// the right operand of UNION (a UNION (b UNION c)). SQLite rejects it, so
// generators keep unions left-deep there.
func (d Dialect) SupportsNestedSetOp() bool { return d == MySQL || d == Postgres }

// SupportsCheck reports whether CHECK constraints are enforced (MySQL ≥ 8.0.16,
// MariaDB ≥ 10.2, PostgreSQL, SQLite: all current versions).
func (d Dialect) SupportsCheck() bool { return d != DialectNone }

// The capabilities below are the model's (package semantics/model): what a
// statement of the dialect means as written, whichever DBMS of the family
// runs it, and what the dialect's evaluator does with the model's copies.

// SizedTypes reports whether a column type's size (DECIMAL(p,s),
// VARCHAR(n)) changes what the column holds. SQLite's type affinity
// ignores them (Datatypes In SQLite, Determination Of Column Affinity).
func (d Dialect) SizedTypes() bool { return d != SQLite }

// AutoIncrementOnZero reports whether an AUTO_INCREMENT column given 0 takes
// the next number of its sequence, as it does for NULL (MySQL manual,
// Server SQL Modes: NO_AUTO_VALUE_ON_ZERO, off by default; MariaDB's
// SQL_MODE alike).
func (d Dialect) AutoIncrementOnZero() bool { return d == MySQL }

// InlineReferencesVary reports whether what a column's own REFERENCES
// means depends on the server, not on the dialect: on the MySQL family
// MySQL ignores it and MariaDB from 10.5 makes a foreign key of it (see
// fk.go).
func (d Dialect) InlineReferencesVary() bool { return d == MySQL }

// SupportsWritingCTE reports whether WITH may hold INSERT, UPDATE or
// DELETE … RETURNING, each run exactly once and to completion, and seen
// by the primary query only through RETURNING (PostgreSQL docs, WITH
// Queries, Data-Modifying Statements in WITH). SQLite and the MySQL
// family take SELECT only.
func (d Dialect) SupportsWritingCTE() bool { return d == Postgres }

// UpsertUpdateCount is the affected-rows count of one row an upsert
// updates: the MySQL family counts 2 (ON DUPLICATE KEY UPDATE: 1 per row
// inserted, 2 per row updated, 0 per row set to the values it had: MySQL
// manual, INSERT … ON DUPLICATE KEY UPDATE Statement), PostgreSQL and
// SQLite 1.
func (d Dialect) UpsertUpdateCount() int64 {
	if d == MySQL {
		return 2
	}
	return 1
}
