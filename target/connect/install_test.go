package connect

import (
	"context"
	"strings"
	"testing"
)

// TestInstallRefused: install knows PostgreSQL releases, TiDB and DuckDB, and a
// PostgreSQL without a release is asked which, before anything is fetched.
func TestInstallRefused(t *testing.T) {
	for spec, want := range map[string]string{
		"mariadb":    "txlab installs postgres@VERSION, tidb and duckdb",
		"duckdb@1.4": "builds DuckDB 1.5.6 only",
		"postgres":   "which release? e.g. postgres@18",
	} {
		if _, err := Install(context.Background(), spec, nil); err == nil || !strings.Contains(err.Error(), want) {
			t.Errorf("Install(%q): %v, want %q", spec, err, want)
		}
	}
}
