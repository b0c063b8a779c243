package model

import "github.com/txlab/txlab/sqlast"

// joinsAsSubqueries reports whether the model replays st, a write across
// tables, as it replays a write whose subqueries read the other tables:
// an UPDATE … FROM (PostgreSQL's and SQLite's dialects have one) under
// rules that take no row locks and read the target as they read the FROM
// tables, of the table's rules SQLite's. SQLite has no row locks and one
// writer at a time, and a statement reads every table at its
// transaction's snapshot (with its own changes), its target as its FROM
// tables (Isolation In SQLite; the rules' Target and Source reads are
// one), so which rows the join reads is the view a subquery reads. Where
// the target's reads differ from its other reads (a locking or re-checked
// target: InnoDB's locking reads, PostgreSQL's EvalPlanQual of the target
// with the joined rows of its snapshot) the model does not follow a join
// yet.
func (e *Engine) joinsAsSubqueries(st sqlast.Stmt) bool {
	up, ok := st.(*sqlast.Update)
	if !ok || len(up.Tables) > 0 || len(up.From) == 0 {
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

// cteAlone returns the write of a PostgreSQL data-modifying CTE that is
// the statement's only write and the only thing its body reads — WITH w
// AS (INSERT|UPDATE|DELETE … RETURNING …) SELECT … FROM w — without its
// RETURNING (the model does not judge a write's returned rows), and
// whether the body returns exactly those rows (SELECT * FROM w). Such a
// statement writes as its CTE alone does: "data-modifying statements in
// WITH are executed exactly once, and always to completion, independently
// of whether the primary query reads all (or indeed any) of their output",
// and the primary query sees their effects only through RETURNING
// (PostgreSQL docs, WITH Queries, Data-Modifying Statements in WITH).
// nil for any other statement: two writes in one statement (a CTE and an
// outer write) run on one snapshot, which the model does not follow.
func (e *Engine) cteAlone(st sqlast.Stmt) (sqlast.Stmt, bool) {
	w, ok := st.(*sqlast.With)
	if !ok || !e.dialect.SupportsWritingCTE() || len(w.CTEs) != 1 {
		return nil, false
	}
	name := w.CTEs[0].Name
	var write sqlast.Stmt
	switch s := w.CTEs[0].Stmt.(type) {
	case *sqlast.Insert:
		c := *s
		c.Returning = nil
		write = &c
	case *sqlast.Update:
		if s.MultiTable() {
			return nil, false
		}
		c := *s
		c.Returning = nil
		write = &c
	case *sqlast.Delete:
		if s.MultiTable() {
			return nil, false
		}
		c := *s
		c.Returning = nil
		write = &c
	default:
		return nil, false
	}
	body, ok := w.Body.(*sqlast.SelectStmt)
	if !ok || body.Lock != sqlast.LockNone {
		return nil, false
	}
	only := true
	sqlast.Walk(body, func(n any) bool {
		if t, ok := n.(*sqlast.Table); ok && t.Name != name {
			only = false
		}
		return only
	})
	if !only {
		return nil, false
	}
	sel, ok := body.Query.(*sqlast.Select)
	counts := ok && !sel.Distinct && sel.Where == nil && body.Limit == nil && len(sel.Items) == 1 && sel.Items[0].Star &&
		sel.Items[0].Table == "" && len(sel.From) == 1
	if counts {
		t, ok := sel.From[0].(*sqlast.Table)
		counts = ok && t.Name == name
	}
	return write, counts
}

// cteStmt is st as its CTE's write: the rows the body returned are the
// rows it wrote when it returns them all (counts), else the count is not
// known; the rows are no result the model judges.
func cteStmt(st *Stmt, counts bool) *Stmt {
	c := *st
	c.Affected = -1
	if counts && st.Err == nil && st.Rows != nil {
		c.Affected = int64(len(st.Rows))
	}
	c.Rows, c.Columns = nil, nil
	return &c
}
