package sqlast

import (
	"strconv"
	"strings"
)

// Operator precedence, lowest first. The parser uses the same table, so a
// rendered tree parses back to itself. All comparison-like constructs (binary
// comparisons, IS NULL, BETWEEN, IN) share one non-associative level: the three
// dialects order them differently (PostgreSQL puts IS below =, MySQL puts
// BETWEEN below =), so an operand at that level or below is always
// parenthesized and the differences never matter.
const (
	precOr = iota + 1
	precAnd
	precNot
	precCmp
	precAdd
	precMul
	precUnary
	precAtom
)

// binaryPrec is the precedence of each binary operator of the subset.
var binaryPrec = map[string]int{
	"OR": precOr, "AND": precAnd,
	"=": precCmp, "<>": precCmp, "<": precCmp, "<=": precCmp, ">": precCmp, ">=": precCmp,
	"+": precAdd, "-": precAdd,
	"*": precMul, "/": precMul, "%": precMul,
}

// Format renders a statement (no trailing semicolon) in dialect d. It never
// fails: constructs a dialect lacks are still rendered in their nearest
// spelling (generators avoid them; see the Supports* helpers).
func Format(d Dialect, s Stmt) string {
	p := &printer{d: d}
	p.stmt(s)
	return p.b.String()
}

// FormatExpr renders an expression in dialect d.
func FormatExpr(d Dialect, e Expr) string {
	p := &printer{d: d}
	p.expr(e, 0)
	return p.b.String()
}

// FormatQuery renders a query (SELECT or UNION) in dialect d.
func FormatQuery(d Dialect, q Query) string {
	p := &printer{d: d}
	p.query(q)
	return p.b.String()
}

// FormatType renders a column type in dialect d.
func FormatType(d Dialect, t Type) string { return formatSized(d, t, "") }

// formatSized renders a column type with its size as written ("" for the
// type's default).
func formatSized(d Dialect, t Type, size string) string {
	switch t {
	case TypeInt:
		return "INT"
	case TypeDouble:
		switch d {
		case Postgres:
			return "DOUBLE PRECISION"
		case SQLite:
			return "REAL"
		}
		return "DOUBLE"
	case TypeDecimal:
		if size != "" {
			return "DECIMAL(" + size + ")"
		}
		return "DECIMAL(10,2)"
	case TypeVarchar:
		if d == SQLite {
			return "TEXT"
		}
		if size != "" {
			return "VARCHAR(" + size + ")"
		}
		return "VARCHAR(20)"
	case TypeText:
		return "TEXT"
	case TypeBool:
		return "BOOLEAN"
	}
	// TypeNone: SQLite accepts a column without a type; the others will
	// reject the statement, which is the nearest honest spelling.
	return ""
}

// QuoteIdent renders an identifier for dialect d: as given when it is a plain
// lower-case identifier that is not a reserved word, quoted otherwise
// (`x` on the MySQL family, "x" elsewhere).
func QuoteIdent(d Dialect, name string) string {
	if isPlainIdent(name) && !reserved[name] {
		return name
	}
	q := "\""
	if d == MySQL {
		q = "`"
	}
	return q + strings.ReplaceAll(name, q, q+q) + q
}

func isPlainIdent(s string) bool {
	if s == "" {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c >= 'a' && c <= 'z', c == '_':
		case c >= '0' && c <= '9' && i > 0:
		default:
			return false
		}
	}
	return true
}

// QuoteString renders a string literal for dialect d. The MySQL family treats
// backslash as an escape character (unless NO_BACKSLASH_ESCAPES), so it is
// doubled there; a NUL byte is spelled \0 there for readability.
func QuoteString(d Dialect, s string) string {
	var b strings.Builder
	b.WriteByte('\'')
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case c == '\'':
			b.WriteString("''")
		case c == '\\' && d == MySQL:
			b.WriteString(`\\`)
		case c == 0 && d == MySQL:
			b.WriteString(`\0`)
		default:
			b.WriteByte(c)
		}
	}
	b.WriteByte('\'')
	return b.String()
}

type printer struct {
	d Dialect
	b strings.Builder
	// full parenthesizes every non-atomic operand; tests compare its
	// result with the minimal rendering on real servers.
	full bool
}

// formatExprFull renders e with every non-atomic operand parenthesized.
func formatExprFull(d Dialect, e Expr) string {
	p := &printer{d: d, full: true}
	p.expr(e, 0)
	return p.b.String()
}

func (p *printer) w(s string)     { p.b.WriteString(s) }
func (p *printer) ident(s string) { p.w(QuoteIdent(p.d, s)) }

func (p *printer) idents(names []string) {
	p.w("(")
	for i, n := range names {
		if i > 0 {
			p.w(", ")
		}
		p.ident(n)
	}
	p.w(")")
}

func (p *printer) stmt(s Stmt) {
	switch s := s.(type) {
	case *CreateTable:
		p.createTable(s)
	case *CreateIndex:
		p.createIndex(s)
	case *CreateSequence:
		p.createSequence(s)
	case *Insert:
		p.insert(s)
	case *Update:
		p.update(s)
	case *Delete:
		p.delete(s)
	case *Merge:
		p.merge(s)
	case *With:
		p.with(s)
	case *SelectStmt:
		p.selectStmt(s)
	case *Begin:
		p.w("BEGIN")
	case *Commit:
		p.w("COMMIT")
	case *Rollback:
		p.w("ROLLBACK")
	case *Savepoint:
		p.w("SAVEPOINT ")
		p.ident(s.Name)
	case *RollbackTo:
		p.w("ROLLBACK TO SAVEPOINT ")
		p.ident(s.Name)
	case *ReleaseSavepoint:
		p.w("RELEASE SAVEPOINT ")
		p.ident(s.Name)
	case *LockTable:
		p.lockTable(s)
	case *Raw:
		p.w(s.SQL)
	case nil:
	default:
		p.w("/* unknown statement */")
	}
}

func (p *printer) createTable(s *CreateTable) {
	p.w("CREATE TABLE ")
	p.ident(s.Name)
	p.w(" (")
	n := 0
	sep := func() {
		if n > 0 {
			p.w(", ")
		}
		n++
	}
	for _, c := range s.Columns {
		sep()
		p.ident(c.Name)
		if t := columnType(p.d, &c); t != "" {
			p.w(" " + t)
		}
		p.columnFeatures(&c)
		if c.NotNull {
			p.w(" NOT NULL")
		}
		if c.PrimaryKey {
			p.w(" PRIMARY KEY")
			if c.AutoIncrement && p.d == SQLite {
				p.w(" AUTOINCREMENT")
			}
		}
		if c.Unique {
			p.w(" UNIQUE")
		}
		if c.AutoIncrement && p.d == MySQL {
			p.w(" AUTO_INCREMENT")
		}
		if c.Default != nil {
			p.w(" DEFAULT ")
			// A bare literal is a DEFAULT all dialects accept; anything else
			// is parenthesized, which MySQL ≥ 8.0.13 requires for expressions.
			if isDefaultLiteral(c.Default) {
				p.expr(c.Default, 0)
			} else {
				p.w("(")
				p.expr(c.Default, 0)
				p.w(")")
			}
		}
		if c.Check != nil {
			p.w(" CHECK (")
			p.expr(c.Check, 0)
			p.w(")")
		}
		if c.References != nil && p.d != MySQL {
			p.w(" ")
			p.foreignKey(c.References, nil)
		}
	}
	if len(s.PrimaryKey) > 0 {
		sep()
		p.w("PRIMARY KEY ")
		p.idents(s.PrimaryKey)
	}
	for _, u := range s.Uniques {
		sep()
		p.w("UNIQUE ")
		p.idents(u)
	}
	for _, c := range s.Checks {
		sep()
		p.w("CHECK (")
		p.expr(c, 0)
		p.w(")")
	}
	if p.d == MySQL {
		// Elsewhere an index is a statement of its own; it changes no
		// result.
		for _, k := range s.Indexes {
			sep()
			p.w("KEY ")
			p.idents(k)
		}
		// InnoDB ignores a column's REFERENCES (fk.go): it is written
		// as a table-level foreign key.
		for _, c := range s.Columns {
			if c.References != nil {
				sep()
				p.foreignKey(c.References, []string{c.Name})
			}
		}
	}
	for i := range s.ForeignKeys {
		sep()
		p.foreignKey(&s.ForeignKeys[i], s.ForeignKeys[i].Columns)
	}
	p.w(")")
	if p.d == MySQL && s.Charset != "" {
		p.w(" DEFAULT CHARSET=" + s.Charset)
	}
	if p.d == MySQL && s.Collate != "" {
		p.w(" COLLATE=" + s.Collate)
	}
}

// isDefaultLiteral reports whether e renders as a bare (possibly signed)
// literal, the only DEFAULT form written without parentheses.
func isDefaultLiteral(e Expr) bool {
	switch e := e.(type) {
	case *Literal:
		return true
	case *Unary:
		l, ok := e.X.(*Literal)
		return ok && e.Op == "-" && (l.Kind == LitInt || l.Kind == LitFloat) && !strings.HasPrefix(l.Text, "-")
	}
	return false
}

func (p *printer) insert(s *Insert) {
	p.insertBody(s)
	p.returning(s.Returning)
}

func (p *printer) returning(items []SelectItem) {
	if len(items) > 0 {
		p.w(" RETURNING ")
		p.selectItems(items)
	}
}

func (p *printer) insertBody(s *Insert) {
	oc := s.OnConflict
	switch {
	case s.Replace:
		p.w("REPLACE INTO ")
	case p.d == MySQL && oc != nil && oc.DoNothing && (oc.Ignore || mysqlNoopColumn(s) == ""):
		// No column to spell the no-op update with: INSERT IGNORE is the
		// nearest, though it also downgrades other errors to warnings.
		p.w("INSERT IGNORE INTO ")
	default:
		p.w("INSERT INTO ")
	}
	p.ident(s.Table)
	switch {
	case s.Values == nil && s.Select == nil:
		if p.d == MySQL {
			p.w(" () VALUES ()")
		} else {
			p.w(" DEFAULT VALUES")
		}
	default:
		if len(s.Columns) > 0 {
			p.w(" ")
			p.idents(s.Columns)
		}
		if s.Select != nil {
			p.w(" ")
			p.query(s.Select)
		} else {
			p.w(" VALUES ")
			for i, row := range s.Values {
				if i > 0 {
					p.w(", ")
				}
				p.w("(")
				p.exprList(row)
				p.w(")")
			}
		}
	}
	if oc == nil {
		return
	}
	if p.d == MySQL {
		if oc.DoNothing {
			if c := mysqlNoopColumn(s); c != "" && !oc.Ignore {
				// A no-op update touches only duplicate-key conflicts, like
				// ON CONFLICT DO NOTHING; INSERT IGNORE would also swallow
				// NOT NULL, CHECK and conversion errors.
				p.w(" ON DUPLICATE KEY UPDATE ")
				p.ident(c)
				p.w(" = ")
				p.ident(c)
			}
			return
		}
		p.w(" ON DUPLICATE KEY UPDATE ")
		p.assignments(oc.Set)
		return
	}
	p.w(" ON CONFLICT")
	if len(oc.Columns) > 0 {
		p.w(" ")
		p.idents(oc.Columns)
	}
	if oc.DoNothing {
		p.w(" DO NOTHING")
		return
	}
	p.w(" DO UPDATE SET ")
	p.assignments(oc.Set)
}

// mysqlNoopColumn is the column used to spell DO NOTHING on the MySQL family
// as ON DUPLICATE KEY UPDATE c = c: the first conflict column, else the first
// inserted column, else none.
func mysqlNoopColumn(s *Insert) string {
	if len(s.OnConflict.Columns) > 0 {
		return s.OnConflict.Columns[0]
	}
	if len(s.Columns) > 0 {
		return s.Columns[0]
	}
	return ""
}

func (p *printer) assignments(set []Assignment) {
	for i, a := range set {
		if i > 0 {
			p.w(", ")
		}
		if a.Table != "" {
			p.ident(a.Table)
			p.w(".")
		}
		p.ident(a.Column)
		p.w(" = ")
		// A comparison as the value would read as a chained `=`: parenthesize.
		p.expr(a.Value, precCmp+1)
	}
}

func (p *printer) where(e Expr) {
	if e != nil {
		p.w(" WHERE ")
		p.expr(e, 0)
	}
}

func (p *printer) selectStmt(s *SelectStmt) {
	p.query(s.Query)
	if len(s.OrderBy) > 0 {
		p.w(" ORDER BY ")
		for i, o := range s.OrderBy {
			if i > 0 {
				p.w(", ")
			}
			p.expr(o.Expr, 0)
			if o.Desc {
				p.w(" DESC")
			}
		}
	}
	if s.Limit != nil {
		p.w(" LIMIT " + strconv.Itoa(*s.Limit))
	}
	switch s.Lock {
	case LockShare:
		if s.ShareMode != nil && *s.ShareMode || s.ShareMode == nil && p.d == MySQL {
			// MariaDB lacks FOR SHARE; LOCK IN SHARE MODE works on all of the family.
			p.w(" LOCK IN SHARE MODE")
		} else {
			p.w(" FOR SHARE")
		}
	case LockUpdate:
		p.w(" FOR UPDATE")
	case LockNoKeyUpdate:
		p.w(" FOR NO KEY UPDATE")
	case LockKeyShare:
		p.w(" FOR KEY SHARE")
	}
	if s.Lock != LockNone {
		switch s.Wait {
		case WaitNowait:
			p.w(" NOWAIT")
		case WaitSkipLocked:
			p.w(" SKIP LOCKED")
		}
	}
}

func (p *printer) query(q Query) {
	switch q := q.(type) {
	case *Select:
		p.sel(q)
	case *SetOp:
		p.query(q.Left)
		p.w(" " + strings.ToUpper(q.Op) + " ")
		// Set operations are left-associative with one precedence, so only
		// a compound right operand needs parentheses (SQLite rejects them:
		// generators keep unions left-deep there).
		if _, ok := q.Right.(*SetOp); ok {
			p.w("(")
			p.query(q.Right)
			p.w(")")
		} else {
			p.query(q.Right)
		}
	case nil:
	default:
		p.w("/* unknown query */")
	}
}

func (p *printer) sel(s *Select) {
	p.w("SELECT ")
	if s.Distinct {
		p.w("DISTINCT ")
	}
	p.selectItems(s.Items)
	if len(s.From) > 0 {
		p.w(" FROM ")
		for i, f := range s.From {
			if i > 0 {
				p.w(", ")
			}
			p.tableRef(f)
		}
	}
	p.where(s.Where)
}

func (p *printer) selectItems(items []SelectItem) {
	for i, it := range items {
		if i > 0 {
			p.w(", ")
		}
		switch {
		case it.Star && it.Table != "":
			p.ident(it.Table)
			p.w(".*")
		case it.Star:
			p.w("*")
		default:
			p.expr(it.Expr, 0)
			if it.Alias != "" {
				p.w(" AS ")
				p.ident(it.Alias)
			}
		}
	}
}

func (p *printer) tableRef(t TableRef) {
	switch t := t.(type) {
	case *Table:
		p.ident(t.Name)
		if t.Alias != "" {
			p.w(" AS ")
			p.ident(t.Alias)
		}
	case *Subquery:
		p.w("(")
		p.query(t.Query)
		p.w(")")
		if t.Alias != "" {
			p.w(" AS ")
			p.ident(t.Alias)
		}
	case *Join:
		p.tableRef(t.Left)
		kind := strings.ToUpper(t.Kind)
		if kind == "" {
			kind = "JOIN"
		}
		p.w(" " + kind + " ")
		// Joins are left-associative: a join on the right needs parentheses.
		if _, ok := t.Right.(*Join); ok {
			p.w("(")
			p.tableRef(t.Right)
			p.w(")")
		} else {
			p.tableRef(t.Right)
		}
		if t.On != nil {
			p.w(" ON ")
			p.expr(t.On, 0)
		}
	case nil:
	default:
		p.w("/* unknown table reference */")
	}
}

func (p *printer) exprList(es []Expr) {
	for i, e := range es {
		if i > 0 {
			p.w(", ")
		}
		p.expr(e, 0)
	}
}

// exprPrec is the precedence of e as rendered at its top level.
func exprPrec(e Expr) int {
	switch e := e.(type) {
	case *Binary:
		if p, ok := binaryPrec[strings.ToUpper(e.Op)]; ok {
			return p
		}
		return precCmp
	case *Unary:
		if e.Op == "-" {
			return precUnary
		}
		return precNot
	case *IsNull, *Between, *In:
		return precCmp
	case *Exists:
		if e.Not {
			return precNot
		}
	case *Literal:
		// A negative number is a unary minus as far as neighbours are
		// concerned (NOT -1 would be ambiguous to a reader at least).
		if strings.HasPrefix(e.Text, "-") && (e.Kind == LitInt || e.Kind == LitFloat) {
			return precUnary
		}
	}
	return precAtom
}

// expr renders e, parenthesized when its precedence is below min.
func (p *printer) expr(e Expr, min int) {
	if exprPrec(e) < min || p.full && min > 0 && exprPrec(e) < precAtom {
		p.w("(")
		p.expr(e, 0)
		p.w(")")
		return
	}
	switch e := e.(type) {
	case *ColumnRef:
		if e.Table != "" {
			p.ident(e.Table)
			p.w(".")
		}
		p.ident(e.Column)
	case *Literal:
		p.literal(e)
	case *Binary:
		prec := exprPrec(e)
		left := prec
		if prec == precCmp {
			left = prec + 1 // non-associative
		}
		p.expr(e.L, left)
		p.w(" " + strings.ToUpper(e.Op) + " ")
		p.expr(e.R, prec+1)
	case *Unary:
		if e.Op == "-" {
			// Never let two minus signs touch: "--" starts a comment.
			q := &printer{d: p.d, full: p.full}
			q.expr(e.X, 0)
			inner := q.b.String()
			if exprPrec(e.X) < precUnary || strings.HasPrefix(inner, "-") {
				p.w("-(" + inner + ")")
			} else {
				p.w("-" + inner)
			}
			return
		}
		p.w("NOT")
		// NOT (x) unless x is atomic, so the operand never depends on where
		// a dialect places NOT among the comparison operators.
		if exprPrec(e.X) == precAtom {
			p.w(" ")
			p.expr(e.X, 0)
		} else {
			p.w(" (")
			p.expr(e.X, 0)
			p.w(")")
		}
	case *IsNull:
		p.expr(e.X, precCmp+1)
		if e.Not {
			p.w(" IS NOT NULL")
		} else {
			p.w(" IS NULL")
		}
	case *Between:
		p.expr(e.X, precCmp+1)
		if e.Not {
			p.w(" NOT")
		}
		p.w(" BETWEEN ")
		p.expr(e.Lo, precCmp+1)
		p.w(" AND ")
		p.expr(e.Hi, precCmp+1)
	case *In:
		p.expr(e.X, precCmp+1)
		if e.Not {
			p.w(" NOT")
		}
		p.w(" IN (")
		if e.Sub != nil {
			p.query(e.Sub)
		} else {
			p.exprList(e.List)
		}
		p.w(")")
	case *Exists:
		if e.Not {
			p.w("NOT ")
		}
		p.w("EXISTS (")
		p.query(e.Sub)
		p.w(")")
	case *ScalarSubquery:
		p.w("(")
		p.query(e.Sub)
		p.w(")")
	case *Func:
		p.w(strings.ToUpper(e.Name))
		p.w("(")
		if e.Star {
			p.w("*")
		} else {
			p.exprList(e.Args)
		}
		p.w(")")
	case *Excluded:
		if p.d == MySQL {
			p.w("VALUES(")
			p.ident(e.Column)
			p.w(")")
		} else {
			p.w("EXCLUDED.")
			p.ident(e.Column)
		}
	case *Concat:
		if p.d == MySQL {
			p.w("CONCAT(")
			p.expr(e.L, 0)
			p.w(", ")
			p.expr(e.R, 0)
			p.w(")")
			return
		}
		// The dialects rank || differently (SQLite above *, PostgreSQL
		// below +), so the whole and every non-atomic operand are
		// parenthesized.
		p.w("(")
		p.expr(e.L, precAtom)
		p.w(" || ")
		p.expr(e.R, precAtom)
		p.w(")")
	case *Raw:
		p.w(e.SQL)
	case *Case:
		p.w("CASE")
		if e.Operand != nil {
			p.w(" ")
			p.expr(e.Operand, 0)
		}
		for _, w := range e.Whens {
			p.w(" WHEN ")
			p.expr(w.Cond, 0)
			p.w(" THEN ")
			p.expr(w.Result, 0)
		}
		if e.Else != nil {
			p.w(" ELSE ")
			p.expr(e.Else, 0)
		}
		p.w(" END")
	case *Var:
		if e.Assign != nil {
			p.w("(@" + e.Name + " := ")
			p.expr(e.Assign, 0)
			p.w(")")
		} else {
			p.w("@" + e.Name)
		}
	case nil:
		p.w("NULL")
	default:
		p.w("/* unknown expression */")
	}
}

func (p *printer) literal(l *Literal) {
	switch l.Kind {
	case LitNull:
		p.w("NULL")
	case LitString:
		p.w(QuoteString(p.d, l.Text))
	case LitBool:
		if strings.EqualFold(l.Text, "true") {
			p.w("TRUE")
		} else {
			p.w("FALSE")
		}
	default:
		p.w(l.Text)
	}
}

// reserved lists the words that are quoted when used as identifiers: every
// keyword of the subset's grammar plus the common reserved words of the three
// dialects, so a rendered identifier never reads as a keyword anywhere.
var reserved = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields(`
		add all alter analyze and any array as asc begin between both by
		call case cast check collate column commit conflict constraint create cross
		current current_date current_time current_timestamp current_user
		database default deferrable delete desc describe distinct div do drop
		duplicate else end escape except excluded exists explain false fetch
		for foreign from full grant group having if ignore in index inner
		insert intersect interval into is isnull join key left like limit
		lock match mod mode natural not nothing notnull null of offset on or
		order outer over partition precision primary range recursive
		references regexp rename replace returning right rlike rollback row rows
		select set share some start table then to trailing transaction true union unique
		update using values when where window with work xor
	`) {
		m[w] = true
	}
	return m
}()
