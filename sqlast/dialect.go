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
