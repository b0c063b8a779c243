package upstream_test

import (
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/convert/mysqltest"
	"github.com/txlab/txlab/convert/pgspec"
	"github.com/txlab/txlab/convert/upstream"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/testcase"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// finding reads a bundle of testdata/ (case.txn, report.json and
// schedule.json, as txlab wrote them) as upstream's input.
func finding(t *testing.T, dir string) upstream.Finding {
	t.Helper()
	c, err := testcase.ParseFile(filepath.Join(dir, "case.txn"))
	if err != nil {
		t.Fatal(err)
	}
	var r report.Report
	data, err := os.ReadFile(filepath.Join(dir, "report.json"))
	if err != nil || json.Unmarshal(data, &r) != nil {
		t.Fatalf("report.json: %v", err)
	}
	f := upstream.Finding{Level: r.Finding.Isolation, Kind: r.Finding.Kind, Summary: r.Finding.Summary, Rule: r.Finding.Rule, Case: c, Details: r.Details}
	if r.DB != nil {
		f.DBMS, f.Version, f.Settings = r.DB.DBMS, r.DB.Version, r.DB.Settings
	} else {
		f.DBMS = r.Target
	}
	if data, err := os.ReadFile(filepath.Join(dir, report.ScheduleFile)); err == nil {
		var s report.Schedule
		if err := json.Unmarshal(data, &s); err != nil {
			t.Fatal(err)
		}
		f.Events = s.Events
	}
	return f
}

// TestFiles writes the upstream files of the bundles in testdata/ (a Troc
// blocking finding, a Troc result finding, a WSS finding) and compares
// them with the golden files beside them (upstream.*, bug-report.txt).
// The paste block must hold none of txlab's headers or local paths and
// name the connections as the schedule does; the spec and the mysql-test
// file must read back to the case's statements.
func TestFiles(t *testing.T) {
	dirs, _ := filepath.Glob(filepath.Join("testdata", "*"))
	if len(dirs) == 0 {
		t.Fatal("no testdata")
	}
	for _, dir := range dirs {
		if info, err := os.Stat(dir); err != nil || !info.IsDir() {
			continue // .gitignore
		}
		t.Run(filepath.Base(dir), func(t *testing.T) {
			f := finding(t, dir)
			files := upstream.Files(f)
			for _, name := range []string{upstream.SpecFile, upstream.TestFile, upstream.TerminalsFile, upstream.PasteFile} {
				got, ok := files[name]
				if !ok {
					t.Errorf("no %s", name)
					continue
				}
				golden := filepath.Join(dir, name)
				if *update {
					if err := os.WriteFile(golden, got, 0o644); err != nil {
						t.Fatal(err)
					}
					continue
				}
				want, err := os.ReadFile(golden)
				if err != nil {
					t.Fatalf("%v (go test ./convert/upstream -update writes it)", err)
				}
				if string(got) != string(want) {
					t.Errorf("%s: got\n%s\nwant\n%s", name, got, want)
				}
			}
			paste := string(files[upstream.PasteFile])
			for _, bad := range []string{"-- seed", "-- replay", "-- reduced-from", "Reduced by txlab", "txlab run", "/tmp/", "transaction T", "1> ", "2> ", "FCRFS", "serial order "} {
				if strings.Contains(paste, bad) {
					t.Errorf("the paste block holds %q:\n%s", bad, paste)
				}
			}
			for _, want := range []string{"DBMS: ", "Isolation level: ", "-- connection "} {
				if !strings.Contains(paste, want) {
					t.Errorf("the paste block lacks %q:\n%s", want, paste)
				}
			}
			spec, err := pgspec.Parse("upstream.spec", strings.NewReader(string(files[upstream.SpecFile])))
			if err != nil || len(spec) != 1 {
				t.Fatalf("upstream.spec does not read back: %v", err)
			}
			test, err := mysqltest.Parse("upstream.test", strings.NewReader(string(files[upstream.TestFile])))
			if err != nil || len(test) != 1 {
				t.Fatalf("upstream.test does not read back: %v", err)
			}
			for _, back := range []*testcase.Case{spec[0], test[0]} {
				if len(back.Steps) != len(f.Case.Steps) || strings.Join(back.Setup, ";") != strings.Join(f.Case.Setup, ";") {
					t.Errorf("%s does not read back to the case's statements:\n%s", back.Name, back)
				}
				for i, s := range back.Steps {
					if i < len(f.Case.Steps) && (s.SQL != f.Case.Steps[i].SQL || s.Conn != f.Case.Steps[i].Conn) {
						t.Errorf("%s step %d: %d> %s, want %d> %s", back.Name, i+1, s.Conn, s.SQL, f.Case.Steps[i].Conn, f.Case.Steps[i].SQL)
					}
				}
			}
		})
	}
}

// TestConnections: an oracle's transaction names become the connections
// that ran them, with the transaction's place where a connection ran more
// than one.
func TestConnections(t *testing.T) {
	c, err := testcase.ParseString("case", "1> BEGIN;\n1> SELECT 1;\n2> SELECT 2;\n1> COMMIT;\n1> SELECT 3;\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ in, want string }{
		{"transaction T1 reads T2's write", "connection 1's 1st transaction reads connection 2's transaction's write"},
		{"serial order T2 → T3", "serial order connection 2's transaction → connection 1's 2nd transaction"},
		{"T9 and T10x stay", "T9 and T10x stay"},
	} {
		if got := upstream.Connections(c, tc.in); got != tc.want {
			t.Errorf("Connections(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestPasteEndsOpenTransactions: txlab ends every session before it reads
// the final state, rolling back what a case left open; the paste block
// ends that transaction the same way, and only that one.
func TestPasteEndsOpenTransactions(t *testing.T) {
	c, err := testcase.ParseString("open", "CREATE TABLE t (id INT PRIMARY KEY, v INT);\nINSERT INTO t VALUES (1, 1);\n"+
		"1> BEGIN;\n1> UPDATE t SET v = 2 WHERE id = 1;\n2> BEGIN;\n2> SELECT v FROM t;\n2> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	paste := upstream.Paste(upstream.Finding{DBMS: "mariadb", Version: "10.11.19", Kind: "lost-update", Case: c})
	const want = "\n-- connection 1\nROLLBACK;\n"
	if !strings.Contains(paste, want) {
		t.Errorf("the paste block does not end connection 1's open transaction:\n%s", paste)
	}
	if strings.Count(paste, "ROLLBACK;") != 1 {
		t.Errorf("want one ROLLBACK (connection 2 committed):\n%s", paste)
	}
}

// TestPasteFinalState: a final state that lacks a row says so, and a
// final state no serial order gives says that in the client's words; a
// cause the model found is what went wrong.
func TestPasteFinalState(t *testing.T) {
	c, err := testcase.ParseString("ssi", "-- isolation: serializable\nCREATE TABLE t0 (c0 VARCHAR(20) UNIQUE);\nINSERT INTO t0 (c0) VALUES ('bh');\n"+
		"2> BEGIN;\n2> INSERT INTO t0 (c0) VALUES ('bh') ON CONFLICT (c0) DO NOTHING;\n2> INSERT INTO t0 (c0) VALUES ('a');\n1> DELETE FROM t0;\n2> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct {
		name, details string
		want, not     []string
	}{
		{"no serial order", `{"violation": {"serial": {"order": [1, 2]}, "orders_tried": 2, "orders_total": 2,
			"diff": {"tables": [{"table": "t0", "only_serial": [["bh"]], "only_actual": []}]}}}`,
			[]string{"Expected: after the last statement, t0 holds (bh), as running", "Actual: after the last statement t0 does not hold (bh).\n",
				"What went wrong: none of the 2 orders of running the transactions one at a time leaves this final state."},
			[]string{"no such row", "FCRFS"}},
		{"a row too many, one order reproduces it", `{"violation": {"serial": {"order": [1, 2]}, "orders_tried": 2, "orders_total": 2, "reproducing": [2, 1],
			"diff": {"tables": [{"table": "t0", "only_serial": [], "only_actual": [["a"]]}]}}}`,
			[]string{"Expected: after the last statement, t0 does not hold (a), as", "Actual: after the last statement t0 holds (a).\n",
				"A final state that differs from running the transactions one at a time in the order they committed, at "},
			[]string{"What went wrong", "no serial execution"}},
		{"the model's cause", `{"violation": {"serial": {"order": [1, 2]}, "orders_tried": 2, "orders_total": 2, "cause": "connection 1's DELETE did not wait for T1's row",
			"diff": {"tables": [{"table": "t0", "only_serial": [["bh"]], "only_actual": [["a"]]}]}}}`,
			[]string{"Actual: after the last statement t0 holds (a) instead.\n", "What went wrong: connection 1's DELETE did not wait for connection 2's transaction's row."},
			nil},
		{"whole states, at SERIALIZABLE", `{"actual_final": {"t0": [["a"]]}, "serial_final": {"t0": [["a"], ["bh"]]},
			"violation": {"serial": {"order": [1, 2]}, "orders_tried": 2, "orders_total": 2,
			"diff": {"tables": [{"table": "t0", "only_serial": [["bh"]], "only_actual": []}]}}}`,
			[]string{"Expected: after the last statement, t0 holds (a), (bh), as running the transactions one at a time (connection 2's transaction, then connection 1's transaction) leaves it, or one of the transactions fails with a serialization error.",
				"Actual: after the last statement t0 holds (a).\n"},
			[]string{"does not hold"}},
	} {
		paste := upstream.Paste(upstream.Finding{DBMS: "postgres", Version: "15.18", Kind: "tx-wss", Summary: "final state differs in t0 vs the FCRFS serial order", Case: c, Details: json.RawMessage(tc.details)})
		for _, w := range tc.want {
			if !strings.Contains(paste, w) {
				t.Errorf("%s: no %q in\n%s", tc.name, w, paste)
			}
		}
		for _, n := range tc.not {
			if strings.Contains(paste, n) {
				t.Errorf("%s: %q in\n%s", tc.name, n, paste)
			}
		}
	}
}

// TestPasteTiDBVersion: TiDB's DBMS line names TiDB's release, not the
// MySQL version it reports first.
func TestPasteTiDBVersion(t *testing.T) {
	c, err := testcase.ParseString("t", "CREATE TABLE t (a INT);\n1> BEGIN;\n1> SELECT * FROM t;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	paste := upstream.Paste(upstream.Finding{DBMS: "tidb", Version: "8.0.11-TiDB-v8.5.6", Kind: "incorrect-result", Case: c})
	if !strings.Contains(paste, "\nDBMS: TiDB v8.5.6 (it reports MySQL 8.0.11)\n") {
		t.Errorf("the DBMS line:\n%s", paste)
	}
}

// TestPasteServerSettings: the settings the semantics read from the
// server are in the block (a maintainer asks for innodb_snapshot_isolation
// first), but for those --set gave, which are their own lines.
func TestPasteServerSettings(t *testing.T) {
	c, err := testcase.ParseString("t", "CREATE TABLE t (a INT);\n1> BEGIN;\n1> SELECT * FROM t;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	paste := upstream.Paste(upstream.Finding{DBMS: "mariadb", Version: "10.11.19", Kind: "incorrect-result", Case: c,
		Settings: []string{"tx_read_only=OFF"}, Server: []string{"innodb_snapshot_isolation=OFF", "tx_read_only=OFF"}})
	if !strings.Contains(paste, "\nSetting: tx_read_only=OFF\nServer settings: innodb_snapshot_isolation=OFF\n") {
		t.Errorf("the settings lines:\n%s", paste)
	}
}

// TestPasteKnownIssueTracker: a MySQL bug found on MariaDB is cited as
// MySQL's twin, not as the MariaDB report's own known issue.
func TestPasteKnownIssueTracker(t *testing.T) {
	c, err := testcase.ParseString("t", "CREATE TABLE t (a INT);\n1> BEGIN;\n1> SELECT * FROM t;\n1> COMMIT;\n")
	if err != nil {
		t.Fatal(err)
	}
	for dbms, want := range map[string]string{
		"mariadb": "Known issue: MySQL bug #95049 (https://bugs.mysql.com/bug.php?id=95049) reports the same behaviour in MySQL.\n",
		"mysql":   "Known issue: this is the behaviour of MySQL bug #95049 (https://bugs.mysql.com/bug.php?id=95049).\n",
	} {
		paste := upstream.Paste(upstream.Finding{DBMS: dbms, Version: "1", Kind: "incorrect-blocking", Rule: "mysql-95049-savepoint-rollback-releases-locks", Case: c})
		if !strings.Contains(paste, want) {
			t.Errorf("%s: no %q in\n%s", dbms, want, paste)
		}
	}
}
