package testcase

import "testing"

func TestSavepointOf(t *testing.T) {
	for _, c := range []struct {
		sql  string
		op   SavepointOp
		name string
	}{
		{"SAVEPOINT s1", SavepointSet, "s1"},
		{"savepoint S1;", SavepointSet, "s1"},
		{"ROLLBACK TO SAVEPOINT s1", SavepointRollback, "s1"},
		{"rollback work to `sp`", SavepointRollback, "sp"},
		{"ROLLBACK TO s1", SavepointRollback, "s1"},
		{"RELEASE SAVEPOINT s1", SavepointRelease, "s1"},
		{"RELEASE s1", SavepointRelease, "s1"},
		{"ROLLBACK", "", ""},
		{"ROLLBACK TO", "", ""},
		{"SAVEPOINT", "", ""},
		{"SAVEPOINT a b", "", ""},
		{"SAVEPOINT ``", "", ""},
		{"SELECT 1", "", ""},
	} {
		if op, name := SavepointOf(c.sql); op != c.op || name != c.name {
			t.Errorf("SavepointOf(%q) = %q %q, want %q %q", c.sql, op, name, c.op, c.name)
		}
	}
}

func FuzzSavepointOf(f *testing.F) {
	for _, s := range []string{"SAVEPOINT s", "ROLLBACK WORK TO SAVEPOINT s;", "RELEASE s", "ROLLBACK"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, sql string) {
		op, name := SavepointOf(sql)
		if (op == "") != (name == "") {
			t.Fatalf("SavepointOf(%q) = %q %q: an op without a name or the reverse", sql, op, name)
		}
	})
}
