package sqlast

import (
	"strconv"
	"strings"
)

// Parse parses exactly one statement of the subset in dialect d; a trailing
// ';' is allowed. Errors are *ParseError values saying where and what was
// expected. Parse never produces Raw.
func Parse(d Dialect, sql string) (Stmt, error) {
	p, err := newParser(d, sql)
	if err != nil {
		return nil, err
	}
	s, err := p.stmt()
	if err != nil {
		return nil, err
	}
	p.acceptOp(";")
	if err := p.expectEOF(); err != nil {
		return nil, err
	}
	return s, nil
}

// ParseExpr parses exactly one expression of the subset in dialect d.
func ParseExpr(d Dialect, sql string) (Expr, error) {
	p, err := newParser(d, sql)
	if err != nil {
		return nil, err
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	if err := p.expectEOF(); err != nil {
		return nil, err
	}
	return e, nil
}

// parser is a recursive-descent parser over the token slice. Precedence
// levels match format.go so that rendering and parsing agree.
type parser struct {
	d    Dialect
	src  string
	toks []token
	i    int
	// depth bounds recursion so hostile inputs fail instead of exhausting
	// the stack.
	depth int
}

const maxDepth = 200

func newParser(d Dialect, sql string) (*parser, error) {
	toks, err := lex(d, sql)
	if err != nil {
		return nil, err
	}
	return &parser{d: d, src: sql, toks: toks}, nil
}

func (p *parser) peek() token { return p.toks[p.i] }
func (p *parser) peekAt(n int) token {
	if p.i+n < len(p.toks) {
		return p.toks[p.i+n]
	}
	return p.toks[len(p.toks)-1]
}
func (p *parser) next() token {
	t := p.toks[p.i]
	if t.kind != tokEOF {
		p.i++
	}
	return t
}

func (p *parser) errAt(t token, format string, args ...any) error {
	return newParseError(p.src, t.pos, format, args...)
}

// errExpected reports that what was expected is not at the current token.
func (p *parser) errExpected(what string) error {
	t := p.peek()
	return p.errAt(t, "expected %s, found %s", what, t)
}

func isKw(t token, kw string) bool { return t.kind == tokWord && asciiLower(t.text) == asciiLower(kw) }
func isOp(t token, op string) bool { return t.kind == tokOp && t.text == op }

func (p *parser) isKw(kw string) bool { return isKw(p.peek(), kw) }
func (p *parser) isOp(op string) bool { return isOp(p.peek(), op) }

func (p *parser) acceptKw(kw string) bool {
	if p.isKw(kw) {
		p.i++
		return true
	}
	return false
}

func (p *parser) acceptOp(op string) bool {
	if p.isOp(op) {
		p.i++
		return true
	}
	return false
}

func (p *parser) expectKw(kws ...string) error {
	for _, kw := range kws {
		if !p.acceptKw(kw) {
			return p.errExpected(kw)
		}
	}
	return nil
}

func (p *parser) expectOp(op string) error {
	if !p.acceptOp(op) {
		return p.errExpected("'" + op + "'")
	}
	return nil
}

func (p *parser) expectEOF() error {
	if p.peek().kind != tokEOF {
		return p.errExpected("end of statement")
	}
	return nil
}

func (p *parser) enter() error {
	p.depth++
	if p.depth > maxDepth {
		return p.errAt(p.peek(), "expression nested too deeply")
	}
	return nil
}

func (p *parser) leave() { p.depth-- }

// isIdentTok reports whether t can be an identifier: quoted, or a word that
// is not reserved.
func isIdentTok(t token) bool {
	return t.kind == tokQIdent || t.kind == tokWord && !reserved[asciiLower(t.text)]
}

// ident reads an identifier. PostgreSQL folds unquoted names to lower case;
// the others keep them as written.
func (p *parser) ident(what string) (string, error) {
	t := p.peek()
	if !isIdentTok(t) {
		return "", p.errExpected(what)
	}
	p.i++
	if t.kind == tokWord && p.d == Postgres {
		return asciiLower(t.text), nil
	}
	return t.text, nil
}

func (p *parser) identList(what string) ([]string, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	var out []string
	for {
		n, err := p.ident(what)
		if err != nil {
			return nil, err
		}
		out = append(out, n)
		if !p.acceptOp(",") {
			break
		}
	}
	return out, p.expectOp(")")
}

// ---- statements ----

func (p *parser) stmt() (Stmt, error) {
	t := p.peek()
	switch {
	case isKw(t, "SELECT"):
		return p.selectStmt()
	case isKw(t, "INSERT"), isKw(t, "REPLACE"):
		return p.insert()
	case isKw(t, "UPDATE"):
		return p.update()
	case isKw(t, "DELETE"):
		return p.delete()
	case isKw(t, "CREATE"):
		return p.create()
	case isKw(t, "MERGE"):
		return p.merge()
	case isKw(t, "WITH"):
		return p.with()
	case isKw(t, "BEGIN"):
		p.next()
		if !p.acceptKw("TRANSACTION") {
			p.acceptKw("WORK")
		}
		return &Begin{}, nil
	case isKw(t, "START"):
		p.next()
		return &Begin{}, p.expectKw("TRANSACTION")
	case isKw(t, "COMMIT"):
		p.next()
		if !p.acceptKw("TRANSACTION") {
			p.acceptKw("WORK")
		}
		return &Commit{}, nil
	case isKw(t, "ROLLBACK"):
		p.next()
		if !p.acceptKw("TRANSACTION") {
			p.acceptKw("WORK")
		}
		if p.acceptKw("TO") {
			p.acceptKw("SAVEPOINT")
			name, err := p.ident("a savepoint name")
			return &RollbackTo{Name: name}, err
		}
		return &Rollback{}, nil
	case isKw(t, "SAVEPOINT"):
		p.next()
		name, err := p.ident("a savepoint name")
		return &Savepoint{Name: name}, err
	case isKw(t, "RELEASE"):
		p.next()
		p.acceptKw("SAVEPOINT")
		name, err := p.ident("a savepoint name")
		return &ReleaseSavepoint{Name: name}, err
	case isKw(t, "LOCK"):
		return p.lockTable()
	}
	return nil, p.errExpected("a statement (SELECT, INSERT, REPLACE, UPDATE, DELETE, MERGE, WITH, CREATE, BEGIN, START TRANSACTION, COMMIT, ROLLBACK, SAVEPOINT or RELEASE)")
}

func (p *parser) selectStmt() (*SelectStmt, error) {
	q, err := p.query()
	if err != nil {
		return nil, err
	}
	s := &SelectStmt{Query: q}
	if p.acceptKw("ORDER") {
		if err := p.expectKw("BY"); err != nil {
			return nil, err
		}
		for {
			e, err := p.expr()
			if err != nil {
				return nil, err
			}
			o := OrderItem{Expr: e}
			if p.acceptKw("DESC") {
				o.Desc = true
			} else {
				p.acceptKw("ASC")
			}
			s.OrderBy = append(s.OrderBy, o)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("LIMIT") {
		t := p.peek()
		if t.kind != tokNumber {
			return nil, p.errExpected("a row count after LIMIT")
		}
		n, err := strconv.Atoi(t.text)
		if err != nil || n < 0 {
			return nil, p.errAt(t, "LIMIT must be a non-negative integer, found %s", t)
		}
		p.next()
		s.Limit = &n
	}
	switch {
	case p.isKw("FOR"):
		p.next()
		switch {
		case p.acceptKw("UPDATE"):
			s.Lock = LockUpdate
		case p.acceptKw("SHARE"):
			s.Lock = LockShare
			if p.d == MySQL {
				s.ShareMode = new(bool) // not the family's usual spelling
			}
		case p.d == Postgres && p.isKw("NO"):
			p.next()
			if err := p.expectKw("KEY", "UPDATE"); err != nil {
				return nil, err
			}
			s.Lock = LockNoKeyUpdate
		case p.d == Postgres && p.isKw("KEY"):
			p.next()
			if err := p.expectKw("SHARE"); err != nil {
				return nil, err
			}
			s.Lock = LockKeyShare
		default:
			return nil, p.errExpected("UPDATE or SHARE after FOR")
		}
	case p.isKw("LOCK"):
		p.next()
		if err := p.expectKw("IN", "SHARE", "MODE"); err != nil {
			return nil, err
		}
		s.Lock = LockShare
		if p.d != MySQL {
			mode := true
			s.ShareMode = &mode
		}
	}
	if s.Lock != LockNone && p.d != SQLite {
		switch {
		case p.acceptKw("NOWAIT"):
			s.Wait = WaitNowait
		case p.isKw("SKIP"):
			p.next()
			if err := p.expectKw("LOCKED"); err != nil {
				return nil, err
			}
			s.Wait = WaitSkipLocked
		}
	}
	return s, nil
}

func (p *parser) insert() (*Insert, error) {
	s, err := p.insertBody()
	if err != nil {
		return nil, err
	}
	s.Returning, err = p.returning()
	return s, err
}

// returning reads an optional RETURNING clause of DELETE or INSERT.
func (p *parser) returning() ([]SelectItem, error) {
	if !p.acceptKw("RETURNING") {
		return nil, nil
	}
	return commaList(p, p.selectItem)
}

// commaList reads one or more items separated by ','.
func commaList[T any](p *parser, item func() (T, error)) ([]T, error) {
	var out []T
	for {
		it, err := item()
		if err != nil {
			return nil, err
		}
		out = append(out, it)
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

func (p *parser) insertBody() (*Insert, error) {
	s := &Insert{}
	ignore := false
	if p.acceptKw("REPLACE") {
		s.Replace = true
	} else {
		p.next() // INSERT
		if p.d == MySQL && p.acceptKw("IGNORE") {
			ignore = true
		}
	}
	if err := p.expectKw("INTO"); err != nil {
		return nil, err
	}
	var err error
	if s.Table, err = p.ident("a table name"); err != nil {
		return nil, err
	}
	switch {
	case p.acceptKw("DEFAULT"):
		if err := p.expectKw("VALUES"); err != nil {
			return nil, err
		}
	case p.d == MySQL && p.isOp("(") && isOp(p.peekAt(1), ")"):
		// MySQL's spelling of DEFAULT VALUES: () VALUES ().
		p.i += 2
		if err := p.expectKw("VALUES"); err != nil {
			return nil, err
		}
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
	default:
		if p.isOp("(") && !isKw(p.peekAt(1), "SELECT") {
			if s.Columns, err = p.identList("a column name"); err != nil {
				return nil, err
			}
		}
		switch {
		case p.acceptKw("VALUES"):
			for {
				if err := p.expectOp("("); err != nil {
					return nil, err
				}
				row, err := p.exprList()
				if err != nil {
					return nil, err
				}
				if err := p.expectOp(")"); err != nil {
					return nil, err
				}
				s.Values = append(s.Values, row)
				if !p.acceptOp(",") {
					break
				}
			}
		case p.isKw("SELECT"):
			if s.Select, err = p.query(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errExpected("VALUES or SELECT")
		}
	}
	if ignore {
		s.OnConflict = &OnConflict{DoNothing: true, Ignore: true}
	}
	if p.d == MySQL {
		if p.acceptKw("ON") {
			if ignore {
				return nil, p.errAt(p.toks[p.i-1], "INSERT IGNORE with ON DUPLICATE KEY UPDATE is not supported")
			}
			if err := p.expectKw("DUPLICATE", "KEY", "UPDATE"); err != nil {
				return nil, err
			}
			set, err := p.assignments()
			if err != nil {
				return nil, err
			}
			s.OnConflict = &OnConflict{Set: set}
			// ON DUPLICATE KEY UPDATE c = c is how Format spells DO NOTHING.
			if len(set) == 1 {
				if c, ok := set[0].Value.(*ColumnRef); ok && c.Table == "" && c.Column == set[0].Column {
					s.OnConflict = &OnConflict{Columns: []string{c.Column}, DoNothing: true}
				}
			}
		}
		return s, nil
	}
	if p.isKw("ON") && isKw(p.peekAt(1), "CONFLICT") {
		p.i += 2
		oc := &OnConflict{}
		if p.isOp("(") {
			if oc.Columns, err = p.identList("a column name"); err != nil {
				return nil, err
			}
		}
		if err := p.expectKw("DO"); err != nil {
			return nil, err
		}
		switch {
		case p.acceptKw("NOTHING"):
			oc.DoNothing = true
		case p.acceptKw("UPDATE"):
			if err := p.expectKw("SET"); err != nil {
				return nil, err
			}
			if oc.Set, err = p.assignments(); err != nil {
				return nil, err
			}
		default:
			return nil, p.errExpected("NOTHING or UPDATE after DO")
		}
		s.OnConflict = oc
	}
	return s, nil
}

func (p *parser) assignments() ([]Assignment, error) {
	var out []Assignment
	for {
		c, err := p.ident("a column name")
		if err != nil {
			return nil, err
		}
		if err := p.expectOp("="); err != nil {
			return nil, err
		}
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		out = append(out, Assignment{Column: c, Value: v})
		if !p.acceptOp(",") {
			return out, nil
		}
	}
}

func (p *parser) update() (*Update, error) {
	p.next()
	if p.d == MySQL && !isKw(p.peekAt(1), "SET") {
		return p.mysqlMultiUpdate()
	}
	s := &Update{}
	var err error
	if s.Table, err = p.ident("a table name"); err != nil {
		return nil, err
	}
	if err := p.expectKw("SET"); err != nil {
		return nil, err
	}
	if s.Set, err = p.assignments(); err != nil {
		return nil, err
	}
	if p.d != MySQL && p.acceptKw("FROM") {
		if s.From, err = commaList(p, p.joinedTable); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WHERE") {
		if s.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	if p.d != MySQL {
		s.Returning, err = p.returning()
	}
	return s, err
}

// caseExpr parses CASE [operand] WHEN c THEN r … [ELSE e] END.
func (p *parser) caseExpr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.next() // CASE
	c := &Case{}
	var err error
	if !p.isKw("WHEN") {
		if c.Operand, err = p.expr(); err != nil {
			return nil, err
		}
	}
	for p.acceptKw("WHEN") {
		var w When
		if w.Cond, err = p.expr(); err != nil {
			return nil, err
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		if w.Result, err = p.expr(); err != nil {
			return nil, err
		}
		c.Whens = append(c.Whens, w)
	}
	if len(c.Whens) == 0 {
		return nil, p.errExpected("WHEN")
	}
	if p.acceptKw("ELSE") {
		if c.Else, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return c, p.expectKw("END")
}

func (p *parser) delete() (*Delete, error) {
	p.next()
	if p.d == MySQL && !p.isKw("FROM") {
		return p.mysqlMultiDelete()
	}
	if err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	s := &Delete{}
	var err error
	if s.Table, err = p.ident("a table name"); err != nil {
		return nil, err
	}
	if p.d == Postgres && p.acceptKw("USING") {
		if s.Using, err = commaList(p, p.joinedTable); err != nil {
			return nil, err
		}
	}
	if p.acceptKw("WHERE") {
		if s.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	s.Returning, err = p.returning()
	return s, err
}

func (p *parser) create() (Stmt, error) {
	p.next()
	if p.d != SQLite && p.isKw("SEQUENCE") {
		return p.createSequence()
	}
	unique := p.acceptKw("UNIQUE")
	if unique || p.isKw("INDEX") {
		if err := p.expectKw("INDEX"); err != nil {
			return nil, err
		}
		s := &CreateIndex{Unique: unique}
		var err error
		if s.Name, err = p.ident("an index name"); err != nil {
			return nil, err
		}
		if err := p.expectKw("ON"); err != nil {
			return nil, err
		}
		if s.Table, err = p.ident("a table name"); err != nil {
			return nil, err
		}
		if err := p.indexParts(s); err != nil {
			return nil, err
		}
		return s, p.indexWhere(s)
	}
	if err := p.expectKw("TABLE"); err != nil {
		return nil, p.errExpected("TABLE, INDEX, UNIQUE INDEX or SEQUENCE after CREATE")
	}
	s := &CreateTable{}
	var err error
	if s.Name, err = p.ident("a table name"); err != nil {
		return nil, err
	}
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	for {
		cname := ""
		if p.acceptKw("CONSTRAINT") {
			// A constraint's name changes nothing txlab reads but a
			// foreign key's, which keeps it (mysqldump writes one).
			if cname, err = p.ident("a constraint name"); err != nil {
				return nil, err
			}
			if t := p.peek(); !isKw(t, "PRIMARY") && !isKw(t, "UNIQUE") && !isKw(t, "CHECK") && !isKw(t, "FOREIGN") {
				return nil, p.errExpected("PRIMARY KEY, UNIQUE, CHECK or FOREIGN KEY after CONSTRAINT name")
			}
			if !isKw(p.peek(), "FOREIGN") {
				cname = ""
			}
		}
		switch {
		case p.isKw("FOREIGN") && isKw(p.peekAt(1), "KEY"):
			p.next()
			p.next()
			fk, err := p.foreignKey(cname)
			if err != nil {
				return nil, err
			}
			s.ForeignKeys = append(s.ForeignKeys, fk)
		case p.acceptKw("PRIMARY"):
			if err := p.expectKw("KEY"); err != nil {
				return nil, err
			}
			if s.PrimaryKey != nil {
				return nil, p.errAt(p.toks[p.i-2], "more than one PRIMARY KEY")
			}
			if s.PrimaryKey, err = p.identList("a column name"); err != nil {
				return nil, err
			}
		case p.acceptKw("UNIQUE"):
			if p.d == MySQL {
				// UNIQUE [KEY|INDEX] [name] (a, b), as mysqldump writes it.
				if !p.acceptKw("KEY") {
					p.acceptKw("INDEX")
				}
			}
			u, err := p.indexColumns()
			if err != nil {
				return nil, err
			}
			s.Uniques = append(s.Uniques, u)
		case p.d == MySQL && (isKw(p.peek(), "KEY") || isKw(p.peek(), "INDEX")) && (isOp(p.peekAt(1), "(") || isIdentTok(p.peekAt(1)) && isOp(p.peekAt(2), "(")):
			// KEY|INDEX [name] (a, b): a secondary index.
			p.next()
			k, err := p.indexColumns()
			if err != nil {
				return nil, err
			}
			s.Indexes = append(s.Indexes, k)
		case p.acceptKw("CHECK"):
			e, err := p.parenExpr()
			if err != nil {
				return nil, err
			}
			s.Checks = append(s.Checks, e)
		default:
			c, err := p.columnDef()
			if err != nil {
				return nil, err
			}
			s.Columns = append(s.Columns, c)
		}
		if !p.acceptOp(",") {
			break
		}
	}
	if err := p.expectOp(")"); err != nil {
		return nil, err
	}
	if p.d == MySQL {
		if err := p.tableOptions(s); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// indexColumns reads an index's [name] (a, b) inside CREATE TABLE; the
// name (MySQL family only) changes nothing txlab reads.
func (p *parser) indexColumns() ([]string, error) {
	if p.d == MySQL && !p.isOp("(") {
		if _, err := p.ident("an index name"); err != nil {
			return nil, err
		}
	}
	return p.identList("a column name")
}

// tableOptions reads the MySQL family's table options that txlab
// understands, in any order, as mysqldump writes them: ENGINE=InnoDB
// (the default engine, so the table is the one without it; another
// engine, such as MyISAM without transactions, is not understood),
// [DEFAULT] CHARSET|CHARACTER SET [=] name and [DEFAULT] COLLATE [=] name.
func (p *parser) tableOptions(s *CreateTable) error {
	var err error
	for {
		p.acceptOp(",")
		t := p.peek()
		switch {
		case p.acceptKw("ENGINE"):
			p.acceptOp("=")
			t := p.peek()
			if e, err := p.ident("a storage engine"); err != nil || !strings.EqualFold(e, "InnoDB") {
				return p.errAt(t, "a table of a storage engine other than InnoDB")
			}
			continue
		case isKw(t, "DEFAULT") && (isKw(p.peekAt(1), "CHARSET") || isKw(p.peekAt(1), "CHARACTER") || isKw(p.peekAt(1), "COLLATE")):
			p.next()
			continue
		case isKw(t, "CHARSET"), isKw(t, "CHARACTER"):
			p.next()
			if isKw(t, "CHARACTER") {
				if err := p.expectKw("SET"); err != nil {
					return err
				}
			}
			if s.Charset, err = p.optionValue("a character set"); err != nil {
				return err
			}
			continue
		case p.acceptKw("COLLATE"):
			if s.Collate, err = p.optionValue("a collation"); err != nil {
				return err
			}
			continue
		}
		return nil
	}
}

// optionValue reads a table option's [=] name.
func (p *parser) optionValue(what string) (string, error) {
	p.acceptOp("=")
	return p.ident(what)
}

func (p *parser) parenExpr() (Expr, error) {
	if err := p.expectOp("("); err != nil {
		return nil, err
	}
	e, err := p.expr()
	if err != nil {
		return nil, err
	}
	return e, p.expectOp(")")
}

func (p *parser) columnDef() (ColumnDef, error) {
	var c ColumnDef
	var err error
	if c.Name, err = p.ident("a column name or table constraint"); err != nil {
		return c, err
	}
	if p.d == Postgres && p.acceptKw("SERIAL") {
		c.Type, c.AutoIncrement = TypeInt, true
	} else if c.Type, c.Size, err = p.colType(); err != nil {
		return c, err
	}
	seen := map[string]bool{}
	for {
		t := p.peek()
		var what string
		switch {
		case p.acceptKw("NOT"):
			what = "NOT NULL"
			if err := p.expectKw("NULL"); err != nil {
				return c, err
			}
			c.NotNull = true
		case p.acceptKw("PRIMARY"):
			what = "PRIMARY KEY"
			if err := p.expectKw("KEY"); err != nil {
				return c, err
			}
			c.PrimaryKey = true
		case p.acceptKw("UNIQUE"):
			what = "UNIQUE"
			c.Unique = true
			if p.d == MySQL {
				p.acceptKw("KEY")
			}
		case p.d == MySQL && p.acceptKw("AUTO_INCREMENT"):
			what = "AUTO_INCREMENT"
			c.AutoIncrement = true
		case p.acceptKw("DEFAULT"):
			what = "DEFAULT"
			if c.Default, err = p.defaultValue(); err != nil {
				return c, err
			}
		case p.acceptKw("CHECK"):
			what = "CHECK"
			if c.Check, err = p.parenExpr(); err != nil {
				return c, err
			}
		case p.acceptKw("REFERENCES"):
			what = "REFERENCES"
			c.References = &ForeignKey{}
			if err := p.references(c.References); err != nil {
				return c, err
			}
			if n := len(c.References.RefColumns); n > 1 {
				return c, p.errAt(t, "a column's REFERENCES names %d columns", n)
			}
		default:
			if what, err = p.columnFeature(&c); err != nil {
				return c, err
			}
			if what == "" {
				return c, nil
			}
		}
		if seen[what] {
			return c, p.errAt(t, "duplicate %s on column %s", what, c.Name)
		}
		seen[what] = true
	}
}

// defaultValue reads a DEFAULT: a literal, a signed number or a
// parenthesized expression (the forms every dialect accepts).
func (p *parser) defaultValue() (Expr, error) {
	t := p.peek()
	switch {
	case p.isOp("("):
		return p.parenExpr()
	case t.kind == tokNumber, t.kind == tokString,
		isKw(t, "NULL"), isKw(t, "TRUE"), isKw(t, "FALSE"),
		isOp(t, "-") && p.peekAt(1).kind == tokNumber:
		return p.primary()
	}
	return nil, p.errExpected("a literal or a parenthesized expression after DEFAULT")
}

// colType reads a column type, accepting the usual synonyms.
func (p *parser) colType() (Type, string, error) {
	t := p.peek()
	if t.kind != tokWord {
		return TypeNone, "", p.errExpected("a column type")
	}
	p.next()
	var typ Type
	params := 0    // how many (n[,m]) parameters are allowed
	sized := false // the size is kept (Size), not only read
	switch strings.ToUpper(t.text) {
	case "INT", "INTEGER", "BIGINT", "SMALLINT":
		typ = TypeInt
		if p.d == MySQL {
			params = 1 // a display width, INT(11): it changes no value
		}
	case "DOUBLE":
		p.acceptKw("PRECISION")
		typ = TypeDouble
	case "REAL", "FLOAT":
		typ = TypeDouble
	case "DECIMAL", "NUMERIC":
		typ, params, sized = TypeDecimal, 2, true
	case "VARCHAR":
		typ, params, sized = TypeVarchar, 1, true
	case "TEXT":
		typ = TypeText
		if p.d == SQLite {
			typ = TypeVarchar // the same in SQLite, which has no lengths
		}
	case "BOOLEAN", "BOOL":
		typ = TypeBool
	default:
		return TypeNone, "", p.errAt(t, "expected a column type (INT, DOUBLE, DECIMAL, VARCHAR, TEXT, BOOLEAN), found %s", t)
	}
	var size []string
	if params > 0 && p.acceptOp("(") {
		for n := 0; ; n++ {
			if n == params {
				return TypeNone, "", p.errExpected("')'")
			}
			if p.peek().kind != tokNumber {
				return TypeNone, "", p.errExpected("a type length")
			}
			size = append(size, p.next().text)
			if !p.acceptOp(",") {
				break
			}
		}
		if err := p.expectOp(")"); err != nil {
			return TypeNone, "", err
		}
	}
	sz := strings.Join(size, ",")
	if !sized || typ == TypeVarchar && sz == "20" || typ == TypeDecimal && sz == "10,2" {
		sz = "" // the default size renders the same
	}
	return typ, sz, nil
}

// ---- queries ----

// query reads SELECT ... { UNION [ALL|DISTINCT] term }, left-associative.
// The first term is always a bare SELECT; later terms may be parenthesized
// queries, which is where Format puts parentheses.
func (p *parser) query() (Query, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	var q Query
	var err error
	if q, err = p.sel(); err != nil {
		return nil, err
	}
	for p.acceptKw("UNION") {
		op := "UNION"
		if p.acceptKw("ALL") {
			op = "UNION ALL"
		} else {
			p.acceptKw("DISTINCT")
		}
		var r Query
		if p.acceptOp("(") {
			if r, err = p.query(); err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
		} else if r, err = p.sel(); err != nil {
			return nil, err
		}
		q = &SetOp{Op: op, Left: q, Right: r}
	}
	return q, nil
}

func (p *parser) sel() (*Select, error) {
	if err := p.expectKw("SELECT"); err != nil {
		return nil, err
	}
	s := &Select{}
	if p.acceptKw("DISTINCT") {
		s.Distinct = true
	} else {
		p.acceptKw("ALL")
	}
	for {
		it, err := p.selectItem()
		if err != nil {
			return nil, err
		}
		s.Items = append(s.Items, it)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("FROM") {
		for {
			t, err := p.joinedTable()
			if err != nil {
				return nil, err
			}
			s.From = append(s.From, t)
			if !p.acceptOp(",") {
				break
			}
		}
	}
	if p.acceptKw("WHERE") {
		var err error
		if s.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

func (p *parser) selectItem() (SelectItem, error) {
	if p.acceptOp("*") {
		return SelectItem{Star: true}, nil
	}
	if isIdentTok(p.peek()) && isOp(p.peekAt(1), ".") && isOp(p.peekAt(2), "*") {
		t, _ := p.ident("a table name")
		p.i += 2
		return SelectItem{Star: true, Table: t}, nil
	}
	e, err := p.expr()
	if err != nil {
		return SelectItem{}, err
	}
	it := SelectItem{Expr: e}
	if p.acceptKw("AS") {
		if it.Alias, err = p.ident("an alias"); err != nil {
			return it, err
		}
	} else if isIdentTok(p.peek()) {
		it.Alias, _ = p.ident("an alias")
	}
	return it, nil
}

// joinedTable reads a table reference with its joins, left-associative.
func (p *parser) joinedTable() (TableRef, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	left, err := p.tablePrimary()
	if err != nil {
		return nil, err
	}
	for {
		var kind string
		switch {
		case p.acceptKw("JOIN"):
			kind = "JOIN"
		case p.acceptKw("INNER"):
			kind = "JOIN"
			if err := p.expectKw("JOIN"); err != nil {
				return nil, err
			}
		case p.acceptKw("LEFT"):
			kind = "LEFT JOIN"
			p.acceptKw("OUTER")
			if err := p.expectKw("JOIN"); err != nil {
				return nil, err
			}
		case p.acceptKw("CROSS"):
			kind = "CROSS JOIN"
			if err := p.expectKw("JOIN"); err != nil {
				return nil, err
			}
		default:
			return left, nil
		}
		right, err := p.tablePrimary()
		if err != nil {
			return nil, err
		}
		j := &Join{Kind: kind, Left: left, Right: right}
		// ON CONFLICT / ON DUPLICATE KEY after INSERT ... SELECT ... FROM
		// a JOIN b is the upsert clause, not a join condition.
		if kind != "CROSS JOIN" && p.isKw("ON") && !isKw(p.peekAt(1), "CONFLICT") && !isKw(p.peekAt(1), "DUPLICATE") {
			p.next()
			if j.On, err = p.expr(); err != nil {
				return nil, err
			}
		} else if kind == "LEFT JOIN" {
			return nil, p.errExpected("ON after LEFT JOIN")
		}
		left = j
	}
}

// tablePrimary reads a table, a derived table or a parenthesized join.
func (p *parser) tablePrimary() (TableRef, error) {
	if p.acceptOp("(") {
		if p.isKw("SELECT") {
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
			sq := &Subquery{Query: q}
			sq.Alias, err = p.alias()
			return sq, err
		}
		t, err := p.joinedTable()
		if err != nil {
			return nil, err
		}
		if _, ok := t.(*Join); !ok {
			return nil, p.errAt(p.peek(), "parentheses in FROM must hold a join or a subquery")
		}
		return t, p.expectOp(")")
	}
	name, err := p.ident("a table name, a subquery or '('")
	if err != nil {
		return nil, err
	}
	t := &Table{Name: name}
	t.Alias, err = p.alias()
	return t, err
}

// alias reads an optional [AS] alias.
func (p *parser) alias() (string, error) {
	if p.acceptKw("AS") {
		return p.ident("an alias")
	}
	if isIdentTok(p.peek()) {
		return p.ident("an alias")
	}
	return "", nil
}

// ---- expressions ----

func (p *parser) expr() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	return p.or()
}

func (p *parser) exprList() ([]Expr, error) { return commaList(p, p.expr) }

func (p *parser) or() (Expr, error) {
	l, err := p.and()
	if err != nil {
		return nil, err
	}
	for p.acceptKw("OR") {
		r, err := p.and()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "OR", L: l, R: r}
	}
	return l, nil
}

func (p *parser) and() (Expr, error) {
	l, err := p.not()
	if err != nil {
		return nil, err
	}
	for p.acceptKw("AND") {
		r, err := p.not()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: "AND", L: l, R: r}
	}
	return l, nil
}

func (p *parser) not() (Expr, error) {
	if !p.isKw("NOT") {
		return p.cmp()
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.next()
	bareExists := p.isKw("EXISTS")
	x, err := p.not()
	if err != nil {
		return nil, err
	}
	// NOT EXISTS (q) is one construct, but NOT EXISTS (q) = TRUE is the
	// negation of a comparison.
	if e, ok := x.(*Exists); ok && bareExists && !e.Not {
		e.Not = true
		return e, nil
	}
	return &Unary{Op: "NOT", X: x}, nil
}

// cmp reads one non-associative comparison-level construct.
func (p *parser) cmp() (Expr, error) {
	l, err := p.add()
	if err != nil {
		return nil, err
	}
	e, err := p.cmpTail(l)
	if err != nil || e == l {
		return e, err
	}
	if t := p.peek(); p.atCmp() {
		return nil, p.errAt(t, "comparison operators do not associate: parenthesize the left operand of %s", t)
	}
	return e, nil
}

// atCmp reports whether a comparison-level operator follows.
func (p *parser) atCmp() bool {
	t := p.peek()
	if t.kind == tokOp {
		switch t.text {
		case "=", "<>", "<", "<=", ">", ">=":
			return true
		}
		return false
	}
	return isKw(t, "IS") || isKw(t, "BETWEEN") || isKw(t, "IN") ||
		isKw(t, "NOT") && (isKw(p.peekAt(1), "BETWEEN") || isKw(p.peekAt(1), "IN"))
}

func (p *parser) cmpTail(l Expr) (Expr, error) {
	if !p.atCmp() {
		return l, nil
	}
	t := p.next()
	if t.kind == tokOp {
		r, err := p.add()
		if err != nil {
			return nil, err
		}
		return &Binary{Op: t.text, L: l, R: r}, nil
	}
	not := false
	if isKw(t, "NOT") {
		not = true
		t = p.next()
	}
	switch {
	case isKw(t, "IS"):
		n := p.acceptKw("NOT")
		if err := p.expectKw("NULL"); err != nil {
			return nil, err
		}
		return &IsNull{X: l, Not: n}, nil
	case isKw(t, "BETWEEN"):
		lo, err := p.add()
		if err != nil {
			return nil, err
		}
		if err := p.expectKw("AND"); err != nil {
			return nil, err
		}
		hi, err := p.add()
		if err != nil {
			return nil, err
		}
		return &Between{X: l, Lo: lo, Hi: hi, Not: not}, nil
	default: // IN
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		in := &In{X: l, Not: not}
		var err error
		if p.isKw("SELECT") {
			in.Sub, err = p.query()
		} else {
			in.List, err = p.exprList()
		}
		if err != nil {
			return nil, err
		}
		return in, p.expectOp(")")
	}
}

func (p *parser) add() (Expr, error) {
	l, err := p.mul()
	if err != nil {
		return nil, err
	}
	for p.isOp("+") || p.isOp("-") {
		op := p.next().text
		r, err := p.mul()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

func (p *parser) mul() (Expr, error) {
	l, err := p.unary()
	if err != nil {
		return nil, err
	}
	for p.isOp("*") || p.isOp("/") || p.isOp("%") {
		op := p.next().text
		r, err := p.unary()
		if err != nil {
			return nil, err
		}
		l = &Binary{Op: op, L: l, R: r}
	}
	return l, nil
}

func (p *parser) unary() (Expr, error) {
	if !p.isOp("-") && !p.isOp("+") {
		return p.primary()
	}
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	op := p.next()
	// A sign directly before a number is part of the literal, the form
	// Format writes for negative numbers.
	if t := p.peek(); t.kind == tokNumber {
		p.next()
		l := numberLit(t.text)
		if op.text == "-" {
			l.Text = "-" + l.Text
		}
		return l, nil
	}
	x, err := p.unary()
	if err != nil {
		return nil, err
	}
	if op.text == "+" {
		return x, nil
	}
	return &Unary{Op: "-", X: x}, nil
}

func numberLit(text string) *Literal {
	if strings.ContainsAny(text, ".eE") {
		return &Literal{Kind: LitFloat, Text: text}
	}
	return &Literal{Kind: LitInt, Text: text}
}

// funcKeywords are reserved words that are still function names when a '('
// follows.
var funcKeywords = map[string]bool{"left": true, "right": true, "replace": true, "if": true, "mod": true}

func (p *parser) primary() (Expr, error) {
	t := p.peek()
	switch t.kind {
	case tokNumber:
		p.next()
		return numberLit(t.text), nil
	case tokString:
		p.next()
		return &Literal{Kind: LitString, Text: t.text}, nil
	case tokVar:
		p.next()
		if !p.acceptOp(":=") {
			return &Var{Name: t.text}, nil
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		v, err := p.expr()
		if err != nil {
			return nil, err
		}
		return &Var{Name: t.text, Assign: v}, nil
	case tokOp:
		if t.text == "-" || t.text == "+" {
			return p.unary()
		}
		if t.text != "(" {
			break
		}
		if err := p.enter(); err != nil {
			return nil, err
		}
		defer p.leave()
		p.next()
		if p.isKw("SELECT") {
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			return &ScalarSubquery{Sub: q}, p.expectOp(")")
		}
		e, err := p.expr()
		if err != nil {
			return nil, err
		}
		// (a || b || c): Format parenthesizes every concatenation, so ||
		// only ever appears directly inside parentheses.
		for p.acceptOp("||") {
			r, err := p.expr()
			if err != nil {
				return nil, err
			}
			e = &Concat{L: e, R: r}
		}
		return e, p.expectOp(")")
	case tokWord:
		lw := asciiLower(t.text)
		switch lw {
		case "null":
			p.next()
			return &Literal{Kind: LitNull}, nil
		case "true", "false":
			p.next()
			return &Literal{Kind: LitBool, Text: strings.ToUpper(lw)}, nil
		case "case":
			return p.caseExpr()
		case "exists":
			p.next()
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			q, err := p.query()
			if err != nil {
				return nil, err
			}
			return &Exists{Sub: q}, p.expectOp(")")
		case "excluded":
			if p.d != MySQL {
				p.next()
				if err := p.expectOp("."); err != nil {
					return nil, err
				}
				c, err := p.ident("a column name after EXCLUDED.")
				if err != nil {
					return nil, err
				}
				return &Excluded{Column: c}, nil
			}
		case "next":
			if p.d == MySQL && isKw(p.peekAt(1), "VALUE") && isKw(p.peekAt(2), "FOR") {
				// NEXT VALUE FOR s is NEXTVAL(s) (MariaDB: sequence-functions).
				p.i += 3
				s, err := p.ident("a sequence name")
				return &Func{Name: "NEXTVAL", Args: []Expr{&ColumnRef{Column: s}}}, err
			}
		case "values":
			if p.d == MySQL && isOp(p.peekAt(1), "(") {
				p.i += 2
				c, err := p.ident("a column name in VALUES()")
				if err != nil {
					return nil, err
				}
				return &Excluded{Column: c}, p.expectOp(")")
			}
		}
		if isOp(p.peekAt(1), "(") && (!reserved[lw] || funcKeywords[lw]) {
			return p.call()
		}
		if !reserved[lw] {
			return p.columnRef()
		}
	case tokQIdent:
		return p.columnRef()
	}
	return nil, p.errExpected("an expression")
}

func (p *parser) call() (Expr, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	f := &Func{Name: strings.ToUpper(p.next().text)}
	p.next() // (
	switch {
	case p.acceptOp("*"):
		f.Star = true
	case p.isOp(")"):
	default:
		var err error
		if f.Args, err = p.exprList(); err != nil {
			return nil, err
		}
	}
	return f, p.expectOp(")")
}

func (p *parser) columnRef() (Expr, error) {
	name, err := p.ident("a column name")
	if err != nil {
		return nil, err
	}
	if !p.acceptOp(".") {
		return &ColumnRef{Column: name}, nil
	}
	col, err := p.ident("a column name after '.'")
	if err != nil {
		return nil, err
	}
	return &ColumnRef{Table: name, Column: col}, nil
}

// asciiLower folds ASCII letters only, as PostgreSQL does for unquoted
// identifiers in a multi-byte encoding.
func asciiLower(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'A' && c <= 'Z' {
			b[i] = c + 'a' - 'A'
		}
	}
	return string(b)
}
