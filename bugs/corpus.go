// Package bugs is txlab's corpus of known bugs: one case file per bug and
// DBMS (this directory), with the known-bug headers (bug, link, affects,
// fixed, levels, oracle, rule, symptom). The files are embedded, so `txlab bugs
// list` works from any directory. Test runs the corpus on a target; the
// tables and the progress display of txlab bugs test are here too
// (TargetRun, WriteTable, WriteMatrix, Display), so that the command only
// wires its flags to them.
package bugs

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"strings"
	"sync"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

//go:embed *.txn
var files embed.FS

// Entry is one case of the corpus.
type Entry struct {
	File string         `json:"file"` // bugs/NAME.txn
	Case *testcase.Case `json:"-"`
	// The headers, flattened for listing.
	Bug     string `json:"bug"`
	DBMS    string `json:"dbms"`
	Levels  string `json:"levels,omitempty"`
	Oracle  string `json:"oracle,omitempty"`
	Rule    string `json:"rule,omitempty"`
	Link    string `json:"link,omitempty"`
	Affects string `json:"affects,omitempty"`
	Fixed   string `json:"fixed,omitempty"`
	Symptom string `json:"symptom"`
	// Expect is what the bug looks like (the expect header; "bug" without
	// one), Status what bugs test measured before (the status header).
	Expect Expect     `json:"expect"`
	Status []Recorded `json:"status,omitempty"`
	// Kind is "bug", or "documented" for documented behaviour that looks
	// like a bug (its expect header says allowed).
	Kind string `json:"kind"`
}

// DBMSs are the names txlab's targets report (target.Info.DBMS): what a
// case's dbms header and a --dbms flag may name.
var DBMSs = []string{"mariadb", "mysql", "tidb", "postgres", "cockroach", "sqlite", "duckdb"}

// List returns the corpus, sorted by bug id, the cases whose dbms header
// starts with dbms only when dbms is not empty. A file without a bug
// header is an error: every case here documents a known bug. So is a dbms
// that is not one of DBMSs: a typo would list nothing and look like a
// DBMS without known bugs.
func List(dbms string) ([]Entry, error) {
	if dbms != "" && !slices.ContainsFunc(DBMSs, func(d string) bool { return strings.EqualFold(d, dbms) }) {
		return nil, fmt.Errorf("unknown DBMS %q: want one of %s", dbms, strings.Join(DBMSs, ", "))
	}
	names, err := fs.Glob(files, "*.txn")
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, name := range names {
		data, err := files.ReadFile(name)
		if err != nil {
			return nil, err
		}
		c, err := testcase.ParseString("bugs/"+name, string(data))
		if err != nil {
			return nil, err
		}
		if c.Known.Bug == "" {
			return nil, fmt.Errorf("bugs/%s: no bug header", name)
		}
		db, _, _ := strings.Cut(c.DBMS, " ")
		if dbms != "" && !strings.EqualFold(db, dbms) {
			continue
		}
		k := c.Known
		e := Entry{File: "bugs/" + name, Case: c, Bug: k.Bug, DBMS: db, Levels: k.Levels, Oracle: k.Oracle, Rule: k.Rule,
			Link: k.Link, Affects: k.Affects, Fixed: k.Fixed, Symptom: k.Symptom}
		if e.Expect, err = ParseExpect(c.Expect); err != nil {
			return nil, fmt.Errorf("bugs/%s: %w", name, err)
		}
		// A levels header that does not read would end every bugs test of
		// the DBMS at this file, after its server started.
		if _, err := e.LevelsOr(""); err != nil {
			return nil, err
		}
		for _, cl := range e.Expect {
			if cl.Step > len(c.Steps) {
				return nil, fmt.Errorf("bugs/%s: expect %s: the case has %d steps", name, cl, len(c.Steps))
			}
		}
		e.Kind = "bug"
		if slices.ContainsFunc(e.Expect, func(c Clause) bool { return c.Kind == "allowed" && !c.Not }) {
			e.Kind = "documented"
		}
		if e.Status, err = ParseStatus(k.Status); err != nil {
			return nil, fmt.Errorf("bugs/%s: %w", name, err)
		}
		out = append(out, e)
	}
	slices.SortStableFunc(out, func(a, b Entry) int { return strings.Compare(a.Bug, b.Bug) })
	return out, nil
}

// ForTarget returns the corpus entries bugs test runs on a DBMS: its own
// bugs and those whose status header records a measurement on it (a MySQL
// bug measured on MariaDB).
func ForTarget(dbms string) ([]Entry, error) {
	all, err := List("")
	if err != nil {
		return nil, err
	}
	var out []Entry
	for _, e := range all {
		if strings.EqualFold(e.DBMS, dbms) || slices.ContainsFunc(e.Status, func(r Recorded) bool { return strings.EqualFold(r.DBMS, dbms) }) {
			out = append(out, e)
		}
	}
	return out, nil
}

// Text returns the case file of e as it is in the corpus, comments
// included: what `txlab bugs show` prints, replayable with `txlab run`
// without a clone of the repository.
func Text(e Entry) ([]byte, error) {
	return files.ReadFile(strings.TrimPrefix(e.File, "bugs/"))
}

// Find returns the corpus entries of id: a bug id (case-insensitive; one
// bug may have a case per DBMS) or a case file's name, with or without
// bugs/ and .txn.
func Find(id string) ([]Entry, error) {
	all, err := List("")
	if err != nil {
		return nil, err
	}
	name := strings.TrimSuffix(strings.TrimPrefix(id, "bugs/"), ".txn")
	var out []Entry
	for _, e := range all {
		if strings.EqualFold(e.Bug, id) || e.File == "bugs/"+name+".txn" {
			out = append(out, e)
		}
	}
	return out, nil
}

// ByRule returns the known bug whose corpus cases name rule in their rule
// header (documented behaviours excluded): a finding with that rule is
// that bug. Where several bugs' cases name the rule (TIDB-30361 and
// TIDB-57170 both show tidb-57170-unistore-reverse-scan), it is the bug
// the rule is named after.
func ByRule(rule string) (Entry, bool) {
	e, ok := byRule()[rule]
	return e, ok
}

// CauseOf is the id of the known bug rule belongs to (ByRule), "" for
// none: what report.Writer.KnownBug joins findings by.
func CauseOf(rule string) string {
	if e, ok := ByRule(rule); ok {
		return e.Bug
	}
	return ""
}

var byRule = sync.OnceValue(func() map[string]Entry {
	out := map[string]Entry{}
	entries, err := List("")
	if err != nil {
		return out
	}
	for _, e := range entries {
		if e.Kind != "bug" {
			continue
		}
		for _, r := range strings.Split(e.Rule, ",") {
			if r = strings.TrimSpace(r); r != "" {
				// The first entry naming the rule, unless a later
				// one is the bug the rule is named after.
				if prev, dup := out[r]; !dup || !namedAfter(r, prev.Bug) && namedAfter(r, e.Bug) {
					out[r] = e
				}
			}
		}
	}
	return out
})

// namedAfter reports whether rule is named after bug id (Slug).
func namedAfter(rule, id string) bool {
	return strings.HasPrefix(rule, Slug(id)+"-")
}

// Slug is the prefix of the rules txlab names after bug id: lower case,
// spaces and # as "-" ("MySQL #104833" → "mysql-104833").
func Slug(id string) string {
	s := strings.ToLower(strings.TrimSpace(id))
	s = strings.NewReplacer(" #", "-", "#", "-", " ", "-").Replace(s)
	return s
}

// Suppression is what --suppress needs of bug id: for each of its cases,
// the generic rules its findings carry (a rule named after another bug is
// that bug's: listed apart), its oracles, levels and statement kinds.
func Suppression(id string) (report.KnownBug, error) {
	all, err := List("")
	if err != nil {
		return report.KnownBug{}, err
	}
	var kb report.KnownBug
	for _, e := range all {
		if !strings.EqualFold(e.Bug, id) {
			continue
		}
		kb.Known = true
		c := report.BugCase{File: e.File}
		for _, r := range strings.Split(e.Rule, ",") {
			r = strings.TrimSpace(r)
			lr := strings.ToLower(r)
			if r == "" || strings.HasPrefix(lr, Slug(e.Bug)+"-") {
				continue // its own: matched by the id's prefix
			}
			if owner := ownerOf(all, lr); owner != "" {
				if c.Borrowed == nil {
					c.Borrowed = map[string]string{}
				}
				c.Borrowed[r] = owner
				continue
			}
			c.Rules = append(c.Rules, r)
		}
		for _, o := range strings.Split(e.Oracle, ",") {
			if o = strings.TrimSpace(o); o != "" {
				c.Oracles = append(c.Oracles, o)
			}
		}
		levels := strings.Split(e.Levels, ",")
		if e.Levels == "" && e.Case.Isolation != "" {
			levels = []string{string(e.Case.Isolation)}
		}
		for _, l := range levels {
			if lv, err := target.ParseLevel(strings.TrimSpace(l)); err == nil {
				c.Levels = append(c.Levels, string(lv))
			}
		}
		for _, st := range e.Case.Steps {
			if k := testcase.KindOf(st).Signature(); k != "" && !slices.Contains(c.Kinds, k) {
				c.Kinds = append(c.Kinds, k)
			}
		}
		kb.Cases = append(kb.Cases, c)
	}
	return kb, nil
}

// ownerOf is the corpus bug a rule is named after, or "".
func ownerOf(all []Entry, lrule string) string {
	for _, e := range all {
		if strings.HasPrefix(lrule, Slug(e.Bug)+"-") {
			return e.Bug
		}
	}
	return ""
}
