package bugs

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// An Expect is what a corpus case's expect header says its bug looks like:
// clauses separated by ';', all of which must hold for the bug to
// reproduce. Steps are numbered from 1 in the order of the case's N> lines.
//
//	bug [RULE]             an oracle's verdict is bug (with that rule)
//	allowed                no oracle's verdict is bug (documented behaviour)
//	rows N = (1, a) (2, b) step N returned exactly these rows, in any order ("empty": none)
//	count N = K            step N returned K rows, or changed K rows (DML)
//	blocks N               step N waited for a lock
//	error N [CODE]         step N failed (with that error code, e.g. 1213 or 40001)
//	ok N                   step N succeeded
//	final T = (1) (2)      table T holds exactly these rows at the end ("empty": none)
//
// Any clause may start with "not". Without an expect header a case expects
// "bug".
type Expect []Clause

// Clause is one condition of an Expect.
type Clause struct {
	Not   bool
	Kind  string     // bug, allowed, rows, count, blocks, error, ok, final
	Step  int        // 1-based, for rows, count, blocks, error, ok
	Table string     // for final
	Arg   string     // the rule (bug), error code (error)
	Rows  [][]string // values as executor.FormatRow prints them; sorted
	Count int64
}

// ParseExpect parses an expect header; "" is "bug".
func ParseExpect(s string) (Expect, error) {
	if strings.TrimSpace(s) == "" {
		return Expect{{Kind: "bug"}}, nil
	}
	var out Expect
	for _, part := range strings.Split(s, ";") {
		part = strings.TrimSpace(part)
		if part == "" {
			continue
		}
		c, err := parseClause(part)
		if err != nil {
			return nil, fmt.Errorf("expect %q: %w", part, err)
		}
		out = append(out, c)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("expect %q: no clause", s)
	}
	return out, nil
}

const expectForms = "bug [RULE], allowed, rows N = (…) …|empty, count N = K, blocks N, error N [CODE], ok N, final TABLE = (…) …|empty, each optionally after not"

func parseClause(s string) (Clause, error) {
	var c Clause
	lhs, rhs, hasEq := strings.Cut(s, "=")
	words := strings.Fields(lhs)
	if len(words) > 0 && strings.EqualFold(words[0], "not") {
		c.Not = true
		words = words[1:]
	}
	if len(words) == 0 {
		return c, fmt.Errorf("want one of: %s", expectForms)
	}
	c.Kind = strings.ToLower(words[0])
	args := words[1:]
	step := func() error {
		if len(args) == 0 {
			return fmt.Errorf("%s needs a step number", c.Kind)
		}
		n, err := strconv.Atoi(args[0])
		if err != nil || n < 1 {
			return fmt.Errorf("%s: step %q is not a number ≥ 1", c.Kind, args[0])
		}
		c.Step = n
		return nil
	}
	noEq := func() error {
		if hasEq {
			return fmt.Errorf("%s takes no '='", c.Kind)
		}
		return nil
	}
	switch c.Kind {
	case "bug":
		if len(args) > 1 {
			return c, fmt.Errorf("bug takes at most a rule")
		}
		if len(args) == 1 {
			c.Arg = args[0]
		}
		return c, noEq()
	case "allowed":
		if len(args) > 0 {
			return c, fmt.Errorf("allowed takes nothing")
		}
		return c, noEq()
	case "blocks", "ok", "error":
		if err := step(); err != nil {
			return c, err
		}
		max := 1
		if c.Kind == "error" {
			max = 2
			if len(args) == 2 {
				c.Arg = args[1]
			}
		}
		if len(args) > max {
			return c, fmt.Errorf("%s: too many words", c.Kind)
		}
		return c, noEq()
	case "count":
		if err := step(); err != nil {
			return c, err
		}
		if len(args) != 1 || !hasEq {
			return c, fmt.Errorf("want count N = K")
		}
		k, err := strconv.ParseInt(strings.TrimSpace(rhs), 10, 64)
		if err != nil || k < 0 {
			return c, fmt.Errorf("count: %q is not a number ≥ 0", strings.TrimSpace(rhs))
		}
		c.Count = k
		return c, nil
	case "rows", "final":
		if c.Kind == "rows" {
			if err := step(); err != nil {
				return c, err
			}
		} else if len(args) == 1 {
			c.Table = args[0]
		}
		if len(args) != 1 || !hasEq {
			return c, fmt.Errorf("want %s = (…) … or %s = empty", lhs, lhs)
		}
		rows, err := parseTuples(rhs)
		if err != nil {
			return c, err
		}
		c.Rows = rows
		return c, nil
	}
	return c, fmt.Errorf("unknown clause %q: want one of: %s", c.Kind, expectForms)
}

// parseTuples reads "(1, a) (2, NULL)" or "empty" into rows of values,
// sorted as formatRows sorts. A value may be quoted ('a b', 'it”s').
func parseTuples(s string) ([][]string, error) {
	s = strings.TrimSpace(s)
	if strings.EqualFold(s, "empty") {
		return [][]string{}, nil
	}
	var rows [][]string
	for s != "" {
		if s[0] != '(' {
			return nil, fmt.Errorf("rows: want (v, …) tuples or empty, at %q", s)
		}
		var vals []string
		var cur strings.Builder
		quoted, closed := false, false
		i := 1
		for ; i < len(s); i++ {
			ch := s[i]
			switch {
			case ch == '\'' && quoted && i+1 < len(s) && s[i+1] == '\'':
				cur.WriteByte('\'')
				i++
			case ch == '\'':
				quoted = !quoted
			case quoted:
				cur.WriteByte(ch)
			case ch == ',':
				vals = append(vals, strings.TrimSpace(cur.String()))
				cur.Reset()
			case ch == ')':
				vals = append(vals, strings.TrimSpace(cur.String()))
				closed = true
			default:
				cur.WriteByte(ch)
			}
			if closed {
				break
			}
		}
		if !closed {
			return nil, fmt.Errorf("rows: unclosed tuple %q", s)
		}
		rows = append(rows, vals)
		s = strings.TrimSpace(s[i+1:])
	}
	slices.SortFunc(rows, func(a, b []string) int { return strings.Compare(rowKey(a), rowKey(b)) })
	return rows, nil
}

// rowKey is a row as executor.FormatRow prints it.
func rowKey(vals []string) string { return "(" + strings.Join(vals, ", ") + ")" }

func keys(rows [][]string) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = rowKey(r)
	}
	return out
}

func (c Clause) String() string {
	var b strings.Builder
	if c.Not {
		b.WriteString("not ")
	}
	b.WriteString(c.Kind)
	switch c.Kind {
	case "bug":
		if c.Arg != "" {
			b.WriteString(" " + c.Arg)
		}
	case "blocks", "ok":
		fmt.Fprintf(&b, " %d", c.Step)
	case "error":
		fmt.Fprintf(&b, " %d", c.Step)
		if c.Arg != "" {
			b.WriteString(" " + c.Arg)
		}
	case "count":
		fmt.Fprintf(&b, " %d = %d", c.Step, c.Count)
	case "rows", "final":
		if c.Kind == "rows" {
			fmt.Fprintf(&b, " %d = ", c.Step)
		} else {
			b.WriteString(" " + c.Table + " = ")
		}
		b.WriteString(tuples(c.Rows))
	}
	return b.String()
}

func (e Expect) String() string {
	parts := make([]string, len(e))
	for i, c := range e {
		parts[i] = c.String()
	}
	return strings.Join(parts, "; ")
}

// tuples prints rows for an expect header, quoting the values that need it.
func tuples(rows [][]string) string {
	if len(rows) == 0 {
		return "empty"
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		vals := make([]string, len(r))
		for j, v := range r {
			if v == "" || v != strings.TrimSpace(v) || strings.ContainsAny(v, "',()") {
				v = "'" + strings.ReplaceAll(v, "'", "''") + "'"
			}
			vals[j] = v
		}
		out[i] = rowKey(vals)
	}
	return strings.Join(out, " ")
}

// seen prints actual rows (FormatRow strings) for a failed clause.
func seen(rows []string) string {
	if len(rows) == 0 {
		return "empty"
	}
	return strings.Join(rows, " ")
}

// HasVerdictClause says whether the expectation names an oracle verdict
// (bug or allowed); bugs test then has to run the oracles.
func (e Expect) HasVerdictClause() bool {
	return slices.ContainsFunc(e, func(c Clause) bool { return c.Kind == "bug" || c.Kind == "allowed" })
}

// Check says whether every clause holds for the plain execution res and
// the oracles' findings, and describes each clause that does not.
func (e Expect) Check(res *executor.Result, findings []verdict.Finding) (bool, []string) {
	var failed []string
	for _, c := range e {
		ok, got := c.holds(res, findings)
		if ok == c.Not {
			failed = append(failed, fmt.Sprintf("%s: %s", c, got))
		}
	}
	return len(failed) == 0, failed
}

// holds evaluates the clause without its Not, and says what was seen.
func (c Clause) holds(res *executor.Result, findings []verdict.Finding) (bool, string) {
	switch c.Kind {
	case "bug", "allowed":
		var rules []string
		for _, f := range findings {
			if f.Verdict == verdict.Bug && (c.Kind == "allowed" || c.Arg == "" || f.Rule == c.Arg) {
				rules = append(rules, f.Oracle+" "+f.Rule)
			}
		}
		if len(rules) == 0 {
			return c.Kind == "allowed", "no bug verdict"
		}
		return c.Kind == "bug", "bug verdict: " + strings.Join(rules, ", ")
	case "final":
		if res == nil || res.Final == nil {
			return false, "no final state"
		}
		rows, ok := res.Final[c.Table]
		if !ok {
			return false, "no table " + c.Table
		}
		got := formatRows(rows)
		return slices.Equal(got, keys(c.Rows)), "final " + c.Table + " = " + seen(got)
	}
	ev, blocked, ok := stepEvent(res, c.Step-1)
	if !ok {
		return false, fmt.Sprintf("step %d did not run", c.Step)
	}
	switch c.Kind {
	case "blocks":
		if blocked {
			return true, "blocked"
		}
		return false, "did not block"
	case "ok":
		return ev.Status == executor.StatusOK, executor.Outcome(ev)
	case "error":
		if ev.Status != executor.StatusError {
			return false, executor.Outcome(ev)
		}
		return c.Arg == "" || (ev.Error != nil && ev.Error.Code == c.Arg), executor.Outcome(ev)
	case "count":
		n := ev.Affected
		if ev.Rows != nil {
			n = int64(len(ev.Rows))
		}
		return ev.Status == executor.StatusOK && n == c.Count, executor.Outcome(ev)
	case "rows":
		if ev.Status != executor.StatusOK || ev.Rows == nil {
			return false, executor.Outcome(ev)
		}
		got := formatRows(ev.Rows)
		return slices.Equal(got, keys(c.Rows)), "rows " + seen(got)
	}
	return false, "unknown clause"
}

// stepEvent returns the completed event of step i (0-based) and whether it
// blocked before completing.
func stepEvent(res *executor.Result, i int) (ev executor.Event, blocked, ok bool) {
	if res == nil {
		return ev, false, false
	}
	for _, e := range res.Events {
		if e.Step != i || e.Implicit {
			continue
		}
		if e.Status == executor.StatusBlocked {
			blocked = true // a read an oracle added before it counts
			continue
		}
		if !e.Added {
			ev, ok = e, true
		}
	}
	return ev, blocked, ok
}

// formatRows prints rows as the expect header writes them, sorted.
func formatRows(rows []target.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = executor.FormatRow(r)
	}
	slices.Sort(out)
	return out
}

// MarshalJSON writes the expectation as its header text.
func (e Expect) MarshalJSON() ([]byte, error) { return json.Marshal(e.String()) }

// UnmarshalJSON reads the header text back.
func (e *Expect) UnmarshalJSON(b []byte) error {
	var s string
	if err := json.Unmarshal(b, &s); err != nil {
		return err
	}
	x, err := ParseExpect(s)
	*e = x
	return err
}
