package scope

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/sqlast"
)

var dialects = []struct {
	name  string
	rules Rules
}{
	{"mysql", Rules{Dialect: sqlast.MySQL, Schema: "txlab"}},
	{"postgres", Rules{Dialect: sqlast.Postgres, Schema: "txlab"}},
	{"sqlite", Rules{Dialect: sqlast.SQLite, Schema: "main"}},
}

// entry is one statement of a testdata file: files hold statements
// separated by lines starting with "====", the rest of which describes the
// statement; "[unknown]" in it marks a statement --trust-case runs.
type entry struct {
	sql, note string
	line      int
}

func readEntries(t testing.TB, path string) []entry {
	t.Helper()
	data, err := os.ReadFile(path)
	if err != nil {
		t.Fatal(err)
	}
	var out []entry
	var cur *entry
	for i, line := range strings.SplitAfter(string(data), "\n") {
		if strings.HasPrefix(line, "====") {
			if cur != nil {
				out = append(out, *cur)
			}
			cur = &entry{note: strings.TrimSpace(strings.TrimPrefix(line, "====")), line: i + 1}
			continue
		}
		if cur != nil {
			cur.sql += line
		}
	}
	if cur != nil {
		out = append(out, *cur)
	}
	for i := range out {
		out[i].sql = strings.TrimSuffix(out[i].sql, "\n")
	}
	return out
}

// TestHostile: every statement of testdata/DIALECT-refused.sql is refused,
// with and without --trust-case unless marked [unknown].
func TestHostile(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			path := filepath.Join("testdata", d.name+"-refused.sql")
			es := readEntries(t, path)
			if len(es) < 20 {
				t.Fatalf("%s: %d statements", path, len(es))
			}
			for _, e := range es {
				err := Check(e.sql, d.rules)
				if err == nil {
					t.Errorf("%s:%d (%s): accepted %q", path, e.line, e.note, e.sql)
					continue
				}
				t.Logf("%s: %v", e.note, err)
				if strings.Contains(err.Error(), "\n") {
					t.Errorf("%s:%d: refusal is not one line: %q", path, e.line, err)
				}
				trusted := d.rules
				trusted.Trust = true
				err = Check(e.sql, trusted)
				if unknown := strings.Contains(e.note, "[unknown]"); (err == nil) != unknown {
					t.Errorf("%s:%d (%s): with --trust-case: %v (marked unknown: %v)", path, e.line, e.note, err, unknown)
				}
			}
		})
	}
}

// TestBenign: every statement of testdata/DIALECT-allowed.sql passes.
func TestBenign(t *testing.T) {
	for _, d := range dialects {
		t.Run(d.name, func(t *testing.T) {
			path := filepath.Join("testdata", d.name+"-allowed.sql")
			for _, e := range readEntries(t, path) {
				if err := Check(e.sql, d.rules); err != nil {
					t.Errorf("%s:%d (%s): %v\n%s", path, e.line, e.note, err, e.sql)
				}
			}
		})
	}
}

// TestTypoIsSyntaxError: a statement whose first word starts no SQL
// statement is refused as the syntax error it is, with the word it likely
// misspells; a real statement kind the check does not know keeps its
// message. Both stay refused, and --trust-case runs either (the server
// then says what it thinks).
func TestTypoIsSyntaxError(t *testing.T) {
	for _, d := range dialects {
		for sql, want := range map[string]string{
			"SELEC 1;":           "SELEC starts no SQL statement: a syntax error (did you mean SELECT?)",
			"UPDAET t SET a = 1": "UPDAET starts no SQL statement: a syntax error (did you mean UPDATE?)",
			"FROBNICATE t":       "FROBNICATE starts no SQL statement: a syntax error",
			"HELP contents":      "HELP is not a statement kind txlab knows to stay inside its database (--trust-case runs it)",
		} {
			err := Check(sql, d.rules)
			if err == nil || err.Error() != want {
				t.Errorf("%s: Check(%q) = %v, want %q", d.name, sql, err, want)
			}
			trusted := d.rules
			trusted.Trust = true
			if err := Check(sql, trusted); err != nil {
				t.Errorf("%s: Check(%q) with --trust-case = %v", d.name, sql, err)
			}
		}
	}
}
