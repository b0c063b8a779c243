package main

import (
	"strings"

	"github.com/txlab/txlab/report"
)

// splitDB splits a --db value into its targets: bugs test takes several,
// comma-separated (postgres@10,postgres@18,tidb). A URL holds no comma in
// practice, so a single URL stays one target.
func splitDB(db string) []string {
	var out []string
	for _, s := range strings.Split(db, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// shownSpec is report.ShownSpec, under the name bugs.go calls.
func shownSpec(spec string) string { return report.ShownSpec(spec) }
