// Package instrument rewrites SQL for the IsoRel oracle (paper §3.1–3.2,
// Table 1) and records what the rewritten statements observed as a
// relational history (package history).
//
// Every table gets two hidden text columns, txlab_rowid (a row identity
// unique across all tables, "r17") and txlab_wlist (the transactions that
// wrote the row, oldest first, "T0,T3"). Queries additionally return the
// rowId/wList pair of every table row they read, as result columns
// txlab_r0, txlab_w0, txlab_r1, ...; INSERT assigns a rowId and 'Tn'; UPDATE
// appends ',Tn'; DELETE, REPLACE and upserts on keyed tables are preceded
// by a locking read of the rows they may remove or overwrite.
//
// Two modes share the rewriting: Instrument + Record run a case through the
// deterministic protocol (exec.Run), Stress runs generated transactions
// concurrently on several sessions.
package instrument

import (
	"errors"
	"fmt"
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// The hidden columns. The generator names columns c0, c1, ... and tables
// t0, t1, ..., so the txlab_ prefix cannot collide with generated names.
const (
	RowIDColumn = "txlab_rowid"
	WListColumn = "txlab_wlist"
	// HiddenPrefix starts every column name txlab adds, in tables and in
	// results; IsHidden strips them from what users see.
	HiddenPrefix = "txlab_"
	// MatchedColumn is the result column of an UPDATE's post-read: the
	// versions it matched, "rowId=wList" separated by spaces.
	MatchedColumn = "txlab_matched"
)

// IsHidden reports whether a result or table column is one txlab added.
func IsHidden(column string) bool {
	return strings.HasPrefix(strings.ToLower(column), HiddenPrefix)
}

func rowAlias(i int) string   { return "txlab_r" + strconv.Itoa(i) }
func wlistAlias(i int) string { return "txlab_w" + strconv.Itoa(i) }

// errAggregate marks a query whose rows are aggregates: it runs as written
// and is excluded from inference.
var errAggregate = errors.New("aggregate query")

// errUnsupported marks a statement outside the instrumentable subset.
var errUnsupported = errors.New("outside the instrumentable subset")

// table is what the rewriter knows of one table from its CREATE statements.
type table struct {
	name    string
	columns []string
	keys    [][]string // primary key and unique sets
	primary []string   // the primary key; nil when none
	indexes [][]string // secondary indexes, unique or not
	// temporary tables are seen by their own connection only.
	temporary bool
	// generated columns are computed by the DBMS; referenced says a
	// foreign key of another table names this one.
	generated  []string
	referenced bool
}

// Rewriter holds the schema and the rowId counter. Statement is safe for
// concurrent use once the schema is complete (stress mode shares one).
type Rewriter struct {
	d sqlast.Dialect
	// returning: DELETE … RETURNING gives the deleted rows' hidden columns
	// in the statement itself; otherwise a locking read precedes it.
	returning bool
	tables    map[string]*table
	order     []string
	nextID    atomic.Int64
	// nextTag numbers the statements that need a name of their own (an
	// upsert's wList entry, an UPDATE's user variable), apart from the
	// rowIds so that those do not depend on the dialect.
	nextTag atomic.Int64
	// preds are the recorded predicates of each table (see predicate.go),
	// predByKey the same by table and WHERE; complete before the first
	// write is rewritten (Instrument's first pass).
	preds     map[string][]*predicate
	predByKey map[string]*predicate
	// schemaUnsure: a CREATE or ALTER statement was not understood (a
	// trigger, a foreign key added later, a column changed), so what the
	// rewriter knows of keys and references may be incomplete.
	schemaUnsure bool
}

// NewRewriter makes a rewriter for the DBMS of info (its dialect and
// features) with an empty schema.
func NewRewriter(info target.Info) *Rewriter {
	return &Rewriter{d: info.Dialect, returning: info.Returning, tables: map[string]*table{}}
}

// Tables lists the tables seen, in creation order.
func (rw *Rewriter) Tables() []string { return rw.order }

// Shared lists the tables seen that every connection sees (not TEMPORARY),
// in creation order.
func (rw *Rewriter) Shared() []string {
	var out []string
	for _, name := range rw.order {
		if !rw.tables[name].temporary {
			out = append(out, name)
		}
	}
	return out
}

func (rw *Rewriter) newRowID() string {
	return "r" + strconv.FormatInt(rw.nextID.Add(1), 10)
}

// Role is what an instrumented statement does for the statement it was made from.
type Role int

// Roles of sent statements.
const (
	RoleMain      Role = iota // the statement itself, rewritten (or as written)
	RolePreRead               // the locking read before a DELETE, REPLACE or upsert
	RoleBegin                 // BEGIN added around an autocommit statement that needs a pre-read
	RoleCommit                // the COMMIT closing it
	RoleFinalRead             // a read of a whole table after everything else
	RolePostRead              // the read of the rows an UPDATE matched, after it (MySQL family)
	RolePrepare               // a statement before it that touches no row (SET @v = '')
	RoleSubRead               // the view of one of its subqueries, read after it in the same snapshot
)

func (r Role) String() string {
	return [...]string{"main", "pre-read", "begin", "commit", "final-read", "post-read", "prepare", "subquery-read"}[r]
}

// Sent is one statement the rewriter wants sent.
type Sent struct {
	SQL  string
	Role Role
	// Sub indexes Info.Subs for a RoleSubRead.
	Sub int
}

// Info describes one rewritten statement.
type Info struct {
	Kind         string // first keyword, upper case
	Instrumented bool   // false: runs as written, Sent stays empty in the history
	Aggregate    bool
	Locking      bool
	// PreDeletes says the pre-read's rows are removed (DELETE, REPLACE)
	// rather than overwritten in place (upsert DO UPDATE, recorded as reads).
	PreDeletes bool
	// Returning says the main statement returns the versions it deleted
	// (DELETE … RETURNING) or those it upserted (INSERT … RETURNING),
	// Hidden that the original returns no rows, so the rows are txlab's
	// alone and users do not see them.
	Returning, Hidden bool
	// Appended is what an upsert with Returning appends to the wList of a
	// row it updates: a returned row not inserted by it was read at its
	// wList without this suffix when it has it, and as it is (an update
	// that changed no value, MySQL family) when not.
	Appended string
	// CountsChanges: the DBMS counts 1 affected row per inserted row, 2
	// per updated one and 0 per one left unchanged (MySQL family upserts).
	CountsChanges bool
	// ReplacesInPlace: a REPLACE instrumented as the upsert it amounts to
	// (replacesInPlace); it counts 1, not 0, for a row left unchanged.
	ReplacesInPlace bool
	// Dedup says the original removes duplicate rows (DISTINCT, UNION):
	// with the hidden columns its rows differ, so users see its rows
	// deduplicated once the hidden columns are stripped.
	Dedup bool
	// Inserted are the rowIds assigned to VALUES rows; InsertedPrefix
	// starts those of the rows an INSERT … SELECT inserts.
	Inserted       []string
	InsertedPrefix string
	// Predicate names the WHERE of a predicate read (see predicate.go);
	// Scans says its rewritten result holds every row of its view, with
	// MatchColumn telling those it returns.
	Predicate string
	Scans     bool
	// View is the table of the predicate read.
	View string
	// Evaluated are the predicates whose bits a write returns for each
	// version it installs (InstalledColumn), in bit order.
	Evaluated []string
	// Subs are the subqueries whose views RoleSubRead statements read.
	Subs []SubRead
	// Note says why a statement is not (fully) instrumented.
	Note string
}

// Statement rewrites one data statement of transaction txn. It always
// returns something to send: a statement it cannot rewrite is sent as
// written and reported uninstrumented.
func (rw *Rewriter) Statement(sql string, txn int64) ([]Sent, Info) {
	return rw.statement(sql, txn, noView)
}

// statement is Statement; view says a SELECT may be rewritten to show its
// view (predicateSteps chose it).
func (rw *Rewriter) statement(sql string, txn int64, view view) ([]Sent, Info) {
	if out, info, ok := rw.schema(sql); ok {
		return []Sent{{SQL: out}}, info
	}
	info := Info{Kind: keyword(sql)}
	if rowless(sql, info.Kind) {
		return []Sent{{SQL: sql}}, info
	}
	st, err := sqlast.Parse(rw.d, sql)
	if err != nil {
		if info.Kind == "SELECT" && readsCatalog(sql) {
			return []Sent{{SQL: sql}}, info
		}
		info.Note = "not instrumented, not parsed: " + err.Error()
		return []Sent{{SQL: rw.AsWritten(sql)}}, info
	}
	sent, err := rw.stmt(st, txn, &info, view)
	switch {
	case errors.Is(err, errAggregate):
		info.Aggregate, info.Note = true, "aggregate: excluded from inference"
		sent := []Sent{{SQL: sql}}
		if s, ok := st.(*sqlast.SelectStmt); ok && view == viewTxn {
			// Its rows are no table rows, but what it read is: the view
			// of its table, read after it like a subquery's.
			if sent = append(sent, rw.subReads(s, &info)...); len(info.Subs) > 0 && len(info.Subs) == subqueryCount(st)+1 {
				info.Note = "aggregate: its rows are not used, its table's view is (read after it)"
			}
		}
		return sent, info
	case err != nil:
		info.Note = "not instrumented: " + err.Error()
		return []Sent{{SQL: rw.AsWritten(sql)}}, info
	}
	info.Instrumented = true
	info.Note = partial(st, &info)
	if len(info.Subs) > 0 && len(info.Subs) == subqueryCount(st) {
		info.Note = "" // each subquery's rows are read after it
	}
	return sent, info
}

// AsWritten is what to send for a statement that runs uninstrumented: the
// statement as written, except that an INSERT or REPLACE without a column
// list into a table with hidden columns names the table's own columns, so
// that its values (or SELECT *) still fit; its rows get NULL hidden
// columns, which IsoRel does not see.
func (rw *Rewriter) AsWritten(sql string) string {
	switch keyword(sql) {
	case "INSERT", "REPLACE":
	case "SELECT", "WITH", "(":
		return rw.visibleStars(sql)
	default:
		return sql
	}
	name, at, hasColumns, err := sqlast.InsertTarget(rw.d, sql)
	t := rw.tables[name]
	if err != nil || hasColumns || t == nil {
		return sql
	}
	cols := make([]string, len(t.columns))
	for i, c := range t.columns {
		cols[i] = sqlast.QuoteIdent(rw.d, c)
	}
	return sql[:at] + "(" + strings.Join(cols, ", ") + ") " + sql[at:]
}

// visibleStars is a query that runs as written with each * and t.* over a
// table with hidden columns replaced by the table's own columns: with the
// hidden columns, * returns more columns, DISTINCT tells rows apart by
// them and the optimizer may choose another plan (an index no longer
// covers the read; a join runs in another order), taking other locks. A
// query that does not parse, or has no such star, is sent as it is.
func (rw *Rewriter) visibleStars(sql string) string {
	st, err := sqlast.Parse(rw.d, sql)
	if err != nil {
		return sql
	}
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

// partial says what an instrumented statement still leaves out of the
// history: rows read by subqueries in expressions (WHERE, IN, EXISTS,
// scalar) and the source rows of INSERT … SELECT are not recorded (the
// IsoRel paper does not record them either), nor the rows a REPLACE
// removes unless it replaces in place. "" when nothing is missing.
func partial(st sqlast.Stmt, info *Info) string {
	if ins, ok := st.(*sqlast.Insert); ok && ins.Select != nil {
		return "instrumented, but the rows its SELECT read are not recorded"
	}
	if ins, ok := st.(*sqlast.Insert); ok && ins.Replace && !info.ReplacesInPlace {
		return "instrumented, but the rows it replaces are not recorded"
	}
	if subqueryCount(st) > 0 {
		return "instrumented, but the rows its subqueries read are not recorded"
	}
	return ""
}

// subqueryCount counts the subqueries of st, nested ones included.
func subqueryCount(st sqlast.Stmt) int {
	n := 0
	sqlast.Walk(st, func(x any) bool {
		switch x := x.(type) {
		case *sqlast.ScalarSubquery, *sqlast.Exists:
			n++
		case *sqlast.In:
			if x.Sub != nil {
				n++
			}
		}
		return true
	})
	return n
}

// StatementAST is Statement for a statement already parsed (stress mode).
func (rw *Rewriter) StatementAST(st sqlast.Stmt, txn int64) ([]Sent, Info) {
	return rw.Statement(sqlast.Format(rw.d, st), txn)
}

// rowless reports whether a statement neither reads nor writes table
// rows, so that it passes through with nothing missing from the history:
// session settings, savepoints, SHOW, EXPLAIN, maintenance.
func rowless(sql, kind string) bool {
	switch kind {
	case "SET", "SHOW", "SAVEPOINT", "RELEASE", "FLUSH", "ANALYZE", "CHECK", "OPTIMIZE", "EXPLAIN", "DESCRIBE", "DESC", "DO", "PRAGMA":
		return true
	case "ROLLBACK":
		// ROLLBACK TO SAVEPOINT undoes writes, and their hidden columns
		// with them: the rows keep the versions the history knows.
		return testcase.ControlOf(sql) == testcase.NotControl
	}
	return false
}

// readsCatalog reports whether a SELECT the parser did not accept reads
// the server's catalogs (schema-qualified names are outside the subset),
// so that it passes through without a note. Only then: a SELECT that parses
// is a read of txlab's tables, whatever its text mentions ('a@mysql.com').
func readsCatalog(sql string) bool {
	l := strings.ToLower(sql)
	for _, cat := range []string{"information_schema.", "performance_schema.", "pg_catalog.", "mysql.", "sys.", "sqlite_master", "sqlite_schema"} {
		if strings.Contains(l, cat) {
			return true
		}
	}
	return false
}

func keyword(sql string) string {
	f := strings.Fields(sql)
	if len(f) == 0 {
		return ""
	}
	return strings.ToUpper(strings.TrimSuffix(f[0], ";"))
}

func (rw *Rewriter) stmt(st sqlast.Stmt, txn int64, info *Info, view view) ([]Sent, error) {
	tn := "T" + strconv.FormatInt(txn, 10)
	switch s := st.(type) {
	case *sqlast.SelectStmt:
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
	case *sqlast.Update:
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
	case *sqlast.Delete:
		if rw.tables[s.Table] == nil {
			return nil, fmt.Errorf("unknown table %s", s.Table)
		}
		info.Locking, info.PreDeletes = true, true
		if !rw.returning {
			return []Sent{
				{SQL: rw.preRead(s.Table, s.Where), Role: RolePreRead},
				{SQL: sqlast.Format(rw.d, s)},
			}, nil
		}
		// The rows the DELETE removes, from the DELETE itself: a separate
		// read would take the locks (and wait) in the DELETE's place and
		// could see other rows than it deletes.
		c := *s
		c.Returning = append(slices.Clone(s.Returning), hiddenItems("")...)
		info.Returning, info.Hidden = true, len(s.Returning) == 0
		return []Sent{{SQL: sqlast.Format(rw.d, &c)}}, nil
	case *sqlast.Insert:
		return rw.insert(s, tn, info)
	}
	return nil, errUnsupported
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

func str(s string) *sqlast.Literal { return &sqlast.Literal{Kind: sqlast.LitString, Text: s} }

// On the MySQL family a wList is kept at least wlistWidth characters
// long, padded with wlistPad, which no entry contains. InnoDB updates a
// record in place only when no field changes its length; otherwise it
// moves the record within its page, and the locks other transactions hold
// or wait for on it are moved to new lock structs. A deadlock's victim is
// the transaction with the fewest undo records plus lock structs, so a
// wList that grew by ",T3" on every write made InnoDB pick the other
// victim (measured: 7 lock structs instead of 3 for the same waiting
// UPDATE; TestFidelity). Padded, an append changes the record's length
// only when the user's own assignments do, until the wList outgrows the
// width. Readers trim the padding (TrimWList); an append keeps what comes
// before the first pad.
const (
	wlistWidth = 40
	wlistPad   = "_"
)

// padWList is the SQL that pads the wList expression x (MySQL family).
func padWList(x string) string {
	return "RPAD(" + x + ", GREATEST(CHAR_LENGTH(" + x + "), " + strconv.Itoa(wlistWidth) + "), '" + wlistPad + "')"
}

// newWList is the wList of a row inserted by tn.
func (rw *Rewriter) newWList(tn string) *sqlast.Literal {
	if rw.d == sqlast.MySQL && len(tn) < wlistWidth {
		tn += strings.Repeat(wlistPad, wlistWidth-len(tn))
	}
	return str(tn)
}

// TrimWList is a wList as read from the database, without its padding.
func TrimWList(s string) string { return strings.TrimRight(s, wlistPad) }

// preRead is SELECT rowId, wList FROM t WHERE pred FOR UPDATE, before a
// DELETE where the DBMS has no DELETE … RETURNING, and before REPLACE and
// upserts (whose RETURNING gives the new rows, not those removed). SQLite has
// no FOR UPDATE; there the read runs inside the write transaction, whose
// database lock keeps the rows stable instead.
func (rw *Rewriter) preRead(tbl string, where sqlast.Expr) string {
	sel := &sqlast.Select{
		Items: hiddenItems(tbl),
		From:  []sqlast.TableRef{&sqlast.Table{Name: tbl}},
		Where: where,
	}
	st := &sqlast.SelectStmt{Query: sel}
	if rw.d.SupportsLocking() {
		st.Lock = sqlast.LockUpdate
	}
	return sqlast.Format(rw.d, st)
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
	c := *s
	cols := s.Columns
	if len(cols) == 0 && (s.Values != nil || s.Select != nil) {
		cols = t.columns
	}
	c.Columns = append(append([]string(nil), cols...), RowIDColumn, WListColumn)
	var out []Sent
	switch {
	case s.Select != nil:
		// INSERT … SELECT: one rowId per source row, "rN." followed by the
		// source rows' rowIds (a counter on the MySQL family), unique as
		// long as the source reads each combination of rows once (no
		// DISTINCT, no UNION, no aggregate).
		// The source rows it read are not recorded: an INSERT returns no rows.
		src, ok := s.Select.(*sqlast.Select)
		if !ok || src.Distinct || hasAggregate(src) {
			return nil, fmt.Errorf("INSERT … SELECT from a compound, DISTINCT or aggregate query")
		}
		// With the hidden columns, * would give more values than the
		// target has columns.
		sc := *src
		if slices.ContainsFunc(src.Items, isStar) && !rw.expandSelectStars(&sc) {
			return nil, fmt.Errorf("INSERT … SELECT * from a table IsoRel does not know")
		}
		var pairs []pair
		for _, f := range src.From {
			_, ps, err := rw.from(f)
			if err != nil {
				return nil, err
			}
			if _, sub := f.(*sqlast.Table); !sub {
				return nil, fmt.Errorf("INSERT … SELECT from a join or derived table")
			}
			pairs = append(pairs, ps...)
		}
		if len(pairs) == 0 {
			return nil, fmt.Errorf("INSERT … SELECT without a table")
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
			tn = rw.upsertReturning(s, &c, info, tn)
		}
	default:
		rows := s.Values
		if rows == nil {
			rows = [][]sqlast.Expr{{}} // DEFAULT VALUES
		}
		c.Values = make([][]sqlast.Expr, len(rows))
		for i, row := range rows {
			id := rw.newRowID()
			info.Inserted = append(info.Inserted, id)
			c.Values[i] = append(append([]sqlast.Expr(nil), row...), str(id), rw.newWList(tn))
		}
		upsert := s.OnConflict != nil && !s.OnConflict.DoNothing
		if upsert && rw.returning {
			tn = rw.upsertReturning(s, &c, info, tn)
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
	}
	if oc := s.OnConflict; oc != nil && !oc.DoNothing {
		// The conflicting row is updated in place: its wList grows like an UPDATE's.
		nc := *oc
		nc.Set = rw.appendWList(oc.Set, s.Table, tn, "", "", nil)
		c.OnConflict = &nc
	}
	return append(out, Sent{SQL: sqlast.Format(rw.d, &c)}), nil
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

// hiddenItems returns a row's hidden columns, qualified by qual when set,
// as the pair txlab_r0, txlab_w0.
func hiddenItems(qual string) []sqlast.SelectItem {
	return []sqlast.SelectItem{
		{Expr: &sqlast.ColumnRef{Table: qual, Column: RowIDColumn}, Alias: rowAlias(0)},
		{Expr: &sqlast.ColumnRef{Table: qual, Column: WListColumn}, Alias: wlistAlias(0)},
	}
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

func and(a, b sqlast.Expr, op string) sqlast.Expr {
	if a == nil {
		return b
	}
	return &sqlast.Binary{Op: op, L: a, R: b}
}

// Setup rewrites one setup statement: CREATE TABLE gains the hidden
// columns, INSERT rows get rowIds and wList 'T0', anything else runs as
// written. It also learns the schema, so setup must go through it first.
func (rw *Rewriter) Setup(sql string) (string, Info) {
	if out, info, ok := rw.schema(sql); ok {
		return out, info
	}
	info := Info{Kind: keyword(sql)}
	st, err := sqlast.Parse(rw.d, sql)
	if err != nil {
		info.Note = "not parsed: " + err.Error()
		return rw.AsWritten(sql), info
	}
	if s, ok := st.(*sqlast.Insert); ok {
		sent, err := rw.insert(s, "T0", &info)
		if err != nil {
			info.Note = err.Error()
			return rw.AsWritten(sql), info
		}
		info.Instrumented = true
		return sent[len(sent)-1].SQL, info
	}
	return sql, info
}

// schema handles the statements that define tables and indexes, in setup
// and in steps alike: CREATE TABLE, in any of the forms people write, gets
// the two hidden columns after its last column, inserted into the text as
// written (ENGINE=InnoDB, int(11), KEY k (b) … stay as they are);
// CREATE INDEX and ALTER TABLE … ADD INDEX/KEY/UNIQUE/PRIMARY KEY run as
// written and tell the rewriter the table's keys. ok is false for other
// statements.
func (rw *Rewriter) schema(sql string) (string, Info, bool) {
	info := Info{Kind: keyword(sql)}
	switch info.Kind {
	case "CREATE":
		def, err := sqlast.ReadCreateTable(rw.d, sql)
		if err == nil {
			rw.learn(def)
			info.Instrumented = true
			return sql[:def.ColumnsEnd] + ", " + RowIDColumn + " TEXT, " + WListColumn + " TEXT" + sql[def.ColumnsEnd:], info, true
		}
		idx, ierr := sqlast.ReadIndex(rw.d, sql)
		if ierr != nil {
			info.Note = "not instrumented: " + err.Error()
			rw.schemaUnsure = true
			return sql, info, true
		}
		rw.addIndex(idx)
		return sql, info, true
	case "ALTER":
		idx, err := sqlast.ReadIndex(rw.d, sql)
		if err != nil {
			info.Note = "a schema change IsoRel does not follow: " + err.Error()
			rw.schemaUnsure = true
			return sql, info, true
		}
		rw.addIndex(idx)
		return sql, info, true
	}
	return "", info, false
}

// learn records a table's columns and keys.
func (rw *Rewriter) learn(def *sqlast.TableDef) {
	t := &table{name: def.Name, columns: def.Columns, primary: def.PrimaryKey, temporary: def.Temporary, generated: def.Generated}
	for _, ref := range def.References {
		if ref == def.Name {
			t.referenced = true
		} else if r := rw.tables[ref]; r != nil {
			r.referenced = true
		} else {
			rw.schemaUnsure = true // a table made later, or elsewhere
		}
	}
	if old := rw.tables[def.Name]; old != nil {
		t.referenced = old.referenced
	}
	if def.PrimaryKey != nil {
		t.keys = append(t.keys, def.PrimaryKey)
	}
	t.keys = append(t.keys, def.Uniques...)
	t.indexes = append(append(t.indexes, def.Uniques...), def.Indexes...)
	if rw.tables[def.Name] == nil {
		rw.order = append(rw.order, def.Name)
	}
	rw.tables[def.Name] = t
}

// addIndex records an index a statement adds to a known table.
func (rw *Rewriter) addIndex(idx *sqlast.IndexDef) {
	t := rw.tables[idx.Table]
	if t == nil || idx.Columns == nil {
		return
	}
	switch {
	case idx.Primary:
		t.primary = idx.Columns
		t.keys = append(t.keys, idx.Columns)
	case idx.Unique:
		t.keys = append(t.keys, idx.Columns)
		t.indexes = append(t.indexes, idx.Columns)
	default:
		t.indexes = append(t.indexes, idx.Columns)
	}
}

// SnapshotRead is the instrumented read of every row of a table, ordered
// by rowId so the recorded history is reproducible, with the table's own
// columns (those of its CREATE TABLE), so the rows' values can rebuild the
// state; plain is the same read as a user would write it, without the
// hidden columns.
func (rw *Rewriter) SnapshotRead(tbl string) (plain, sent string) {
	var cols []string
	if t := rw.tables[tbl]; t != nil {
		cols = t.columns
	}
	sel := &sqlast.Select{Items: columnItems(tbl, cols), From: []sqlast.TableRef{&sqlast.Table{Name: tbl}}}
	return sqlast.Format(rw.d, &sqlast.SelectStmt{Query: sel}), rw.fullRead(tbl, cols)
}

func columnItems(tbl string, cols []string) []sqlast.SelectItem {
	items := make([]sqlast.SelectItem, 0, len(cols)+2)
	for _, c := range cols {
		items = append(items, sqlast.SelectItem{Expr: &sqlast.ColumnRef{Table: tbl, Column: c}})
	}
	return items
}

func (rw *Rewriter) fullRead(tbl string, cols []string) string {
	items := append(columnItems(tbl, cols), hiddenItems(tbl)...)
	sel := &sqlast.Select{Items: items, From: []sqlast.TableRef{&sqlast.Table{Name: tbl}}}
	order := []sqlast.OrderItem{{Expr: &sqlast.ColumnRef{Column: rowAlias(0)}}}
	return sqlast.Format(rw.d, &sqlast.SelectStmt{Query: sel, OrderBy: order})
}
