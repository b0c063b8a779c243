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
	"slices"
	"strconv"
	"strings"
	"sync/atomic"

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

func rowAlias(i int) string { return "txlab_r" + strconv.Itoa(i) }

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
	// actedOnDelete, actedOnUpdate: a foreign key of some table has an
	// action that writes its rows when a row here is deleted, or has its
	// key updated (fk.go).
	actedOnDelete, actedOnUpdate bool
	// exprUnique: a UNIQUE index over expressions (schemafeat.go).
	exprUnique bool
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
	// acting: a foreign key has an action that writes rows (fk.go).
	acting bool
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
	// Names says, for each rowId in Inserted whose key the statement
	// writes as a literal, what a person calls the row: its table and key
	// values, "a(id=1)" (see Rewriter.rowName).
	Names map[string]string
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
	return rw.statement(testcase.Classify(sql), txn, noView)
}

// statement is Statement for the statement of kind k (k.Of), which it
// reads through its kind: a case step's, whose parse the other readers of
// the step share. view says a SELECT may be rewritten to show its view
// (predicateSteps chose it).
func (rw *Rewriter) statement(k testcase.Kind, txn int64, view view) ([]Sent, Info) {
	sql := k.Of
	if out, info, ok := rw.schema(k); ok {
		return []Sent{{SQL: out}}, info
	}
	info := Info{Kind: k.Keyword}
	if rowless(sql, info.Kind) {
		return []Sent{{SQL: sql}}, info
	}
	// The rewrite builds new nodes where it changes any (copy on write),
	// so the shared parse stays as it is.
	st, err := k.Stmt(rw.d)
	if err != nil {
		if info.Kind == "SELECT" && readsCatalog(sql) {
			return []Sent{{SQL: sql}}, info
		}
		info.Note = "not instrumented, not parsed: " + err.Error()
		return []Sent{{SQL: rw.asWritten(k)}}, info
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
		return []Sent{{SQL: rw.asWritten(k)}}, info
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
func (rw *Rewriter) AsWritten(sql string) string { return rw.asWritten(testcase.Classify(sql)) }

// asWritten is AsWritten for the statement of kind k (k.Of).
func (rw *Rewriter) asWritten(k testcase.Kind) string {
	sql := k.Of
	switch k.Keyword {
	case "INSERT", "REPLACE":
	case "SELECT", "WITH", "(":
		return rw.visibleStars(k)
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
// session settings, savepoints, SHOW, EXPLAIN, maintenance, table locks
// (LOCK TABLE: the sibling schema's tables have the case's names).
func rowless(sql, kind string) bool {
	switch kind {
	case "SET", "SHOW", "SAVEPOINT", "RELEASE", "FLUSH", "ANALYZE", "CHECK", "OPTIMIZE", "EXPLAIN", "DESCRIBE", "DESC", "DO", "PRAGMA", "LOCK":
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

func (rw *Rewriter) stmt(st sqlast.Stmt, txn int64, info *Info, view view) ([]Sent, error) {
	tn := "T" + strconv.FormatInt(txn, 10)
	if err := crossTableErr(st); err != nil {
		return nil, err
	}
	switch s := st.(type) {
	case *sqlast.SelectStmt:
		return rw.selectStmt(s, info, view)
	case *sqlast.Update:
		return rw.update(s, tn, info)
	case *sqlast.Delete:
		return rw.delete(s, info)
	case *sqlast.Insert:
		return rw.insert(s, tn, info)
	}
	return nil, errUnsupported
}

// nameColumns are the columns that name a row of t to a person: its
// primary key, else its first unique key, else every column.
func (t *table) nameColumns() []string {
	switch {
	case t.primary != nil:
		return t.primary
	case len(t.keys) > 0:
		return t.keys[0]
	}
	return t.columns
}

// rowName renders a row of table t as a person names it, "a(id=1)" or
// "b(k=1, v='x')", from the values of its naming columns; "" when one of
// them is unknown (value returns false).
func rowName(t *table, value func(col string) (string, bool)) string {
	var b strings.Builder
	b.WriteString(t.name)
	b.WriteByte('(')
	for i, c := range t.nameColumns() {
		v, ok := value(c)
		if !ok {
			return ""
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c)
		b.WriteByte('=')
		b.WriteString(v)
	}
	b.WriteByte(')')
	return b.String()
}

// literalName names a VALUES row whose naming columns are literals.
func (rw *Rewriter) literalName(t *table, cols []string, row []sqlast.Expr) string {
	return rowName(t, func(col string) (string, bool) {
		i := slices.Index(cols, col)
		if i < 0 || i >= len(row) {
			return "", false
		}
		l, ok := row[i].(*sqlast.Literal)
		if !ok {
			return "", false
		}
		return sqlast.FormatExpr(rw.d, l), true
	})
}

// StateNames names the rows of a final state (its hidden columns still
// on, the last two of each row) by their values: rowId → "a(id=1)".
func (rw *Rewriter) StateNames(st target.State) map[string]string {
	out := map[string]string{}
	for name, rows := range st {
		t := rw.tables[name]
		if t == nil {
			continue
		}
		for _, r := range rows {
			if len(r) != len(t.columns)+2 || r[len(r)-2].Null {
				continue
			}
			n := rowName(t, func(col string) (string, bool) {
				v := r[slices.Index(t.columns, col)]
				if v.Null {
					return "NULL", true
				}
				if _, err := strconv.ParseFloat(v.S, 64); err == nil {
					return v.S, true
				}
				return sqlast.QuoteString(rw.d, v.S), true
			})
			if n != "" {
				out[r[len(r)-2].S] = n
			}
		}
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

// hiddenItems returns a row's hidden columns, qualified by qual when set,
// as the pair txlab_r0, txlab_w0.
func hiddenItems(qual string) []sqlast.SelectItem {
	return []sqlast.SelectItem{
		{Expr: &sqlast.ColumnRef{Table: qual, Column: RowIDColumn}, Alias: rowAlias(0)},
		{Expr: &sqlast.ColumnRef{Table: qual, Column: WListColumn}, Alias: wlistAlias(0)},
	}
}

func and(a, b sqlast.Expr, op string) sqlast.Expr {
	if a == nil {
		return b
	}
	return &sqlast.Binary{Op: op, L: a, R: b}
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
