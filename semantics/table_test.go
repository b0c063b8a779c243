package semantics_test

import (
	"encoding/json"
	"flag"
	"fmt"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
)

var update = flag.Bool("update", false, "rewrite testdata/table.golden from the current table")

// TestTable pins, for every DBMS, level and a set of server settings, the
// promise (semantics.Lookup) and the statement views (model.Lookup) the one
// table yields: testdata/table.golden was written before the two lookups
// were made to read one table, so it proves the table says what they said.
func TestTable(t *testing.T) {
	levels := []target.Level{target.ReadUncommitted, target.ReadCommitted, target.RepeatableRead, target.Snapshot, target.Serializable}
	settings := map[string][]map[string]string{
		"mariadb":   {nil, {"innodb_snapshot_isolation": "ON"}, {"innodb_snapshot_isolation": "1"}, {"innodb_snapshot_isolation": "true"}, {"innodb_snapshot_isolation": "OFF"}},
		"mysql":     {nil, {"innodb_snapshot_isolation": "ON"}},
		"postgres":  {nil},
		"sqlite":    {nil},
		"cockroach": {nil},
		"tidb": {nil, {"tidb_txn_mode": "optimistic"}, {"tidb_txn_mode": "OPTIMISTIC"}, {"tidb_txn_mode": "pessimistic"},
			{"tidb_enable_clustered_index": "OFF"}, {"tidb_enable_clustered_index": "0"}, {"tidb_enable_clustered_index": "INT_ONLY"},
			{"tidb_config": `{"store":"unistore"}`}, {"tidb_config": `{"store":"tikv"}`},
			{"tidb_txn_mode": "optimistic", "tidb_enable_clustered_index": "int_only", "tidb_config": `{"store":"unistore"}`}},
		"oracle": {nil},
	}
	var b strings.Builder
	for _, dbms := range []string{"mariadb", "mysql", "postgres", "sqlite", "cockroach", "tidb", "oracle"} {
		for _, set := range settings[dbms] {
			for _, l := range levels {
				p, err := json.Marshal(semantics.Lookup(dbms, l, set))
				if err != nil {
					t.Fatal(err)
				}
				r, err := json.Marshal(model.Lookup(dbms, l, set))
				if err != nil {
					t.Fatal(err)
				}
				h, _ := json.Marshal(set)
				fmt.Fprintf(&b, "%s %s %s\npromise %s\nrules %s\n\n", dbms, l, h, p, r)
			}
		}
	}
	out := dedupe(b.String())
	const golden = "testdata/table.golden"
	if *update {
		if err := os.WriteFile(golden, []byte(out), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	want, err := os.ReadFile(golden)
	if err != nil {
		t.Fatal(err)
	}
	if got := out; got != string(want) {
		gl, wl := strings.Split(got, "\n"), strings.Split(string(want), "\n")
		for i := range min(len(gl), len(wl)) {
			if gl[i] != wl[i] {
				t.Fatalf("line %d differs:\n got %s\nwant %s", i+1, gl[i], wl[i])
			}
		}
		t.Fatalf("got %d lines, want %d", len(gl), len(wl))
	}
}

// dedupe writes each long string (a rule's text, a source) once, at the
// end, and refers to it by number, so the golden file stays readable.
func dedupe(s string) string {
	var texts []string
	index := map[string]int{}
	s = regexp.MustCompile(`"(?:[^"\\]|\\.){60,}"`).ReplaceAllStringFunc(s, func(lit string) string {
		i, ok := index[lit]
		if !ok {
			i = len(texts)
			index[lit] = i
			texts = append(texts, lit)
		}
		return fmt.Sprintf("#%d", i)
	})
	var b strings.Builder
	b.WriteString(s)
	for i, lit := range texts {
		fmt.Fprintf(&b, "#%d = %s\n", i, lit)
	}
	return b.String()
}

// TestTableAnomalies checks that every anomaly class a row of the table
// forbids (the table names them as text) is one of the hierarchy's.
func TestTableAnomalies(t *testing.T) {
	top := []semantics.Anomaly{semantics.G0, semantics.G1, semantics.G2}
	for _, dbms := range []string{"mariadb", "mysql", "postgres", "sqlite", "cockroach", "tidb"} {
		for _, l := range []target.Level{target.ReadUncommitted, target.ReadCommitted, target.RepeatableRead, target.Snapshot, target.Serializable} {
			for _, set := range []map[string]string{nil, {"innodb_snapshot_isolation": "ON"}, {"tidb_txn_mode": "optimistic"}} {
				for _, a := range semantics.Lookup(dbms, l, set).Forbidden {
					if a.Parent() == "" && !slices.Contains(top, a) {
						t.Errorf("%s %s forbids %q, which is no anomaly class", dbms, l, a)
					}
				}
			}
		}
	}
}
