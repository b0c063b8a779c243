package mysql

import "fmt"

// features are the SQL features the server supports beyond the base
// subset (package features' names), by flavor and version, from each
// vendor's manual: MariaDB has NOWAIT and sequences from 10.3 and SKIP
// LOCKED from 10.6; MySQL 8.0 has NOWAIT/SKIP LOCKED and functional
// indexes (8.0.13); TiDB has NOWAIT but no SKIP LOCKED, and LOCK TABLES
// only with enable-table-lock, which is off by default. TiDB's expression
// indexes take the functions of tidb_allow_function_for_expression_index
// (LOWER, UPPER, …; v5.2+) with no setting, operators only with
// allow-expression-index (sql-statement-create-index, "Expression
// index"): the generator indexes LOWER(c)/UPPER(c) only on this family.
// MariaDB has neither expression nor partial indexes.
// No flavor lists
// lock-table: the family's LOCK TABLES commits the open transaction
// implicitly (MariaDB docs, LOCK TABLES; MySQL 8.0 manual 15.3.3
// "Statements That Cause an Implicit Commit"), and a session holding
// table locks may use only the tables it locked, so a case with it has
// no transactions as txlab's oracles read them.
func (t *Target) features() []string {
	out := []string{
		"savepoint", "rollback-to-savepoint", "foreign-key", "on-delete-cascade",
		"multi-table-update", "multi-table-delete", "auto-increment", "generated-column",
		"several-transactions-per-connection",
	}
	var major, minor, patch int
	switch t.flavor {
	case MariaDB:
		fmt.Sscanf(t.version, "%d.%d.%d", &major, &minor, &patch)
		if major > 10 || major == 10 && minor >= 3 {
			out = append(out, "nowait", "sequence")
		}
		if major > 10 || major == 10 && minor >= 6 {
			out = append(out, "skip-locked")
		}
	case TiDB:
		// Not "sequence": TiDB lists a sequence among the schema's tables
		// but answers 1051 to reading it as one, so the final state's dump
		// fails (v8.5.6); the catalog would need to tell sequences apart.
		out = append(out, "nowait", "expression-index")
	default:
		fmt.Sscanf(t.version, "%d.%d.%d", &major, &minor, &patch)
		if major >= 8 {
			out = append(out, "nowait", "skip-locked")
		}
		if major > 8 || major == 8 && (minor > 0 || patch >= 13) {
			out = append(out, "expression-index")
		}
	}
	return out
}
