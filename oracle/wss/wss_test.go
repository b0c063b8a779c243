package wss_test

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/expectfile"
	"github.com/txlab/txlab/oracle/wss"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

type expectation struct {
	file, dbms string
	want       []string // kind:verdict:rule, sorted; empty for none
}

func readExpectations(t *testing.T) []expectation {
	t.Helper()
	var out []expectation
	for _, fs := range expectfile.Read(t, filepath.Join("testdata", "expect.txt"), 3, 0) {
		e := expectation{file: fs[0], dbms: fs[1]}
		if fs[2] != "none" {
			e.want = fs[2:]
			slices.Sort(e.want)
		}
		out = append(out, e)
	}
	return out
}

func got(o *wss.Outcome) []string {
	var out []string
	for _, f := range o.Findings {
		out = append(out, f.Kind+":"+string(f.Verdict)+":"+f.Rule)
	}
	slices.Sort(out)
	return out
}

// TestKnownCases runs the case files of testdata on the DBMS each
// expectation names: known bugs must be flagged bug, PostgreSQL's documented
// snapshot behaviour allowed with its rule, correct schedules not at all.
func TestKnownCases(t *testing.T) {
	exps := readExpectations(t)
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		t.Run(dbms, func(t *testing.T) {
			tg := connecttest.Target(t, dbms)
			for _, e := range exps {
				if e.dbms != dbms {
					continue
				}
				t.Run(e.file, func(t *testing.T) {
					c, err := testcase.ParseFile(filepath.Join("testdata", e.file))
					if err != nil {
						t.Fatal(err)
					}
					var opt wss.Options
					if dbms == "sqlite" {
						opt.Exec.Isolation = target.Serializable
					}
					o, err := wss.Check(context.Background(), tg, c, opt)
					if err != nil {
						t.Fatal(err)
					}
					if o.Skipped != "" {
						t.Fatalf("check skipped: %s", o.Skipped)
					}
					if g := got(o); !slices.Equal(g, e.want) {
						var b strings.Builder
						o.Actual.WriteSchedule(&b)
						for _, v := range o.Violations {
							b.WriteString(o.Text(v))
						}
						t.Errorf("findings %v, want %v\n%s", g, e.want, b.String())
					}
					for _, f := range o.Findings {
						if f.Oracle != wss.Name || f.Rule == "" || f.Isolation == "" || f.Summary == "" {
							t.Errorf("incomplete finding %+v", f)
						}
					}
				})
			}
		})
	}
}

// TestBundle writes the MariaDB bug's bundle (one: the statement-level
// comparison finds the same cause, folded into the transaction-level
// finding) and checks that its case file replays to the same verdict, and
// that a second identical finding is counted, not written again.
func TestBundle(t *testing.T) {
	tg := connecttest.Target(t, "mariadb")
	c, err := testcase.ParseFile(filepath.Join("testdata", "mdev-30835-rc.txn"))
	if err != nil {
		t.Fatal(err)
	}
	o, err := wss.Check(context.Background(), tg, c, wss.Options{})
	if err != nil {
		t.Fatal(err)
	}
	w := &report.Writer{Dir: t.TempDir()}
	bs := o.Bundles()
	if len(bs) != 1 {
		t.Fatalf("%d bundles, want 1", len(bs))
	}
	f, dup, err := w.Write(bs[0])
	if err != nil || dup {
		t.Fatalf("write: dup %v, %v", dup, err)
	}
	if _, dup, _ := w.Write(bs[0]); !dup {
		t.Error("the same signature was written twice")
	}
	txt, err := os.ReadFile(filepath.Join(f.Dir, "report.txt"))
	if err != nil {
		t.Fatal(err)
	}
	for _, want := range []string{"verdict: bug (wss-fcrfs)", "FCRFS order", "(2) only in the actual state", "(3) only in the serial state",
		"the statement-level comparison finds the same (bug, wss-fcrfs)", "WriteCheck (stmt-wss)"} {
		if !strings.Contains(string(txt), want) {
			t.Errorf("report.txt lacks %q:\n%s", want, txt)
		}
	}
	replayed, err := testcase.ParseFile(filepath.Join(f.Dir, "case.txn"))
	if err != nil {
		t.Fatal(err)
	}
	if replayed.DBMS == "" || replayed.Isolation != target.ReadCommitted {
		t.Errorf("case.txn headers: dbms %q isolation %q", replayed.DBMS, replayed.Isolation)
	}
	o2, err := wss.Check(context.Background(), tg, replayed, wss.Options{})
	if err != nil {
		t.Fatal(err)
	}
	if verdict.CountBugs(o2.Findings) != 1 {
		t.Errorf("replayed case.txn: findings %v", got(o2))
	}
	if s := w.Summary(); len(s) != 1 || s[0].Count != 2 {
		t.Errorf("summary %+v", s)
	}
	if _, err := os.Stat(filepath.Join(f.Dir, "report.json")); err != nil {
		t.Error(err)
	}
}

// checkGroups runs n generated groups and fails on any bug verdict.
func checkGroups(t *testing.T, tg target.Target, level target.Level, n int) {
	ctx := context.Background()
	bugs, findings, cases := 0, 0, 0
	for i := range n {
		for _, c := range wss.Group(uint64(i)+1, wss.GroupConfig{Dialect: tg.Info().Dialect}) {
			cases++
			o, err := wss.Check(ctx, tg, c, wss.Options{Exec: executor.Options{Isolation: level}})
			if err != nil {
				var se *executor.SetupError
				if errorsAs(err, &se) {
					continue
				}
				t.Fatalf("group %d: %v", i+1, err)
			}
			findings += len(o.Findings)
			for _, v := range o.Violations {
				if testing.Verbose() {
					t.Logf("group %d: %s\n%s", i+1, c, o.Text(v))
				}
				if v.Finding.Verdict == verdict.Bug {
					bugs++
					t.Errorf("group %d: bug reported on a correct DBMS:\n%s\n%s", i+1, c, o.Text(v))
				}
			}
		}
	}
	t.Logf("%d groups, %d cases, %d findings (allowed), %d bugs", n, cases, findings, bugs)
}

func TestPrecisionSQLite(t *testing.T) {
	checkGroups(t, connecttest.Target(t, "sqlite"), target.Serializable, 50)
}

func TestPrecisionPostgresSerializable(t *testing.T) {
	checkGroups(t, connecttest.Target(t, "postgres"), target.Serializable, 50)
}

// BenchmarkGroup measures checked groups per second: each group is three
// submitted orders, each one concurrent run plus two serial re-runs (and
// triage runs when a violation turns up).
func BenchmarkGroup(b *testing.B) {
	for _, dbms := range []string{"sqlite", "mariadb", "postgres"} {
		b.Run(dbms, func(b *testing.B) {
			tg := connecttest.Target(b, dbms)
			ctx := context.Background()
			seed := uint64(0)
			runs := 0
			lvl := target.Level("")
			if dbms == "sqlite" {
				lvl = target.Serializable
			}
			for b.Loop() {
				seed++
				for _, c := range wss.Group(seed, wss.GroupConfig{Dialect: tg.Info().Dialect, Orders: 1}) {
					o, err := wss.Check(ctx, tg, c, wss.Options{Exec: executor.Options{Isolation: lvl}})
					runs += o.Runs
					if err != nil {
						var se *executor.SetupError
						if !errorsAs(err, &se) {
							b.Fatal(err)
						}
					}
				}
			}
			b.ReportMetric(float64(b.N)/b.Elapsed().Seconds(), "groups/s")
			b.ReportMetric(float64(runs)/float64(b.N), "runs/group")
		})
	}
}

// TestModelDecides: a PostgreSQL RR difference that no serial order and no
// single documented mechanism explains is a bug for WSS alone; with the
// model of documented semantics it is allowed (every statement followed
// its view), and MariaDB's MDEV-30835 stays a bug, now with the confirmed
// defect's rule.
func TestModelDecides(t *testing.T) {
	for _, tc := range []struct {
		dbms, file       string
		alone, withModel string
	}{
		{"postgres", "pg-rr-documented-views.txn", "tx-wss:bug:wss-fcrfs", "tx-wss:allowed:postgres-rr-documented-views"},
		{"mariadb", "mdev-30835-rc.txn", "tx-wss:bug:wss-fcrfs", "tx-wss:bug:mdev-30835-update-skips-uncommitted-insert"},
	} {
		t.Run(tc.dbms+"/"+tc.file, func(t *testing.T) {
			tg := connecttest.Target(t, tc.dbms)
			c, err := testcase.ParseFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			ctx := context.Background()
			res, err := executor.Run(ctx, tg, c, executor.Options{})
			if err != nil {
				t.Fatal(err)
			}
			m := &conform.Checker{}
			defer m.Close()
			for _, run := range []struct {
				opt  wss.Options
				want string
			}{{wss.Options{}, tc.alone}, {wss.Options{Model: m}, tc.withModel}} {
				o, err := wss.CheckExecution(ctx, tg, c, res, run.opt)
				if err != nil {
					t.Fatal(err)
				}
				g := got(o)
				if !slices.Contains(g, run.want) {
					t.Errorf("model %v: findings %v, want %s among them", run.opt.Model != nil, g, run.want)
				}
			}
		})
	}
}
