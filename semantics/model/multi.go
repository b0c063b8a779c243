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

// joinsAsSubqueries reports whether the model replays st, a write across
// tables, as it replays a write whose subqueries read the other tables:
// only SQLite's UPDATE … FROM. SQLite has no row locks and one writer at
// a time, and a statement reads every table at its transaction's snapshot
// (with its own changes), its target as its FROM tables (Isolation In
// SQLite; the rules' Target and Source reads are one), so which rows the
// join reads is the view a subquery reads. Where the target's reads
// differ from its other reads (a locking or re-checked target: InnoDB's
// locking reads, PostgreSQL's EvalPlanQual of the target with the joined
// rows of its snapshot) the model does not follow a join yet.
func (e *Engine) joinsAsSubqueries(st sqlast.Stmt) bool {
	up, ok := st.(*sqlast.Update)
	if !ok || len(up.Tables) > 0 || len(up.From) == 0 || e.dialect != sqlast.SQLite {
		return false
	}
	return !e.rules.RowLocks && e.rules.Target[KindUpdate] == e.rules.Source[KindUpdate]
}

// joinedTargets is the query of the versions of table (the target of
// UPDATE … FROM up) that the join matches: one row per joined row, so a
// version that meets several rows of the FROM tables shows several times.
func joinedTargets(table string, up *sqlast.Update) *sqlast.Select {
	return &sqlast.Select{
		Items: []sqlast.SelectItem{{Expr: &sqlast.ColumnRef{Table: table, Column: vidColumn}}},
		From:  append([]sqlast.TableRef{&sqlast.Table{Name: table}}, up.From...),
		Where: up.Where,
	}
}

// readsJoined reports whether an UPDATE … FROM's assigned values may read
// a FROM table's columns: any column not qualified by the target's name.
// Where a target row meets several joined rows, SQLite uses one of them,
// "arbitrary and might change from one release of SQLite to the next, or
// from one run to the next" (lang_update.html, UPDATE FROM), so the
// model's copy may take another.
func readsJoined(up *sqlast.Update) bool {
	found := false
	for _, a := range up.Set {
		sqlast.Walk(a.Value, func(n any) bool {
			if c, ok := n.(*sqlast.ColumnRef); ok && c.Table != up.Table {
				found = true
			}
			if _, ok := n.(*sqlast.Table); ok {
				found = true // a subquery: what it reads is not this check's
			}
			return !found
		})
	}
	return found
}
