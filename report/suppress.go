package report

import (
	"bufio"
	"fmt"
	"io"
	"maps"
	"os"
	"slices"
	"strings"

	"github.com/txlab/txlab/verdict"
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
// list`; "MySQL #105670" is two words). It matches only findings of its own
// defect: a finding whose rule starts with the id in lower case followed by
// "-" (txlab names the rules of known bugs that way), or one whose rule is a
// generic rule its corpus case names (WSS's wss-no-serial-order) and whose
// oracle, level and statement kinds fit that case. A rule named after
// another bug (MDEV-26671's case names MDEV-26642's rule) is that bug's,
// and the id does not match it: reading the file says so. Any other line is
// a finding signature, as report.json and the run summary print it (five
// words or more), or a pattern where * matches any run of characters,
// spaces included. The verdict in a signature is the one the finding had
// before suppression (usually bug).
type Suppressions struct {
	entries []suppression
}

type suppression struct {
	text  string    // the line as written: what the finding's known_as says
	id    string    // lower-case bug id, or "" for a signature pattern
	slug  string    // id with # and spaces as "-": how rules are named
	cases []BugCase // the corpus's cases of id
	glob  string    // signature pattern
}

// KnownBug is what the known-bug corpus says of an id, for suppression.
type KnownBug struct {
	// Known is false for an id the corpus does not hold.
	Known bool
	Cases []BugCase
}

// BugCase is one corpus case of a bug: the generic rules its findings
// carry and what a finding must fit to be this case's. Empty lists allow
// anything.
type BugCase struct {
	File string
	// Rules are the case's rules named after no bug (its own rules match by
	// the id's prefix anyway); Borrowed maps a rule named after another
	// bug to that bug's id.
	Rules    []string
	Borrowed map[string]string
	// Oracles, Levels (as signatures name them: read-committed, …) and
	// Kinds (its statements as signatures name them, testcase.SignatureKind:
	// INSERT, UPSERT, UPDATE, …).
	Oracles []string
	Levels  []string
	Kinds   []string
}

// BugRules resolves a known-bug id to what the corpus says of it.
type BugRules func(id string) (KnownBug, error)

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
			e.slug = strings.ReplaceAll(e.id, "#", "-")
			if resolve != nil {
				kb, err := resolve(line)
				if err != nil {
					return nil, fmt.Errorf("%s:%d: %w", name, ln, err)
				}
				if !kb.Known {
					warnings = append(warnings, fmt.Sprintf("%s:%d: %s is not in the known-bug corpus (txlab bugs list); it matches only rules named %s-…", name, ln, line, e.slug))
				}
				for _, c := range kb.Cases {
					for _, r := range slices.Sorted(maps.Keys(c.Borrowed)) {
						warnings = append(warnings, fmt.Sprintf("%s:%d: %s's case %s is found under %s's rule %s; this line does not match those findings (add %s to count them as known)",
							name, ln, line, c.File, c.Borrowed[r], r, c.Borrowed[r]))
					}
				}
				e.cases = kb.Cases
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
		if strings.HasPrefix(lrule, e.id+"-") || strings.HasPrefix(lrule, e.slug+"-") {
			return e.text
		}
		for _, c := range e.cases {
			if c.fits(sig, rule) {
				return e.text
			}
		}
	}
	return ""
}

// fits reports whether a finding with signature sig and rule is one of the
// case's: a generic rule of the case, and the finding's oracle, level and
// statement kinds within the case's.
func (c BugCase) fits(sig, rule string) bool {
	if !slices.ContainsFunc(c.Rules, func(r string) bool { return strings.EqualFold(r, rule) }) {
		return false
	}
	p, ok := ParseSignature(sig)
	if !ok {
		return false
	}
	oracle, kinds, level := p.Oracle, p.Kinds, p.Isolation
	if len(c.Oracles) > 0 && !slices.Contains(c.Oracles, oracle) {
		return false
	}
	if len(c.Levels) > 0 && !slices.Contains(c.Levels, level) {
		return false
	}
	if len(c.Kinds) == 0 {
		return true
	}
	for _, k := range kinds {
		// Troc names a statement by the model's kind ("SELECT FOR UPDATE",
		// "INSERT SELECT"): its first word is the statement's keyword.
		first, _, _ := strings.Cut(k, " ")
		if !slices.Contains(c.Kinds, first) {
			return false
		}
	}
	return true
}

// SignatureParts is a finding signature read back (Bundle.Signature).
type SignatureParts struct {
	Oracle, Kind string
	// Kinds are the statement kinds, nil where the signature leaves them
	// out; a kind may hold spaces ("SELECT FOR UPDATE").
	Kinds     []string
	Isolation string
	Verdict   verdict.Verdict
	Rule      string
}

// ParseSignature reads a finding signature: oracle, kind, statement kinds
// joined by + where the signature has them, isolation, verdict, [rule].
// The fields after the kinds are read from the end, since a kind may hold
// spaces.
func ParseSignature(sig string) (SignatureParts, bool) {
	s := strings.TrimSpace(sig)
	var p SignatureParts
	if strings.HasSuffix(s, "]") {
		i := strings.LastIndex(s, " [")
		if i < 0 {
			return SignatureParts{}, false
		}
		p.Rule, s = s[i+2:len(s)-1], s[:i]
	}
	f := strings.Split(s, " ")
	if len(f) < 4 {
		return SignatureParts{}, false
	}
	p.Oracle, p.Kind = f[0], f[1]
	p.Isolation, p.Verdict = f[len(f)-2], verdict.Verdict(f[len(f)-1])
	if kinds := strings.Join(f[2:len(f)-2], " "); kinds != "" {
		p.Kinds = strings.Split(kinds, "+")
	}
	return p, true
}

// Counts are the entries, in file order, with how many findings each
// matched according to a writer's summary.
func (s *Suppressions) Counts(sum []SignatureCount) []EntryCount {
	if s == nil {
		return nil
	}
	out := make([]EntryCount, len(s.entries))
	for i, e := range s.entries {
		out[i].Entry = e.text
		for _, c := range sum {
			if c.KnownAs == e.text {
				out[i].Findings += c.Count
			}
		}
	}
	return out
}

// EntryCount is one suppression entry and the findings it matched.
type EntryCount struct {
	Entry    string `json:"entry"`
	Findings int    `json:"findings"`
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
