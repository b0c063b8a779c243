package sqlast

import (
	"strings"
	"testing"
)

// multiStmt builds the writes across tables each dialect has: the MySQL
// family's multiple-table UPDATE and DELETE, UPDATE … FROM (PostgreSQL,
// SQLite), DELETE … USING, MERGE and data-modifying CTEs (PostgreSQL).
func (b *astBuilder) multiStmt(depth int) Stmt {
	refs := func() []TableRef {
		out := []TableRef{b.tableRef(depth)}
		for range b.src.n(2) {
			out = append(out, b.tableRef(depth))
		}
		return out
	}
	var where Expr
	if b.src.n(2) == 1 {
		where = b.expr(depth)
	}
	switch b.d {
	case MySQL:
		if b.src.n(2) == 1 {
			del := &Delete{Targets: []string{b.name()}, Tables: refs(), Where: where}
			if b.src.n(2) == 1 {
				del.Targets = append(del.Targets, b.name())
			}
			return del
		}
		u := &Update{Tables: []TableRef{&Table{Name: b.name()}, b.tableRef(depth)}, Where: where}
		if b.src.n(2) == 1 {
			u.Tables = []TableRef{&Join{Kind: "JOIN", Left: u.Tables[0], Right: u.Tables[1], On: b.expr(depth)}}
		}
		u.Set = b.assignments(depth, false)
		for i := range u.Set {
			u.Set[i].Table = b.src.pick("", "t0", "Mixed")
		}
		return u
	case SQLite:
		return &Update{Table: b.name(), Set: b.assignments(depth, false), From: refs(), Where: where}
	}
	switch b.src.n(4) {
	case 1:
		return &Delete{Table: b.name(), Using: refs(), Where: where}
	case 2:
		m := &Merge{Table: b.name(), Source: &Table{Name: b.name()}, On: b.expr(depth)}
		if b.src.n(2) == 1 {
			m.Alias = b.name()
		}
		if b.src.n(2) == 1 {
			m.Source = &Subquery{Query: b.query(depth), Alias: b.name()}
		}
		for range 1 + b.src.n(3) {
			w := MergeWhen{NotMatched: b.src.n(2) == 1, Action: MergeAction(b.src.n(4))}
			if b.src.n(2) == 1 {
				w.Cond = b.expr(depth)
			}
			switch {
			case w.NotMatched && w.Action != MergeDoNothing:
				w.Action = MergeInsert
				if b.src.n(2) == 1 {
					w.Columns = []string{b.name()}
				}
				w.Values = []Expr{b.expr(depth)}
			case w.Action == MergeInsert:
				w.Action = MergeDelete
			case w.Action == MergeUpdate:
				w.Set = b.assignments(depth, false)
			}
			m.Whens = append(m.Whens, w)
		}
		return m
	case 3:
		w := &With{}
		for range 1 + b.src.n(2) {
			var st Stmt
			switch b.src.n(4) {
			case 0:
				st = &SelectStmt{Query: b.query(depth)}
			case 1:
				st = &Delete{Table: b.name(), Where: where, Returning: []SelectItem{{Star: true}}}
			case 2:
				st = &Insert{Table: b.name(), Values: [][]Expr{{b.expr(depth)}}, Returning: []SelectItem{{Expr: b.expr(depth)}}}
			default:
				st = &Update{Table: b.name(), Set: b.assignments(depth, false), Returning: []SelectItem{{Star: true}}}
			}
			w.CTEs = append(w.CTEs, CTE{Name: b.name(), Stmt: st})
		}
		switch b.src.n(3) {
		case 0:
			w.Body = &Delete{Table: b.name(), Where: where}
		case 1:
			w.Body = &Update{Table: b.name(), Set: b.assignments(depth, false), From: []TableRef{&Table{Name: w.CTEs[0].Name}}}
		default:
			w.Body = &SelectStmt{Query: b.query(depth)}
		}
		return w
	}
	return &Update{Table: b.name(), Set: b.assignments(depth, false), From: refs(), Where: where}
}

// TestMultiTable: the writes across tables say so (MultiTable, Writes), so
// that a consumer of single-table writes can refuse them, and Walk visits
// every table they name.
func TestMultiTable(t *testing.T) {
	for _, c := range []struct {
		d      Dialect
		sql    string
		multi  bool
		tables string
	}{
		{MySQL, "UPDATE t0 SET c = 1 WHERE c IN (SELECT c FROM t2)", false, "t2"},
		{MySQL, "UPDATE t0 JOIN t1 ON t0.a = t1.a SET t0.c = 1", true, "t0 t1"},
		{MySQL, "DELETE t0 FROM t0, t1 WHERE t0.a = t1.a", true, "t0 t1"},
		{Postgres, "DELETE FROM t0 WHERE c = 1", false, ""},
		{Postgres, "DELETE FROM t0 USING t1 WHERE t0.a = t1.a", true, "t1"},
		{SQLite, "UPDATE t0 SET c = t1.c FROM t1 WHERE t0.a = t1.a", true, "t1"},
		{Postgres, "MERGE INTO t0 USING (SELECT a FROM t1) AS s ON t0.a = s.a WHEN MATCHED THEN DELETE", true, "t1"},
		{Postgres, "WITH w AS (DELETE FROM t0 RETURNING a) SELECT * FROM w", true, "w"},
		{Postgres, "WITH w AS (SELECT a FROM t0) SELECT * FROM w", false, "t0 w"},
	} {
		st, err := Parse(c.d, c.sql)
		if err != nil {
			t.Fatalf("%s: %v", c.sql, err)
		}
		var multi bool
		switch s := st.(type) {
		case *Update:
			multi = s.MultiTable()
		case *Delete:
			multi = s.MultiTable()
		case *Merge:
			multi = true
		case *With:
			multi = s.Writes()
		}
		if multi != c.multi {
			t.Errorf("%s: multi %v, want %v", c.sql, multi, c.multi)
		}
		var names []string
		Walk(st, func(n any) bool {
			if tb, ok := n.(*Table); ok {
				names = append(names, tb.Name)
			}
			return true
		})
		if got := strings.Join(names, " "); got != c.tables {
			t.Errorf("%s: Walk found tables %q, want %q", c.sql, got, c.tables)
		}
	}
}
