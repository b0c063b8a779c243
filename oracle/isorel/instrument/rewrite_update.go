package instrument

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// update rewrites an UPDATE of transaction tn (stmt's UPDATE case).
func (rw *Rewriter) update(s *sqlast.Update, tn string, info *Info) ([]Sent, error) {
	if rw.tables[s.Table] == nil {
		return nil, fmt.Errorf("unknown table %s", s.Table)
	}
	c := *s
	bits, ids := rw.matchBits(s.Table)
	info.Evaluated = ids
	if rw.d != sqlast.MySQL {
		c.Set = rw.appendWList(s.Set, "", tn, "", "", nil)
		if bits != nil {
			// The versions it installs, each with the predicates it
			// matches: RETURNING sees the rows as the UPDATE left them.
			info.Returning, info.Hidden = true, len(s.Returning) == 0
			c.Returning = append(append(slices.Clone(s.Returning), hiddenItems("")...), sqlast.SelectItem{Expr: bits, Alias: InstalledColumn})
		}
		return []Sent{{SQL: sqlast.Format(rw.d, &c)}}, nil
	}
	// The versions of the rows it matched, changed or not (a no-op
	// UPDATE reads the row too: MDEV-26642), collected into a user
	// variable of its own as the SET expressions are evaluated, row
	// by row, and read right after it: the MySQL family has no UPDATE
	// … RETURNING. The variable must hold a string before the UPDATE
	// (unset, MariaDB reads it as it was when the statement began, and
	// only the last row stays); neither statement takes a lock.
	tag := strconv.FormatInt(rw.nextTag.Add(1), 10)
	matched := "txlab_m" + tag
	items := []sqlast.SelectItem{{Expr: &sqlast.Var{Name: matched}, Alias: MatchedColumn}}
	prepare := "SET @" + matched + " = ''"
	installed := ""
	if bits != nil {
		installed = "txlab_i" + tag
		items = append(items, sqlast.SelectItem{Expr: &sqlast.Var{Name: installed}, Alias: InstalledColumn})
		prepare += ", @" + installed + " = ''"
	}
	c.Set = rw.appendWList(s.Set, "", tn, matched, installed, bits)
	info.Locking = true
	post := &sqlast.SelectStmt{Query: &sqlast.Select{Items: items}}
	return []Sent{
		{SQL: prepare, Role: RolePrepare},
		{SQL: sqlast.Format(rw.d, &c)},
		{SQL: sqlast.Format(rw.d, post), Role: RolePostRead},
	}, nil
}

// appendWList adds to the assignments set of an UPDATE (or upsert) of
// transaction tn the append of tn to the row's wList; qual qualifies the
// hidden column where the statement needs it.
//
// PostgreSQL and SQLite write a new row version for every row an UPDATE
// matches, even when no value changes, so the append is unconditional
// there. InnoDB does not: an UPDATE that assigns every column its current
// value changes nothing, counts no affected row and leaves later reads of
// the row at the old version (the MDEV-26642 family depends on it). There
// the append must happen only when some assigned column really changes.
// MySQL evaluates single-table SET assignments left to right, each seeing
// the values assigned before it, so the comparison is made on what was
// stored: the first assignment parks the assigned columns' old values
// (QUOTEd, so NULL and 'NULL' differ) after a '|' in the wList, the
// user's assignments follow, and the last one compares the stored values
// with the parked ones, byte for byte (HEX), and restores the wList with or
// without tn.
// matched, when set, names the user variable that collects the versions of
// the rows the statement matched (see the UPDATE case of stmt); installed
// the one that collects the versions it leaves, with the bits of the
// table's recorded predicates evaluated on them (matchBits).
func (rw *Rewriter) appendWList(set []sqlast.Assignment, qual, tn, matched, installed string, bits sqlast.Expr) []sqlast.Assignment {
	wl := &sqlast.ColumnRef{Table: qual, Column: WListColumn}
	if rw.d != sqlast.MySQL {
		return append(slices.Clone(set), sqlast.Assignment{Column: WListColumn, Value: &sqlast.Concat{L: wl, R: str("," + tn)}})
	}
	var cols []string
	for _, a := range set {
		if !slices.Contains(cols, a.Column) {
			cols = append(cols, a.Column)
		}
	}
	quoted := make([]string, len(cols))
	for i, c := range cols {
		quoted[i] = "QUOTE(" + sqlast.FormatExpr(rw.d, &sqlast.ColumnRef{Table: qual, Column: c}) + ")"
	}
	values := "CONCAT_WS(',', " + strings.Join(quoted, ", ") + ")"
	w := sqlast.FormatExpr(rw.d, wl)
	before := "SUBSTRING_INDEX(" + w + ", '|', 1)"
	grown := padWList("CONCAT(SUBSTRING_INDEX(" + before + ", '" + wlistPad + "', 1), " + sqlast.QuoteString(rw.d, ","+tn) + ")")
	collect := ""
	if matched != "" {
		v := "@" + matched
		collect = ", IF((" + v + " := CONCAT_WS(' ', " + v + ", CONCAT(" + sqlast.FormatExpr(rw.d, &sqlast.ColumnRef{Table: qual, Column: RowIDColumn}) + ", '=', " + w + "))) IS NULL, '', '')"
	}
	park := sqlast.Assignment{Column: WListColumn, Value: &sqlast.Raw{SQL: "CONCAT(" + w + ", '|', " + values + collect + ")"}}
	restore := sqlast.Assignment{Column: WListColumn, Value: &sqlast.Raw{SQL: "IF(HEX(SUBSTRING(" + w + ", LOCATE('|', " + w + ") + 1)) = HEX(" + values + ")" +
		", " + before + ", " + grown + ")"}}
	out := make([]sqlast.Assignment, 0, len(set)+3)
	out = append(out, park)
	out = append(out, set...)
	out = append(out, restore)
	if installed != "" {
		// After the restore, every column holds what the row keeps: the
		// wList assigned to itself, the versions collected on the way.
		v := "@" + installed
		out = append(out, sqlast.Assignment{Column: WListColumn, Value: &sqlast.Raw{SQL: "IF((" + v + " := CONCAT_WS(' ', " + v + ", CONCAT(" +
			sqlast.FormatExpr(rw.d, &sqlast.ColumnRef{Table: qual, Column: RowIDColumn}) + ", '=', " + w + ", '?', " + sqlast.FormatExpr(rw.d, bits) + "))) IS NULL, " + w + ", " + w + ")"}})
	}
	return out
}
