package instrument

import (
	"fmt"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// crossTableErr is the rewriter's error for a write across tables: its
// note ("not instrumented: merge: outside the instrumentable subset")
// names the feature.
func crossTableErr(st sqlast.Stmt) error {
	if f := sqlast.CrossTable(st); f != "" {
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
