package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"unicode/utf8"
)

// hostileText is what a hostile case puts in its statements, values,
// headers and file names: an OSC 52 clipboard write (ESC ] 52 ; c ;
// base64 BEL), a screen clear, a carriage return and a C1 CSI.
const hostileText = "\x1b]52;c;UFdORUQ=\x07\x1b[2J\rZ\u009b31m"

// hostileEscaped is hostileText as txlab prints it (termsafe.Line).
const hostileEscaped = `\x1b]52;c;UFdORUQ=\x07\x1b[2J\x0dZ\u009b31m`

// hostileOneLine is hostileText escaped where txlab first puts a text on
// one line (statements, server messages): the CR is blank space.
const hostileOneLine = `\x1b]52;c;UFdORUQ=\x07\x1b[2J Z\u009b31m`

// assertNoControls fails the test if s holds a control character other
// than '\n' and '\t' (C0, DEL, C1) or a byte that is not UTF-8: nothing
// that a terminal would act on.
func assertNoControls(t *testing.T, what, s string) {
	t.Helper()
	for i := 0; i < len(s); {
		r, n := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && n == 1) || (r < 0x20 && r != '\n' && r != '\t') || (r >= 0x7f && r <= 0x9f) {
			lo, hi := max(0, i-40), min(len(s), i+40)
			t.Errorf("%s: raw control %q at byte %d: %q", what, s[i:i+n], i, s[lo:hi])
			return
		}
		i += n
	}
}

// TestOutputIsTerminalSafe (issue 41): a case file's statements and
// values, a server's error messages, headers and file names never reach
// the terminal as control sequences in txlab's text output; they are
// printed as visible escapes. The --json output keeps the values as they
// are (JSON escapes them).
func TestOutputIsTerminalSafe(t *testing.T) {
	h := hostileText
	text := "-- dbms: sqlite" + h + "\n" +
		"-- symptom: " + h + "\n" +
		"CREATE TABLE t (id INT PRIMARY KEY, v TEXT);\n" +
		"INSERT INTO t VALUES (1, 'a" + h + "'), (2, 'b');\n" +
		"1> BEGIN;\n" +
		"1> SELECT v, '" + h + "' AS \"c" + h + "\" FROM t WHERE id = 1;\n" +
		"2> SELECT char(27, 93, 48, 59, 84, 7), char(155);\n" +
		"2> SELECT * FROM \"nosuch" + h + "\";\n" +
		"1> UPDATE t SET v = 'u" + h + "' WHERE id = 2;\n" +
		"1> COMMIT;\n"
	path := caseFile(t, text)

	for _, args := range [][]string{
		{"run", "--oracle", "none", path},
		{"run", path},
	} {
		code, out, errs := txlab(t, args...)
		if code == 2 {
			t.Fatalf("%v: exit 2:\n%s\n%s", args, out, errs)
		}
		assertNoControls(t, "stdout of "+strings.Join(args[:len(args)-1], " "), out)
		assertNoControls(t, "stderr of "+strings.Join(args[:len(args)-1], " "), errs)
		for _, want := range []string{
			"ok, 1 row: (a" + hostileEscaped + ", " + hostileEscaped + ")", // values
			`ok, 1 row: (\x1b]0;T\x07, \u009b)`,                            // values the DBMS built
			"no such table: nosuch" + hostileOneLine,                       // the server's message
			"(2, u" + hostileEscaped + ")",                                 // the final state
			"'" + hostileOneLine + "' AS",                                  // statement text
		} {
			if !strings.Contains(out, want) {
				t.Errorf("%v: no %q in stdout:\n%s", args, want, out)
			}
		}
		if want := "the case says dbms sqlite" + hostileEscaped; !strings.Contains(errs, want) {
			t.Errorf("%v: no warning %q in stderr:\n%s", args, want, errs)
		}
	}

	// JSON stays as it was: the values are the DBMS's, escaped by JSON.
	code, out, errs := txlab(t, "run", "--json", "--oracle", "none", path)
	if code == 2 {
		t.Fatalf("--json: exit 2:\n%s\n%s", out, errs)
	}
	if !strings.Contains(out, `u\u001b]52;c;UFdORUQ=\u0007\u001b[2J\rZ`+"\u009b31m") {
		t.Errorf("--json: the final value is not JSON-escaped as before:\n%s", out)
	}
	cases := decodeCases(t, out)
	if len(cases) != 1 || cases[0].FinalState["t"][1][1].String() != "u"+h {
		t.Errorf("--json: final state %v, want t's second row's v = %q", cases, "u"+h)
	}
}

// TestErrorLinesAreTerminalSafe: error and warning lines that name a
// hostile file or directory, or quote a --suppress file, print it escaped.
func TestErrorLinesAreTerminalSafe(t *testing.T) {
	dir := t.TempDir()
	bad := filepath.Join(dir, "c"+hostileText+".txn")
	if err := os.WriteFile(bad, []byte("1> SELECT 1;\n3x> SELECT '"+hostileText+"';\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	supp := filepath.Join(dir, "supp.txt")
	if err := os.WriteFile(supp, []byte("MDEV-"+hostileText+"\n"), 0o644); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		name string
		args []string
		want string
	}{
		{"run names the file", []string{"run", bad}, "c" + hostileEscaped + ".txn"},
		{"main's error line", []string{"report", filepath.Join(dir, "r"+hostileText)}, "r" + hostileEscaped},
		{"suppress warning", []string{"fuzz", "--cases", "1", "--suppress", supp, "--out", filepath.Join(dir, "out")}, "MDEV-" + hostileOneLine},
	} {
		code, out, errs := txlab(t, c.args...)
		assertNoControls(t, c.name+": stdout", out)
		assertNoControls(t, c.name+": stderr", errs)
		if !strings.Contains(errs, c.want) {
			t.Errorf("%s: exit %d, no %q in stderr:\n%s", c.name, code, c.want, errs)
		}
	}
}

// TestShellIsTerminalSafe: the shell prints a session's values and the
// server's messages escaped.
func TestShellIsTerminalSafe(t *testing.T) {
	script := "1> CREATE TABLE t (v TEXT);\n" +
		"1> INSERT INTO t VALUES ('" + hostileText + "');\n" +
		"1> SELECT v FROM t;\n" +
		"1> SELECT * FROM \"x" + hostileText + "\";\n" +
		"\\state\n"
	var out, errb bytes.Buffer
	if code := runIO(t.Context(), []string{"shell"}, strings.NewReader(script), &out, &errb); code != 0 {
		t.Fatalf("exit %d: %s", code, errb.String())
	}
	assertNoControls(t, "shell stdout", out.String())
	assertNoControls(t, "shell stderr", errb.String())
	for _, want := range []string{"ok, 1 row: (" + hostileEscaped + ")", "no such table: x" + hostileOneLine, "  (" + hostileEscaped + ")"} {
		if !strings.Contains(out.String(), want) {
			t.Errorf("no %q in\n%s", want, out.String())
		}
	}
}
