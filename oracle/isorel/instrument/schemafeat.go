package instrument

import (
	"fmt"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// Schema features (package features' names) in IsoRel's rewrite:
//
//   - CREATE SEQUENCE runs as written; it adds no table. The numbers a
//     NEXTVAL or an auto-numbered key takes are values like any other to
//     the history (IsoRel reads versions, not how they were computed).
//   - A generated column is never written by the instrumented statements:
//     CREATE TABLE keeps it (the hidden columns go after the last column),
//     an INSERT names its columns (one without a list into a table with
//     generated columns is not instrumented), an UPDATE sets what the
//     case sets.
//   - A partial or expression index runs as written. A UNIQUE partial
//     index is not a key to IsoRel (rows outside its predicate repeat its
//     columns): it neither names rows nor decides an upsert's conflicts. A
//     UNIQUE expression index decides the MySQL family's ON DUPLICATE KEY
//     UPDATE and REPLACE, whose conflicts IsoRel reads by plain keys only:
//     those are not instrumented on its table.

// schemaFeature handles a CREATE statement of these features other than
// CREATE TABLE; false when sql is none of them.
func (rw *Rewriter) schemaFeature(k testcase.Kind) bool {
	st, err := k.Stmt(rw.d)
	if err != nil {
		return false
	}
	switch st := st.(type) {
	case *sqlast.CreateSequence:
		return true
	case *sqlast.CreateIndex:
		if st.Where == nil && st.Exprs == nil {
			return false
		}
		t := rw.tables[st.Table]
		if t == nil {
			return true
		}
		if st.Exprs != nil {
			t.exprUnique = t.exprUnique || st.Unique
			return true
		}
		// A partial index: an index over its columns, never a key.
		t.indexes = append(t.indexes, st.Columns)
		return true
	}
	return false
}

// schemaFeatureInsert refuses an INSERT the rewrite would get wrong on a
// table with these features.
func schemaFeatureInsert(d sqlast.Dialect, s *sqlast.Insert, t *table) error {
	if len(s.Columns) == 0 && len(t.generated) > 0 && (s.Values != nil || s.Select != nil) {
		return fmt.Errorf("an INSERT without a column list into %s, which has generated columns", t.name)
	}
	if d == sqlast.MySQL && t.exprUnique && (s.Replace || s.OnConflict != nil && !s.OnConflict.DoNothing) {
		return fmt.Errorf("an upsert or REPLACE on %s, whose UNIQUE expression index decides conflicts IsoRel does not read", t.name)
	}
	return nil
}
