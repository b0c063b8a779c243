package features

import (
	"slices"
	"strings"
	"testing"
)

func TestParseChoice(t *testing.T) {
	supported := []string{"savepoint", "rollback-to-savepoint", "nowait"}
	tests := []struct {
		spec    string
		want    []string
		wantErr string
	}{
		{spec: "all", want: nil},
		{spec: "none", want: []string{}},
		{spec: "savepoint, nowait", want: []string{"savepoint", "nowait"}},
		{spec: "savepoint,check-constraint", want: []string{"savepoint"}}, // in the base subset
		{spec: "merge", wantErr: "merge is not supported (supported: savepoint, rollback-to-savepoint, nowait)"},
		{spec: "savepoints", wantErr: `unknown feature "savepoints"`},
		{spec: "help", wantErr: "for-key-share"},
	}
	for _, tt := range tests {
		got, err := Parse(tt.spec, supported)
		switch {
		case tt.wantErr != "":
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("%q: error %v, want %q", tt.spec, err, tt.wantErr)
			}
		case err != nil:
			t.Errorf("%q: %v", tt.spec, err)
		case (got == nil) != (tt.want == nil) || !slices.Equal(got, tt.want):
			t.Errorf("%q: %#v, want %#v", tt.spec, got, tt.want)
		}
	}
	// Before the target is known, only the names are checked.
	if _, err := Parse("merge", nil); err != nil {
		t.Errorf("merge before the target is known: %v", err)
	}
}
