package sqlast

import (
	"errors"
	"slices"
	"strings"
)

// TableDef is what a CREATE TABLE says about a table's rows, read from the
// forms people write, beyond the subset Parse accepts: column types with
// lengths and attributes (int(11) UNSIGNED, BLOB, AUTO_INCREMENT, CHARACTER
// SET, COMMENT, ...), KEY / INDEX / UNIQUE KEY / CONSTRAINT elements, table
// options (ENGINE=InnoDB DEFAULT CHARSET=latin1), partitioning, TEMPORARY,
// IF NOT EXISTS, OR REPLACE.
type TableDef struct {
	Name       string
	Columns    []string
	PrimaryKey []string   // nil when none
	Uniques    [][]string // unique keys other than the primary key
	Indexes    [][]string // non-unique indexes over plain columns
	Temporary  bool
	// References are the tables its foreign keys name; Generated its
	// columns computed from others (AS (…), GENERATED ALWAYS), which no
	// statement may assign.
	References []string
	Generated  []string
	// Acting are the tables its foreign keys name with an ON DELETE
	// action that writes its rows (CASCADE, SET NULL, SET DEFAULT): a
	// DELETE there writes here too; ActingOnUpdate those with such an ON
	// UPDATE action, where a key UPDATE does.
	Acting, ActingOnUpdate []string
	// BodyEnd is the byte offset of the ')' closing the column and
	// constraint list; ColumnsEnd that of the ',' or ')' right after the
	// last column definition: ", c INT" inserted there adds a column in
	// every dialect (SQLite wants the columns before the constraints).
	BodyEnd, ColumnsEnd int
}

// ReadCreateTable reads a CREATE TABLE statement in dialect d into a
// TableDef. It understands the table's elements only as far as its columns
// and keys go: types, defaults, checks and options are skipped, paren by
// paren. CREATE TABLE … AS SELECT and … LIKE have no element list and are
// errors, as is anything that is not CREATE TABLE.
func ReadCreateTable(d Dialect, sql string) (*TableDef, error) {
	p, err := newParser(d, sql)
	if err != nil {
		return nil, err
	}
	if err := p.expectKw("CREATE"); err != nil {
		return nil, err
	}
	if p.acceptKw("OR") {
		if err := p.expectKw("REPLACE"); err != nil {
			return nil, err
		}
	}
	def := &TableDef{}
	def.Temporary = p.acceptKw("TEMPORARY") || p.acceptKw("TEMP")
	if err := p.expectKw("TABLE"); err != nil {
		return nil, err
	}
	if p.isKw("IF") {
		p.next()
		if err := p.expectKw("NOT", "EXISTS"); err != nil {
			return nil, err
		}
	}
	if def.Name, err = p.qualifiedName(); err != nil {
		return nil, err
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	for {
		elem, err := p.element()
		if err != nil {
			return nil, err
		}
		n := len(def.Columns)
		if err := def.add(p, elem); err != nil {
			return nil, err
		}
		if len(def.Columns) > n {
			def.ColumnsEnd = p.peek().pos
		}
		if p.isOp(")") {
			def.BodyEnd = p.peek().pos
			break
		}
		if err := p.expectOp(","); err != nil {
			return nil, err
		}
	}
	// Table options and partitioning follow; they say nothing about rows
	// but must at least lex and balance.
	for p.next(); p.peek().kind != tokEOF && !p.isOp(";"); {
		if _, err := p.element(); err != nil {
			return nil, err
		}
		if !p.acceptOp(",") && p.peek().kind != tokEOF && !p.isOp(";") {
			return nil, p.errExpected("end of statement")
		}
	}
	p.acceptOp(";")
	if err := p.expectEOF(); err != nil {
		return nil, err
	}
	if len(def.Columns) == 0 {
		return nil, newParseError(sql, def.BodyEnd, "a table without columns")
	}
	return def, nil
}

// qualifiedName reads name or schema.name and returns the name.
func (p *parser) qualifiedName() (string, error) {
	name, err := p.ident("a table name")
	if err != nil {
		return "", err
	}
	for p.acceptOp(".") {
		if name, err = p.ident("a table name"); err != nil {
			return "", err
		}
	}
	return name, nil
}

// element returns the tokens up to the next ',' or ')' outside
// parentheses (not consumed); it fails on unbalanced parentheses.
func (p *parser) element() ([]token, error) {
	start, depth := p.i, 0
	for {
		t := p.peek()
		switch {
		case t.kind == tokEOF:
			if depth > 0 {
				return nil, p.errExpected("')'")
			}
			return p.toks[start:p.i], nil
		case isOp(t, "("):
			depth++
		case isOp(t, ")"):
			if depth == 0 {
				return p.toks[start:p.i], nil
			}
			depth--
		case isOp(t, ",") && depth == 0:
			return p.toks[start:p.i], nil
		}
		p.next()
	}
}

// add records one element of the table: a column or a constraint.
func (def *TableDef) add(p *parser, elem []token) error {
	if len(elem) == 0 {
		return p.errExpected("a column or a constraint")
	}
	kw := func(i int, words ...string) bool {
		return i < len(elem) && elem[i].kind == tokWord && containsFold(words, elem[i].text)
	}
	for j := range elem {
		if kw(j, "REFERENCES") && j+1 < len(elem) && (elem[j+1].kind == tokWord || elem[j+1].kind == tokQIdent) {
			ref := lastNamePart(elem[j+1:])
			def.References = append(def.References, ref)
			for k := j + 2; k+2 < len(elem) && !kw(k, "REFERENCES"); k++ {
				switch {
				case !kw(k, "ON") || !kw(k+2, "CASCADE", "SET"):
				case kw(k+1, "DELETE"):
					def.Acting = append(def.Acting, ref)
				case kw(k+1, "UPDATE"):
					def.ActingOnUpdate = append(def.ActingOnUpdate, ref)
				}
			}
		}
	}
	i := 0
	if kw(0, "CONSTRAINT") {
		i = 1
		if !kw(1, "PRIMARY", "UNIQUE", "FOREIGN", "CHECK", "EXCLUDE") {
			i = 2 // the constraint's name
		}
	}
	switch {
	case kw(i, "PRIMARY") && kw(i+1, "KEY"):
		def.PrimaryKey = keyColumns(elem[i+2:])
	case kw(i, "UNIQUE"):
		if cols := keyColumns(elem[i+1:]); cols != nil {
			def.Uniques = append(def.Uniques, cols)
		}
	case kw(i, "KEY", "INDEX") && p.d == MySQL:
		// Only MySQL writes an index inside CREATE TABLE, and there both
		// words are reserved; elsewhere a column may be named key or index.
		if cols := keyColumns(elem[i+1:]); cols != nil {
			def.Indexes = append(def.Indexes, cols)
		}
	case kw(i, "FOREIGN", "CHECK", "LIKE"),
		kw(i, "FULLTEXT", "SPATIAL") && p.d == MySQL,
		kw(i, "PERIOD") && kw(i+1, "FOR"),
		kw(i, "EXCLUDE") && p.d == Postgres && (kw(i+1, "USING") || i+1 < len(elem) && isOp(elem[i+1], "(")):
		// A word that PostgreSQL or SQLite does not reserve (exclude,
		// period, fulltext) starts a constraint only where it is one.
		// Nothing that identifies rows (LIKE t inside the parentheses
		// copies another table: its columns are unknown here).
		if kw(i, "LIKE") {
			return p.errAt(elem[i], "CREATE TABLE (LIKE …) is not understood")
		}
	case i > 0:
		return p.errAt(elem[0], "a constraint that is not understood")
	default:
		if !isIdentTok(elem[0]) && elem[0].kind != tokWord {
			return p.errAt(elem[0], "expected a column name, found %s", elem[0])
		}
		name := elem[0].text
		def.Columns = append(def.Columns, name)
		// Column attributes, at the top level of the element.
		depth := 0
		for j := 1; j < len(elem); j++ {
			switch {
			case isOp(elem[j], "("):
				depth++
			case isOp(elem[j], ")"):
				depth--
			case depth > 0:
			case kw(j, "PRIMARY") && kw(j+1, "KEY"):
				def.PrimaryKey = []string{name}
			case kw(j, "UNIQUE"):
				def.Uniques = append(def.Uniques, []string{name})
			case j == 1 && kw(j, "SERIAL") && p.d == MySQL:
				// BIGINT UNSIGNED NOT NULL AUTO_INCREMENT UNIQUE.
				def.Uniques = append(def.Uniques, []string{name})
			case kw(j, "GENERATED") || kw(j, "AS") && j+1 < len(elem) && isOp(elem[j+1], "("):
				if !slices.Contains(def.Generated, name) {
					def.Generated = append(def.Generated, name)
				}
			}
		}
	}
	return nil
}

// lastNamePart is the last part of the name schema.name (or name) that
// toks start with.
func lastNamePart(toks []token) string {
	name := toks[0].text
	for i := 1; i+1 < len(toks) && isOp(toks[i], "."); i += 2 {
		name = toks[i+1].text
	}
	return name
}

// keyColumns reads [name] [USING method] (col [(len)] [ASC|DESC], ...) and
// returns the column names; nil when a part is an expression (a functional
// index says nothing about plain columns).
func keyColumns(toks []token) []string {
	i := 0
	for i < len(toks) && !isOp(toks[i], "(") {
		i++ // KEY/INDEX, the index name, USING BTREE
	}
	if i == len(toks) {
		return nil
	}
	var cols []string
	depth := 0
	expectName := true
	for _, t := range toks[i+1:] {
		switch {
		case isOp(t, "("):
			if expectName {
				return nil // an expression
			}
			depth++
		case isOp(t, ")"):
			if depth == 0 {
				return cols
			}
			depth--
		case depth > 0:
		case isOp(t, ","):
			expectName = true
		case expectName:
			if t.kind != tokWord && t.kind != tokQIdent {
				return nil
			}
			cols = append(cols, t.text)
			expectName = false
		}
	}
	return nil
}

func containsFold(words []string, s string) bool {
	for _, w := range words {
		if strings.EqualFold(w, s) {
			return true
		}
	}
	return false
}

// IndexDef is an index or key a statement adds to a table.
type IndexDef struct {
	Table   string
	Columns []string // nil for an index over expressions
	Unique  bool
	Primary bool
}

// ReadIndex reads CREATE [UNIQUE] INDEX … ON t (…) and ALTER TABLE t ADD
// {[UNIQUE] INDEX|KEY | UNIQUE | PRIMARY KEY | CONSTRAINT c UNIQUE|PRIMARY
// KEY} … (…), the statements that add an index to a table. Other
// statements, and ALTER TABLE with more than one change, are errors.
func ReadIndex(d Dialect, sql string) (*IndexDef, error) {
	p, err := newParser(d, sql)
	if err != nil {
		return nil, err
	}
	idx := &IndexDef{}
	switch {
	case p.acceptKw("CREATE"):
		idx.Unique = p.acceptKw("UNIQUE")
		if err := p.expectKw("INDEX"); err != nil {
			return nil, err
		}
		for !p.isKw("ON") {
			if p.peek().kind == tokEOF {
				return nil, p.errExpected("ON")
			}
			p.next() // CONCURRENTLY, IF NOT EXISTS, the index name
		}
		p.next()
		p.acceptKw("ONLY")
		if idx.Table, err = p.qualifiedName(); err != nil {
			return nil, err
		}
	case p.acceptKw("ALTER"):
		if err := p.expectKw("TABLE"); err != nil {
			return nil, err
		}
		if idx.Table, err = p.qualifiedName(); err != nil {
			return nil, err
		}
		if err := p.expectKw("ADD"); err != nil {
			return nil, err
		}
		if p.acceptKw("CONSTRAINT") && !p.isKw("UNIQUE") && !p.isKw("PRIMARY") {
			p.next() // its name
		}
		switch {
		case p.acceptKw("PRIMARY"):
			if err := p.expectKw("KEY"); err != nil {
				return nil, err
			}
			idx.Primary = true
		case p.acceptKw("UNIQUE"):
			idx.Unique = true
		case p.isKw("INDEX") || p.isKw("KEY"):
		default:
			return nil, p.errExpected("INDEX, KEY, UNIQUE or PRIMARY KEY")
		}
	default:
		return nil, p.errExpected("CREATE INDEX or ALTER TABLE")
	}
	elem, err := p.element()
	if err != nil {
		return nil, err
	}
	if !p.isOp(")") && p.peek().kind != tokEOF && !p.isOp(";") {
		return nil, p.errExpected("end of statement")
	}
	idx.Columns = keyColumns(elem)
	return idx, nil
}

// InsertTarget reads the head of an INSERT or REPLACE statement: the table
// it writes, the byte offset of the token after the table's name (where a
// column list goes), and whether a column list is there already. It reads
// no further, so it works on statements Parse does not accept.
func InsertTarget(d Dialect, sql string) (table string, at int, hasColumns bool, err error) {
	p, err := newParser(d, sql)
	var pe *ParseError
	if errors.As(err, &pe) {
		// Something later does not lex (0x32, @v): the head may still.
		p, err = newParser(d, sql[:pe.Offset])
	}
	if err != nil {
		return "", 0, false, err
	}
	if !p.acceptKw("INSERT") && !p.acceptKw("REPLACE") {
		return "", 0, false, p.errExpected("INSERT or REPLACE")
	}
	for p.acceptKw("LOW_PRIORITY") || p.acceptKw("DELAYED") || p.acceptKw("HIGH_PRIORITY") || p.acceptKw("IGNORE") {
	}
	if p.acceptKw("OR") {
		p.next() // SQLite's INSERT OR REPLACE / IGNORE / ...
	}
	p.acceptKw("INTO")
	if table, err = p.qualifiedName(); err != nil {
		return "", 0, false, err
	}
	at = p.peek().pos
	hasColumns = p.isOp("(") && !isKw(p.peekAt(1), "SELECT") && !isKw(p.peekAt(1), "WITH") && !isKw(p.peekAt(1), "VALUES")
	return table, at, hasColumns, nil
}
