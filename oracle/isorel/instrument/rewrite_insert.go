package instrument

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/sqlast"
)

// insert rewrites INSERT / REPLACE / upsert.
func (rw *Rewriter) insert(s *sqlast.Insert, tn string, info *Info) ([]Sent, error) {
	t := rw.tables[s.Table]
	if t == nil {
		return nil, fmt.Errorf("unknown table %s", s.Table)
	}
	if rw.replacesInPlace(s, t) {
		s = replaceAsUpsert(s, t)
		info.ReplacesInPlace = true
	}
	if err := schemaFeatureInsert(rw.d, s, t); err != nil {
		return nil, err
	}
	c := *s
	cols := s.Columns
	if len(cols) == 0 && (s.Values != nil || s.Select != nil) {
		cols = t.columns
	}
	c.Columns = append(append([]string(nil), cols...), RowIDColumn, WListColumn)
	var out []Sent
	var err error
	if s.Select != nil {
		out, tn, err = rw.insertSelect(s, &c, info, tn)
		if err != nil {
			return nil, err
		}
	} else {
		out, tn = rw.insertValues(s, &c, t, cols, info, tn)
	}
	if oc := s.OnConflict; oc != nil && !oc.DoNothing {
		// The conflicting row is updated in place: its wList grows like an UPDATE's.
		nc := *oc
		nc.Set = rw.appendWList(oc.Set, s.Table, tn, "", "", nil)
		c.OnConflict = &nc
	}
	return append(out, Sent{SQL: sqlast.Format(rw.d, &c)}), nil
}

// insertSelect instruments INSERT … SELECT into c: one rowId per source
// row, "rN." followed by the source rows' rowIds (a counter on the MySQL
// family), unique as long as the source reads each combination of rows
// once (no DISTINCT, no UNION, no aggregate). The source rows it read are
// not recorded: an INSERT returns no rows.
func (rw *Rewriter) insertSelect(s *sqlast.Insert, c *sqlast.Insert, info *Info, tn string) ([]Sent, string, error) {
	var out []Sent
	// INSERT … SELECT: one rowId per source row, "rN." followed by the
	// source rows' rowIds (a counter on the MySQL family), unique as
	// long as the source reads each combination of rows once (no
	// DISTINCT, no UNION, no aggregate).
	// The source rows it read are not recorded: an INSERT returns no rows.
	src, ok := s.Select.(*sqlast.Select)
	if !ok || src.Distinct || hasAggregate(src) {
		return nil, tn, fmt.Errorf("INSERT … SELECT from a compound, DISTINCT or aggregate query")
	}
	// With the hidden columns, * would give more values than the
	// target has columns.
	sc := *src
	if slices.ContainsFunc(src.Items, isStar) && !rw.expandSelectStars(&sc) {
		return nil, tn, fmt.Errorf("INSERT … SELECT * from a table IsoRel does not know")
	}
	var pairs []pair
	for _, f := range src.From {
		_, ps, err := rw.from(f)
		if err != nil {
			return nil, tn, err
		}
		if _, sub := f.(*sqlast.Table); !sub {
			return nil, tn, fmt.Errorf("INSERT … SELECT from a join or derived table")
		}
		pairs = append(pairs, ps...)
	}
	if len(pairs) == 0 {
		return nil, tn, fmt.Errorf("INSERT … SELECT without a table")
	}
	prefix := rw.newRowID() + "."
	var id sqlast.Expr = str(prefix)
	if rw.d == sqlast.MySQL {
		// InnoDB reads the source with shared locks, through an
		// index that covers the columns the SELECT names; reading
		// the source rows' rowIds would make it read (and lock) the
		// clustered index instead (measured: TestFidelity). A
		// counter numbers the rows instead, set to 0 first: while a
		// user variable is NULL, MariaDB evaluated the assignment
		// once and gave every row the same number.
		n := &sqlast.Var{Name: "txlab_n"}
		id = &sqlast.Concat{L: id, R: &sqlast.Var{Name: n.Name, Assign: &sqlast.Binary{Op: "+",
			L: n, R: &sqlast.Literal{Kind: sqlast.LitInt, Text: "1"}}}}
		out = append(out, Sent{SQL: "SET @" + n.Name + " = 0", Role: RolePrepare})
	} else {
		for i, p := range pairs {
			if i > 0 {
				id = &sqlast.Concat{L: id, R: str(".")}
			}
			id = &sqlast.Concat{L: id, R: p.row}
		}
	}
	sc.Items = append(sc.Items, sqlast.SelectItem{Expr: id}, sqlast.SelectItem{Expr: rw.newWList(tn)})
	c.Select = &sc
	if info.ReplacesInPlace {
		// As a REPLACE … VALUES in place: the versions it overwrote
		// come back through RETURNING, told from the rows it inserted
		// by their rowIds' prefix.
		info.InsertedPrefix = prefix
		tn = rw.upsertReturning(s, c, info, tn)
	}
	return out, tn, nil
}

// insertValues instruments INSERT … VALUES (and DEFAULT VALUES) into c:
// a rowId per row, the conflict's pre-read or an upsert's RETURNING, and
// the predicates the installed versions match.
func (rw *Rewriter) insertValues(s *sqlast.Insert, c *sqlast.Insert, t *table, cols []string, info *Info, tn string) ([]Sent, string) {
	var out []Sent
	rows := s.Values
	if rows == nil {
		rows = [][]sqlast.Expr{{}} // DEFAULT VALUES
	}
	c.Values = make([][]sqlast.Expr, len(rows))
	for i, row := range rows {
		id := rw.newRowID()
		info.Inserted = append(info.Inserted, id)
		if n := rw.literalName(t, cols, row); n != "" {
			if info.Names == nil {
				info.Names = map[string]string{}
			}
			info.Names[id] = n
		}
		c.Values[i] = append(append([]sqlast.Expr(nil), row...), str(id), rw.newWList(tn))
	}
	upsert := s.OnConflict != nil && !s.OnConflict.DoNothing
	if upsert && rw.returning {
		tn = rw.upsertReturning(s, c, info, tn)
	} else if pre := rw.conflictRead(s, t, cols); pre != "" {
		out = append(out, Sent{SQL: pre, Role: RolePreRead})
		info.Locking = true
		info.PreDeletes = s.Replace
	}
	if bits, ids := rw.matchBits(s.Table); bits != nil && rw.returning && !s.Replace {
		// The versions it installs, each with the recorded predicates
		// it matches. Not on REPLACE: it counts a replaced row twice,
		// RETURNING once.
		if !info.Returning {
			info.Returning, info.Hidden = true, len(s.Returning) == 0
			c.Returning = append(slices.Clone(s.Returning), hiddenItems("")...)
		}
		c.Returning = append(c.Returning, sqlast.SelectItem{Expr: bits, Alias: InstalledColumn})
		info.Evaluated = ids
	}
	return out, tn
}

// replacesInPlace says a REPLACE changes the row it conflicts with in
// place, as an INSERT … ON DUPLICATE KEY UPDATE of every column does, so
// that it can be instrumented as one (replaceAsUpsert) and record the
// versions it overwrites, through RETURNING, where they stand. MariaDB
// updates the conflicting row rather than deleting it and inserting anew
// when the duplicate is on the table's last unique key, no foreign key
// names the table and it has no delete trigger (sql_insert.cc,
// write_record): with one unique key, every conflict is on the last one,
// and the rewriter knows of no trigger or foreign key unless it understood
// every CREATE and ALTER of the case. Instrumented that way, a REPLACE
// that leaves a row as it was writes nothing, as plainly; written as a
// REPLACE with hidden columns it always wrote a new row (and counted it
// twice).
func (rw *Rewriter) replacesInPlace(s *sqlast.Insert, t *table) bool {
	if !s.Replace || s.Values == nil && s.Select == nil || rw.d != sqlast.MySQL || !rw.returning || rw.schemaUnsure || t.referenced {
		return false
	}
	keys := map[string]bool{}
	for _, k := range t.keys {
		keys[strings.Join(k, ",")] = true
	}
	return len(keys) == 1
}

// replaceAsUpsert is the INSERT … ON DUPLICATE KEY UPDATE that does what
// REPLACE s does when it replaces in place: every column the DBMS does not
// compute takes the value the REPLACE gives it (VALUES(c) is the default
// of a column the REPLACE leaves out).
func replaceAsUpsert(s *sqlast.Insert, t *table) *sqlast.Insert {
	c := *s
	c.Replace = false
	c.OnConflict = &sqlast.OnConflict{}
	for _, col := range t.columns {
		if !slices.Contains(t.generated, col) {
			c.OnConflict.Set = append(c.OnConflict.Set, sqlast.Assignment{Column: col, Value: &sqlast.Excluded{Column: col}})
		}
	}
	return &c
}

// upsertReturning makes the upsert c (of s) return the versions it
// overwrites, from the upsert itself (see Info.Appended): a separate
// locking read would take locks, gap locks included, that the upsert does
// not take. It returns the name the upsert appends to the wLists it
// changes.
func (rw *Rewriter) upsertReturning(s, c *sqlast.Insert, info *Info, tn string) string {
	info.Locking, info.Returning, info.Hidden = true, true, len(s.Returning) == 0
	info.Appended = "," + tn
	if rw.d == sqlast.MySQL {
		// Its wList may be left as it was (no value changes), so the
		// appended entry must be one no earlier statement of tn can have
		// left at the end.
		info.Appended += "#" + strconv.FormatInt(rw.nextTag.Add(1), 10)
		info.CountsChanges = true
	}
	c.Returning = append(slices.Clone(s.Returning), hiddenItems("")...)
	return info.Appended[1:]
}

// inserts says the version v came back from an INSERT (or upsert) with
// Returning as a row it inserted, not one it overwrote.
func (info *Info) inserts(v history.Version) bool {
	return slices.Contains(info.Inserted, v.Row) || info.InsertedPrefix != "" && strings.HasPrefix(v.Row, info.InsertedPrefix)
}

// conflictRead is the locking read of the rows a REPLACE or an upsert
// DO UPDATE may remove or overwrite: those matching a VALUES row on a key.
// MySQL's ON DUPLICATE KEY UPDATE fires on any unique key; ON CONFLICT
// (target) only on its target. "" when none is needed.
//
// REPLACE gets none: measured on MariaDB (TestFidelity), the read's locks,
// gap locks included, made 18 of 32 unfaithful generated cases block or
// deadlock where the plain ones did not, and on SQLite a read before the
// write turns a busy wait into SQLITE_BUSY_SNAPSHOT. The rows a REPLACE
// removes are then missing from the history (Info.Note says so).
func (rw *Rewriter) conflictRead(s *sqlast.Insert, t *table, cols []string) string {
	var keys [][]string
	switch {
	case s.OnConflict != nil && !s.OnConflict.DoNothing:
		keys = t.keys
		if rw.d != sqlast.MySQL && len(s.OnConflict.Columns) > 0 {
			keys = [][]string{s.OnConflict.Columns}
		}
	default:
		return ""
	}
	idx := map[string]int{}
	for i, c := range cols {
		idx[c] = i
	}
	var pred sqlast.Expr
	for _, row := range s.Values {
	keyLoop:
		for _, k := range keys {
			var conj sqlast.Expr
			for _, col := range k {
				i, ok := idx[col]
				if !ok || i >= len(row) {
					continue keyLoop // the key takes its default: leave it out
				}
				if l, ok := row[i].(*sqlast.Literal); ok && l.Kind == sqlast.LitNull {
					continue keyLoop // NULL never conflicts
				}
				eq := &sqlast.Binary{Op: "=", L: &sqlast.ColumnRef{Column: col}, R: row[i]}
				conj = and(conj, eq, "AND")
			}
			if conj != nil {
				pred = and(pred, conj, "OR")
			}
		}
	}
	if pred == nil {
		return ""
	}
	return rw.preRead(s.Table, pred)
}
