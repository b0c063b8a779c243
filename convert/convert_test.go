package convert_test

import (
	"flag"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/convert"
	"github.com/txlab/txlab/testcase"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// TestPublished converts the cases published in the Troc, WriteCheck, DT2
// and ReplBug repositories (testdata/*: the files as published) and compares
// them with the golden case files beside them (or the refusal's message).
// Each converted case must parse back to itself.
func TestPublished(t *testing.T) {
	for _, format := range []string{"troc", "writecheck", "dt2", "replbug"} {
		ext := map[string]string{"replbug": ".py"}[format]
		if ext == "" {
			ext = ".txt"
		}
		files, err := filepath.Glob(filepath.Join("testdata", format, "*"+ext))
		if err != nil || len(files) == 0 {
			t.Fatalf("no testdata for %s: %v", format, err)
		}
		for _, path := range files {
			f, err := os.Open(path)
			if err != nil {
				t.Fatal(err)
			}
			cases, err := convert.Parse(format, filepath.Base(path), f)
			f.Close()
			var b strings.Builder
			if err != nil {
				// Refused: the golden file holds the message.
				b.WriteString("error: " + err.Error() + "\n")
			}
			for i, c := range cases {
				if i > 0 {
					b.WriteString("\n-- ---- next case ----\n\n")
				}
				text := c.String()
				b.WriteString(text)
				back, err := testcase.ParseString(c.Name, text)
				if err != nil {
					t.Errorf("%s: the converted case does not parse: %v\n%s", c.Name, err, text)
				} else if !back.Equal(c) {
					t.Errorf("%s: the converted case does not parse back to itself:\n%s", c.Name, text)
				}
			}
			golden := strings.TrimSuffix(path, ext) + ".txn"
			if *update {
				if err := os.WriteFile(golden, []byte(b.String()), 0o644); err != nil {
					t.Fatal(err)
				}
				continue
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatal(err)
			}
			if b.String() != string(want) {
				t.Errorf("%s: conversion differs from %s:\n%s", path, golden, b.String())
			}
		}
	}
}

// TestErrors: malformed input is refused with the line that is wrong.
func TestErrors(t *testing.T) {
	for _, tc := range []struct{ name, src, want string }{
		{"empty", "", "empty file"},
		{"no END", "CREATE TABLE t (a INT)\n\nRC\nBEGIN\nCOMMIT\n\n1-1\n", "x:7: no END line"},
		{"junk after the schedule", "RC\nBEGIN\nCOMMIT\n\n1-1\nEXTRA\nEND\n", "x:6: \"EXTRA\" after the schedule"},
		{"unknown transaction", "RC\nBEGIN\nCOMMIT\n\n1-2\nEND\n", "x:5: the schedule names transaction 2"},
		{"too many statements", "RC\nBEGIN\nCOMMIT\n\n1-1-1\nEND\n", "x:5: the schedule submits 3 statements of transaction 1"},
		{"too few statements", "RC\nBEGIN\nCOMMIT\n\n1\nEND\n", "x:5: the schedule submits 1 of transaction 1's 2 statements"},
		{"bad block header", "CREATE TABLE t (a INT)\n\nFOO\nBEGIN\n\n1-1\nEND\n", "x:3: \"FOO\" starts a transaction block"},
		{"END without a schedule", "RC\nBEGIN\nCOMMIT\nEND\n", "x:1: no schedule line"},
		{"duplicate block", "1\nBEGIN\n\n1\nCOMMIT\n\n1-1\nEND\n", "x:4: transaction 1 has two blocks"},
		{"second case broken", "RC\nBEGIN\nCOMMIT\n\n1-1\nEND\n\nRC\nBEGIN\n\n1-2\nEND\n", "x:11: the schedule names transaction 2"},
	} {
		_, err := convert.Parse("troc", "x", strings.NewReader(tc.src))
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want one containing %q", tc.name, err, tc.want)
		}
	}
	if _, err := convert.Parse("nope", "x", strings.NewReader("")); err == nil || !strings.Contains(err.Error(), "troc, writecheck") {
		t.Errorf("unknown format: %v", err)
	}
}

// FuzzParse: any input either converts to valid cases that print and
// parse back, or fails with an error; it never panics.
func FuzzParse(f *testing.F) {
	fuzzFormat(f, "troc", filepath.Join("testdata", "*", "*.txt"), "RC\nBEGIN\nCOMMIT\n\n1-1\nEND\n")
}

// FuzzParseReplBug: the same for ReplBug's Python modules.
func FuzzParseReplBug(f *testing.F) {
	fuzzFormat(f, "replbug", filepath.Join("testdata", "replbug", "*.py"))
}

// fuzzFormat fuzzes Parse in one format, seeded with the files of glob and
// the given texts.
func fuzzFormat(f *testing.F, format, glob string, seeds ...string) {
	files, _ := filepath.Glob(glob)
	for _, p := range files {
		data, err := os.ReadFile(p)
		if err == nil {
			f.Add(string(data))
		}
	}
	for _, s := range seeds {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, src string) {
		cases, err := convert.Parse(format, "fuzz", strings.NewReader(src))
		if err != nil {
			return
		}
		for _, c := range cases {
			if err := c.Validate(); err != nil {
				t.Fatalf("converted case is invalid: %v", err)
			}
			if _, err := testcase.ParseString("fuzz", c.String()); err != nil {
				t.Fatalf("converted case does not parse: %v\n%s", err, c.String())
			}
		}
	})
}

// TestDumpSetup reads the database dump ReplBug keeps for MDEV-29565
// (TxCheck's database) as setup statements, and finds it from a module
// beside its data folder, as in ReplBug's repository.
func TestDumpSetup(t *testing.T) {
	module := filepath.Join("testdata", "replbug", "MDEV-26643.py")
	path := convert.ReplBugDump(module, "MDEV-29565")
	if path != filepath.Join("testdata", "replbug", "data", "sql", "MDEV-29565_mysql_bk.sql") {
		t.Fatalf("dump found at %q", path)
	}
	if p := convert.ReplBugDump(module, "MDEV-00000"); p != "" {
		t.Errorf("a dump for a bug without one: %q", p)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	stmts, err := convert.DumpSetup(path, f)
	if err != nil {
		t.Fatal(err)
	}
	var kinds []string
	for _, s := range stmts {
		kinds = append(kinds, strings.ToUpper(strings.Fields(s)[0]))
	}
	if got := strings.Join(kinds, " "); got != "CREATE INSERT CREATE INSERT" {
		t.Errorf("statements %s, want the two tables and their rows (no DROP, LOCK or SET)", got)
	}
	if !strings.HasPrefix(stmts[0], "CREATE TABLE `t_g6ckkb`") || !strings.Contains(stmts[1], "(20,234000,NULL,'aarauc'") {
		t.Errorf("statements:\n%s", strings.Join(stmts, ";\n"))
	}
	if _, err := convert.DumpSetup("empty.sql", strings.NewReader("-- nothing\n/*!40101 SET NAMES utf8 */;\n")); err == nil {
		t.Error("a file without tables read as a dump")
	}
}

// FuzzDumpSetup: any text gives statements that each start with CREATE or
// INSERT, or an error.
func FuzzDumpSetup(f *testing.F) {
	seed, err := os.ReadFile(filepath.Join("testdata", "replbug", "data", "sql", "MDEV-29565_mysql_bk.sql"))
	if err != nil {
		f.Fatal(err)
	}
	f.Add(string(seed))
	f.Add("CREATE TABLE t (a INT); INSERT INTO t VALUES (';');")
	f.Fuzz(func(t *testing.T, text string) {
		stmts, err := convert.DumpSetup("fuzz.sql", strings.NewReader(text))
		if err != nil {
			return
		}
		for _, s := range stmts {
			if w := strings.ToUpper(strings.Fields(s)[0]); w != "CREATE" && w != "INSERT" {
				t.Fatalf("kept %q", s)
			}
		}
	})
}

// TestNames: a file's one case is base.txn, its several base-N.txn, and a
// name given already is not given again.
func TestNames(t *testing.T) {
	var n convert.Names
	got := []string{n.Next("a/nowait.spec", 0, 2), n.Next("a/nowait.spec", 1, 2), n.Next("b/nowait-2.spec", 0, 1), n.Next("x.txt", 0, 1), n.Next("y/x.py", 0, 1)}
	want := []string{"nowait-1.txn", "nowait-2.txn", "nowait-2.2.txn", "x.txn", "x.2.txn"}
	if strings.Join(got, " ") != strings.Join(want, " ") {
		t.Errorf("names %q, want %q", got, want)
	}
}
