package instrument

import (
	"fmt"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// crossTable names the feature (package features' names) of a write across
// tables, which the rewriter leaves uninstrumented: its rows in the other
// tables, and MERGE's and a CTE's several writes, would each need their
// own hidden-column bookkeeping. "" for any other statement.
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

// crossTableErr is the rewriter's error for a write across tables: its
// note ("not instrumented: merge: outside the instrumentable subset")
// names the feature.
func crossTableErr(st sqlast.Stmt) error {
	if f := crossTable(st); f != "" {
		return fmt.Errorf("%s: %w", f, errUnsupported)
	}
	return nil
}

// FeatureOfNote is the feature a note's text after "not instrumented:"
// names (crossTableErr's), "" for another note.
func FeatureOfNote(rest string) string {
	f, _, ok := strings.Cut(strings.TrimSpace(rest), ":")
	switch {
	case !ok:
		return ""
	case f == "merge", f == "cte-write", f == "multi-table-update", f == "multi-table-delete":
		return f
	}
	return ""
}
