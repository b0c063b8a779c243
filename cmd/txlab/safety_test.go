package main

import (
	"bufio"
	"bytes"
	"database/sql"
	"io"
	"net"
	"net/url"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"

	_ "github.com/go-sql-driver/mysql"
	_ "github.com/jackc/pgx/v5/stdlib"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
)

// TestDependentsOutsideSurvive puts a user's view and foreign key, outside
// txlab's schema, over a table txlab created. Every later txlab command must
// refuse to reset the schema, name them, and leave them in place. On
// PostgreSQL txlab runs as a least-privileged role of the user's, which
// owns txlab's tables after a run (a case role txlab creates takes its
// tables along when it goes).
func TestDependentsOutsideSurvive(t *testing.T) {
	for _, tt := range []struct {
		kind   localdb.Kind
		driver string
		role   []string // run first, as the user; the --db role is then txlab_user
		setup  []string
		check  string
		want   []string
	}{
		{localdb.Postgres, "pgx", []string{"CREATE ROLE txlab_user LOGIN", "GRANT CREATE ON DATABASE postgres TO txlab_user"}, []string{
			"CREATE VIEW public.user_view AS SELECT * FROM txlab.t",
			"CREATE TABLE public.user_child (id INT REFERENCES txlab.t (id))",
			"CREATE FUNCTION public.copy_to_txlab() RETURNS trigger LANGUAGE plpgsql AS $$BEGIN INSERT INTO txlab.t (id) VALUES (NEW.id + 100); RETURN NEW; END$$",
			"CREATE TABLE public.src (id INT)",
			"CREATE TRIGGER copy AFTER INSERT ON public.src FOR EACH ROW EXECUTE FUNCTION public.copy_to_txlab()",
		}, "SELECT count(*) FROM public.user_view", []string{"view public.user_view", "user_child_id_fkey on table public.user_child", "public.copy_to_txlab()"}},
		{localdb.MariaDB, "mysql", nil, []string{
			"CREATE DATABASE userdb",
			"CREATE VIEW userdb.user_view AS SELECT * FROM txlab.t",
			"CREATE TABLE userdb.user_child (id INT, FOREIGN KEY fk_user (id) REFERENCES txlab.t (id)) ENGINE=InnoDB",
			"CREATE TABLE userdb.src (id INT)",
			"CREATE TRIGGER userdb.copy AFTER INSERT ON userdb.src FOR EACH ROW INSERT INTO txlab.t (id) VALUES (NEW.id + 100)",
			"CREATE PROCEDURE userdb.purge() DELETE FROM `txlab`.t",
			"CREATE EVENT userdb.nightly ON SCHEDULE EVERY 1 DAY DISABLE DO DELETE FROM txlab . t",
		}, "SELECT count(*) FROM userdb.user_view", []string{"view userdb.user_view", "foreign key fk_user on table userdb.user_child",
			"trigger userdb.copy", "procedure userdb.purge", "event userdb.nightly"}},
	} {
		t.Run(string(tt.kind), func(t *testing.T) {
			srv := localdbtest.Server(t, tt.kind)
			dsn := srv.DSN()
			if tt.role != nil {
				userDB(t, srv, tt.driver, tt.role...)
				u, err := url.Parse(dsn)
				if err != nil {
					t.Fatal(err)
				}
				u.User = url.User("txlab_user")
				dsn = u.String()
			}
			c := "../../examples/mariadb-rc-update-delete.txn"
			if code, _, stderr := txlab(t, "run", "--db", dsn, "--oracle", "none", c); code != 0 {
				t.Fatalf("first run: exit %d: %s", code, stderr)
			}
			db := userDB(t, srv, tt.driver, tt.setup...)
			for _, args := range [][]string{
				{"run", "--db", dsn, c},
				{"fuzz", "--db", dsn, "--cases", "2"},
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

// TestConnectTimeout points txlab at a port that accepts TCP connections
// and never answers: it must give up after --connect-timeout with a clear
// message, for both protocol families.
func TestConnectTimeout(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	defer l.Close()
	go func() {
		var held []net.Conn // accepted and never answered
		for {
			c, err := l.Accept()
			if err != nil {
				for _, c := range held {
					c.Close()
				}
				return
			}
			held = append(held, c)
		}
	}()
	addr := l.Addr().String()
	for _, db := range []string{"mysql://root@" + addr + "/", "postgres://u@" + addr + "/postgres"} {
		start := time.Now()
		code, _, stderr := txlab(t, "run", "--db", db, "--connect-timeout", "1s", "../../examples/sqlite-write-busy.txn")
		if el := time.Since(start); el > 6*time.Second {
			t.Errorf("%s: gave up after %v, want about 1s", db, el)
		}
		if code != 2 || !strings.Contains(stderr, "did not answer within 1s") {
			t.Errorf("%s: exit %d, stderr %q", db, code, stderr)
		}
	}
}

// TestServerDied kills the database process under `txlab server`: the
// command must say so and exit 2 instead of waiting silently.
func TestServerDied(t *testing.T) {
	localdbtest.Require(t, localdb.Postgres)
	pr, pw := io.Pipe()
	done := make(chan int, 1)
	var stderr bytes.Buffer
	go func() {
		done <- run(t.Context(), []string{"server", "postgres"}, pw, &stderr)
		pw.Close()
	}()
	line, err := bufio.NewReader(pr).ReadString('\n')
	if err != nil {
		t.Fatalf("no DSN: %v (%s)", err, stderr.String())
	}
	go io.Copy(io.Discard, pr)
	u, err := url.Parse(strings.TrimSpace(line))
	if err != nil {
		t.Fatal(err)
	}
	// The postmaster is the process listening on the DSN's port.
	out, err := exec.Command("sh", "-c", "pgrep -f 'port="+u.Port()+"|-p "+u.Port()+"' | head -1").Output()
	pid, perr := strconv.Atoi(strings.TrimSpace(string(out)))
	if err != nil || perr != nil {
		t.Fatalf("no postmaster found for port %s: %v %v", u.Port(), err, perr)
	}
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	select {
	case code := <-done:
		if code != 2 || !strings.Contains(stderr.String(), "server process died") {
			t.Errorf("exit %d, stderr %q; want 2 and a line saying the server died", code, stderr.String())
		}
	case <-time.After(15 * time.Second):
		t.Fatal("txlab server still waiting 15 s after its server died")
	}
}

// TestFlagRanges: out-of-range values are refused with one line naming the
// range, before anything runs.
func TestFlagRanges(t *testing.T) {
	for _, tt := range []struct {
		args []string
		want string
	}{
		{[]string{"fuzz", "--duration", "-5s"}, "must not be negative"},
		{[]string{"fuzz", "--cases", "-1"}, "must not be negative"},
		{[]string{"fuzz", "--hang-timeout", "-1s"}, "--hang-timeout -1s: want a positive duration"},
		{[]string{"run", "--block-timeout", "0s", "x.txn"}, "--block-timeout 0s: want a positive duration"},
		{[]string{"fuzz", "--connect-timeout", "0s"}, "--connect-timeout 0s"},
		{[]string{"fuzz", "--max-txns", "9"}, "--max-txns 9: want 2 to 5"},
		{[]string{"fuzz", "--max-stmts", "0"}, "--max-stmts 0: want 1 to 10"},
		{[]string{"fuzz", "--orders", "0"}, "--orders 0: want 1 to 20"},
		{[]string{"server", "mariadb", "--set", "novalue"}, `--set "novalue": want name=value`},
		{[]string{"fuzz", "--db", "mariadb", "--set", "=1"}, `--set "=1": want name=value`},
	} {
		code, _, stderr := txlab(t, tt.args...)
		if code != 2 || !strings.Contains(stderr, tt.want) || strings.Count(strings.TrimSpace(stderr), "\n") > 0 {
			t.Errorf("txlab %v: exit %d, stderr %q; want exit 2 and one line with %q", tt.args, code, stderr, tt.want)
		}
	}
}

// TestFailedSetupDoesNotPoison: a case whose setup fails halfway leaves a
// table txlab created; the next case, in the same and in a new txlab run,
// must still run on that schema.
func TestFailedSetupDoesNotPoison(t *testing.T) {
	for _, db := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(db, func(t *testing.T) {
			spec := "sqlite:" + filepath.Join(t.TempDir(), "own.db")
			if db != "sqlite" {
				spec = localdbtest.Server(t, localdb.Kind(db)).DSN()
			}
			code, out, stderr := txlab(t, "run", "--db", spec, "--oracle", "none", "testdata/setup-fails.txn", "testdata/good.txn")
			if code != 2 || !strings.Contains(out, "case testdata/good.txn") || !strings.Contains(stderr, "setup statement 2") {
				t.Fatalf("same run: exit %d\nstdout %s\nstderr %s", code, out, stderr)
			}
			code, out, stderr = txlab(t, "run", "--db", spec, "--oracle", "none", "testdata/setup-fails.txn")
			if code != 2 {
				t.Fatalf("failing case alone: exit %d, %s", code, stderr)
			}
			code, out, stderr = txlab(t, "run", "--db", spec, "--oracle", "none", "testdata/good.txn")
			if code != 0 || !strings.Contains(out, "(1, 11)") {
				t.Errorf("new run after a failed setup: exit %d\nstdout %s\nstderr %s", code, out, stderr)
			}
		})
	}
}

// TestStrangerTableSurvivesCampaign: a table another session creates in
// txlab's database while a campaign runs there is never taken for txlab's:
// the campaign stops at its next reset, naming it, and the table keeps its
// row. This is the acceptance check; whether the table appears
// inside a setup's window (where txlab once registered every table it found,
// and the next reset dropped it) is up to timing, so the deterministic
// regression test is executor's TestOwnOnlyWhatItCreated.
func TestStrangerTableSurvivesCampaign(t *testing.T) {
	srv := localdbtest.Server(t, localdb.MariaDB)
	db, err := sql.Open("mysql", srv.DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	defer db.Close()
	created := make(chan error, 1)
	go func() {
		deadline := time.Now().Add(20 * time.Second)
		for {
			_, err := db.Exec("CREATE TABLE txlab.theirs (id INT)")
			if err == nil {
				_, err = db.Exec("INSERT INTO txlab.theirs VALUES (7)")
				created <- err
				return
			}
			if time.Now().After(deadline) {
				created <- err
				return
			}
			time.Sleep(200 * time.Millisecond) // until the campaign has made its database
		}
	}()
	code, _, stderr := txlab(t, "fuzz", "--db", srv.DSN(), "--duration", "30s", "--oracle", "none", "--out", t.TempDir())
	if err := <-created; err != nil {
		t.Fatalf("the other session's table: %v", err)
	}
	if code != 2 || !strings.Contains(stderr, "theirs") {
		t.Errorf("campaign with a stranger's table in its database: exit %d, want 2 naming it: %s", code, stderr)
	}
	var id int
	if err := db.QueryRow("SELECT id FROM txlab.theirs").Scan(&id); err != nil || id != 7 {
		t.Errorf("the stranger's table after the campaign: %d, %v; want its row 7", id, err)
	}
}

// userDB connects to srv as its administrator — the user's side of a
// safety test, to set up their own objects and to look at them after txlab
// ran — runs setup there and is closed with the test.
func userDB(t *testing.T, srv *localdb.Server, driver string, setup ...string) *sql.DB {
	t.Helper()
	db, err := sql.Open(driver, srv.DriverDSN())
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { db.Close() })
	for _, q := range setup {
		if _, err := db.Exec(q); err != nil {
			t.Fatalf("%s: %v", q, err)
		}
	}
	return db
}
