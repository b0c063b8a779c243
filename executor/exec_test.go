package executor_test

import (
	"context"
	"flag"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
)

var update = flag.Bool("update", false, "rewrite the expected schedules in testdata")

func loadCase(t testing.TB, name string) *testcase.Case {
	t.Helper()
	c, err := testcase.ParseFile(filepath.Join("testdata", name+".txn"))
	if err != nil {
		t.Fatal(err)
	}
	return c
}

// compact renders a schedule without error messages, which vary between
// server versions, so that it can be compared with a golden file.
func compact(res *executor.Result) string {
	var b strings.Builder
	for _, ev := range res.Events {
		out := executor.Outcome(ev)
		if ev.Status == executor.StatusError {
			out = strings.TrimSpace(strings.SplitN(out, "(", 2)[0])
		}
		fmt.Fprintf(&b, "%d> %s; => %s\n", ev.Conn, ev.SQL, out)
	}
	if res.Hang {
		b.WriteString("HANG\n")
	} else {
		b.WriteString("final:\n")
		executor.WriteState(&b, res.Final)
	}
	return b.String()
}

// TestSchedules replays each case of testdata on each DBMS that has an
// expected schedule for it (testdata/NAME.DBMS.schedule) and compares.
func TestSchedules(t *testing.T) {
	// PostgreSQL's deadlock victim is the backend whose deadlock_timeout
	// expires first while the cycle exists. With localdb's 100 ms, a loaded
	// machine could issue the second lock request after the first backend's
	// check and make the other one the victim; 1 s keeps the first waiter
	// the victim, as the golden schedule says.
	scheduleSettings := map[string][]string{"postgres": {"deadlock_timeout=1s"}}
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			golden, _ := filepath.Glob(filepath.Join("testdata", "*."+dbms+".schedule"))
			// name.dbms.alt.schedule is another permitted outcome of the
			// same case (PostgreSQL does not promise which transaction a
			// deadlock aborts), not a case of its own.
			golden = slices.DeleteFunc(golden, func(p string) bool {
				return strings.HasSuffix(p, ".alt."+dbms+".schedule") || strings.HasSuffix(p, "."+dbms+".alt.schedule")
			})
			if len(golden) == 0 {
				t.Fatalf("no expected schedules for %s", dbms)
			}
			tg := connecttest.Target(t, dbms, scheduleSettings[dbms]...)
			for _, path := range golden {
				name := strings.TrimSuffix(filepath.Base(path), "."+dbms+".schedule")
				t.Run(name, func(t *testing.T) {
					c := loadCase(t, name)
					opt := executor.Options{HangTimeout: 3 * time.Second}
					res, err := executor.Run(context.Background(), tg, c, opt)
					if err != nil {
						t.Fatalf("run: %v", err)
					}
					got := compact(res)
					if *update {
						if err := os.WriteFile(path, []byte(got), 0o644); err != nil {
							t.Fatal(err)
						}
						return
					}
					want, err := os.ReadFile(path)
					if err != nil {
						t.Fatal(err)
					}
					alt, _ := os.ReadFile(strings.TrimSuffix(path, ".schedule") + ".alt.schedule")
					if got != string(want) && (alt == nil || got != string(alt)) {
						t.Errorf("schedule differs from %s\n--- got\n%s--- want\n%s", path, got, want)
					}
				})
			}
		})
	}
}

// TestReleasedTogetherMarked: the statements one ROLLBACK releases are
// marked as one Concurrent group, in the order their results came back.
func TestReleasedTogetherMarked(t *testing.T) {
	for _, dbms := range []string{"mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			tg := connecttest.Target(t, dbms)
			c, err := testcase.ParseFile(filepath.Join("..", "oracle", "wss", "testdata", "released-together.txn"))
			if err != nil {
				t.Fatal(err)
			}
			res, err := executor.Run(context.Background(), tg, c, executor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			var groups []int
			for _, ev := range res.Events {
				if ev.Resumed {
					groups = append(groups, ev.Concurrent)
				}
			}
			if len(groups) != 2 || groups[0] == 0 || groups[0] != groups[1] {
				t.Errorf("resumed statements' groups %v, want two equal non-zero ones:\n%+v", groups, res.Events)
			}
		})
	}
}

// TestOutsideSchemaRefused: a case that would change a table outside
// txlab's database is refused before anything runs; the same case without
// that statement runs.
func TestOutsideSchemaRefused(t *testing.T) {
	tg := connecttest.Target(t, "sqlite")
	ctx := context.Background()
	src := "CREATE TABLE t (a INT);\n1> INSERT INTO t VALUES (1);\n1> DELETE FROM other.users;\n"
	c, err := testcase.ParseString("outside", src)
	if err != nil {
		t.Fatal(err)
	}
	res, err := executor.Run(ctx, tg, c, executor.Options{})
	if err == nil || err.Error() != `step 2 refused: names other.users outside txlab's database (main and temp)` {
		t.Fatalf("error %v, want a refusal naming step 2", err)
	}
	if len(res.Setup) != 0 || len(res.Events) != 0 {
		t.Errorf("a refused case ran statements: %+v", res)
	}
	c.Steps = c.Steps[:1]
	if _, err := executor.Run(ctx, tg, c, executor.Options{}); err != nil {
		t.Errorf("the case without the statement: %v", err)
	}
}
