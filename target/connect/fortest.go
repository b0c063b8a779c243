package connect

import (
	"context"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/target"
)

// ForTest opens a target for a test on a real database: "sqlite" is embedded
// SQLite in a fresh file; "mariadb" and "postgres" start a throwaway server
// through localdb.ForTest (skipped without binaries, failed under CI=true),
// with the given server settings. Everything is closed when the test ends.
func ForTest(t testing.TB, dbms string, settings ...string) target.Target {
	t.Helper()
	spec := "sqlite"
	if dbms != "sqlite" {
		spec = localdb.ForTest(t, localdb.Kind(dbms), settings...).DSN()
	}
	tg, err := Open(context.Background(), spec, Options{})
	if err != nil {
		t.Fatalf("open %s: %v", dbms, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}
