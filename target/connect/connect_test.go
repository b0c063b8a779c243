package connect

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/localdb/pgrelease"
	"github.com/txlab/txlab/target"
)

func TestParseSpec(t *testing.T) {
	home, _ := os.UserHomeDir()
	cwd, _ := os.Getwd()
	tests := []struct {
		spec string
		want spec
		err  string // substring of the error, "" for success
	}{
		{"", spec{kind: kindSQLite}, ""},
		{"sqlite", spec{kind: kindSQLite}, ""},
		{"sqlite:/tmp/x.db", spec{kind: kindSQLite, arg: "/tmp/x.db"}, ""},
		{"sqlite://rel/x.db", spec{kind: kindSQLite, arg: "rel/x.db"}, ""},
		{"sqlite:", spec{}, "needs a path"},
		{"duckdb", spec{kind: kindDuckDB}, ""},
		{"DuckDB", spec{kind: kindDuckDB}, ""},
		{"duckdb:/tmp/x.duckdb", spec{kind: kindDuckDB, arg: "/tmp/x.duckdb"}, ""},
		{"duckdb://rel/x.db", spec{kind: kindDuckDB, arg: "rel/x.db"}, ""},
		{"duckdb:", spec{}, "needs a path"},
		{"duckdb@1.5", spec{}, "want duckdb or duckdb:PATH"},
		{"duckbd", spec{}, `did you mean "duckdb"?`},
		{"mariadb", spec{kind: kindLocalMariaDB}, ""},
		{"postgres", spec{kind: kindLocalPostgres}, ""},
		{"postgresql", spec{kind: kindLocalPostgres}, ""},
		{"tidb", spec{kind: kindLocalTiDB}, ""},
		{"postgres@18", spec{kind: kindLocalPostgres, version: "18"}, ""},
		{"postgres@12.22", spec{kind: kindLocalPostgres, version: "12.22"}, ""},
		{"postgresql@18.4.0-beta.17", spec{kind: kindLocalPostgres, version: "18.4.0-beta.17"}, ""},
		{"postgres@/usr/lib/postgresql/15/bin", spec{kind: kindLocalPostgres, bin: "/usr/lib/postgresql/15/bin"}, ""},
		{"postgres@./build/bin", spec{kind: kindLocalPostgres, bin: filepath.Join(cwd, "build/bin")}, ""},
		{"mariadb@~/mariadb/build", spec{kind: kindLocalMariaDB, bin: filepath.Join(home, "mariadb/build")}, ""},
		{"tidb@8.5.6", spec{kind: kindLocalTiDB, version: "8.5.6"}, ""},
		{"tidb@/opt/tidb-server", spec{kind: kindLocalTiDB, bin: "/opt/tidb-server"}, ""},
		{"TiDB@8.5", spec{kind: kindLocalTiDB, version: "8.5"}, ""},
		{"mariadb@10.11", spec{}, "installs no MariaDB releases"},
		{"tidb@latest", spec{}, "want a version"},
		{"postgres@", spec{}, "KIND@VERSION"},
		{"mysql://root:pw@db.example:3307/app", spec{kind: kindMySQLURL, arg: "mysql://root:pw@db.example:3307/app"}, ""},
		{"mariadb://root@127.0.0.1:3306/", spec{kind: kindMySQLURL, arg: "mariadb://root@127.0.0.1:3306/"}, ""},
		{"tidb://root@127.0.0.1:4000/test", spec{kind: kindMySQLURL, arg: "tidb://root@127.0.0.1:4000/test"}, ""},
		{"postgres://u@h:5432/d?sslmode=disable", spec{kind: kindPostgresURL, arg: "postgres://u@h:5432/d?sslmode=disable"}, ""},
		{"postgresql://u@h/d", spec{kind: kindPostgresURL, arg: "postgresql://u@h/d"}, ""},
		{"cockroach://root@h/defaultdb?sslmode=disable", spec{kind: kindCockroachURL, arg: "postgresql://root@h:26257/defaultdb?sslmode=disable"}, ""},
		{"cockroach://root@h:26000/defaultdb", spec{kind: kindCockroachURL, arg: "postgresql://root@h:26000/defaultdb"}, ""},
		{"oracle://scott@h/orcl", spec{}, "unknown scheme"},
		{"mysql", spec{}, "want mysql://USER:PASSWORD@HOST:PORT/DB"},
		{"mysql@8.0", spec{}, "by a URL"},
		{"mysql:///nohost", spec{}, "want a URL with a host"},
		{"postgress", spec{}, `did you mean "postgres"?`},
		{"postgress@18", spec{}, `did you mean "postgres@18"?`},
		{"MariaDB10", spec{}, `did you mean "mariadb"?`},
		{"sqlte", spec{}, `did you mean "sqlite"?`},
		{"oracle", spec{}, "no such target; want sqlite, duckdb, mariadb"},
	}
	for _, tc := range tests {
		t.Run(tc.spec, func(t *testing.T) {
			got, err := parseSpec(tc.spec)
			if tc.err != "" {
				if err == nil || !strings.Contains(err.Error(), tc.err) {
					t.Fatalf("parseSpec(%q) error = %v, want one containing %q", tc.spec, err, tc.err)
				}
				return
			}
			if err != nil || got != tc.want {
				t.Errorf("parseSpec(%q) = %+v, %v; want %+v", tc.spec, got, err, tc.want)
			}
		})
	}
}

// TestUnknownSpecShort: a --db that names no target is said in one short
// line (the list of every target, 600 characters, hid the typo).
func TestUnknownSpecShort(t *testing.T) {
	for _, raw := range []string{"postgress", "oracle", "mysql", "mysql:///x", "ftp://x/y", "x@y"} {
		_, err := parseSpec(raw)
		if err == nil || len(err.Error()) > 160 || strings.Contains(err.Error(), "\n") {
			t.Errorf("parseSpec(%q) = %v: want an error of one line under 160 characters", raw, err)
		}
	}
}

func TestOpenRefuses(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		spec string
		opt  Options
		err  string
	}{
		{"sqlite", Options{Schema: "bad; DROP"}, "plain identifier"},
		{"sqlite", Options{Settings: []string{"x=1"}}, "throwaway"},
		{"ftp://x/y", Options{}, "unknown scheme"},
		{"duckdb", Options{Settings: []string{"threads=4"}}, "throwaway"},
		{"duckdb:/tmp/a?b.db", Options{}, "not supported"},
	} {
		tg, err := Open(ctx, tc.spec, tc.opt)
		if err == nil {
			tg.Close()
		}
		if err == nil || !strings.Contains(err.Error(), tc.err) {
			t.Errorf("Open(%q, %+v) error = %v, want one containing %q", tc.spec, tc.opt, err, tc.err)
		}
	}
}

func TestOpenSQLite(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "named.db")
	for _, spec := range []string{"", "sqlite:" + path} {
		tg, err := Open(ctx, spec, Options{})
		if err != nil {
			t.Fatalf("Open(%q): %v", spec, err)
		}
		if info := tg.Info(); info.DBMS != "sqlite" || info.Version == "" {
			t.Errorf("Open(%q).Info() = %+v", spec, info)
		}
		if Server(tg) != nil {
			t.Errorf("Open(%q): a SQLite target has no server", spec)
		}
		if err := tg.Close(); err != nil {
			t.Error(err)
		}
	}
	if _, err := os.Stat(path); err != nil {
		t.Errorf("sqlite:PATH must keep its file after Close: %v", err)
	}
}

// TestOpenLocal starts each throwaway server through Open, works on it, opens
// it a second time through its URL, and checks that Close stops the server.
func TestOpenLocal(t *testing.T) {
	for _, tc := range []struct {
		spec, dbms string
		kind       localdb.Kind
	}{
		{"mariadb", "mariadb", localdb.MariaDB},
		{"postgres", "postgres", localdb.Postgres},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			localdbtest.Require(t, tc.kind)
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			tg, err := Open(ctx, tc.spec, Options{Schema: "txlab_connect"})
			if err != nil {
				t.Fatal(err)
			}
			srv := Server(tg)
			if srv == nil {
				tg.Close()
				t.Fatal("Open(mariadb|postgres) must keep its server")
			}
			info := tg.Info()
			if info.DBMS != tc.dbms || info.Schema != "txlab_connect" {
				t.Errorf("Info = %+v", info)
			}
			// The adapter's optional interfaces are found through the
			// wrapper (without them a throwaway server's first worker
			// re-created its tables on every run).
			if _, ok := target.As[target.Emptier](tg); !ok {
				t.Error("table reuse (target.Emptier) is hidden by the wrapper")
			}
			if _, ok := target.As[target.SettingsReader](tg); !ok {
				t.Error("target.SettingsReader is hidden by the wrapper")
			}
			sib, ok := target.As[target.Sibler](tg)
			if !ok {
				t.Fatal("target.Sibler is hidden by the wrapper")
			}
			other, err := sib.Sibling(ctx, "x")
			if err != nil {
				t.Fatal(err)
			}
			if got := other.Info().Schema; got != "txlab_connect_x" {
				t.Errorf("sibling schema %q, want txlab_connect_x", got)
			}
			other.Close()
			s, err := tg.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			if _, err := s.Exec(ctx, "CREATE TABLE c (x INT)"); err != nil {
				t.Error(err)
			}
			s.Close()

			// The same server through its URL, as a user would pass it:
			// refused while the first target holds the schema, then
			// accepted in another one.
			if _, err := Open(ctx, srv.DSN(), Options{Schema: "txlab_connect"}); err == nil || !strings.Contains(err.Error(), "in use by another txlab run") {
				t.Errorf("a second run in the same schema: %v, want refused", err)
			}
			// c was created by hand, not adopted: Reset must refuse.
			if err := tg.Reset(ctx); err == nil || !strings.Contains(err.Error(), "c)") {
				t.Errorf("Reset with an unadopted table = %v", err)
			}
			again, err := Open(ctx, srv.DSN(), Options{Schema: "txlab_connect_url"})
			if err != nil {
				t.Error(err)
			} else {
				if again.Info().DBMS != tc.dbms {
					t.Errorf("via URL: Info = %+v", again.Info())
				}

				again.Close()
			}

			if err := tg.Close(); err != nil {
				t.Error(err)
			}
			select {
			case <-srv.Done():
			case <-time.After(30 * time.Second):
				t.Error("server still running after Close")
			}
		})
	}
}

var _ target.Target = (*serverTarget)(nil)

// TestOpenReleases starts servers named by KIND@VERSION (a PostgreSQL
// release installed from the npm registry: the oldest and the newest txlab
// is tested on) and KIND@/path (Debian's own binaries named as a user's
// build would be), and checks each runs the release asked for.
func TestOpenReleases(t *testing.T) {
	debianPG := "postgres@/usr/lib/postgresql/NN/bin"
	if dirs, _ := filepath.Glob("/usr/lib/postgresql/*/bin"); len(dirs) > 0 {
		debianPG = "postgres@" + dirs[0]
	}
	for _, tc := range []struct {
		spec    string
		kind    localdb.Kind
		dbms    string
		version string // prefix of Info().Version
	}{
		{"postgres@10", localdb.Postgres, "postgres", "10."},
		{"postgres@18", localdb.Postgres, "postgres", "18."},
		{"mariadb@/usr", localdb.MariaDB, "mariadb", ""},
		{debianPG, localdb.Postgres, "postgres", ""},
	} {
		t.Run(tc.spec, func(t *testing.T) {
			localdbtest.Require(t, tc.kind)
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
			defer cancel()
			tg, err := Open(ctx, tc.spec, Options{Schema: "txlab_release"})
			if errors.Is(err, pgrelease.ErrOffline) && os.Getenv("CI") != "true" {
				t.Skipf("offline: %v", err)
			}
			if err != nil {
				t.Fatal(err)
			}
			defer tg.Close()
			info := tg.Info()
			if info.DBMS != tc.dbms || !strings.HasPrefix(info.Version, tc.version) {
				t.Errorf("Open(%q).Info() = %s %s, want %s %s…", tc.spec, info.DBMS, info.Version, tc.dbms, tc.version)
			}
			s, err := tg.Open(ctx)
			if err != nil {
				t.Fatal(err)
			}
			defer s.Close()
			if _, err := s.Exec(ctx, "CREATE TABLE r (x INT PRIMARY KEY)"); err != nil {
				t.Error(err)
			}
		})
	}
	// A directory without the programs is one clear error.
	_, err := Open(context.Background(), "postgres@"+t.TempDir(), Options{})
	if err == nil || !strings.Contains(err.Error(), "no postgres and initdb") {
		t.Errorf("postgres@/empty: %v", err)
	}
}
