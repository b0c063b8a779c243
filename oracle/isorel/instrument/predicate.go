package instrument

import (
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/semantics/rules"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Predicate reads (Adya's predicate dependencies). A plain single-table
// SELECT reads by a predicate, its WHERE: a row that is not in its result
// either was not in its view or did not match there, and a transaction
// that later installs a version of the row that matches (a phantom, or a
// row moved into the range) overwrites the read as much as one that
// changes a row it returned. Item dependencies cannot see that. Two
// things make it visible:
//
//   - the view: such a SELECT runs without its WHERE, every row of the
//     table flagged by whether it matches (MatchColumn), and Plan.Strip
//     drops the rows that do not. The rows it returns, its snapshot and
//     its locks are the same (a consistent read takes none); only where
//     plain reads are consistent reads that lock nothing (viewsFaithful);
//   - the match of every version written later: the writes of the case
//     evaluate every recorded predicate of their table on the versions
//     they install (InstalledColumn), in the same statement.
//
// A predicate with a subquery, a user variable or a function whose value
// depends on when it runs is not recorded: the write could not evaluate it
// as the read did. Nor is one without a column: see viewRead.

// MatchColumn is the flag of a predicate read's rewritten result: 1 when
// the row matches the statement's WHERE, 0 when it is only in its view.
const MatchColumn = "txlab_match"

// InstalledColumn carries the versions a write installed and the recorded
// predicates each matches: a RETURNING column of bits, one per predicate
// (Info.Evaluated), or on the MySQL family "rowId=wList?bits …" collected
// like the matched rows (MatchedColumn).
const InstalledColumn = "txlab_installed"

// predicate is one recorded WHERE of a table.
type predicate struct {
	id    string
	table string
	// where has its columns unqualified, so that a write to the table
	// evaluates it on the row it writes.
	where sqlast.Expr
}

// volatile are functions whose value depends on when or where they run.
var volatile = map[string]bool{
	"RAND": true, "RANDOM": true, "NOW": true, "SYSDATE": true, "CURRENT_TIMESTAMP": true,
	"CURRENT_DATE": true, "CURRENT_TIME": true, "CURDATE": true, "CURTIME": true,
	"LOCALTIME": true, "LOCALTIMESTAMP": true, "UUID": true, "UUID_SHORT": true,
	"GEN_RANDOM_UUID": true, "LAST_INSERT_ID": true, "ROW_COUNT": true, "FOUND_ROWS": true,
	"CONNECTION_ID": true, "CHANGES": true, "TOTAL_CHANGES": true, "CLOCK_TIMESTAMP": true,
	"STATEMENT_TIMESTAMP": true, "TXID_CURRENT": true, "NEXTVAL": true, "NEXT": true,
	"USER": true, "CURRENT_USER": true, "DATABASE": true, "SCHEMA": true, "UNIX_TIMESTAMP": true,
}

// viewRead returns the table and WHERE of st when st is a predicate read
// this package records: a plain SELECT of one table the rewriter knows, no
// DISTINCT, aggregate or LIMIT, a WHERE a write can evaluate as well.
func (rw *Rewriter) viewRead(st sqlast.Stmt) (string, sqlast.Expr, bool) {
	s, ok := st.(*sqlast.SelectStmt)
	if !ok || s.Lock != sqlast.LockNone || s.Limit != nil {
		return "", nil, false
	}
	q, ok := s.Query.(*sqlast.Select)
	if !ok || q.Distinct || len(q.From) != 1 || hasAggregate(q) {
		return "", nil, false
	}
	t, ok := q.From[0].(*sqlast.Table)
	if !ok || rw.tables[t.Name] == nil {
		return "", nil, false
	}
	if q.Where == nil {
		return t.Name, nil, true
	}
	// Read without its WHERE, the statement computes its items on rows
	// that do not match too: only items that cannot fail on them.
	for _, it := range q.Items {
		switch it.Expr.(type) {
		case nil, *sqlast.ColumnRef, *sqlast.Literal:
		default:
			if !it.Star {
				return "", nil, false
			}
		}
	}
	stable, columns := evaluable(q.Where)
	// A WHERE of constants only: InnoDB does not read the table for an
	// impossible one (WHERE 1 = 0), so the statement opens no read view,
	// and reading the table in its place would open it too early (Troc's
	// innodb-read-view-impossible-where case).
	return t.Name, q.Where, stable && columns
}

// evaluable reports whether a write can evaluate where as a read did (no
// subquery, user variable or volatile function), and whether it names a
// column.
func evaluable(where sqlast.Expr) (stable, columns bool) {
	stable = true
	sqlast.Walk(where, func(n any) bool {
		switch n := n.(type) {
		case *sqlast.ColumnRef:
			columns = true
		case *sqlast.ScalarSubquery, *sqlast.Exists, *sqlast.Var, *sqlast.Raw, *sqlast.Excluded:
			stable = false
		case *sqlast.In:
			stable = stable && n.Sub == nil
		case *sqlast.Func:
			stable = stable && !volatile[strings.ToUpper(n.Name)]
		}
		return stable
	})
	return stable, columns
}

// names reports whether e names a column (a subquery's count: it reads a
// table too).
func names(e sqlast.Expr) bool {
	found := false
	sqlast.Walk(e, func(n any) bool {
		_, ok := n.(*sqlast.ColumnRef)
		found = found || ok
		return !found
	})
	return found
}

// view says what a SELECT may show of what it read (Instrument decides
// from its level and transaction).
type view int

const (
	noView view = iota
	// viewStatement: a consistent read that locks nothing may read its
	// whole table in its place (see MatchColumn).
	viewStatement
	// viewTxn: in an explicit transaction whose reads all see one
	// snapshot, the views of its subqueries may also be read after it.
	viewTxn
)

// SubRead is an uncorrelated single-table subquery of a plain SELECT:
// the rows its table held in the statement's snapshot are read right after
// the statement, in the same transaction and so the same snapshot, each
// flagged by whether it matches the subquery's WHERE (predicate
// Predicate). Items says the statement used the matching rows' values
// (IN, a scalar subquery), not only whether some exist (EXISTS).
type SubRead struct {
	SQL       string
	Predicate string
	Table     string
	Items     bool
}

// subqueries finds the subqueries of the plain SELECT s whose views can be
// read after it: a single known table, no nested subquery, a WHERE a write
// can evaluate, every column its own (uncorrelated); items says which use
// the rows' values.
func (rw *Rewriter) subqueries(s *sqlast.SelectStmt) (subs []*sqlast.Select, items []bool) {
	if s.Lock != sqlast.LockNone {
		return nil, nil
	}
	// The statement must read a table itself: InnoDB opens no read view
	// for a WHERE of constants (see viewRead), and a read after it would.
	if top, ok := s.Query.(*sqlast.Select); !ok || top.Where != nil && !names(top.Where) {
		return nil, nil
	}
	own := func(q sqlast.Query) *sqlast.Select {
		sel, ok := q.(*sqlast.Select)
		if !ok || sel.Distinct || len(sel.From) != 1 {
			return nil
		}
		t, ok := sel.From[0].(*sqlast.Table)
		if !ok || rw.tables[t.Name] == nil {
			return nil
		}
		qual := t.RefName()
		if sel.Where != nil {
			if stable, _ := evaluable(sel.Where); !stable {
				return nil
			}
		}
		mine := true
		sqlast.Walk(sel, func(n any) bool {
			switch n := n.(type) {
			case *sqlast.ScalarSubquery, *sqlast.Exists:
				mine = false
			case *sqlast.In:
				mine = mine && n.Sub == nil
			case *sqlast.ColumnRef:
				mine = mine && (n.Table == "" || n.Table == qual) && slices.Contains(rw.tables[t.Name].columns, n.Column)
			}
			return mine
		})
		if !mine {
			return nil
		}
		return sel
	}
	if top, ok := s.Query.(*sqlast.Select); ok && hasAggregate(top) {
		// An aggregate over one table reads it like a subquery would;
		// COUNT(*) alone uses no row's values.
		if sel := own(top); sel != nil {
			subs = append(subs, sel)
			items = append(items, !countsOnly(top))
		}
	}
	sqlast.Walk(s.Query, func(n any) bool {
		var q sqlast.Query
		used := true
		switch n := n.(type) {
		case *sqlast.ScalarSubquery:
			q = n.Sub
		case *sqlast.Exists:
			q, used = n.Sub, false
		case *sqlast.In:
			q = n.Sub
		}
		if q == nil {
			return true
		}
		if sel := own(q); sel != nil {
			subs = append(subs, sel)
			items = append(items, used)
		}
		return false
	})
	return subs, items
}

// countsOnly reports whether every item of s is COUNT(*) (or a constant).
func countsOnly(s *sqlast.Select) bool {
	for _, it := range s.Items {
		switch e := it.Expr.(type) {
		case *sqlast.Func:
			if !e.Star {
				return false
			}
		case *sqlast.Literal:
		default:
			return false
		}
	}
	return true
}

// subReads are the statements that read the views of s's subqueries
// after it (Info.Subs describes them), registering their predicates.
func (rw *Rewriter) subReads(s *sqlast.SelectStmt, info *Info) []Sent {
	subs, items := rw.subqueries(s)
	var out []Sent
	for i, sel := range subs {
		t := sel.From[0].(*sqlast.Table)
		qual := t.RefName()
		id := rw.register(t.Name, sel.Where)
		one, zero := &sqlast.Literal{Kind: sqlast.LitInt, Text: "1"}, &sqlast.Literal{Kind: sqlast.LitInt, Text: "0"}
		read := &sqlast.Select{
			Items: append(hiddenItems(qual), sqlast.SelectItem{Expr: matchCase(sel.Where, one, zero), Alias: MatchColumn}),
			From:  []sqlast.TableRef{t},
		}
		info.Subs = append(info.Subs, SubRead{SQL: sqlast.FormatQuery(rw.d, sel), Predicate: id, Table: t.Name, Items: items[i]})
		out = append(out, Sent{SQL: sqlast.Format(rw.d, &sqlast.SelectStmt{Query: read}), Role: RoleSubRead, Sub: len(info.Subs) - 1})
	}
	return out
}

// predicateOf registers (once) the WHERE of the predicate read st and
// returns its id; "" when st is no predicate read this package records.
// A read without WHERE has a predicate too: every row matches it.
func (rw *Rewriter) predicateOf(st sqlast.Stmt) string {
	tbl, where, ok := rw.viewRead(st)
	if !ok {
		return ""
	}
	return rw.register(tbl, where)
}

// register records the predicate where (nil: every row) of table tbl and
// returns its id, the same for the same WHERE.
func (rw *Rewriter) register(tbl string, where sqlast.Expr) string {
	var unq sqlast.Expr
	key := tbl + "\x00"
	if where != nil {
		// A fresh tree with the qualifiers dropped: the only table in
		// scope is tbl, under its name or an alias.
		e, err := sqlast.ParseExpr(rw.d, sqlast.FormatExpr(rw.d, where))
		if err != nil {
			return ""
		}
		sqlast.Walk(e, func(n any) bool {
			if c, ok := n.(*sqlast.ColumnRef); ok {
				c.Table = ""
			}
			return true
		})
		unq = e
		key += sqlast.FormatExpr(rw.d, e)
	}
	if p := rw.predByKey[key]; p != nil {
		return p.id
	}
	if rw.predByKey == nil {
		rw.predByKey = map[string]*predicate{}
		rw.preds = map[string][]*predicate{}
	}
	p := &predicate{id: "p" + strconv.Itoa(len(rw.predByKey)+1), table: tbl, where: unq}
	rw.predByKey[key] = p
	rw.preds[tbl] = append(rw.preds[tbl], p)
	return p.id
}

// matchCase is CASE WHEN where THEN one ELSE zero END (nil where: one).
func matchCase(where, one, zero sqlast.Expr) sqlast.Expr {
	if where == nil {
		return one
	}
	return &sqlast.Case{Whens: []sqlast.When{{Cond: where, Result: one}}, Else: zero}
}

// matchBits is the string of '0'/'1', one per recorded predicate of
// table, that a write evaluates on the row it leaves, and the predicates'
// ids in that order; nil when the table has none.
func (rw *Rewriter) matchBits(table string) (sqlast.Expr, []string) {
	ps := rw.preds[table]
	if len(ps) == 0 {
		return nil, nil
	}
	var bits sqlast.Expr
	ids := make([]string, len(ps))
	for i, p := range ps {
		b := matchCase(p.where, str("1"), str("0"))
		if bits == nil {
			bits = b
		} else {
			bits = &sqlast.Concat{L: bits, R: b}
		}
		ids[i] = p.id
	}
	return bits, ids
}

// viewsFaithful reports whether a plain SELECT at level reads a snapshot
// without taking locks, so that reading the whole table in its place (see
// MatchColumn) returns the same rows and changes nothing else: the
// snapshot is the statement's or the transaction's, InnoDB does not turn
// it into a locking read, and no predicate locks are taken. Levels below
// repeatable read are left out: they permit every anti-dependency cycle,
// so a predicate read there would cost a full scan for no verdict.
func viewsFaithful(info target.Info, level target.Level) bool {
	switch level {
	case target.RepeatableRead, target.Snapshot, target.Serializable:
	default:
		return false
	}
	return plainReadsSnapshot(info.DBMS, level)
}

// predicateSteps registers the predicates of the case's SELECTs that run
// where their view can be recorded, and of their subqueries, and says what
// each such step may show (byStep: the transaction of each step). The
// writes are rewritten after it, so that each evaluates every predicate of
// its table, wherever in the case the read comes.
func (rw *Rewriter) predicateSteps(c *testcase.Case, info target.Info, byStep []*testcase.Txn) map[int]view {
	out := map[int]view{}
	for i, s := range c.Steps {
		k := testcase.KindOf(s)
		if k.Control != testcase.NotControl || k.Keyword != "SELECT" {
			continue
		}
		level := c.LevelOf(s.Conn)
		if !viewsFaithful(info, level) {
			continue
		}
		st, err := k.Stmt(rw.d)
		if err != nil {
			continue
		}
		out[i] = viewStatement
		rw.predicateOf(st)
		if sel, ok := st.(*sqlast.SelectStmt); ok && byStep[i] != nil && byStep[i].Explicit && txnSnapshot(info.DBMS, level) {
			out[i] = viewTxn
			subs, _ := rw.subqueries(sel)
			for _, q := range subs {
				rw.register(q.From[0].(*sqlast.Table).Name, q.Where)
			}
		}
	}
	return out
}

// plainReadsSnapshot reports whether the semantics table says a plain
// SELECT of dbms at level is a consistent read that locks nothing.
func plainReadsSnapshot(dbms string, level target.Level) bool {
	r := rules.Lookup(dbms, level, nil)
	switch r.Target[rules.KindSelect] {
	case rules.SnapTxn, rules.SnapStatement:
	default:
		return false
	}
	return r.Known && !r.LockingSelectInTxn && !r.ReadsLockPredicates
}

// txnSnapshot reports whether every plain read of a transaction at level
// sees one snapshot, so that a read after a statement sees what it saw.
func txnSnapshot(dbms string, level target.Level) bool {
	return rules.Lookup(dbms, level, nil).Target[rules.KindSelect] == rules.SnapTxn
}

// viewSelect rewrites the predicate read s (predicate id) to return its
// whole view, each row flagged by MatchColumn; without a WHERE its view is
// its result.
func (rw *Rewriter) viewSelect(s *sqlast.SelectStmt, id string, info *Info) ([]Sent, error) {
	q := s.Query.(*sqlast.Select)
	info.Predicate, info.View = id, q.From[0].(*sqlast.Table).Name
	all := *q
	all.Where = nil
	nq, _, err := rw.query(&all)
	if err != nil {
		return nil, err
	}
	if q.Where != nil {
		sel := nq.(*sqlast.Select)
		one, zero := &sqlast.Literal{Kind: sqlast.LitInt, Text: "1"}, &sqlast.Literal{Kind: sqlast.LitInt, Text: "0"}
		sel.Items = append(sel.Items, sqlast.SelectItem{Expr: matchCase(q.Where, one, zero), Alias: MatchColumn})
		info.Scans = true
	}
	c := *s
	c.Query = nq
	return []Sent{{SQL: sqlast.Format(rw.d, &c)}}, nil
}
