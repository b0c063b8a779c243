// Package features names the SQL features a test case uses — savepoints,
// foreign keys, SKIP LOCKED, upserts, … — so that a campaign can say what
// it exercised (fuzz --json: "features"). It reads the case's text: what a
// feature is called is a property of the SQL, whoever wrote it.
package features

import (
	"fmt"
	"regexp"
	"slices"
	"strings"

	"github.com/txlab/txlab/testcase"
)

// Names are the features Of reports, in a fixed order.
var Names = []string{
	"savepoint", "rollback-to-savepoint", "foreign-key", "on-delete-cascade", "skip-locked", "nowait",
	"for-key-share", "for-no-key-update", "merge", "cte-write", "multi-table-update", "multi-table-delete",
	"auto-increment", "sequence", "partial-index", "expression-index", "generated-column",
	"check-constraint", "several-transactions-per-connection", "select-for-update-join",
	"insert-on-conflict-update", "replace", "lock-table", "deferred-constraint",
}

// Base are the features the generator's base subset uses wherever the
// dialect has them; Config.Features and fuzz --features choose among the
// others.
var Base = []string{"check-constraint", "select-for-update-join", "insert-on-conflict-update", "replace"}

// A pattern matches a statement (upper-cased, whitespace collapsed) that
// uses a feature; where is setup, steps or both.
type pattern struct {
	name  string
	re    *regexp.Regexp
	setup bool // looked for in the setup too
	steps bool // looked for in the steps
	// top: matched with every parenthesized part emptied, so that a
	// subquery's FROM or JOIN does not count.
	top bool
}

var patterns = []pattern{
	{name: "foreign-key", re: regexp.MustCompile(`\bREFERENCES\b|\bFOREIGN KEY\b`), setup: true, steps: true},
	{name: "on-delete-cascade", re: regexp.MustCompile(`\bON DELETE CASCADE\b`), setup: true, steps: true},
	{name: "skip-locked", re: regexp.MustCompile(`\bSKIP LOCKED\b`), steps: true},
	{name: "nowait", re: regexp.MustCompile(`\bNOWAIT\b`), steps: true},
	{name: "for-key-share", re: regexp.MustCompile(`\bFOR KEY SHARE\b`), steps: true},
	{name: "for-no-key-update", re: regexp.MustCompile(`\bFOR NO KEY UPDATE\b`), steps: true},
	{name: "merge", re: regexp.MustCompile(`^MERGE\b`), steps: true},
	{name: "cte-write", re: regexp.MustCompile(`^WITH\b.*\bAS \( ?(INSERT|UPDATE|DELETE)\b`), steps: true},
	{name: "multi-table-update", re: regexp.MustCompile(`^UPDATE [^ ]+( AS)?( [^ ]+)? ?(,|JOIN\b|INNER JOIN\b|LEFT JOIN\b)|^UPDATE .* SET .* FROM\b`), steps: true, top: true},
	{name: "multi-table-delete", re: regexp.MustCompile(`^DELETE [^ ]+(, ?[^ ]+)* FROM\b|^DELETE FROM [^ ]+( AS [^ ]+)? USING\b`), steps: true, top: true},
	{name: "auto-increment", re: regexp.MustCompile(`\bAUTO_INCREMENT\b|\b(BIG|SMALL)?SERIAL\b|\bGENERATED (ALWAYS|BY DEFAULT) AS IDENTITY\b|\bAUTOINCREMENT\b`), setup: true, steps: true},
	{name: "sequence", re: regexp.MustCompile(`\bCREATE SEQUENCE\b|\bNEXTVAL ?\(|\bNEXT VALUE FOR\b`), setup: true, steps: true},
	{name: "partial-index", re: regexp.MustCompile(`^CREATE (UNIQUE )?INDEX\b.*\) WHERE\b`), setup: true, steps: true},
	{name: "expression-index", re: regexp.MustCompile(`^CREATE (UNIQUE )?INDEX\b[^(]*\( ?\(|^CREATE (UNIQUE )?INDEX\b[^(]*\( ?[A-Z_]+ ?\(`), setup: true, steps: true},
	{name: "generated-column", re: regexp.MustCompile(`\bGENERATED ALWAYS AS\b|^CREATE TABLE\b.*\b(INT|INTEGER|VARCHAR\(\d+\)|TEXT|DOUBLE|DECIMAL\(\d+, ?\d+\)) AS \(`), setup: true, steps: true},
	{name: "check-constraint", re: regexp.MustCompile(`^(CREATE|ALTER) TABLE\b.*\bCHECK ?\(`), setup: true, steps: true},
	{name: "select-for-update-join", re: regexp.MustCompile(`^SELECT\b.*(\bJOIN\b|\bFROM [^ ]+( AS [^ ]+)?, ).*\bFOR UPDATE\b`), steps: true, top: true},
	{name: "insert-on-conflict-update", re: regexp.MustCompile(`^INSERT\b.*(\bON CONFLICT\b.*\bDO UPDATE\b|\bON DUPLICATE KEY UPDATE\b)`), steps: true},
	{name: "replace", re: regexp.MustCompile(`^REPLACE\b`), steps: true},
	{name: "lock-table", re: regexp.MustCompile(`^LOCK TABLES?\b`), steps: true},
	{name: "deferred-constraint", re: regexp.MustCompile(`\bDEFERRABLE\b|^SET CONSTRAINTS\b`), setup: true, steps: true},
}

// normal upper-cases a statement and collapses its whitespace.
func normal(sql string) string {
	return strings.Join(strings.Fields(strings.ToUpper(strings.TrimSuffix(strings.TrimSpace(sql), ";"))), " ")
}

// flat empties every parenthesized part of a normalised statement: "(…)"
// becomes "()".
func flat(n string) string {
	var b strings.Builder
	depth := 0
	for _, r := range n {
		switch {
		case r == '(':
			if depth == 0 {
				b.WriteRune(r)
			}
			depth++
		case r == ')' && depth > 0:
			depth--
			if depth == 0 {
				b.WriteRune(r)
			}
		case depth == 0:
			b.WriteRune(r)
		}
	}
	return b.String()
}

// InStatement returns the features one statement uses, in the order of
// Names: setup says whether it is a setup statement (CREATE TABLE, …) or a
// step. Savepoints and several transactions per connection are properties
// of the steps together, which Of finds.
func InStatement(sql string, setup bool) []string {
	n := normal(sql)
	f := flat(n)
	found := map[string]bool{}
	for _, p := range patterns {
		text := n
		if p.top {
			text = f
		}
		if (setup && p.setup || !setup && p.steps) && p.re.MatchString(text) {
			found[p.name] = true
		}
	}
	var out []string
	for _, name := range Names {
		if found[name] {
			out = append(out, name)
		}
	}
	return out
}

// Uses reports whether step statement sql uses the feature named name
// (one of Names found by a statement's text; false for an unknown name),
// so that the oracles that treat a feature apart (WSS and IsoRel leave a
// SKIP LOCKED read out) spot it as the campaign summary counts it.
func Uses(sql, name string) bool {
	for _, p := range patterns {
		if p.name != name || !p.steps {
			continue
		}
		n := normal(sql)
		if p.top {
			n = flat(n)
		}
		return p.re.MatchString(n)
	}
	return false
}

// Of returns the features c uses, in the order of Names.
func Of(c *testcase.Case) []string {
	found := map[string]bool{}
	check := func(sql string, setup bool) {
		for _, name := range InStatement(sql, setup) {
			found[name] = true
		}
	}
	for _, s := range c.Setup {
		check(s, true)
	}
	// Transactions per connection: one starts at BEGIN, or at a statement
	// outside a transaction (autocommit).
	open, txns := map[int]bool{}, map[int]int{}
	for _, st := range c.Steps {
		switch testcase.KindOf(st).Control {
		case testcase.Begin:
			open[st.Conn] = true
			txns[st.Conn]++
			continue
		case testcase.Commit, testcase.Rollback:
			open[st.Conn] = false
			continue
		}
		if !open[st.Conn] {
			txns[st.Conn]++
		}
		switch op, _ := testcase.SavepointOf(st.SQL); op {
		case testcase.SavepointSet:
			found["savepoint"] = true
		case testcase.SavepointRollback:
			found["rollback-to-savepoint"] = true
		}
		check(st.SQL, false)
	}
	for _, n := range txns {
		if n > 1 {
			found["several-transactions-per-connection"] = true
		}
	}
	var out []string
	for _, name := range Names {
		if found[name] {
			out = append(out, name)
		}
	}
	return slices.Clip(out)
}

// Parse reads a choice of features for a campaign: all (nil: those the
// target supports), none (the base subset: an empty list) or names,
// comma-separated. A name in Base is left out (the base subset has it
// wherever the dialect does). With supported (the target's), every name
// must be one of them; without, it need only be known. help is an error
// that lists the names.
func Parse(spec string, supported []string) ([]string, error) {
	switch spec = strings.TrimSpace(spec); spec {
	case "all", "":
		return nil, nil
	case "none":
		return []string{}, nil
	case "help":
		return nil, fmt.Errorf("all, none or a comma-separated list of: %s", strings.Join(Names, ", "))
	}
	var out []string
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		switch {
		case !slices.Contains(Names, name):
			return nil, fmt.Errorf("unknown feature %q (known: %s)", name, strings.Join(Names, ", "))
		case slices.Contains(Base, name):
			continue
		case supported != nil && !slices.Contains(supported, name):
			return nil, fmt.Errorf("%s is not supported (supported: %s)", name, strings.Join(supported, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}
