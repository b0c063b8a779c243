package rules

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/txlab/txlab/target/txn"
)

var readNames = map[string]Read{"snap-stmt": SnapStatement, "snap-txn": SnapTxn, "current": Current, "dirty": Dirty, "recheck": Recheck}

var kindByName = map[string]Kind{"SELECT": KindSelect, "UPDATE": KindUpdate, "DELETE": KindDelete, "INSERT": KindInsert, "MERGE": KindMerge}

// TestRules checks the rules table against testdata/rules.txt, one line per
// DBMS, level and setting, including the TiDB and CockroachDB rows that no
// server here runs.
func TestRules(t *testing.T) {
	f, err := os.Open("testdata/rules.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		head, facts, ok := strings.Cut(line, ":")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		hf := strings.Fields(head)
		settings := map[string]string{}
		for _, kv := range hf[2:] {
			k, v, _ := strings.Cut(kv, "=")
			settings[k] = v
		}
		r := Lookup(hf[0], txn.Level(hf[1]), settings)
		for _, fact := range strings.Fields(facts) {
			name, val, _ := strings.Cut(fact, "=")
			var good bool
			switch {
			case fact == "unknown":
				good = !r.Known
			case kindByName[name] != 0 || name == "SELECT":
				good = r.Known && r.Target[kindByName[name]] == readNames[val]
			case name == "semi-consistent":
				good = r.SemiConsistent != nil
			case name == "no-semi-consistent":
				good = r.SemiConsistent == nil
			case name == "uncommitted-insert":
				good = r.UncommittedInsert != nil && string(r.UncommittedInsert.Verdict) == val
			case name == "noop":
				good = r.NoOpUpdate != nil && string(r.NoOpUpdate.Verdict) == val
			case name == "no-noop":
				good = r.NoOpUpdate == nil
			case name == "conflict":
				good = string(r.WriteConflict) == val
			case name == "no-conflict":
				good = r.WriteConflict == ""
			case name == "permits":
				good = r.Permits(txn.ErrorClass(val))
			case name == "locks":
				good = r.RowLocks
			case name == "no-locks":
				good = !r.RowLocks
			case name == "select-locks-in-txn":
				good = r.LockingSelectInTxn
			case name == "first-consistent-read":
				good = r.SnapshotAt == FirstConsistentRead
			case name == "first-statement":
				good = r.SnapshotAt == FirstStatement
			case name == "at-begin":
				good = r.SnapshotAt == AtBegin
			case name == "uncommitted-insert-any-write":
				good = r.UncommittedInsertAnyWrite
			case name == "commit-conflict":
				good = string(r.CommitConflict) == val
			case name == "no-commit-conflict":
				good = r.CommitConflict == ""
			case name == "mode":
				good = r.Mode == val && r.Modes[val] != nil && r.Modes[val].Mode == val
			case name == "autocommit":
				good = r.Autocommit == val && r.Modes[val] != nil
			default:
				t.Fatalf("%s: unknown fact %q", head, fact)
			}
			if !good {
				t.Errorf("%s: %s does not hold (rules %+v)", strings.TrimSpace(head), fact, r)
			}
		}
	}
}
