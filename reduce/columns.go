package reduce

import (
	"regexp"
	"slices"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// dropColumn removes the i-th column (counting the columns of the setup's
// CREATE TABLE statements in order) from its table, from the INSERTs into
// the table and with the indexes on it. Candidate nil: the column cannot go
// that simply (another statement on the table names it, a constraint of the
// table holds it, an INSERT … SELECT fills the table, a statement that names
// the table does not parse).
func dropColumn(r *reducer, c *testcase.Case, i int) *testcase.Case {
	var table *sqlast.CreateTable
	create, col := -1, ""
	for k, sql := range c.Setup {
		s, err := r.setupKind(sql).Stmt(r.opt.Dialect)
		ct, ok := s.(*sqlast.CreateTable)
		if err != nil || !ok {
			continue
		}
		if i < len(ct.Columns) {
			// The candidate changes the table: the parse is shared.
			table, create, col = sqlast.Clone(ct).(*sqlast.CreateTable), k, ct.Columns[i].Name
			break
		}
		i -= len(ct.Columns)
	}
	if table == nil {
		return noMore
	}
	pos := slices.IndexFunc(table.Columns, func(d sqlast.ColumnDef) bool { return d.Name == col })
	if len(table.Columns) < 2 || slices.Contains(table.PrimaryKey, col) || slices.ContainsFunc(table.Uniques, func(u []string) bool { return slices.Contains(u, col) }) || names(col, table.Checks) || readByGenerated(table, col) ||
		slices.ContainsFunc(table.ForeignKeys, func(fk sqlast.ForeignKey) bool { return slices.Contains(fk.Columns, col) }) {
		return nil // the foreign keys pass drops the key first
	}
	table.Columns = slices.Delete(table.Columns, pos, pos+1)
	d := clone(c)
	d.Setup[create] = sqlast.Format(r.opt.Dialect, table)
	mentions := regexp.MustCompile(`(?i)(^|[^A-Za-z0-9_])` + regexp.QuoteMeta(table.Name) + `($|[^A-Za-z0-9_])`)
	drop := map[int]bool{} // statements to remove, numbered as statement() does
	for k := 0; ; k++ {
		kind, ok := r.statement(d, k)
		if !ok {
			break
		}
		if k == create || !mentions.MatchString(kind.Of) {
			continue
		}
		s, err := kind.Stmt(r.opt.Dialect)
		if err != nil {
			return nil
		}
		switch s := s.(type) {
		case *sqlast.CreateIndex:
			if indexes(s, table.Name, col) {
				drop[k] = true
				continue
			}
		case *sqlast.Insert:
			if s.Table == table.Name {
				s := sqlast.Clone(s).(*sqlast.Insert)
				if !dropInsertColumn(s, col, pos) {
					return nil
				}
				d = withStatement(d, k, sqlast.Format(r.opt.Dialect, s))
				continue
			}
		}
		if names(col, s) {
			return nil
		}
	}
	setup, steps := d.Setup[:0], d.Steps[:0]
	for k, sql := range d.Setup {
		if !drop[k] {
			setup = append(setup, sql)
		}
	}
	for k, st := range d.Steps {
		if !drop[len(d.Setup)+k] {
			steps = append(steps, st)
		}
	}
	d.Setup, d.Steps = setup, steps
	return tidy(d)
}

// dropInsertColumn removes column col (at position pos of the table) from
// an INSERT … VALUES; false when it cannot (an INSERT … SELECT, an upsert
// that names the column, a row of another width).
func dropInsertColumn(ins *sqlast.Insert, col string, pos int) bool {
	if ins.Select != nil || ins.OnConflict != nil && (slices.Contains(ins.OnConflict.Columns, col) || names(col, ins.OnConflict)) {
		return false
	}
	at := pos
	if ins.Columns != nil {
		at = slices.Index(ins.Columns, col)
		if at < 0 {
			return true // not set: its default
		}
		ins.Columns = slices.Delete(ins.Columns, at, at+1)
	}
	for j, row := range ins.Values {
		if at >= len(row) {
			return false
		}
		ins.Values[j] = slices.Delete(row, at, at+1)
	}
	return true
}

// names reports whether a column reference (or an assignment) anywhere in
// n names col, whatever table it qualifies.
func names(col string, n any) bool {
	found := false
	check := func(x any) bool {
		switch x := x.(type) {
		case *sqlast.ColumnRef:
			found = found || x.Column == col
		case *sqlast.Update:
			found = found || slices.ContainsFunc(x.Set, func(a sqlast.Assignment) bool { return a.Column == col })
		case *sqlast.Insert:
			found = found || x.OnConflict != nil && slices.ContainsFunc(x.OnConflict.Set, func(a sqlast.Assignment) bool { return a.Column == col })
		case *sqlast.With:
			// An INSERT inside a WITH names its columns (a top-level one
			// drops the column itself: dropInsertColumn).
			for _, c := range x.CTEs {
				if ins, ok := c.Stmt.(*sqlast.Insert); ok {
					found = found || slices.Contains(ins.Columns, col)
				}
			}
		case *sqlast.Merge:
			for _, w := range x.Whens {
				found = found || slices.Contains(w.Columns, col) || slices.ContainsFunc(w.Set, func(a sqlast.Assignment) bool { return a.Column == col })
			}
		}
		return !found
	}
	switch n := n.(type) {
	case []sqlast.Expr:
		for _, e := range n {
			sqlast.Walk(e, check)
		}
	case *sqlast.OnConflict:
		for _, a := range n.Set {
			found = found || a.Column == col
			sqlast.Walk(a.Value, check)
		}
	default:
		sqlast.Walk(n, check)
	}
	return found
}

// readByGenerated reports whether a generated column of table reads col.
func readByGenerated(table *sqlast.CreateTable, col string) bool {
	return slices.ContainsFunc(table.Columns, func(d sqlast.ColumnDef) bool { return d.Generated != nil && names(col, d.Generated.Expr) })
}
