package report

import (
	"bufio"
	"fmt"
	"io"
	"os"
	"strings"
)

// Suppressions are the entries of one or more suppression files
// (`--suppress FILE`). The format, one entry per line:
//
//	# a comment (a line whose first non-blank character is #)
//	MDEV-30835
//	troc incorrect-blocking SELECT+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]
//	wss tx-wss * read-committed bug [mdev-26643-*]
//
// A line of one or two words without * is a known-bug id (`txlab bugs
// list`; "MySQL #105670" is two words). It matches a finding whose rule the corpus lists
// for that bug (its rule header) or whose rule starts with the id in lower
// case followed by "-" (txlab names the rules of known bugs that way). Any
// other line is a finding signature, as report.json and the run summary
// print it (five words or more), or a pattern where * matches any run of
// characters, spaces included. The verdict in a
// signature is the one the finding had before suppression (usually bug).
type Suppressions struct {
	entries []suppression
}

type suppression struct {
	text  string   // the line as written: what the finding's known_as says
	id    string   // lower-case bug id, or "" for a signature pattern
	rules []string // the corpus's rules for id
	glob  string   // signature pattern
}

// BugRules resolves a known-bug id to the rules the corpus gives it; known
// is false for an id the corpus does not hold.
type BugRules func(id string) (rules []string, known bool, err error)

// ReadSuppressions reads suppression files. An id the corpus does not hold
// is accepted (it matches rules named after it) and reported in warnings.
func ReadSuppressions(paths []string, resolve BugRules) (s *Suppressions, warnings []string, err error) {
	s = &Suppressions{}
	for _, p := range paths {
		f, err := os.Open(p)
		if err != nil {
			return nil, nil, fmt.Errorf("suppression file: %w", err)
		}
		w, err := s.read(p, f, resolve)
		f.Close()
		if err != nil {
			return nil, nil, err
		}
		warnings = append(warnings, w...)
	}
	return s, warnings, nil
}

// ParseSuppressions reads one suppression file's text; name is used in
// errors.
func ParseSuppressions(name string, r io.Reader, resolve BugRules) (*Suppressions, []string, error) {
	s := &Suppressions{}
	w, err := s.read(name, r, resolve)
	if err != nil {
		return nil, nil, err
	}
	return s, w, nil
}

func (s *Suppressions) read(name string, r io.Reader, resolve BugRules) (warnings []string, err error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64*1024), 1<<20)
	ln := 0
	for sc.Scan() {
		ln++
		line := strings.Join(strings.Fields(sc.Text()), " ")
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		switch n := len(strings.Fields(line)); {
		case strings.Contains(line, "*") || n >= 5:
			s.entries = append(s.entries, suppression{text: line, glob: line})
		case n <= 2:
			e := suppression{text: line, id: strings.ToLower(strings.ReplaceAll(line, " ", ""))}
			if resolve != nil {
				rules, known, err := resolve(line)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", name, ln, err)
				}
				if !known {
					warnings = append(warnings, fmt.Sprintf("%s:%d: %s is not in the known-bug corpus (txlab bugs list); it matches only rules named %s-…", name, ln, line, e.id))
				}
				e.rules = rules
			}
			s.entries = append(s.entries, e)
		default:
			return nil, fmt.Errorf("%s:%d: %q is neither a bug id (one or two words) nor a finding signature (oracle kind statements isolation verdict [rule], as report.json prints it, or a pattern with *)", name, ln, line)
		}
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("%s: %w", name, err)
	}
	return warnings, nil
}

// Len is the number of entries.
func (s *Suppressions) Len() int {
	if s == nil {
		return 0
	}
	return len(s.entries)
}

// Match returns the entry that suppresses a finding with signature sig and
// rule, as written in its file, or "".
func (s *Suppressions) Match(sig, rule string) string {
	if s == nil {
		return ""
	}
	lrule := strings.ToLower(rule)
	for _, e := range s.entries {
		if e.id == "" {
			if globMatch(e.glob, sig) {
				return e.text
			}
			continue
		}
		if lrule == "" {
			continue
		}
		if strings.HasPrefix(lrule, e.id+"-") {
			return e.text
		}
		for _, r := range e.rules {
			if strings.EqualFold(r, rule) {
				return e.text
			}
		}
	}
	return ""
}

// globMatch reports whether s matches pattern, where * matches any run of
// characters and everything else matches itself (signatures hold brackets,
// so path.Match's classes would get in the way).
func globMatch(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	last := parts[len(parts)-1]
	for _, p := range parts[1 : len(parts)-1] {
		i := strings.Index(s, p)
		if i < 0 {
			return false
		}
		s = s[i+len(p):]
	}
	return len(s) >= len(last) && strings.HasSuffix(s, last)
}
