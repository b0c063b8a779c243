package gen

import (
	"context"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/mysql"
	"github.com/txlab/txlab/target/postgres"
)

// serverCases is how many cases run on each throwaway server: enough for
// thousands of statements, few enough for a 2-core machine.
func serverCases() int { return numCases(150) }

// The sessions run steps one after another, so a lock wait would stall the
// run: the lock timeouts are cut to (nearly) nothing. The validity check is
// about which statements the DBMS rejects, not about blocking; a statement
// that times out on a lock has been parsed and analysed already.

func TestValidityMariaDB(t *testing.T) {
	srv := localdbtest.Server(t, localdb.MariaDB)
	tg, err := mysql.OpenURL(t.Context(), srv.DSN(), "txlab")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkValidity(t, tg, sqlast.MySQL, serverCases(), func(ctx context.Context, s target.Session) error {
		_, err := s.Exec(ctx, "SET SESSION innodb_lock_wait_timeout = 0")
		return err
	})
}

func TestValidityPostgres(t *testing.T) {
	srv := localdbtest.Server(t, localdb.Postgres)
	tg, err := postgres.Open(t.Context(), srv.DSN(), "", "txlab")
	if err != nil {
		t.Fatal(err)
	}
	defer tg.Close()
	checkValidity(t, tg, sqlast.Postgres, serverCases(), func(ctx context.Context, s target.Session) error {
		_, err := s.Exec(ctx, "SET lock_timeout = '20ms'")
		return err
	})
}
