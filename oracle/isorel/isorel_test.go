package isorel_test

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/expectfile"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/oracle/isorel"
	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// expectation is one line of testdata/expect.txt.
type expectation struct {
	file, dbms string
	level      target.Level
	setting    string
	want       []string // class:verdict, sorted
}

func readExpect(t *testing.T) []expectation {
	t.Helper()
	var out []expectation
	for _, fs := range expectfile.Read(t, "testdata/expect.txt", 5, 0) {
		e := expectation{file: fs[0], dbms: fs[1], level: target.Level(fs[2]), setting: fs[3]}
		if fs[4] != "none" {
			e.want = fs[4:]
			slices.Sort(e.want)
		}
		out = append(out, e)
	}
	return out
}

// TestKnownCases runs each case of testdata/expect.txt on a real server at
// the level given and compares the findings (class:verdict). Both sides are
// there: write skew and lost update found where the DBMS allows them, and
// nothing where it prevents them (serializable, innodb_snapshot_isolation).
func TestKnownCases(t *testing.T) {
	ctx := context.Background()
	targets := map[string]target.Target{}
	// Servers live for the whole test, shared by the subtests.
	get := func(dbms, setting string) target.Target {
		key := dbms + " " + setting
		if tg, ok := targets[key]; ok {
			return tg
		}
		var tg target.Target
		if setting == "-" {
			tg = connecttest.Target(t, dbms)
		} else {
			srv := localdbtest.Server(t, localdb.Kind(dbms), setting)
			var err error
			if tg, err = connect.Open(ctx, srv.DSN(), connect.Options{}); err != nil {
				t.Fatal(err)
			}
			t.Cleanup(func() { tg.Close() })
		}
		targets[key] = tg
		return tg
	}
	for _, e := range readExpect(t) {
		name := strings.Join([]string{e.file, e.dbms, string(e.level), e.setting}, "/")
		t.Run(name, func(t *testing.T) {
			tg := get(e.dbms, e.setting)
			c, err := testcase.ParseFile(filepath.Join("testdata", e.file))
			if err != nil {
				t.Fatal(err)
			}
			settings, err := semantics.ServerSettings(ctx, tg, nil)
			if err != nil {
				t.Fatal(err)
			}
			checker := &conform.Checker{Settings: settings} // as the command line builds it
			defer checker.Close()
			w := &report.Writer{Dir: t.TempDir(), KeepAllowed: true} // the allowed findings' bundles are checked too
			o := &isorel.Oracle{Options: isorel.Options{Settings: settings, Checker: checker, Seen: w.Seen}}
			defer o.Close()
			j, err := o.Check(ctx, tg, c, nil, executor.Options{Isolation: e.level})
			if err == nil {
				err = w.Save(j.Findings, j.Evidence)
			}
			if err != nil {
				t.Fatal(err)
			}
			res, fs := j.Execution, j.Findings
			var got []string
			for _, f := range fs {
				got = append(got, f.Kind+":"+string(f.Verdict))
				if f.Dir == "" || f.Rule == "" {
					t.Errorf("finding %+v lacks a bundle or a rule", f)
				}
				for _, name := range []string{"case.txn", "report.txt", "report.json", "graph.dot"} {
					if _, err := os.Stat(filepath.Join(f.Dir, name)); err != nil {
						t.Error(err)
					}
				}
				checkReportJSON(t, filepath.Join(f.Dir, "report.json"), f.Kind)
			}
			slices.Sort(got)
			if !slices.Equal(got, e.want) {
				t.Errorf("findings %v, want %v", got, e.want)
			}
			for table, rows := range res.Final {
				for _, r := range rows {
					for _, v := range r {
						if strings.HasPrefix(v.S, "T0") {
							t.Errorf("final state of %s shows a hidden wList: %v", table, r)
						}
					}
				}
			}
			// The case's own statements show no hidden column; txlab's final
			// read shows nothing else.
			for _, ev := range res.Events {
				own := slices.ContainsFunc(ev.Columns, func(c string) bool { return !strings.HasPrefix(c, "txlab_") })
				for _, col := range ev.Columns {
					if strings.HasPrefix(col, "txlab_") && own {
						t.Errorf("hidden column %s shown in %q", col, ev.SQL)
					}
				}
			}
		})
	}
}

// checkReportJSON: report.json's details name the class and each cycle
// edge's kind in words, as a reader of the file expects.
func checkReportJSON(t *testing.T, path, class string) {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var js struct {
		Details struct {
			Class string `json:"class"`
			Cycle []struct {
				Kind  string `json:"kind"`
				Row   string `json:"row"`
				WList string `json:"wlist"`
			} `json:"cycle"`
			Explanation string `json:"explanation"`
		} `json:"details"`
	}
	if err := json.Unmarshal(data, &js); err != nil {
		t.Fatalf("%s: %v", path, err)
	}
	d := js.Details
	if d.Class != class || d.Explanation == "" || len(d.Cycle) == 0 {
		t.Errorf("%s: details %+v", path, d)
	}
	for _, e := range d.Cycle {
		if !slices.Contains([]string{"ww", "wr", "rw", "so"}, e.Kind) || e.Kind != "so" && (e.Row == "" || e.WList == "") {
			t.Errorf("%s: cycle edge %+v", path, e)
		}
	}
}

// TestModelSettles: IsoRel's bug findings are settled by the model of
// documented semantics on the plain run. The semantics table is told that
// innodb_snapshot_isolation is ON, so it calls the lost update of
// lost-update.txn a bug; the server really runs with it OFF. A model told
// the truth finds every statement as documented (allowed, with the
// documented-views rule); a model told ON pinpoints the UPDATE that should
// have failed with error 1020 (bug, with the model's rule), whether the
// plain run is handed over or made by the oracle itself.
func TestModelSettles(t *testing.T) {
	ctx := context.Background()
	tg := connecttest.Target(t, "mariadb")
	c, err := testcase.ParseFile("testdata/lost-update.txn")
	if err != nil {
		t.Fatal(err)
	}
	claimed := map[string]string{"innodb_snapshot_isolation": "ON"}
	truth, err := semantics.ServerSettings(ctx, tg, nil)
	if err != nil {
		t.Fatal(err)
	}
	opt := executor.Options{Isolation: target.RepeatableRead}
	for _, tc := range []struct {
		name        string
		model       map[string]string
		givePlain   bool
		verdict     verdict.Verdict
		rule, words string
	}{
		{"truthful model, own plain run", truth, false, verdict.Allowed, "documented-views", "every statement followed"},
		{"truthful model, shared plain run", truth, true, verdict.Allowed, "documented-views", "every statement followed"},
		{"model told ON", claimed, false, verdict.Bug, "", "step 6: UPDATE acct SET bal = 120"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			checker := &conform.Checker{Settings: tc.model}
			defer checker.Close()
			w := &report.Writer{Dir: t.TempDir(), KeepAllowed: true}
			o := &isorel.Oracle{Options: isorel.Options{Settings: claimed, Checker: checker, Seen: w.Seen}}
			defer o.Close()
			var plain *executor.Result
			if tc.givePlain {
				if plain, err = executor.Run(ctx, tg, c, opt); err != nil {
					t.Fatal(err)
				}
			}
			j, err := o.Check(ctx, tg, c, plain, opt)
			if err == nil {
				err = w.Save(j.Findings, j.Evidence)
			}
			if err != nil {
				t.Fatal(err)
			}
			if len(j.Findings) != 1 {
				t.Fatalf("findings %+v, want one lost update", j.Findings)
			}
			f := j.Findings[0]
			if f.Kind != "lost-update" || f.Verdict != tc.verdict || !strings.Contains(f.Rule, tc.rule) || !strings.Contains(f.Summary, tc.words) {
				t.Errorf("finding %s %s [%s]: %s\nwant verdict %s, rule containing %q, summary containing %q", f.Kind, f.Verdict, f.Rule, f.Summary, tc.verdict, tc.rule, tc.words)
			}
			if tc.verdict == verdict.Bug && strings.Contains(f.Rule, "permits") {
				t.Errorf("a bug keeps the table's rule %s", f.Rule)
			}
			text, err := os.ReadFile(filepath.Join(f.Dir, "report.txt"))
			if err != nil {
				t.Fatal(err)
			}
			if !strings.Contains(string(text), "settled by the model") {
				t.Errorf("report.txt does not say the model settled the verdict:\n%s", text)
			}
		})
	}
}

// TestUnfaithful compares instrumented and plain runs on MariaDB: they
// agree on a lost update, on Troc's MDEV-26642 listing, whose no-op
// UPDATE writes no version plainly and, since issue 13, none instrumented
// either, and on REPLACE … VALUES and REPLACE … SELECT of a row by an
// identical one (instrumented as the upserts they amount to; before, the
// new rowId made the row change and the REPLACE count 2). The other side:
// a run that differs in one count (the instrumented REPLACE made to count
// 2 again) is named by the comparison.
func TestUnfaithful(t *testing.T) {
	ctx := context.Background()
	tg := connecttest.Target(t, "mariadb")
	opt := executor.Options{Isolation: target.RepeatableRead}
	for _, tc := range []struct{ file, want string }{
		{"testdata/lost-update.txn", ""},
		{"../../bugs/mdev-26642-troc-listing2.txn", ""},
		{"testdata/replace-same-row.txn", ""},
		{"testdata/replace-select-same-row.txn", ""},
	} {
		c, err := testcase.ParseFile(tc.file)
		if err != nil {
			t.Fatal(err)
		}
		plain, err := executor.Run(ctx, tg, c, opt)
		if err != nil {
			t.Fatal(err)
		}
		p, err := instrument.Instrument(c, tg.Info())
		if err != nil {
			t.Fatal(err)
		}
		inst, err := executor.Run(ctx, tg, p.Case, opt)
		if err != nil {
			t.Fatal(err)
		}
		p.Strip(inst)
		if got := instrument.Unfaithful(p, inst, plain); got != tc.want {
			t.Errorf("%s: Unfaithful = %q, want %q", tc.file, got, tc.want)
		}
		if !strings.Contains(tc.file, "replace-select") {
			continue
		}
		for i, ev := range inst.Events {
			if strings.HasPrefix(ev.SQL, "REPLACE") && !ev.Added {
				inst.Events[i].Affected++ // as when the new rowId made the identical row change
			}
		}
		const want = "step 1 (REPLACE INTO t SELECT * FROM s): rows changed: 2 plainly, 3 instrumented"
		if got := instrument.Unfaithful(p, inst, plain); got != want {
			t.Errorf("%s with the REPLACE counting one more: Unfaithful = %q, want %q", tc.file, got, want)
		}
	}
}

// TestNoopUpdateStrict (issue 13): Troc's MDEV-26642 listing on MariaDB
// RR. The no-op UPDATE matches row 2 at T2's version and changes nothing;
// the SELECT after it still reads the version before T2. With the rows an
// UPDATE matched recorded, and the SELECT FOR UPDATE exception no longer
// covering a read that goes back, --strict reports the cycle. On
// PostgreSQL RR the UPDATE fails (first-updater-wins) and there is none.
func TestNoopUpdateStrict(t *testing.T) {
	c, err := testcase.ParseFile("../../bugs/mdev-26642-troc-listing2.txn")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ dbms, want string }{
		{"mariadb", "G-single:bug"},
		{"postgres", ""},
	} {
		t.Run(tc.dbms, func(t *testing.T) {
			if got := findings(t, tc.dbms, c, isorel.Options{Strict: true}, target.RepeatableRead); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

// TestPredicateReads runs cases whose anomaly is a phantom, or is seen only
// through the rows a subquery read, on real servers: only predicate
// dependencies and the subqueries' reads show it. Both sides: found where the model
// or the level forbids it, nothing where the level permits phantoms or
// the DBMS prevents the anomaly.
func TestPredicateReads(t *testing.T) {
	for _, tc := range []struct {
		file, dbms string
		level      target.Level
		model      semantics.Model
		strict     bool
		want       string
	}{
		// MDEV-26671: T1's UPDATE matches the row T2 inserted, and T1's
		// next SELECT still misses it.
		{"../../bugs/mdev-26671-troc-repo.txn", "mariadb", target.RepeatableRead, semantics.Model(target.Snapshot), false, "G-single-predicate:bug"},
		// Adya's PL-2.99 (repeatable read) permits predicate cycles.
		{"../../bugs/mdev-26671-troc-repo.txn", "mariadb", target.RepeatableRead, "", true, ""},
		// PostgreSQL's UPDATE does not see the new row: no cycle.
		{"../../bugs/mdev-26671-troc-repo.txn", "postgres", target.RepeatableRead, semantics.Model(target.Snapshot), false, ""},
		{"testdata/predicate-write-skew.txn", "postgres", target.RepeatableRead, semantics.Model(target.Serializable), false, "G2-predicate:bug"},
		{"testdata/predicate-write-skew.txn", "mariadb", target.RepeatableRead, semantics.Model(target.Serializable), false, "G2-predicate:bug"},
		{"testdata/predicate-write-skew.txn", "postgres", target.RepeatableRead, "", true, ""},
		{"testdata/predicate-write-skew.txn", "postgres", target.Serializable, "", false, ""},
		{"testdata/predicate-write-skew.txn", "sqlite", target.Serializable, "", false, ""},
		// COUNT(*): the view of its table, read after it.
		{"testdata/aggregate-write-skew.txn", "postgres", target.RepeatableRead, semantics.Model(target.Serializable), false, "G2-predicate:bug"},
		{"testdata/aggregate-write-skew.txn", "postgres", target.RepeatableRead, "", false, ""},
		// The rows the subqueries read close the cycle.
		{"testdata/subquery-write-skew.txn", "postgres", target.RepeatableRead, semantics.Model(target.Serializable), false, "write-skew:bug"},
		{"testdata/subquery-write-skew.txn", "mariadb", target.RepeatableRead, semantics.Model(target.Serializable), false, "write-skew:bug"},
		{"testdata/subquery-write-skew.txn", "postgres", target.RepeatableRead, "", false, "write-skew:allowed"},
		{"testdata/subquery-write-skew.txn", "postgres", target.Serializable, "", false, ""},
		{"testdata/subquery-write-skew.txn", "sqlite", target.Serializable, "", false, ""},
	} {
		t.Run(tc.dbms+"/"+string(tc.level)+"/"+filepath.Base(tc.file), func(t *testing.T) {
			c, err := testcase.ParseFile(tc.file)
			if err != nil {
				t.Fatal(err)
			}
			if got := findings(t, tc.dbms, c, isorel.Options{Model: tc.model, Strict: tc.strict}, tc.level); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

// TestReplaceInPlace: a REPLACE into a table with one unique key replaces
// the row in place on MariaDB, and IsoRel records the version it
// overwrote, so a lost update made of REPLACEs is the cycle an UPDATE's
// would be (before, the REPLACE wrote a row of its own and there was
// none): permitted at InnoDB's RR, a bug under the serializable model,
// absent at SERIALIZABLE (the SELECTs lock, one REPLACE deadlocks).
func TestReplaceInPlace(t *testing.T) {
	for _, tc := range []struct {
		file  string
		level target.Level
		model semantics.Model
		want  string
	}{
		{"replace-lost-update.txn", target.RepeatableRead, "", "lost-update:allowed"},
		{"replace-lost-update.txn", target.RepeatableRead, semantics.Model(target.Serializable), "lost-update:bug"},
		{"replace-lost-update.txn", target.Serializable, "", ""},
		{"replace-select-lost-update.txn", target.RepeatableRead, "", "lost-update:allowed"},
		{"replace-select-lost-update.txn", target.RepeatableRead, semantics.Model(target.Serializable), "lost-update:bug"},
	} {
		t.Run(tc.file+"/"+string(tc.level)+"/"+string(tc.model), func(t *testing.T) {
			c, err := testcase.ParseFile(filepath.Join("testdata", tc.file))
			if err != nil {
				t.Fatal(err)
			}
			if got := findings(t, "mariadb", c, isorel.Options{Model: tc.model}, tc.level); got != tc.want {
				t.Errorf("findings %q, want %q", got, tc.want)
			}
		})
	}
}

// findings runs case c through the IsoRel oracle with opts on a server of
// dbms at level and lists its findings as class:verdict.
func findings(t *testing.T, dbms string, c *testcase.Case, opts isorel.Options, level target.Level) string {
	t.Helper()
	tg := connecttest.Target(t, dbms)
	o := &isorel.Oracle{Options: opts}
	defer o.Close()
	j, err := o.Check(context.Background(), tg, c, nil, executor.Options{Isolation: level})
	if err != nil {
		t.Fatal(err)
	}
	var got []string
	for _, f := range j.Findings {
		got = append(got, f.Kind+":"+string(f.Verdict))
	}
	return strings.Join(got, " ")
}
