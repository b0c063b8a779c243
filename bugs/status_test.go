package bugs

import (
	"os"
	"strings"
	"testing"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// TestStatusTable: testdata/status.txt's releases, lookups and records.
func TestStatusTable(t *testing.T) {
	data, err := os.ReadFile("testdata/status.txt")
	if err != nil {
		t.Fatal(err)
	}
	n := map[string]int{}
	for i, line := range strings.Split(string(data), "\n") {
		if line = strings.TrimSpace(line); line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		kind, rest, _ := strings.Cut(line, " ")
		in, want, ok := strings.Cut(rest, " => ")
		if !ok {
			t.Fatalf("status.txt:%d: no =>: %q", i+1, line)
		}
		n[kind]++
		switch kind {
		case "release":
			if got := Release(in) + " " + VersionKey(in); got != want {
				t.Errorf("status.txt:%d: Release, VersionKey of %q: %q, want %q", i+1, in, got, want)
			}
		case "lookup":
			header, server, _ := strings.Cut(in, " | ")
			groups, err := ParseStatus(header)
			if err != nil {
				t.Fatalf("status.txt:%d: %v", i+1, err)
			}
			dbms, version, _ := strings.Cut(server, " ")
			got := "none"
			if g, ok := Lookup(groups, target.Info{DBMS: dbms, Version: version}); ok {
				got = g.DBMS + "-" + g.Version
			}
			if got != want {
				t.Errorf("status.txt:%d: %s on %s: %s, want %s", i+1, header, server, got, want)
			}
		case "record":
			header, group, _ := strings.Cut(in, " | ")
			text := "-- isolation: ser\n-- bug: X-1\n"
			if header != "none" {
				text += "-- status: " + header + "\n"
			}
			text += "-- a comment, not a header\nCREATE TABLE t (a INT);\n1> SELECT 1;\n"
			got, err := Record(text, group)
			if err != nil {
				t.Fatalf("status.txt:%d: %v", i+1, err)
			}
			if !strings.Contains(got, "-- bug: X-1\n-- status: "+want+"\n-- a comment") || strings.Count(got, "-- status:") != 1 {
				t.Errorf("status.txt:%d: Record(%q, %q):\n%s\nwant the status header %q", i+1, header, group, got, want)
			}
		default:
			t.Fatalf("status.txt:%d: unknown kind %q", i+1, kind)
		}
	}
	for _, kind := range []string{"release", "lookup", "record"} {
		if n[kind] < 5 {
			t.Errorf("status.txt: %d %s lines, want ≥ 5", n[kind], kind)
		}
	}
}

// TestStatusRoundTripVersions: bugs test --record on two releases of one
// DBMS (PostgreSQL 10.23 and 18.4) leaves a corpus file whose status header
// holds both beside the one recorded before (15.18), and each server's run
// then reads its own group back.
func TestStatusRoundTripVersions(t *testing.T) {
	data, err := files.ReadFile("pg-ssi-on-conflict-do-nothing.txn")
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	pg15 := target.Info{DBMS: "postgres", Version: "15.18 (Debian 15.18-0+deb12u1)"}
	pg10 := target.Info{DBMS: "postgres", Version: "10.23"}
	pg18 := target.Info{DBMS: "postgres", Version: "18.4"}
	before, err := testcase.ParseString("before", text)
	if err != nil {
		t.Fatal(err)
	}
	groups, err := ParseStatus(before.Known.Status)
	if err != nil {
		t.Fatal(err)
	}
	was, ok := Lookup(groups, pg15)
	if !ok {
		t.Fatalf("no group for %v in %q", pg15, before.Known.Status)
	}
	measured := map[string][]LevelResult{
		pg10.Version: {{Level: target.ReadCommitted, Status: NotReproduced}, {Level: target.Serializable, Status: Reproduces}},
		pg18.Version: {{Level: target.ReadCommitted, Status: Error}, {Level: target.Serializable, Status: NotReproduced}},
	}
	// Twice: recording a version again replaces its group.
	for range 2 {
		for _, info := range []target.Info{pg18, pg10} {
			if text, err = Record(text, FormatStatus(info.DBMS, VersionKey(info.Version), measured[info.Version])); err != nil {
				t.Fatal(err)
			}
		}
	}
	c, err := testcase.ParseString("after", text)
	if err != nil {
		t.Fatalf("the recorded file does not parse: %v\n%s", err, text)
	}
	if !strings.Contains(c.Known.Status, "postgres-10.23 rc=not-reproduced ser=reproduces; postgres-15.18 ") ||
		!strings.HasSuffix(c.Known.Status, "; postgres-18.4 rc=error ser=not-reproduced") {
		t.Errorf("status header %q: want 10.23, 15.18 and 18.4 in order", c.Known.Status)
	}
	groups, err = ParseStatus(c.Known.Status)
	if err != nil || len(groups) != 3 {
		t.Fatalf("%d groups, %v: %q", len(groups), err, c.Known.Status)
	}
	for version, levels := range measured {
		info := target.Info{DBMS: "postgres", Version: version}
		g, ok := Lookup(groups, info)
		if !ok {
			t.Errorf("%s: no group", info.Version)
			continue
		}
		for _, l := range levels {
			if g.Levels[l.Level] != l.Status || len(g.Levels) != len(levels) {
				t.Errorf("%s at %s: recorded %v, want %s", info.Version, l.Level, g.Levels, l.Status)
			}
		}
	}
	if g, _ := Lookup(groups, pg15); g.Version != was.Version || len(g.Levels) != len(was.Levels) {
		t.Errorf("15.18's group became %+v, was %+v", g, was)
	}
}
