package reduce

import (
	"slices"

	"github.com/txlab/txlab/sqlast"
)

// dropForeignKey offers, for each foreign key of a CREATE TABLE, a case
// without it, one without its actions (ON DELETE CASCADE becomes the
// default, NO ACTION / RESTRICT) and one with it checked at once (no
// DEFERRABLE INITIALLY DEFERRED): a smaller schema, or a plainer key,
// that still gives the finding shows the key, its cascade or its deferral
// did not matter.
var dropForeignKey = inPlace(foreignKeySimplifications)

// foreignKeySimplifications lists the simplifications of statement s's
// foreign keys, in source order (a column's REFERENCES, then the
// table-level keys).
func foreignKeySimplifications(s sqlast.Stmt) []func() {
	ct, ok := s.(*sqlast.CreateTable)
	if !ok {
		return nil
	}
	var out []func()
	plainer := func(fk *sqlast.ForeignKey) {
		if fk.OnDelete != sqlast.RefDefault || fk.OnUpdate != sqlast.RefDefault {
			out = append(out, func() { fk.OnDelete, fk.OnUpdate = sqlast.RefDefault, sqlast.RefDefault })
		}
		if fk.Deferrable {
			out = append(out, func() { fk.Deferrable, fk.InitiallyDeferred = false, false })
		}
	}
	for i := range ct.Columns {
		if c := &ct.Columns[i]; c.References != nil {
			out = append(out, func() { c.References = nil })
			plainer(c.References)
		}
	}
	for i := range ct.ForeignKeys {
		out = append(out, func() { ct.ForeignKeys = slices.Delete(ct.ForeignKeys, i, i+1) })
		plainer(&ct.ForeignKeys[i])
	}
	return out
}
