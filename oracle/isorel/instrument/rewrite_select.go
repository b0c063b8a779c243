package instrument

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// visibleStars is a query that runs as written with each * and t.* over a
// table with hidden columns replaced by the table's own columns: with the
// hidden columns, * returns more columns, DISTINCT tells rows apart by
// them and the optimizer may choose another plan (an index no longer
// covers the read; a join runs in another order), taking other locks. A
// query that does not parse, or has no such star, is sent as it is.
func (rw *Rewriter) visibleStars(k testcase.Kind) string {
	sql := k.Of
	st, err := k.Stmt(rw.d)
	if err != nil {
		return sql
	}
	// Expanding changes the statement: the parse is the step's, shared.
	st = sqlast.Clone(st)
	changed := false
	sqlast.Walk(st, func(n any) bool {
		if sel, ok := n.(*sqlast.Select); ok && slices.ContainsFunc(sel.Items, isStar) {
			changed = rw.expandSelectStars(sel) || changed
		}
		return true
	})
	if !changed {
		return sql
	}
	return sqlast.Format(rw.d, st)
}

func isStar(it sqlast.SelectItem) bool { return it.Star }

// expandSelectStars replaces the stars of sel over known tables by their
// own columns, in FROM order (as * lists them); a star over a derived
// table becomes alias.* (its own stars are expanded). It reports whether
// anything changed.
func (rw *Rewriter) expandSelectStars(sel *sqlast.Select) bool {
	type source struct {
		ref  string
		cols []string // nil: a derived table
	}
	var sources []source
	var collect func(f sqlast.TableRef) bool
	collect = func(f sqlast.TableRef) bool {
		switch f := f.(type) {
		case *sqlast.Table:
			t := rw.tables[f.Name]
			if t == nil {
				return false
			}
			sources = append(sources, source{f.RefName(), t.columns})
		case *sqlast.Subquery:
			sources = append(sources, source{ref: f.Alias})
		case *sqlast.Join:
			return collect(f.Left) && collect(f.Right)
		default:
			return false
		}
		return true
	}
	for _, f := range sel.From {
		if !collect(f) {
			return false
		}
	}
	if !slices.ContainsFunc(sources, func(s source) bool { return s.cols != nil }) {
		return false
	}
	items := make([]sqlast.SelectItem, 0, len(sel.Items))
	for _, it := range sel.Items {
		if !it.Star {
			items = append(items, it)
			continue
		}
		for _, src := range sources {
			switch {
			case it.Table != "" && it.Table != src.ref:
			case src.cols == nil:
				items = append(items, sqlast.SelectItem{Star: true, Table: src.ref})
			default:
				for _, c := range src.cols {
					items = append(items, sqlast.SelectItem{Expr: &sqlast.ColumnRef{Table: src.ref, Column: c}})
				}
			}
		}
	}
	sel.Items = items
	return true
}

// selectStmt rewrites a query (stmt's SELECT case).
func (rw *Rewriter) selectStmt(s *sqlast.SelectStmt, info *Info, view view) ([]Sent, error) {
	if view != noView {
		if id := rw.predicateOf(s); id != "" {
			return rw.viewSelect(s, id, info)
		}
	}
	q, _, err := rw.query(s.Query)
	if err != nil {
		return nil, err
	}
	var subs []Sent
	if view == viewTxn {
		subs = rw.subReads(s, info)
	}
	if dedups(s.Query) {
		if s.Limit != nil {
			// The limit would count rows told apart by their rowIds.
			return nil, fmt.Errorf("DISTINCT or UNION with LIMIT")
		}
		info.Dedup = true
	}
	c := *s
	c.Query = q
	info.Locking = s.Lock != sqlast.LockNone
	if info.Locking && rw.d == sqlast.MySQL {
		if tbl := rw.coveredTable(s); tbl != "" {
			return nil, fmt.Errorf("a locking read that an index of %s covers (the hidden columns would make it scan and lock the clustered index instead)", tbl)
		}
	}
	return append([]Sent{{SQL: sqlast.Format(rw.d, &c)}}, subs...), nil
}

// pair is the rowId and wList expressions of one table row in scope.
type pair struct{ row, wl sqlast.Expr }

// query rewrites q so its output ends with n pairs txlab_rI, txlab_wI.
func (rw *Rewriter) query(q sqlast.Query) (sqlast.Query, int, error) {
	switch q := q.(type) {
	case *sqlast.Select:
		if hasAggregate(q) {
			return nil, 0, errAggregate
		}
		c := *q
		c.From = make([]sqlast.TableRef, len(q.From))
		var pairs []pair
		for i, f := range q.From {
			nf, ps, err := rw.from(f)
			if err != nil {
				return nil, 0, err
			}
			c.From[i] = nf
			pairs = append(pairs, ps...)
		}
		c.Items = append([]sqlast.SelectItem(nil), q.Items...)
		for i, p := range pairs {
			c.Items = append(c.Items,
				sqlast.SelectItem{Expr: p.row, Alias: rowAlias(i)},
				sqlast.SelectItem{Expr: p.wl, Alias: wlistAlias(i)})
		}
		return &c, len(pairs), nil
	case *sqlast.SetOp:
		l, nl, err := rw.query(q.Left)
		if err != nil {
			return nil, 0, err
		}
		r, nr, err := rw.query(q.Right)
		if err != nil {
			return nil, 0, err
		}
		// Both sides must have as many columns: pad the shorter with NULL
		// pairs, which Record skips.
		n := max(nl, nr)
		l, r = pad(l, nl, n), pad(r, nr, n)
		return &sqlast.SetOp{Op: q.Op, Left: l, Right: r}, n, nil
	}
	return nil, 0, errUnsupported
}

// coveredTable names a table of the locking read s that a secondary index
// covers: every column s uses of it is in the index or the primary key
// (which InnoDB keeps in every secondary index record). InnoDB can then
// read, and lock, only the index records; with the hidden columns added
// the read needs the clustered index, takes other locks and, while a row
// moves in the index, returns other rows (Troc's
// innodb-rc-locking-read-index-record-moved case). Such a read runs as
// written. Column names are matched without their qualifiers, which can
// only make more tables count as covered. "" when none is.
func (rw *Rewriter) coveredTable(s *sqlast.SelectStmt) string {
	used := map[string]bool{}
	var tables []*table
	star := false
	sqlast.Walk(s, func(n any) bool {
		switch n := n.(type) {
		case *sqlast.ColumnRef:
			used[n.Column] = true
		case *sqlast.Table:
			if t := rw.tables[n.Name]; t != nil {
				tables = append(tables, t)
			}
		case *sqlast.Select:
			star = star || slices.ContainsFunc(n.Items, isStar)
		}
		return true
	})
	for _, t := range tables {
		var need []string
		for _, c := range t.columns {
			if star || used[c] {
				need = append(need, c)
			}
		}
		for _, idx := range t.indexes {
			if !slices.ContainsFunc(need, func(c string) bool { return !slices.Contains(idx, c) && !slices.Contains(t.primary, c) }) {
				return t.name
			}
		}
	}
	return ""
}

// dedups reports whether q removes duplicate rows from its whole result:
// SELECT DISTINCT, or UNION [DISTINCT] as the last set operation (a
// distinct union removes the duplicates of everything to its left).
func dedups(q sqlast.Query) bool {
	switch q := q.(type) {
	case *sqlast.Select:
		return q.Distinct
	case *sqlast.SetOp:
		return !strings.EqualFold(q.Op, "UNION ALL")
	}
	return false
}

// pad appends NULL pairs from..to-1 to every SELECT of q (already copies).
func pad(q sqlast.Query, from, to int) sqlast.Query {
	if from == to {
		return q
	}
	switch q := q.(type) {
	case *sqlast.Select:
		for i := from; i < to; i++ {
			null := &sqlast.Literal{Kind: sqlast.LitNull, Text: "NULL"}
			q.Items = append(q.Items, sqlast.SelectItem{Expr: null, Alias: rowAlias(i)}, sqlast.SelectItem{Expr: null, Alias: wlistAlias(i)})
		}
	case *sqlast.SetOp:
		q.Left, q.Right = pad(q.Left, from, to), pad(q.Right, from, to)
	}
	return q
}

// from rewrites a FROM item and returns the pairs of the rows it yields.
func (rw *Rewriter) from(f sqlast.TableRef) (sqlast.TableRef, []pair, error) {
	switch f := f.(type) {
	case *sqlast.Table:
		if rw.tables[f.Name] == nil {
			return nil, nil, fmt.Errorf("unknown table %s", f.Name)
		}
		q := f.RefName()
		return f, []pair{{&sqlast.ColumnRef{Table: q, Column: RowIDColumn}, &sqlast.ColumnRef{Table: q, Column: WListColumn}}}, nil
	case *sqlast.Subquery:
		if dedups(f.Query) {
			// With the rowIds its rows would no longer be duplicates.
			return nil, nil, fmt.Errorf("a derived table with DISTINCT or UNION")
		}
		inner, n, err := rw.query(f.Query)
		if err != nil {
			return nil, nil, err
		}
		if f.Alias == "" && n > 0 {
			return nil, nil, fmt.Errorf("derived table without alias")
		}
		ps := make([]pair, n)
		for i := range ps {
			ps[i] = pair{&sqlast.ColumnRef{Table: f.Alias, Column: rowAlias(i)}, &sqlast.ColumnRef{Table: f.Alias, Column: wlistAlias(i)}}
		}
		return &sqlast.Subquery{Query: inner, Alias: f.Alias}, ps, nil
	case *sqlast.Join:
		l, lp, err := rw.from(f.Left)
		if err != nil {
			return nil, nil, err
		}
		r, rp, err := rw.from(f.Right)
		if err != nil {
			return nil, nil, err
		}
		return &sqlast.Join{Kind: f.Kind, Left: l, Right: r, On: f.On}, append(lp, rp...), nil
	}
	return nil, nil, errUnsupported
}

var aggregates = map[string]bool{"COUNT": true, "SUM": true, "MIN": true, "MAX": true, "AVG": true, "GROUP_CONCAT": true, "STRING_AGG": true, "TOTAL": true}

// hasAggregate reports whether a SELECT's own items aggregate (subqueries
// in them are separate queries and do not count).
func hasAggregate(s *sqlast.Select) bool {
	found := false
	var visit func(n any) bool
	visit = func(n any) bool {
		switch n := n.(type) {
		case *sqlast.Func:
			if aggregates[strings.ToUpper(n.Name)] && (n.Star || len(n.Args) == 1) {
				found = true
			}
		case *sqlast.ScalarSubquery, *sqlast.Exists:
			return false
		case *sqlast.In:
			if n.Sub != nil {
				sqlast.Walk(n.X, visit)
				return false
			}
		}
		return !found
	}
	for _, it := range s.Items {
		sqlast.Walk(it.Expr, visit)
	}
	return found
}
