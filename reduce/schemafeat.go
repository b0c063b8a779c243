package reduce

import (
	"slices"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// dropSchemaFeature is the i-th candidate of the schema features' pass,
// counting over the setup in order: each CREATE INDEX dropped (a partial,
// expression or plain index, UNIQUE or not), each generated column dropped
// with every statement that names it, and each column the DBMS numbers
// (AUTO_INCREMENT, SERIAL, AUTOINCREMENT, identity) made a plain one.
func dropSchemaFeature(r *reducer, c *testcase.Case, i int) *testcase.Case {
	for k, sql := range c.Setup {
		s, err := r.setupKind(sql).Stmt(r.opt.Dialect)
		if err != nil {
			continue
		}
		switch s := s.(type) {
		case *sqlast.CreateIndex:
			if i == 0 {
				d := clone(c)
				d.Setup = slices.Delete(d.Setup, k, k+1)
				return tidy(d)
			}
			i--
		case *sqlast.CreateTable:
			for j, col := range s.Columns {
				switch {
				case col.Generated != nil:
					if i == 0 {
						// The candidate changes the statement: the parse is shared.
						return dropGenerated(r, c, k, sqlast.Clone(s).(*sqlast.CreateTable), j)
					}
					i--
				case col.AutoIncrement || col.Identity != sqlast.IdentityNone:
					if i == 0 {
						s := sqlast.Clone(s).(*sqlast.CreateTable)
						s.Columns[j].AutoIncrement, s.Columns[j].Identity = false, sqlast.IdentityNone
						return withStatement(c, k, sqlast.Format(r.opt.Dialect, s))
					}
					i--
				}
			}
		}
	}
	return noMore
}

// dropGenerated removes generated column j of table ct (setup statement
// create) and every other statement that names it: its indexes, the reads
// that use it (no statement writes it). Nil when another generated column
// of the table reads it. ct is the caller's to change.
func dropGenerated(r *reducer, c *testcase.Case, create int, ct *sqlast.CreateTable, j int) *testcase.Case {
	col := ct.Columns[j].Name
	if readByGenerated(ct, col) {
		return nil
	}
	ct.Columns = slices.Delete(ct.Columns, j, j+1)
	d := clone(c)
	d.Setup[create] = sqlast.Format(r.opt.Dialect, ct)
	var drop []int
	for k := 0; ; k++ {
		kind, ok := r.statement(d, k)
		if !ok {
			break
		}
		if k == create {
			continue
		}
		s, err := kind.Stmt(r.opt.Dialect)
		if err != nil {
			return nil
		}
		if names(col, s) || indexes(s, ct.Name, col) {
			drop = append(drop, k)
		}
	}
	setup, steps := d.Setup[:0], d.Steps[:0]
	for k, sql := range d.Setup {
		if !slices.Contains(drop, k) {
			setup = append(setup, sql)
		}
	}
	for k, st := range d.Steps {
		if !slices.Contains(drop, len(d.Setup)+k) {
			steps = append(steps, st)
		}
	}
	d.Setup, d.Steps = setup, steps
	return tidy(d)
}

// indexes reports whether s is a CREATE INDEX on table over column col.
func indexes(s sqlast.Stmt, table, col string) bool {
	ci, ok := s.(*sqlast.CreateIndex)
	return ok && ci.Table == table && (slices.Contains(ci.Columns, col) || names(col, ci))
}
