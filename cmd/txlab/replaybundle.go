package main

import (
	"os"
	"path/filepath"
)

// anyBundle reports whether one of run's arguments is a finding bundle
// (a directory with report.json): replaying it writes no new bundle
// unless --out asks (report.Writer.NoFiles), so that a bundle replayed N
// times is still one row of the report.
func anyBundle(args []string) bool {
	for _, a := range args {
		if st, err := os.Stat(filepath.Join(a, "report.json")); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}
