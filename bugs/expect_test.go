package bugs

import (
	"bufio"
	"os"
	"strings"
	"testing"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// TestParseExpect: each header of testdata/expect.txt parses to its
// canonical form, or fails with the message it names.
func TestParseExpect(t *testing.T) {
	f, err := os.Open("testdata/expect.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		line := sc.Text()
		if strings.HasPrefix(line, "#") || strings.TrimSpace(line) == "" {
			continue
		}
		in, want, ok := strings.Cut(line, "=> ")
		if !ok {
			t.Fatalf("bad line %q", line)
		}
		n++
		in = strings.TrimSpace(in)
		e, err := ParseExpect(in)
		if msg, isErr := strings.CutPrefix(want, "error: "); isErr {
			if err == nil || !strings.Contains(err.Error(), msg) {
				t.Errorf("%q: error %v, want one containing %q", in, err, msg)
			}
			continue
		}
		if err != nil {
			t.Errorf("%q: %v", in, err)
		} else if got := e.String(); got != want {
			t.Errorf("%q: %q, want %q", in, got, want)
		}
	}
	if n < 20 {
		t.Fatalf("only %d cases", n)
	}
}

// TestCheck evaluates clauses on a recorded execution: each holds where it
// should and fails, with what was seen, where it should not.
func TestCheck(t *testing.T) {
	row := func(vs ...string) target.Row {
		r := target.Row{}
		for _, v := range vs {
			if v == "NULL" {
				r = append(r, target.NullValue)
			} else {
				r = append(r, target.Str(v))
			}
		}
		return r
	}
	res := &executor.Result{
		Events: []executor.Event{
			{Step: 0, Status: executor.StatusOK, Affected: -1},
			{Step: 1, Status: executor.StatusOK, Rows: []target.Row{row("1", "a"), row("2", "NULL")}, Affected: -1},
			{Step: 2, Status: executor.StatusBlocked, Affected: -1},
			{Step: 3, Status: executor.StatusOK, Affected: 0},
			{Step: 2, Status: executor.StatusError, Resumed: true, Error: &target.Error{Class: "deadlock", Code: "1213"}, Affected: -1},
			{Step: 4, Status: executor.StatusOK, Affected: 3},
		},
		Final: target.State{"t": {row("5")}, "u": {}},
	}
	bug := []verdict.Finding{{Oracle: "wss", Verdict: verdict.Bug, Rule: "r1"}, {Oracle: "troc", Verdict: verdict.Allowed, Rule: "r2"}}
	for _, tt := range []struct {
		expect   string
		findings []verdict.Finding
		holds    bool
	}{
		{"rows 2 = (2, NULL) (1, a)", nil, true},
		{"rows 2 = (1, a)", nil, false},
		{"count 2 = 2; count 4 = 0; count 5 = 3", nil, true},
		{"blocks 3; error 3 1213; not blocks 4", nil, true},
		{"error 3 40001", nil, false},
		{"ok 3", nil, false},
		{"ok 6", nil, false}, // never ran
		{"final t = (5); final u = empty", nil, true},
		{"final v = empty", nil, false},
		{"bug", bug, true},
		{"bug r1", bug, true},
		{"bug r2", bug, false},
		{"allowed", bug, false},
		{"allowed", bug[1:], true},
		{"bug", nil, false},
	} {
		e, err := ParseExpect(tt.expect)
		if err != nil {
			t.Fatal(err)
		}
		holds, failed := e.Check(res, tt.findings)
		if holds != tt.holds || holds != (len(failed) == 0) {
			t.Errorf("%q: holds %v (failed %q), want %v", tt.expect, holds, failed, tt.holds)
		}
	}
}

// TestStatus: status headers parse, match versions by prefix, and Record
// replaces a DBMS version's group (the groups sorted) or adds the header.
func TestStatus(t *testing.T) {
	rs, err := ParseStatus("mariadb-10.11 rc=reproduces rr=not-reproduced; postgres-15.18 ser=error")
	if err != nil || len(rs) != 2 || rs[0].Levels[target.ReadCommitted] != Reproduces || rs[1].Levels[target.Serializable] != Error {
		t.Fatalf("%+v %v", rs, err)
	}
	for v, want := range map[string]bool{"10.11.19-MariaDB-0+deb12u1": true, "10.11": true, "10.110.1": false, "10.6.5": false} {
		if got := rs[0].Matches(target.Info{DBMS: "mariadb", Version: v}); got != want {
			t.Errorf("10.11 matches %s: %v", v, got)
		}
	}
	for _, bad := range []string{"mariadb rc=reproduces", "mariadb-10.11 rc", "mariadb-10.11 xx=reproduces", "mariadb-10.11 rc=maybe"} {
		if _, err := ParseStatus(bad); err == nil {
			t.Errorf("%q parsed", bad)
		}
	}
	if k := VersionKey("10.11.19-MariaDB-0+deb12u1"); k != "10.11" {
		t.Errorf("VersionKey %q", k)
	}
	if k := VersionKey("15.18 (Debian 15.18-0+deb12u1)"); k != "15.18" {
		t.Errorf("VersionKey %q", k)
	}
	text := "-- isolation: rc\n-- bug: X-1\n-- status: mariadb-10.11 rc=error; postgres-15.18 rc=reproduces\n-- A comment: not a header\nCREATE TABLE t (a INT);\n1> SELECT 1;\n"
	got, err := Record(text, "mariadb-10.11 rc=reproduces")
	if err != nil || !strings.Contains(got, "-- status: mariadb-10.11 rc=reproduces; postgres-15.18 rc=reproduces\n") {
		t.Errorf("replace: %q %v", got, err)
	}
	got, err = Record(strings.Replace(text, "-- status: mariadb-10.11 rc=error; postgres-15.18 rc=reproduces\n", "", 1), "sqlite-3.54 ser=reproduces")
	if err != nil || !strings.Contains(got, "-- bug: X-1\n-- status: sqlite-3.54 ser=reproduces\n-- A comment") {
		t.Errorf("add: %q %v", got, err)
	}
}

// FuzzParseExpect: whatever parses prints to a form that parses to itself.
func FuzzParseExpect(f *testing.F) {
	for _, s := range []string{"bug", "allowed; rows 3 = (1, 'a''b') (2, NULL)", "not blocks 6; count 2 = 3", "final t = empty", "error 5 1792"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		e, err := ParseExpect(s)
		if err != nil {
			return
		}
		again, err := ParseExpect(e.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", s, e.String(), err)
		}
		if again.String() != e.String() {
			t.Fatalf("%q: %q then %q", s, e.String(), again.String())
		}
	})
}

// FuzzParseStatus: any text parses or fails, without panicking, and a
// parsed group's levels print back to a group that parses.
func FuzzParseStatus(f *testing.F) {
	f.Add("mariadb-10.11 rc=reproduces rr=not-reproduced; postgres-15.18 ser=error")
	f.Fuzz(func(t *testing.T, s string) {
		rs, err := ParseStatus(s)
		if err != nil {
			return
		}
		for _, r := range rs {
			var lv []LevelResult
			for l, st := range r.Levels {
				lv = append(lv, LevelResult{Level: l, Status: st})
			}
			if _, err := ParseStatus(FormatStatus(r.DBMS, r.Version, lv)); err != nil {
				t.Fatalf("%q: %v", s, err)
			}
		}
	})
}
