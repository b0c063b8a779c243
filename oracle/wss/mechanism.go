package wss

import (
	"slices"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/testcase"
)

// span returns the positions in the actual schedule of a step's first event
// (a blocked one counts) and of its final one, and whether it ever waited.
func (k *checker) span(step int) (first, last int, blocked bool) {
	first, last = -1, -1
	for pos, ev := range k.o.Actual.Events {
		if ev.Step != step || ev.Implicit || ev.Status == executor.StatusSkipped {
			continue
		}
		if first < 0 {
			first = pos
		}
		if ev.Status == executor.StatusBlocked {
			blocked = true
			continue
		}
		last = pos
	}
	return first, last, blocked
}

// seqRun runs the given steps one after another, each in autocommit on its
// own connection, on a fresh copy of the initial database.
func (k *checker) seqRun(name string, order []*Txn, steps []int) (*Run, error) {
	var b strings.Builder
	b.WriteString("seq")
	for _, s := range steps {
		b.WriteString(" " + itoa(s))
	}
	key := b.String()
	if r, ok := k.cache[key]; ok {
		return r, nil
	}
	dc := k.derived()
	for _, s := range steps {
		dc.Steps = append(dc.Steps, testcase.Step{Conn: k.c.Steps[s].Conn, SQL: k.c.Steps[s].SQL})
	}
	return k.exec(name, key, order, dc, slices.Clone(steps))
}

// dataSteps returns the statements of a transaction that a run of them in
// autocommit repeats: not its transaction control, not its savepoint
// statements, and not the statements a ROLLBACK TO SAVEPOINT that
// succeeded undid.
func (k *checker) dataSteps(t *Txn) []int {
	type mark struct {
		name string
		at   int // len(out) when it was set
	}
	var marks []mark
	var out []int
	for _, s := range t.Steps {
		if testcase.KindOf(k.c.Steps[s]).Control != testcase.NotControl {
			continue
		}
		op, name := testcase.SavepointOf(k.c.Steps[s].SQL)
		if op == "" {
			out = append(out, s)
			continue
		}
		i := slices.IndexFunc(marks, func(m mark) bool { return m.name == name })
		switch {
		case op == testcase.SavepointSet:
			if i >= 0 {
				marks = slices.Delete(marks, i, i+1)
			}
			marks = append(marks, mark{name, len(out)})
		case i < 0:
		case op == testcase.SavepointRelease:
			marks = marks[:i]
		case k.actual[s].Status != executor.StatusError:
			out = out[:marks[i].at]
			marks = marks[:i+1]
		}
	}
	return out
}

// statementPredicate is SnapshotPredicate's test at statement granularity,
// for levels that take a fresh view per statement: in the statement-level
// FCRFS schedule, one write statement u of a committed transaction W moves
// just before a concurrent committed writer I that committed first. u must
// have completed before I committed (it could not have seen I), and, with
// WriterAfter, a write of I of the named kinds must have completed after u
// started (an earlier uncommitted insert must make u wait: MDEV-30835).
func (k *checker) statementPredicate(m *semantics.Mechanism) (*Run, error) {
	com := k.committed()
	tries := 0
	for wi, w := range com {
		for _, u := range k.dataSteps(w) {
			if !IsWrite(k.c.Steps[u].SQL) {
				continue
			}
			uFirst, uLast, _ := k.span(u)
			if uFirst < 0 || uLast < 0 {
				continue
			}
			for ii := 0; ii < wi; ii++ {
				in := com[ii]
				if uLast >= in.End || in.Start >= w.End {
					continue
				}
				// A write of I that started only after u completed is one u
				// could not have seen, whatever its kind (a fresh view per
				// statement); otherwise the mechanism's kinds and timing rule.
				if !k.writerAfter(in, uFirst, m.Writers, m.WriterAfter, k.c.Steps[u].SQL) && !k.writesStartAfter(in, uLast, k.c.Steps[u].SQL) {
					continue
				}
				if tries++; tries > maxStatementTries {
					return nil, nil
				}
				var steps []int
				for _, t := range com {
					if t == in {
						steps = append(steps, u)
					}
					for _, s := range k.dataSteps(t) {
						if s != u {
							steps = append(steps, s)
						}
					}
				}
				r, err := k.seqRun("statement order (moved step "+itoa(u+1)+")", com, steps)
				if err != nil {
					return nil, err
				}
				if !r.Result.Hang && k.matches(r, false) {
					return r, nil
				}
			}
		}
	}
	return nil, nil
}

// maxStatementTries bounds the statement-level runs one test makes: each is a
// full re-run, and a case with five transactions of five statements has
// dozens of candidate moves.
const maxStatementTries = 16

// writerAfter reports whether in has a write of one of the kinds (any kind
// when kinds is empty) on a table that the statement reader mentions; with
// after, one that completed after position pos.
func (k *checker) writerAfter(in *Txn, pos int, kinds []string, after bool, reader string) bool {
	names := identifiers(reader)
	for _, s := range in.Steps {
		sql := k.c.Steps[s].SQL
		if !IsWrite(sql) || (len(kinds) > 0 && !slices.Contains(kinds, keyword(sql))) {
			continue
		}
		if t := strings.ToLower(writeTable(sql)); t != "" && !slices.Contains(names, t) {
			continue
		}
		_, last, _ := k.span(s)
		if last < 0 {
			continue
		}
		if !after || last > pos {
			return true
		}
	}
	return false
}

// semiConsistentRead tests the SemiConsistentRead mechanism (see
// semantics.SemiConsistentRead). It returns the run that evaluated the
// UPDATE on the committed state, or nil.
func (k *checker) semiConsistentRead(m *semantics.Mechanism, d Diff) (*Run, error) {
	com := k.committed()
	for _, w := range com {
		for _, u := range k.dataSteps(w) {
			sql := k.c.Steps[u].SQL
			if keyword(sql) != "UPDATE" {
				continue
			}
			table := writeTable(sql)
			first, last, blocked := k.span(u)
			ev, ok := k.actual[u]
			if blocked || first < 0 || last < 0 || !ok || ev.Status != executor.StatusOK || ev.Affected < 0 || table == "" {
				continue
			}
			if len(d.Tables) == 0 || slices.ContainsFunc(d.Tables, func(td TableDiff) bool { return !strings.EqualFold(td.Table, table) }) {
				continue
			}
			if !k.lockHolder(w, first, table, m.Writers) {
				continue
			}
			// The committed state at u's start: the transactions committed
			// before it, then u's own transaction's earlier statements.
			var steps []int
			var order []*Txn
			for _, t := range com {
				if t != w && t.End < first {
					steps = append(steps, k.dataSteps(t)...)
					order = append(order, t)
				}
			}
			for _, s := range k.dataSteps(w) {
				steps = append(steps, s)
				if s == u {
					break
				}
			}
			order = append(order, w)
			r, err := k.seqRun("committed state at step "+itoa(u+1), order, steps)
			if err != nil {
				return nil, err
			}
			if got, ok := r.out[u]; ok && !r.Result.Hang && got.Status == executor.StatusOK && got.Affected == ev.Affected {
				return r, nil
			}
		}
	}
	return nil, nil
}

// lockHolder reports whether, when position pos was reached, a transaction
// other than w was open and had completed a write of one of the kinds on
// table, and no transaction open then had inserted into table: a fresh
// uncommitted row has no committed version to read, and skipping it is
// MDEV-30835, not semi-consistent read.
func (k *checker) lockHolder(w *Txn, pos int, table string, kinds []string) bool {
	found := false
	for _, t := range k.o.Txns {
		if t == w || t.Start >= pos || t.End <= pos {
			continue
		}
		for _, s := range t.Steps {
			sql := k.c.Steps[s].SQL
			if !IsWrite(sql) || !strings.EqualFold(writeTable(sql), table) {
				continue
			}
			_, last, _ := k.span(s)
			if last < 0 || last > pos {
				continue
			}
			ev, ok := k.actual[s]
			if !ok || ev.Status != executor.StatusOK {
				continue
			}
			kw := keyword(sql)
			if kw == "INSERT" || kw == "REPLACE" {
				return false
			}
			if slices.Contains(kinds, kw) {
				found = true
			}
		}
	}
	return found
}

// writeTable returns the table a write statement changes: the name after
// UPDATE, INTO or FROM (modifiers like IGNORE skipped); "" if unknown.
func writeTable(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	after := map[string]string{"UPDATE": "", "INSERT": "INTO", "REPLACE": "INTO", "DELETE": "FROM"}[keyword(sql)]
	i := 1
	if after != "" {
		for i < len(f) && !strings.EqualFold(f[i], after) {
			i++
		}
		i++
	} else {
		for i < len(f) && slices.Contains([]string{"LOW_PRIORITY", "IGNORE", "ONLY"}, strings.ToUpper(f[i])) {
			i++
		}
	}
	if i >= len(f) {
		return ""
	}
	name := f[i]
	if j := strings.IndexAny(name, "(;"); j >= 0 {
		name = name[:j]
	}
	return strings.Trim(name, "`\"")
}

// writesStartAfter reports whether in has a write, on a table the statement
// reader mentions, whose first event comes after position pos.
func (k *checker) writesStartAfter(in *Txn, pos int, reader string) bool {
	names := identifiers(reader)
	for _, s := range in.Steps {
		sql := k.c.Steps[s].SQL
		if !IsWrite(sql) || !slices.Contains(names, strings.ToLower(writeTable(sql))) {
			continue
		}
		if first, _, _ := k.span(s); first > pos {
			return true
		}
	}
	return false
}

// identifiers returns the lower-case words of a statement (names and
// keywords alike): enough to ask whether it mentions a table.
func identifiers(sql string) []string {
	return strings.FieldsFunc(strings.ToLower(sql), func(r rune) bool {
		return !(r == '_' || r == '$' || r >= '0' && r <= '9' || r >= 'a' && r <= 'z')
	})
}
