package postgres

import (
	"strings"
	"testing"
	"unicode/utf8"
)

// TestShorten: an error text past maxErrorText is cut on a character
// boundary and says how long it was; a shorter one is kept whole.
func TestShorten(t *testing.T) {
	for _, tt := range []struct {
		name string
		msg  string
		cut  bool
	}{
		{"short", "invalid input syntax for type integer: \"x\"", false},
		{"at the bound", strings.Repeat("x", maxErrorText), false},
		{"ascii", strings.Repeat("9x", 50000), true},
		{"multibyte across the bound", strings.Repeat("é", maxErrorText), true},
	} {
		t.Run(tt.name, func(t *testing.T) {
			got := shorten(tt.msg)
			if !tt.cut {
				if got != tt.msg {
					t.Fatalf("shorten changed a text of %d bytes", len(tt.msg))
				}
				return
			}
			if len(got) > maxErrorText+100 || !utf8.ValidString(got) || !strings.Contains(got, "bytes of error text in all") {
				t.Fatalf("shorten of %d bytes gave %d bytes (valid UTF-8 %v): %.80q…", len(tt.msg), len(got), utf8.ValidString(got), got)
			}
		})
	}
}
