package instrument

import (
	"fmt"
	"slices"

	"github.com/txlab/txlab/sqlast"
)

// delete rewrites a DELETE (stmt's DELETE case).
func (rw *Rewriter) delete(s *sqlast.Delete, info *Info) ([]Sent, error) {
	if rw.tables[s.Table] == nil {
		return nil, fmt.Errorf("unknown table %s", s.Table)
	}
	info.Locking, info.PreDeletes = true, true
	if !rw.returning {
		return []Sent{
			{SQL: rw.preRead(s.Table, s.Where), Role: RolePreRead},
			{SQL: sqlast.Format(rw.d, s)},
		}, nil
	}
	// The rows the DELETE removes, from the DELETE itself: a separate
	// read would take the locks (and wait) in the DELETE's place and
	// could see other rows than it deletes.
	c := *s
	c.Returning = append(slices.Clone(s.Returning), hiddenItems("")...)
	info.Returning, info.Hidden = true, len(s.Returning) == 0
	return []Sent{{SQL: sqlast.Format(rw.d, &c)}}, nil
}

// preRead is SELECT rowId, wList FROM t WHERE pred FOR UPDATE, before a
// DELETE where the DBMS has no DELETE … RETURNING, and before REPLACE and
// upserts (whose RETURNING gives the new rows, not those removed). SQLite has
// no FOR UPDATE; there the read runs inside the write transaction, whose
// database lock keeps the rows stable instead.
func (rw *Rewriter) preRead(tbl string, where sqlast.Expr) string {
	sel := &sqlast.Select{
		Items: hiddenItems(tbl),
		From:  []sqlast.TableRef{&sqlast.Table{Name: tbl}},
		Where: where,
	}
	st := &sqlast.SelectStmt{Query: sel}
	if rw.d.SupportsLocking() {
		st.Lock = sqlast.LockUpdate
	}
	return sqlast.Format(rw.d, st)
}
