// Package testcase is txlab's one interchange format: a readable case file
// holding headers, setup statements and the submitted order of statements per
// connection. Cases are parsed (errors name the line), printed and validated
// here; running them is the executor package's job.
package testcase

import "github.com/txlab/txlab/target"

// Case is one parsed case file.
type Case struct {
	// Name is where the case came from (a file name); it is not printed.
	Name string
	// Isolation applies to every connection; empty means the DBMS default.
	Isolation target.Level
	// ConnIsolation overrides Isolation for single connections (isolation.N).
	ConnIsolation map[int]target.Level
	// DBMS, Mode, Seed and Expect are the informational/reserved headers.
	DBMS   string
	Mode   string // pessimistic or optimistic, where the DBMS has both
	Seed   string
	Expect string
	// ReducedFrom names the case a reduction started from (`txlab
	// reduce`), and Finding the signature of the finding it kept.
	ReducedFrom string
	Finding     string
	// Replay are the txlab run flags that reproduce the finding the case
	// came with (a bundle's case.txn: target, settings, level, oracle and
	// its judging flags); txlab run uses those its command line leaves
	// unset, so that the file alone replays the finding.
	Replay string `json:",omitempty"`
	// Known describes the known bug the case reproduces (the corpus in
	// bugs/); empty for other cases.
	Known Known `json:",omitzero"`
	// Comments are the free `--` comment lines before the first statement,
	// without the leading "--" and one space; printed back after the headers.
	Comments []string
	// Setup statements run in autocommit on a fresh database, before the steps.
	// Each is one statement without its terminating semicolon.
	Setup []string
	// Steps is the submitted order.
	Steps []Step
	// Warnings are what the parser forgave (an unknown header, kept as a
	// comment); they are not printed back.
	Warnings []*Error `json:",omitempty"`
}

// Step is one statement submitted on one connection.
type Step struct {
	Conn int    // connection number, ≥ 1
	SQL  string // one statement without its terminating semicolon
	Line int    // line in the source file where the statement starts; 0 if generated
	// Kind is the statement's kind, decided when the case was parsed or
	// generated; read it with KindOf, which also serves steps built
	// without one. It is not part of the case's JSON form.
	Kind Kind `json:"-"`
}

// LevelOf returns the isolation level of connection conn ("" = DBMS default).
func (c *Case) LevelOf(conn int) target.Level {
	if l, ok := c.ConnIsolation[conn]; ok {
		return l
	}
	return c.Isolation
}

// Conns returns the connection numbers used by the steps, ascending.
func (c *Case) Conns() []int {
	seen := map[int]bool{}
	var out []int
	for _, s := range c.Steps {
		if !seen[s.Conn] {
			seen[s.Conn] = true
			out = append(out, s.Conn)
		}
	}
	for i := 1; i < len(out); i++ {
		for j := i; j > 0 && out[j] < out[j-1]; j-- {
			out[j], out[j-1] = out[j-1], out[j]
		}
	}
	return out
}

// Known is what the known-bug headers say: bug (its id, e.g. MDEV-30835),
// link, affects (the versions), fixed (the version that fixed it), levels
// (where it shows, e.g. rc,ru), oracle (the one that finds it), rule (the
// rule txlab's verdict names it by, which --suppress with the bug id matches)
// and symptom (one line), and status: what `txlab bugs test` measured per
// DBMS version and level ("mariadb-10.11 rc=reproduces rr=not-reproduced;
// …"), which it compares with what it measures. They are informational for
// `txlab run`.
type Known struct {
	Bug, Link, Affects, Fixed, Levels, Oracle, Rule, Symptom, Status string
}

// knownHeaders are Known's header keys, in print order.
var knownHeaderKeys = []string{"bug", "link", "affects", "fixed", "levels", "oracle", "rule", "symptom", "status"}

// field returns the Known field a header key sets.
func (k *Known) field(key string) *string {
	switch key {
	case "bug":
		return &k.Bug
	case "link":
		return &k.Link
	case "affects":
		return &k.Affects
	case "fixed":
		return &k.Fixed
	case "levels":
		return &k.Levels
	case "oracle":
		return &k.Oracle
	case "rule":
		return &k.Rule
	case "symptom":
		return &k.Symptom
	case "status":
		return &k.Status
	}
	return nil
}
