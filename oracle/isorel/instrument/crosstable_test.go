package instrument

import (
	"strings"
	"testing"
)

// TestFeatureOfNote: the note of a write across tables (see the golden
// statements) names its feature, and FeatureOfNote reads the name back,
// so that a campaign counts the cases IsoRel leaves undecided by it.
func TestFeatureOfNote(t *testing.T) {
	for note, want := range map[string]string{
		"not instrumented: merge: outside the instrumentable subset":              "merge",
		"not instrumented: multi-table-update: outside the instrumentable subset": "multi-table-update",
		"not instrumented: cte-write: outside the instrumentable subset":          "cte-write",
		"not instrumented: outside the instrumentable subset":                     "",
		"not instrumented, not parsed: sqlast: line 1":                            "",
		"instrumented, but the rows its subqueries read are not recorded":         "",
	} {
		_, rest, _ := strings.Cut(note, ":")
		if got := FeatureOfNote(rest); got != want {
			t.Errorf("%q: %q, want %q", note, got, want)
		}
	}
}
