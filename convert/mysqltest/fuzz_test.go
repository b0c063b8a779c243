package mysqltest_test

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/convert/mysqltest"
	"github.com/txlab/txlab/testcase"
)

// FuzzParse: any input is either refused or gives valid cases, each of
// which prints as a case file that parses back to itself; never a panic.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob(filepath.Join("testdata", "*.test"))
	for _, p := range files {
		if b, err := os.ReadFile(p); err == nil {
			f.Add(string(b))
		}
	}
	f.Add("--connect (c1,localhost,root,,)\n--send SELECT 1\n--reap\nBEGIN; SELECT 'a;b';\n")
	f.Add("delimiter |;\nSELECT 1|\n--connect c2\nconnection default;\nreap;")
	f.Fuzz(func(t *testing.T, src string) {
		cases, err := mysqltest.Parse("fuzz.test", strings.NewReader(src))
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
