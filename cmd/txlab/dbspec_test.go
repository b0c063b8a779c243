package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/localdbtest"
	"github.com/txlab/txlab/report"
)

// TestBundleRecordsTarget: a finding's bundle made through the command line
// records the exact target: report.json's db holds the --db spec as given,
// the DBMS and full version the server reported, and the throwaway server's
// --set settings; report.txt has the target line.
func TestBundleRecordsTarget(t *testing.T) {
	localdbtest.Require(t, localdb.Postgres)
	out := t.TempDir()
	code, stdout, stderr := txlab(t, "run", "--db", "postgres", "--set", "work_mem=8MB", "--json", "--out", out, "../../bugs/pg-ssi-on-conflict-do-nothing.txn")
	if code != 1 {
		t.Fatalf("exit %d, want 1 (a bug): %s", code, stderr)
	}
	cr := decodeCases(t, stdout)[0]
	if cr.Target.DBMS != "postgres" || cr.Target.Version == "" {
		t.Fatalf("target %+v", cr.Target)
	}
	reports, _ := filepath.Glob(filepath.Join(out, "*", "report.json"))
	if len(reports) == 0 {
		t.Fatalf("no bundle in %s", out)
	}
	for _, path := range reports {
		data, err := os.ReadFile(path)
		if err != nil {
			t.Fatal(err)
		}
		var js report.Report
		if err := json.Unmarshal(data, &js); err != nil {
			t.Fatal(err)
		}
		if js.DB == nil || js.DB.Spec != "postgres" || js.DB.DBMS != "postgres" || js.DB.Version != cr.Target.Version ||
			strings.Join(js.DB.Settings, " ") != "work_mem=8MB" {
			t.Errorf("%s: db %+v, want spec postgres, version %q, settings work_mem=8MB", path, js.DB, cr.Target.Version)
		}
		text, _ := os.ReadFile(filepath.Join(filepath.Dir(path), "report.txt"))
		if want := "\ntarget: postgres (postgres " + cr.Target.Version + "), --set work_mem=8MB\n"; !strings.Contains(string(text), want) {
			t.Errorf("%s: no %q in report.txt:\n%s", path, want, text)
		}
	}
}
