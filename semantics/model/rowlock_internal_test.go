package model

import (
	"os"
	"strings"
	"testing"
)

// TestRowLockConflicts checks conflicts against PostgreSQL's conflict
// table, copied from its documentation into testdata/rowlocks.txt.
func TestRowLockConflicts(t *testing.T) {
	data, err := os.ReadFile("testdata/rowlocks.txt")
	if err != nil {
		t.Fatal(err)
	}
	held := []strength{lockKeyShare, lockShare, lockNoKeyUpdate, lockUpdate}
	n := 0
	for _, line := range strings.Split(string(data), "\n") {
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		f := strings.Fields(line)
		marks := f[len(f)-4:]
		name := strings.Join(f[:len(f)-4], " ")
		var req strength
		for _, s := range held {
			if s.String() == name {
				req = s
			}
		}
		if req == lockNone {
			t.Fatalf("unknown lock mode %q", name)
		}
		for i, h := range held {
			if want := marks[i] == "X"; req.conflicts(h) != want {
				t.Errorf("%s requested, %s held: conflicts = %v, want %v", req, h, !want, want)
			}
		}
		n++
	}
	if n != 4 {
		t.Fatalf("read %d rows of the table, want 4", n)
	}
	if lockNone.conflicts(lockUpdate) || lockUpdate.conflicts(lockNone) {
		t.Error("no lock conflicts with nothing")
	}
}
