package testcase

import (
	"encoding/json"
	"errors"
	"flag"
	"os"
	"path/filepath"
	"reflect"
	"slices"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite the expected .json files of testdata/valid")

// caseFiles returns the .case files in testdata/dir.
func caseFiles(t testing.TB, dir string) []string {
	t.Helper()
	files, err := filepath.Glob(filepath.Join("testdata", dir, "*.case"))
	if err != nil || len(files) == 0 {
		t.Fatalf("no case files in testdata/%s (%v)", dir, err)
	}
	return files
}

// parseRoundTrip checks that printing c and parsing the output gives c back
// and that printing again gives the same text.
func parseRoundTrip(t *testing.T, c *Case) {
	t.Helper()
	printed := c.String()
	back, err := ParseString("printed", printed)
	if err != nil {
		t.Fatalf("printed case does not parse: %v\n%s", err, printed)
	}
	if !c.Equal(back) {
		t.Errorf("Parse(Print(c)) differs from c:\n got %#v\nwant %#v", back, c)
	}
	if again := back.String(); again != printed {
		t.Errorf("Print→Parse→Print is not the identity:\nfirst:\n%s\nsecond:\n%s", printed, again)
	}
}

func TestParseValid(t *testing.T) {
	for _, file := range caseFiles(t, "valid") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			c, err := ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if c.Name != file {
				t.Errorf("Name = %q, want %q", c.Name, file)
			}
			c.Name = ""
			got, err := json.MarshalIndent(c, "", "  ")
			if err != nil {
				t.Fatal(err)
			}
			want := strings.TrimSuffix(file, ".case") + ".json"
			if *update {
				if err := os.WriteFile(want, append(got, '\n'), 0o644); err != nil {
					t.Fatal(err)
				}
			}
			exp, err := os.ReadFile(want)
			if err != nil {
				t.Fatal(err)
			}
			if string(got) != strings.TrimSpace(string(exp)) {
				t.Errorf("parsed case:\n%s\nwant (%s):\n%s", got, want, exp)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			parseRoundTrip(t, c)
		})
	}
}

func TestParseInvalid(t *testing.T) {
	for _, file := range caseFiles(t, "invalid") {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(file, ".case") + ".err")
			if err != nil {
				t.Fatal(err)
			}
			c, err := Parse(name, strings.NewReader(string(src)))
			if err == nil {
				t.Fatalf("parsed without error:\n%s", c)
			}
			if got := err.Error(); got != strings.TrimSpace(string(want)) {
				t.Errorf("error:\n got %s\nwant %s", got, want)
			}
			var pe *Error
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Errorf("error %v is not an *Error naming a line", err)
			}
		})
	}
}

// TestParseWarnings: an unknown header is forgiven with a warning naming
// the known ones (and the nearest, for a typo); the case still parses, keeps
// the line as a comment and prints back unchanged.
func TestParseWarnings(t *testing.T) {
	for _, file := range caseFiles(t, "warn") {
		name := filepath.Base(file)
		t.Run(name, func(t *testing.T) {
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			want, err := os.ReadFile(strings.TrimSuffix(file, ".case") + ".warn")
			if err != nil {
				t.Fatal(err)
			}
			c, err := Parse(name, strings.NewReader(string(src)))
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			for _, w := range c.Warnings {
				got = append(got, w.Error())
			}
			if g, w := strings.Join(got, "\n"), strings.TrimSpace(string(want)); g != w {
				t.Errorf("warnings:\n got %s\nwant %s", g, w)
			}
			if len(c.Steps) == 0 || c.Isolation == "" {
				t.Errorf("the case lost its steps or headers: %+v", c)
			}
			if err := c.Validate(); err != nil {
				t.Errorf("Validate: %v", err)
			}
			if printed := c.String(); !strings.Contains(printed, "-- expct: bug") {
				t.Errorf("the unknown header is not kept as a comment:\n%s", printed)
			}
			parseRoundTrip(t, c)
		})
	}
}

func TestNearest(t *testing.T) {
	for in, want := range map[string]string{"expct": "expect", "isolaton": "isolation", "dmbs": "dbms", "note": "", "seeds": "seed"} {
		if got := nearest(in, headers); got != want {
			t.Errorf("nearest(%q) = %q, want %q", in, got, want)
		}
	}
}

// TestExamples keeps the example cases (used by the README and the executor
// tests) parseable, valid and in printed form.
func TestExamples(t *testing.T) {
	for _, file := range caseFiles(t, "examples") {
		t.Run(filepath.Base(file), func(t *testing.T) {
			c, err := ParseFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if err := c.Validate(); err != nil {
				t.Fatal(err)
			}
			if len(c.Setup) == 0 || len(c.Conns()) < 2 {
				t.Errorf("an example should have setup and at least two connections: %d setup, conns %v", len(c.Setup), c.Conns())
			}
			src, err := os.ReadFile(file)
			if err != nil {
				t.Fatal(err)
			}
			if got := c.String(); got != string(src) {
				t.Errorf("example is not in printed form; printed:\n%s", got)
			}
			parseRoundTrip(t, c)
		})
	}
}

func TestSplitStatements(t *testing.T) {
	var tests []struct {
		Name string
		In   string
		Out  []string
		Err  string
	}
	readJSON(t, "split.json", &tests)
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			got, err := SplitStatements(tt.In)
			if !slices.Equal(got, tt.Out) {
				t.Errorf("SplitStatements(%q) = %q, want %q", tt.In, got, tt.Out)
			}
			if msg := errText(err); msg != tt.Err {
				t.Errorf("error %q, want %q", msg, tt.Err)
			}
		})
	}
}

func TestValidate(t *testing.T) {
	var tests []struct {
		Name string
		Case Case
		Err  string
	}
	readJSON(t, "validate.json", &tests)
	for _, tt := range tests {
		t.Run(tt.Name, func(t *testing.T) {
			err := tt.Case.Validate()
			if msg := errText(err); msg != tt.Err {
				t.Fatalf("Validate:\n got %q\nwant %q", msg, tt.Err)
			}
			if err == nil {
				parseRoundTrip(t, &tt.Case)
			}
		})
	}
}

// TestErrorFormat covers the forms of Error without a name or a line.
func TestErrorFormat(t *testing.T) {
	tests := []struct {
		err  Error
		want string
	}{
		{Error{Name: "a.case", Line: 3, Msg: "m"}, "a.case:3: m"},
		{Error{Line: 3, Msg: "m"}, "line 3: m"},
		{Error{Name: "a.case", Msg: "m"}, "a.case: m"},
		{Error{Msg: "m"}, "m"},
	}
	for _, tt := range tests {
		if got := tt.err.Error(); got != tt.want {
			t.Errorf("%#v.Error() = %q, want %q", tt.err, got, tt.want)
		}
	}
}

func TestParseFileMissing(t *testing.T) {
	_, err := ParseFile(filepath.Join(t.TempDir(), "absent.case"))
	if !errors.Is(err, os.ErrNotExist) {
		t.Errorf("ParseFile of a missing file: %v, want a not-exist error", err)
	}
}

func readJSON(t *testing.T, name string, v any) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join("testdata", name))
	if err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal(b, v); err != nil {
		t.Fatalf("%s: %v", name, err)
	}
}

func errText(err error) string {
	if err == nil {
		return ""
	}
	return err.Error()
}

// FuzzParse checks that Parse never panics and that whatever it accepts
// prints and reads back unchanged, and validates unless the case breaks a
// whole-case rule.
func FuzzParse(f *testing.F) {
	for _, dir := range []string{"valid", "invalid", "examples"} {
		for _, file := range caseFiles(f, dir) {
			b, err := os.ReadFile(file)
			if err != nil {
				f.Fatal(err)
			}
			f.Add(string(b))
		}
	}
	f.Fuzz(func(t *testing.T, src string) {
		c, err := ParseString("fuzz", src)
		if err != nil {
			var pe *Error
			if !errors.As(err, &pe) || pe.Line < 1 {
				t.Fatalf("error without a line: %v", err)
			}
			return
		}
		parseRoundTrip(t, c)
		// What Parse accepts meets every statement-level rule; only a case
		// without steps or with an unused isolation.N may fail Validate.
		unused := false
		conns := c.Conns()
		for conn := range c.ConnIsolation {
			unused = unused || !slices.Contains(conns, conn)
		}
		if err := c.Validate(); err != nil && len(c.Steps) > 0 && !unused {
			t.Fatalf("parsed case fails Validate: %v\n%s", err, src)
		}
	})
}

func TestTransactions(t *testing.T) {
	c, err := ParseString("txns", `CREATE TABLE t (a INT);
1> BEGIN;
2> INSERT INTO t VALUES (1);
1> UPDATE t SET a = 2;
2> INSERT INTO t VALUES (3);
1> COMMIT;
1> SELECT * FROM t;
`)
	if err != nil {
		t.Fatal(err)
	}
	got := Transactions(c)
	want := []Txn{
		{ID: 1, Conn: 1, Steps: []int{0, 2, 4}, Explicit: true},
		{ID: 2, Conn: 2, Steps: []int{1}},
		{ID: 3, Conn: 2, Steps: []int{3}},
		{ID: 4, Conn: 1, Steps: []int{5}},
	}
	if len(got) != len(want) {
		t.Fatalf("%d transactions, want %d: %+v", len(got), len(want), got)
	}
	for i := range want {
		if !reflect.DeepEqual(*got[i], want[i]) {
			t.Errorf("transaction %d = %+v, want %+v", i+1, *got[i], want[i])
		}
	}
}
