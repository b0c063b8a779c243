package pgspec_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/convert/pgspec"
	"github.com/txlab/txlab/testcase"
)

// FuzzParse: any input is either refused or gives valid cases, each of
// which prints as a case file that parses back to itself; never a panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.spec"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("session s1 step a { SELECT 1; } permutation a(*) a")
	f.Add("session \"s\nstep")
	f.Fuzz(func(t *testing.T, src string) {
		cases, err := pgspec.Parse("fuzz.spec", strings.NewReader(src))
		if err != nil {
			return
		}
		for _, c := range cases {
			if err := c.Validate(); err != nil {
				t.Fatalf("invalid case: %v", err)
			}
			back, err := testcase.ParseString("x", c.String())
			if err != nil || !back.Equal(c) {
				t.Fatalf("case does not parse back (%v):\n%s", err, c)
			}
		}
	})
}
