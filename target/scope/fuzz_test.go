package scope

import (
	"path/filepath"
	"strings"
	"testing"
)

// FuzzCheck: the check never panics, and a comment put between two tokens
// of a refused statement never makes it acceptable: comments are where the
// regular expression it replaces was blind. Run with
// go test ./target/scope/ -run '^$' -fuzz FuzzCheck -fuzztime 60s.
func FuzzCheck(f *testing.F) {
	for i, d := range dialects {
		for _, kind := range []string{"refused", "allowed"} {
			for _, e := range readEntries(f, filepath.Join("testdata", d.name+"-"+kind+".sql")) {
				f.Add(e.sql, uint8(i))
			}
		}
	}
	f.Fuzz(func(t *testing.T, sql string, which uint8) {
		d := dialects[int(which)%len(dialects)]
		for _, trust := range []bool{false, true} {
			r := d.rules
			r.Trust = trust
			if Check(sql, r) == nil {
				continue
			}
			// Between tokens: where a token starts in both readings of the
			// statement (with and without backslash escapes in strings).
			rs := readings(r.Dialect)
			toks, backslash, err := lex(r.Dialect, sql, rs[0])
			if err != nil {
				continue
			}
			starts := map[int]bool{}
			for _, tk := range toks {
				starts[tk.pos] = true
			}
			for _, rd := range rs[1:] {
				if !backslash {
					break
				}
				alt, _, err := lex(r.Dialect, sql, rd)
				both := map[int]bool{}
				for _, tk := range alt {
					both[tk.pos] = starts[tk.pos] && err == nil
				}
				starts = both
			}
			for _, comment := range commentsFor(d.name) {
				var b strings.Builder
				last := 0
				for _, tk := range toks {
					if !starts[tk.pos] {
						continue
					}
					b.WriteString(sql[last:tk.pos])
					b.WriteString(comment)
					last = tk.pos
				}
				b.WriteString(sql[last:])
				if err := Check(b.String(), r); err == nil {
					t.Fatalf("%s (trust %v): %q is refused, %q with comments is accepted", d.name, trust, sql, b.String())
				}
			}
		}
	})
}

func commentsFor(dialect string) []string {
	cs := []string{"/**/", " /* ; */ ", " -- x\n"}
	switch dialect {
	case "mysql":
		cs = append(cs, "#\n", "/*+ hint */")
	case "postgres":
		cs = append(cs, "/* /* nested */ */")
	}
	return cs
}
