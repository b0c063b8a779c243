package model

import "github.com/txlab/txlab/sqlast"

// crossTable names the feature (package features' names) of a write across
// tables — MERGE, a data-modifying CTE, a multiple-table UPDATE or DELETE
// (UPDATE … FROM, DELETE … USING) — or "" for any other statement. The
// model replays a write as a single-table statement over one table's view;
// which rows such a statement reads in the other tables, with what
// snapshot and locks, is not modelled yet, so the engine stops on it with
// this name as its reason instead of replaying it as the single-table
// statement it is not.
func crossTable(st sqlast.Stmt) string {
	switch st := st.(type) {
	case *sqlast.Merge:
		return "merge"
	case *sqlast.With:
		if st.Writes() {
			return "cte-write"
		}
	case *sqlast.Update:
		if st.MultiTable() {
			return "multi-table-update"
		}
	case *sqlast.Delete:
		if st.MultiTable() {
			return "multi-table-delete"
		}
	}
	return ""
}
