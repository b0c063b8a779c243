// Package expectfile reads the expectation tables of txlab's tests (the
// testdata/expect.txt files beside the oracles' real-server tests): one row
// per line, fields separated by white space, blank lines and lines starting
// with "#" skipped.
package expectfile

import (
	"bufio"
	"os"
	"strings"
	"testing"
)

// Read returns the rows of the table at path. A row with fewer than min
// fields, or more than max (0: no limit), fails the test with its line.
func Read(t testing.TB, path string, min, max int) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var rows [][]string
	sc := bufio.NewScanner(f)
	for n := 1; sc.Scan(); n++ {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		if len(fs) < min || max > 0 && len(fs) > max {
			t.Fatalf("%s:%d: bad line %q", path, n, sc.Text())
		}
		rows = append(rows, fs)
	}
	if err := sc.Err(); err != nil {
		t.Fatal(err)
	}
	return rows
}
