package model

import "testing"

func TestSavepointOf(t *testing.T) {
	for _, c := range []struct{ sql, op, name string }{
		{"SAVEPOINT s1", spSet, "s1"},
		{"savepoint S1;", spSet, "s1"},
		{"ROLLBACK TO SAVEPOINT s1", spRollback, "s1"},
		{"rollback work to `sp`", spRollback, "sp"},
		{"ROLLBACK TO s1", spRollback, "s1"},
		{"RELEASE SAVEPOINT s1", spRelease, "s1"},
		{"RELEASE s1", spRelease, "s1"},
		{"ROLLBACK", "", ""},
		{"ROLLBACK TO", "", ""},
		{"SAVEPOINT", "", ""},
		{"SAVEPOINT a b", "", ""},
		{"SAVEPOINT ``", "", ""},
		{"SELECT 1", "", ""},
	} {
		if op, name := savepointOf(c.sql); op != c.op || name != c.name {
			t.Errorf("savepointOf(%q) = %q %q, want %q %q", c.sql, op, name, c.op, c.name)
		}
	}
}

func FuzzSavepointOf(f *testing.F) {
	for _, s := range []string{"SAVEPOINT s", "ROLLBACK WORK TO SAVEPOINT s;", "RELEASE s", "ROLLBACK"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		op, name := savepointOf(sql)
		if (op == "") != (name == "") {
			t.Fatalf("savepointOf(%q) = %q %q: an op without a name or the reverse", sql, op, name)
		}
	})
}
