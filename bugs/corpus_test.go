package bugs

import (
	"strings"
	"testing"
)

// TestList: every file of the corpus parses and names its bug, DBMS and
// symptom; the DBMS filter keeps only that DBMS's cases.
func TestList(t *testing.T) {
	all, err := List("")
	if err != nil {
		t.Fatal(err)
	}
	if len(all) < 3 {
		t.Fatalf("%d entries", len(all))
	}
	for _, e := range all {
		if e.Bug == "" || e.DBMS == "" || e.Symptom == "" || e.Case == nil || len(e.Case.Steps) == 0 {
			t.Errorf("%s: incomplete entry %+v", e.File, e)
		}
	}
	maria, err := List("mariadb")
	if err != nil {
		t.Fatal(err)
	}
	none, err := List("cockroach")
	if err != nil {
		t.Fatal(err)
	}
	if len(maria) == 0 || len(none) != 0 {
		t.Errorf("filter: %d mariadb, %d cockroach", len(maria), len(none))
	}
	if _, err := List("no-such-dbms"); err == nil || !strings.Contains(err.Error(), "mariadb, mysql") {
		t.Errorf("an unknown DBMS: %v, want an error naming the known ones", err)
	}
}
