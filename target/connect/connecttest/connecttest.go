// Package connecttest opens targets for tests on real databases, through
// connect and localdbtest; only tests import it.
package connecttest

import (
	"context"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
)

// Target opens a target for a test on a real database: "sqlite" is embedded
// SQLite in a fresh file; "mariadb" and "postgres" start a throwaway server
// through localdbtest.Server with the given server settings. Everything is
// closed when the test ends.
func Target(t testing.TB, dbms string, settings ...string) target.Target {
	t.Helper()
	spec := "sqlite"
	if dbms != "sqlite" {
		spec = localdbtest.Server(t, localdb.Kind(dbms), settings...).DSN()
	}
	tg, err := connect.Open(context.Background(), spec, connect.Options{})
	if err != nil {
		t.Fatalf("open %s: %v", dbms, err)
	}
	t.Cleanup(func() { tg.Close() })
	return tg
}
