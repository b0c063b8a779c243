package model

import (
	"context"
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// Schema features: columns the DBMS numbers, sequences, partial and
// expression indexes, generated columns (package features' names).
//
//   - A generated column is computed by the DBMS in the model's copy too:
//     the copy keeps its definition (createTable), the versions loaded into
//     it leave it out (load), and the statements the model evaluates there
//     compute it as the case's tables do. No statement may write one
//     (PostgreSQL: ddl-generated-columns; MariaDB: generated-columns).
//   - A non-unique partial or expression index changes which rows no
//     statement returns or writes, only how they are found: PostgreSQL's
//     docs (indexes-partial, indexes-expressional) and SQLite's
//     (partialindex.html, expridx.html) describe them as plans only. The
//     model ignores them there (the copy gets them where the evaluator
//     takes them, as any index). On the MySQL family an expression index
//     is kept in the index columns the model follows (secondaryIndexed) by
//     the columns it reads.
//   - A UNIQUE partial or expression index decides which writes fail or
//     wait on another's key. Where that is all it decides
//     (Rules.UniqueIndexFeatures: PostgreSQL, SQLite) the model's copy
//     gets the index, as it gets a UNIQUE constraint: the copy then
//     refuses what the DBMS refuses on the statement's view (a write the
//     DBMS took that the copy refuses stops the judging, one the DBMS
//     refused had no effect), and which writes wait on a key is not
//     judged, for plain keys neither (PostgreSQL: index-unique-checks; an
//     INSERT waits for an uncommitted conflicting row, then fails or
//     proceeds). Where the evaluator does not take the index, and where
//     the rules do not say so (InnoDB, where a UNIQUE index may decide the
//     clustered key the model follows), a write to the table stops the
//     judging (not modelled: partial-index / expression-index).
//   - Numbers from AUTO_INCREMENT, SERIAL, identity columns and sequences
//     are not transactional (MariaDB: auto_increment-handling-in-innodb;
//     PostgreSQL: functions-sequence, "nextval operations are never rolled
//     back"): a statement that takes one stops the judging (not modelled:
//     auto-increment / sequence).

// schemaFeat is what the setup said about the schema features.
type schemaFeat struct {
	// unique are the tables with a UNIQUE partial or expression index,
	// with the feature's name.
	unique map[string]string
	// sequences are the sequences the setup created.
	sequences map[string]bool
}

// setupFeature handles a setup statement of the schema features; handled
// says the setup needs nothing more of it.
func (e *Engine) setupFeature(ctx context.Context, st sqlast.Stmt, sql string) (handled bool, err error) {
	if e.feat == nil {
		e.feat = &schemaFeat{unique: map[string]string{}, sequences: map[string]bool{}}
	}
	switch st := st.(type) {
	case *sqlast.CreateSequence:
		// The case's own sequence: the evaluator must not create (or
		// advance) one of the same name.
		e.feat.sequences[st.Name] = true
		return true, nil
	case *sqlast.CreateIndex:
		if st.Where == nil && st.Exprs == nil || !st.Unique {
			return false, nil
		}
		if e.rules.UniqueIndexFeatures && e.schema[st.Table] != nil {
			if e.laterIndexes == nil {
				e.laterIndexes = map[string][][]string{}
			}
			e.laterIndexes[st.Table] = append(e.laterIndexes[st.Table], featureIndexColumns(st))
			_, err := e.ev.Exec(ctx, sql)
			if err == nil {
				return true, nil
			}
			if target.AsError(err) == nil {
				return true, fmt.Errorf("model evaluator: %w", err)
			}
		}
		e.feat.unique[st.Table] = indexFeature(st)
		return true, nil
	case *sqlast.Insert:
		// The copy numbers the setup's rows as the fresh table does
		// (AUTO_INCREMENT, SERIAL, identity: the copy has the column's
		// definition); it has no sequence of the case's.
		if f := e.numbered(st); f == "sequence" {
			e.halt("not modelled: "+f, "setup statement %s takes a number from a sequence, which the model's copy does not have", sql)
			return true, nil
		}
	}
	return false, nil
}

// indexFeature names the feature of a partial or expression index.
func indexFeature(ci *sqlast.CreateIndex) string {
	if ci.Exprs != nil {
		return "expression-index"
	}
	return "partial-index"
}

// featureIndexColumns are the columns an expression index reads, as the
// index columns the model follows on the MySQL family.
func featureIndexColumns(ci *sqlast.CreateIndex) []string {
	if ci.Exprs == nil {
		return ci.Columns
	}
	var cols []string
	for _, x := range ci.Exprs {
		sqlast.Walk(x, func(n any) bool {
			if c, ok := n.(*sqlast.ColumnRef); ok && !slices.Contains(cols, c.Column) {
				cols = append(cols, c.Column)
			}
			return true
		})
	}
	return cols
}

// stepFeature returns the halt reason of a statement the model does not
// follow because of a schema feature, or "".
func (e *Engine) stepFeature(st sqlast.Stmt) (reason, text string) {
	if f := e.numbered(st); f != "" {
		return "not modelled: " + f, "it takes a number from the DBMS (" + f + "), and such numbers are not transactional"
	}
	var table string
	switch st := st.(type) {
	case *sqlast.Insert:
		table = st.Table
	case *sqlast.Update:
		table = st.Table
	case *sqlast.Delete:
		table = st.Table
	case *sqlast.Merge:
		table = st.Table
	}
	if e.feat != nil && table != "" {
		if f := e.feat.unique[table]; f != "" {
			return "not modelled: " + f, "it writes table " + table + ", whose UNIQUE " + strings.TrimSuffix(f, "-index") + " index decides which writes conflict"
		}
	}
	return "", ""
}

// numbered says which feature gives a statement a number from the DBMS:
// sequence for NEXTVAL (or an INSERT that leaves a column whose DEFAULT
// calls it), auto-increment for an INSERT that leaves a column the DBMS
// numbers; "" for none.
func (e *Engine) numbered(st sqlast.Stmt) string {
	seq := false
	sqlast.Walk(st, func(n any) bool {
		if f, ok := n.(*sqlast.Func); ok && sqlast.NextvalSequence(f) != "" {
			seq = true
		}
		return !seq
	})
	if seq {
		return "sequence"
	}
	if m, ok := st.(*sqlast.Merge); ok {
		return e.mergeNumbered(m)
	}
	ins, ok := st.(*sqlast.Insert)
	if !ok {
		return ""
	}
	ct := e.schema[ins.Table]
	if ct == nil {
		return ""
	}
	for i, c := range ct.Columns {
		f := ""
		switch {
		case c.AutoIncrement || c.Identity != sqlast.IdentityNone:
			f = "auto-increment"
		case c.Default != nil:
			if e.numbered(&sqlast.SelectStmt{Query: &sqlast.Select{Items: []sqlast.SelectItem{{Expr: c.Default}}}}) == "sequence" {
				f = "sequence"
			}
		}
		if f != "" && e.leavesColumn(ins, ct, i) {
			return f
		}
	}
	return ""
}

// leavesColumn reports whether an INSERT may leave column i to the DBMS:
// it names other columns only, gives it NULL, 0 or DEFAULT, or takes its
// value from a query.
func (e *Engine) leavesColumn(ins *sqlast.Insert, ct *sqlast.CreateTable, i int) bool {
	pos := i
	if ins.Columns != nil {
		pos = slices.IndexFunc(ins.Columns, func(n string) bool { return strings.EqualFold(n, ct.Columns[i].Name) })
	}
	if pos < 0 || ins.Select != nil {
		return true
	}
	for _, row := range ins.Values {
		if pos >= len(row) {
			return true
		}
		switch v := row[pos].(type) {
		case *sqlast.Literal:
			if v.Kind == sqlast.LitNull || v.Text == "0" && e.dialect.AutoIncrementOnZero() {
				return true
			}
		case *sqlast.Unary:
			if _, ok := v.X.(*sqlast.Literal); !ok {
				return true
			}
		default:
			return true
		}
	}
	return false
}

// copyColumn is a column as the model's copy defines it: GENERATED ALWAYS
// AS IDENTITY becomes BY DEFAULT, which numbers the setup's rows the same
// and takes the values of the versions loaded into the copy (ALWAYS
// refuses them); a generated column stays generated.
func copyColumn(c sqlast.ColumnDef) sqlast.ColumnDef {
	if c.Identity == sqlast.IdentityAlways {
		c.Identity = sqlast.IdentityByDefault
	}
	return c
}

// hasGenerated reports whether ct has a generated column.
func hasGenerated(ct *sqlast.CreateTable) bool {
	return slices.ContainsFunc(ct.Columns, func(c sqlast.ColumnDef) bool { return c.Generated != nil })
}

// numberRows gives the rows of an INSERT that leaves an AUTO_INCREMENT
// key to the DBMS the numbers the DBMS takes where the rules make them
// part of the history (Rules.AutoIncrementFromHistory): one more than the
// largest key the table held, row after row. It returns st unchanged
// where it does not decide them (an INSERT … SELECT or upsert, a value
// that is not a literal, a key an UPDATE changed): the model then does
// not follow it (stepFeature).
func (e *Engine) numberRows(t *Txn, st *Stmt, parsed sqlast.Stmt) sqlast.Stmt {
	ins, ok := parsed.(*sqlast.Insert)
	if !ok || !e.rules.AutoIncrementFromHistory || ins.Select != nil || ins.Replace || ins.OnConflict != nil || e.numbered(ins) != "auto-increment" {
		return parsed
	}
	ct := e.schema[ins.Table]
	col := slices.IndexFunc(ct.Columns, func(c sqlast.ColumnDef) bool { return c.AutoIncrement && c.PrimaryKey })
	if col < 0 || slices.ContainsFunc(ct.Columns, func(c sqlast.ColumnDef) bool {
		return c.Identity != sqlast.IdentityNone
	}) {
		return parsed
	}
	largest, ok := e.largestKey(t, st, ins.Table, col)
	if !ok {
		return parsed
	}
	out := sqlast.Clone(ins).(*sqlast.Insert)
	pos := col
	if out.Columns != nil {
		pos = slices.IndexFunc(out.Columns, func(n string) bool { return strings.EqualFold(n, ct.Columns[col].Name) })
		if pos < 0 {
			pos = len(out.Columns)
			out.Columns = append(out.Columns, ct.Columns[col].Name)
			for i := range out.Values {
				out.Values[i] = append(out.Values[i], &sqlast.Literal{Kind: sqlast.LitNull, Text: "NULL"})
			}
		}
	}
	for _, row := range out.Values {
		if pos >= len(row) {
			return parsed
		}
		lit, isLit := row[pos].(*sqlast.Literal)
		switch {
		case isLit && lit.Kind == sqlast.LitNull:
			largest++
			row[pos] = &sqlast.Literal{Kind: sqlast.LitInt, Text: strconv.FormatInt(largest, 10)}
		case isLit && lit.Kind == sqlast.LitInt:
			n, err := strconv.ParseInt(lit.Text, 10, 64)
			if err != nil {
				return parsed
			}
			largest = max(largest, n)
		default:
			return parsed
		}
	}
	return out
}

// largestKey is the largest value column col of table has held in t's
// view of its history: the rows its committed transactions and t itself
// inserted (deleted since or not) and those it holds now. false where an
// UPDATE changed the column, which the counter does not follow.
func (e *Engine) largestKey(t *Txn, st *Stmt, table string, col int) (int64, bool) {
	var largest int64
	for _, r := range e.h.rows[table] {
		for _, v := range r.Versions {
			if v.Txn != t && !v.Txn.committedBefore(st.Start) || v.Txn.abortedBefore(st.Start) || v.Deleted {
				continue
			}
			if col >= len(v.Values) || v.Prev != nil && !v.Prev.Deleted && (col >= len(v.Prev.Values) || v.Prev.Values[col] != v.Values[col]) {
				return 0, false
			}
			if v.Values[col].Null {
				continue
			}
			n, err := strconv.ParseInt(v.Values[col].S, 10, 64)
			if err != nil {
				return 0, false
			}
			largest = max(largest, n)
		}
	}
	return largest, true
}
