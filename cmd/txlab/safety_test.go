package main

import (
	"database/sql"
	"strings"
	"testing"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/txlab/txlab/localdb"
)

// TestDependentsOutsideSurvive puts a user's view and foreign key, outside
// txlab's schema, over a table txlab created. Every later txlab command must
// refuse to reset the schema, name them, and leave them in place.
func TestDependentsOutsideSurvive(t *testing.T) {
	for _, tt := range []struct {
		kind   localdb.Kind
		driver string
		setup  []string
		check  string
		want   []string
	}{
		{localdb.Postgres, "pgx", []string{
			"CREATE VIEW public.user_view AS SELECT * FROM txlab.t",
			"CREATE TABLE public.user_child (id INT REFERENCES txlab.t (id))",
		}, "SELECT count(*) FROM public.user_view", []string{"view public.user_view", "user_child_id_fkey on table public.user_child"}},
		{localdb.MariaDB, "mysql", []string{
			"CREATE DATABASE userdb",
			"CREATE VIEW userdb.user_view AS SELECT * FROM txlab.t",
			"CREATE TABLE userdb.user_child (id INT, FOREIGN KEY fk_user (id) REFERENCES txlab.t (id)) ENGINE=InnoDB",
		}, "SELECT count(*) FROM userdb.user_view", []string{"view userdb.user_view", "foreign key fk_user on table userdb.user_child"}},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := localdb.ForTest(t, tt.kind)
			c := "../../examples/mariadb-rc-update-delete.txn"
			if code, _, stderr := txlab(t, "run", "--db", srv.DSN(), "--oracle", "none", c); code != 0 {
				t.Fatalf("first run: exit %d: %s", code, stderr)
			}
			db, err := sql.Open(tt.driver, srv.DriverDSN())
			if err != nil {
				t.Fatal(err)
			}
			defer db.Close()
			for _, q := range tt.setup {
				if _, err := db.Exec(q); err != nil {
					t.Fatalf("%s: %v", q, err)
				}
			}
			for _, args := range [][]string{
				{"run", "--db", srv.DSN(), c},
				{"fuzz", "--db", srv.DSN(), "--cases", "2"},
			} {
				code, _, stderr := txlab(t, args...)
				if code != 2 {
					t.Errorf("%v: exit %d, want 2", args[0], code)
				}
				for _, w := range tt.want {
					if !strings.Contains(stderr, w) {
						t.Errorf("%v: stderr does not name %q: %s", args[0], w, stderr)
					}
				}
			}
			var n int
			if err := db.QueryRow(tt.check).Scan(&n); err != nil || n == 0 {
				t.Errorf("the user's view over txlab.t: %d rows, %v", n, err)
			}
		})
	}
}
