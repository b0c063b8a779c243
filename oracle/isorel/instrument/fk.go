package instrument

import (
	"strings"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// Foreign keys: the instrumented CREATE TABLE keeps its foreign keys as
// written (the hidden columns go after the last column, every table gets
// them), so the keys check and act as in the plain run. But a key's
// action (ON DELETE CASCADE, SET NULL, SET DEFAULT, or such an ON UPDATE
// action) writes child rows the statement does not name: their hidden
// columns stay as they were, so IsoRel would read a wrong version order
// there. A case with a statement that may set one off is not judged
// (Plan.Unjudged, MayCascade), rather than judged on a history with
// hidden writes.

// mayCascade reports whether statement sql may set off a foreign key's
// action: a DELETE or REPLACE of a table a key deletes or sets from, an
// UPDATE or upsert of one a key updates from, or a write of a kind
// IsoRel does not parse that names either.
func (rw *Rewriter) mayCascade(k testcase.Kind) bool {
	if !rw.acting {
		return false
	}
	sql := k.Of
	acted := func(name string, onUpdate bool) bool {
		t := rw.tables[name]
		return t != nil && (!onUpdate && t.actedOnDelete || onUpdate && t.actedOnUpdate)
	}
	st, err := k.Stmt(rw.d)
	if err != nil {
		kw := k.Keyword
		if kw == "SELECT" || kw == "INSERT" && !strings.Contains(strings.ToUpper(sql), "ON ") {
			return false
		}
		for name, t := range rw.tables {
			if (t.actedOnDelete || t.actedOnUpdate) && strings.Contains(strings.ToLower(sql), strings.ToLower(name)) {
				return true
			}
		}
		return false
	}
	switch s := st.(type) {
	case *sqlast.SelectStmt:
		return false
	case *sqlast.Delete:
		return acted(s.Table, false)
	case *sqlast.Update:
		return acted(s.Table, true)
	case *sqlast.Insert:
		return s.Replace && acted(s.Table, false) || s.OnConflict != nil && len(s.OnConflict.Set) > 0 && acted(s.Table, true)
	}
	named := false
	sqlast.Walk(st, func(n any) bool {
		if t, ok := n.(*sqlast.Table); ok && rw.tables[t.Name] != nil && (rw.tables[t.Name].actedOnDelete || rw.tables[t.Name].actedOnUpdate) {
			named = true
		}
		return !named
	})
	return named
}

// learnActions records which tables the foreign keys of def act from.
func (rw *Rewriter) learnActions(def *sqlast.TableDef, self *table) {
	mark := func(names []string, onUpdate bool) {
		for _, ref := range names {
			t := rw.tables[ref]
			if ref == def.Name {
				t = self
			}
			if t == nil {
				continue // a table made later or elsewhere: the schema is unsure already
			}
			rw.acting = true
			if onUpdate {
				t.actedOnUpdate = true
			} else {
				t.actedOnDelete = true
			}
		}
	}
	mark(def.Acting, false)
	mark(def.ActingOnUpdate, true)
}
