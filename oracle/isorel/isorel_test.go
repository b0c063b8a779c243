package isorel_test

import (
	"bufio"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/oracle/isorel"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
	"github.com/txlab/txlab/target/connect/connecttest"
	"github.com/txlab/txlab/testcase"
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
	f, err := os.Open("testdata/expect.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []expectation
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		fs := strings.Fields(sc.Text())
		if len(fs) == 0 || strings.HasPrefix(fs[0], "#") {
			continue
		}
		if len(fs) < 5 {
			t.Fatalf("bad expect line %q", sc.Text())
		}
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
			o := &isorel.Oracle{Options: isorel.Options{Settings: settings, Writer: &report.Writer{Dir: t.TempDir()}}}
			j, err := o.Check(ctx, tg, c, nil, executor.Options{Isolation: e.level})
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
