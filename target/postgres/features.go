package postgres

// features are the SQL features the server supports beyond the base
// subset (package features' names), by version (server_version_num), from
// PostgreSQL's release notes: SKIP LOCKED from 9.5, identity columns from
// 10, generated columns from 12, MERGE from 15. CockroachDB gets the few
// it shares with PostgreSQL.
func (t *Target) features() []string {
	if t.flavor != Postgres {
		return []string{"savepoint", "rollback-to-savepoint", "foreign-key", "on-delete-cascade", "several-transactions-per-connection"}
	}
	out := []string{
		"savepoint", "rollback-to-savepoint", "foreign-key", "on-delete-cascade", "nowait",
		"for-key-share", "for-no-key-update", "cte-write", "multi-table-update", "multi-table-delete",
		"sequence", "partial-index", "expression-index", "several-transactions-per-connection",
		"lock-table", "deferred-constraint",
	}
	v := t.versionNum
	if v == 0 || v >= 90500 {
		out = append(out, "skip-locked")
	}
	if v == 0 || v >= 100000 {
		out = append(out, "auto-increment")
	}
	if v == 0 || v >= 120000 {
		out = append(out, "generated-column")
	}
	if v == 0 || v >= 150000 {
		out = append(out, "merge")
	}
	return out
}
