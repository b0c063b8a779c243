package sqlast

// Writes across tables: the multiple-table UPDATE and DELETE of each
// dialect (fields of Update and Delete), MERGE and data-modifying CTEs.

// MultiTable reports whether the UPDATE reads or writes tables beyond
// Table: the MySQL family's multiple-table form or UPDATE … FROM. A
// consumer that knows only the single-table UPDATE must not treat it as one.
func (s *Update) MultiTable() bool { return len(s.Tables) > 0 || len(s.From) > 0 }

// MultiTable reports whether the DELETE reads tables beyond Table: the
// MySQL family's multiple-table form or PostgreSQL's DELETE … USING.
func (s *Delete) MultiTable() bool {
	return len(s.Targets) > 0 || len(s.Tables) > 0 || len(s.Using) > 0
}

// Merge is MERGE INTO table [AS alias] USING source ON on WHEN … (PostgreSQL
// ≥ 15): each source row joined with the target rows ON matches takes the
// first WHEN clause whose kind and condition fit.
type Merge struct {
	Table string
	Alias string
	// Source is a *Table or a *Subquery (with its alias).
	Source TableRef
	On     Expr
	Whens  []MergeWhen
}

// MergeAction is what a WHEN clause of MERGE does.
type MergeAction int

// MERGE actions: UPDATE SET and DELETE only WHEN MATCHED, INSERT only WHEN
// NOT MATCHED, DO NOTHING in both.
const (
	MergeDoNothing MergeAction = iota
	MergeUpdate
	MergeDelete
	MergeInsert
)

// MergeWhen is WHEN [NOT] MATCHED [AND Cond] THEN action.
type MergeWhen struct {
	NotMatched bool
	Cond       Expr // nil: none
	Action     MergeAction
	Set        []Assignment // MergeUpdate
	Columns    []string     // MergeInsert; nil: the table's columns in order
	Values     []Expr       // MergeInsert
}

// With is WITH name AS (statement)[, …] body: a common table expression
// whose statement may write (PostgreSQL's data-modifying CTEs, an INSERT,
// UPDATE or DELETE with RETURNING), and a body that reads or writes.
type With struct {
	CTEs []CTE
	// Body is a *SelectStmt, *Insert, *Update or *Delete.
	Body Stmt
}

// CTE is one name AS (statement) of WITH; Stmt is a *SelectStmt, *Insert,
// *Update or *Delete.
type CTE struct {
	Name string
	Stmt Stmt
}

// Writes reports whether one of the CTEs is a data-modifying statement.
func (s *With) Writes() bool {
	for _, c := range s.CTEs {
		switch c.Stmt.(type) {
		case *Insert, *Update, *Delete:
			return true
		}
	}
	return false
}

func (*Merge) stmt() {}
func (*With) stmt()  {}

// ---- walk ----

func walkRefs(refs []TableRef, fn func(n any) bool) {
	for _, t := range refs {
		Walk(t, fn)
	}
}

// walkMulti is Walk's part for MERGE and WITH.
func walkMulti(n any, fn func(n any) bool) {
	switch n := n.(type) {
	case *Merge:
		Walk(n.Source, fn)
		Walk(n.On, fn)
		for _, w := range n.Whens {
			Walk(w.Cond, fn)
			for _, a := range w.Set {
				Walk(a.Value, fn)
			}
			for _, v := range w.Values {
				Walk(v, fn)
			}
		}
	case *With:
		for _, c := range n.CTEs {
			Walk(c.Stmt, fn)
		}
		Walk(n.Body, fn)
	}
}

// ---- format ----

func (p *printer) tableRefs(refs []TableRef) {
	for i, t := range refs {
		if i > 0 {
			p.w(", ")
		}
		p.tableRef(t)
	}
}

func (p *printer) update(s *Update) {
	p.w("UPDATE ")
	if len(s.Tables) > 0 {
		p.tableRefs(s.Tables)
	} else {
		p.ident(s.Table)
	}
	p.w(" SET ")
	p.assignments(s.Set)
	if len(s.From) > 0 {
		p.w(" FROM ")
		p.tableRefs(s.From)
	}
	p.where(s.Where)
	p.returning(s.Returning)
}

func (p *printer) delete(s *Delete) {
	if len(s.Targets) > 0 || len(s.Tables) > 0 {
		p.w("DELETE ")
		for i, t := range s.Targets {
			if i > 0 {
				p.w(", ")
			}
			p.ident(t)
		}
		p.w(" FROM ")
		p.tableRefs(s.Tables)
	} else {
		p.w("DELETE FROM ")
		p.ident(s.Table)
		if len(s.Using) > 0 {
			p.w(" USING ")
			p.tableRefs(s.Using)
		}
	}
	p.where(s.Where)
	p.returning(s.Returning)
}

func (p *printer) merge(s *Merge) {
	p.w("MERGE INTO ")
	p.ident(s.Table)
	if s.Alias != "" {
		p.w(" AS ")
		p.ident(s.Alias)
	}
	p.w(" USING ")
	p.tableRef(s.Source)
	p.w(" ON ")
	p.expr(s.On, 0)
	for _, w := range s.Whens {
		if w.NotMatched {
			p.w(" WHEN NOT MATCHED")
		} else {
			p.w(" WHEN MATCHED")
		}
		if w.Cond != nil {
			p.w(" AND ")
			// AND binds the condition: an OR inside needs parentheses.
			p.expr(w.Cond, precAnd+1)
		}
		p.w(" THEN ")
		switch w.Action {
		case MergeUpdate:
			p.w("UPDATE SET ")
			p.assignments(w.Set)
		case MergeDelete:
			p.w("DELETE")
		case MergeInsert:
			p.w("INSERT ")
			if len(w.Columns) > 0 {
				p.idents(w.Columns)
				p.w(" ")
			}
			p.w("VALUES (")
			p.exprList(w.Values)
			p.w(")")
		default:
			p.w("DO NOTHING")
		}
	}
}

func (p *printer) with(s *With) {
	p.w("WITH ")
	for i, c := range s.CTEs {
		if i > 0 {
			p.w(", ")
		}
		p.ident(c.Name)
		p.w(" AS (")
		p.stmt(c.Stmt)
		p.w(")")
	}
	p.w(" ")
	p.stmt(s.Body)
}

// ---- parse ----

// mysqlMultiUpdate reads the MySQL family's multiple-table UPDATE after
// the word UPDATE: table references, SET with qualified columns, WHERE.
// A single table with an alias is outside the subset, as before.
func (p *parser) mysqlMultiUpdate() (*Update, error) {
	s := &Update{}
	var err error
	if s.Tables, err = commaList(p, p.joinedTable); err != nil {
		return nil, err
	}
	if _, ok := s.Tables[0].(*Join); !ok && len(s.Tables) == 1 {
		return nil, p.errAt(p.peek(), "a single-table UPDATE names its table alone, without an alias")
	}
	if err := p.expectKw("SET"); err != nil {
		return nil, err
	}
	if s.Set, err = commaList(p, p.qualifiedAssignment); err != nil {
		return nil, err
	}
	if p.acceptKw("WHERE") {
		if s.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// qualifiedAssignment reads [table.]column = value.
func (p *parser) qualifiedAssignment() (Assignment, error) {
	var a Assignment
	c, err := p.ident("a column name")
	if err != nil {
		return a, err
	}
	if p.acceptOp(".") {
		a.Table = c
		if c, err = p.ident("a column name"); err != nil {
			return a, err
		}
	}
	a.Column = c
	if err := p.expectOp("="); err != nil {
		return a, err
	}
	a.Value, err = p.expr()
	return a, err
}

// mysqlMultiDelete reads the MySQL family's DELETE t0[, t1] FROM tables
// [WHERE …] after the word DELETE.
func (p *parser) mysqlMultiDelete() (*Delete, error) {
	s := &Delete{}
	var err error
	if s.Targets, err = commaList(p, func() (string, error) { return p.ident("a table name") }); err != nil {
		return nil, err
	}
	if err := p.expectKw("FROM"); err != nil {
		return nil, err
	}
	if s.Tables, err = commaList(p, p.joinedTable); err != nil {
		return nil, err
	}
	if p.acceptKw("WHERE") {
		if s.Where, err = p.expr(); err != nil {
			return nil, err
		}
	}
	return s, nil
}

// merge reads MERGE INTO table [[AS] alias] USING source ON cond WHEN ….
func (p *parser) merge() (*Merge, error) {
	p.next() // MERGE
	if err := p.expectKw("INTO"); err != nil {
		return nil, err
	}
	s := &Merge{}
	var err error
	if s.Table, err = p.ident("a table name"); err != nil {
		return nil, err
	}
	if s.Alias, err = p.alias(); err != nil {
		return nil, err
	}
	if err := p.expectKw("USING"); err != nil {
		return nil, err
	}
	if s.Source, err = p.tablePrimary(); err != nil {
		return nil, err
	}
	if _, ok := s.Source.(*Join); ok {
		return nil, p.errAt(p.peek(), "MERGE's source is a table or a subquery")
	}
	if err := p.expectKw("ON"); err != nil {
		return nil, err
	}
	if s.On, err = p.expr(); err != nil {
		return nil, err
	}
	for p.acceptKw("WHEN") {
		w := MergeWhen{NotMatched: p.acceptKw("NOT")}
		if !p.isKw("MATCHED") {
			return nil, p.errExpected("MATCHED")
		}
		p.next()
		if p.acceptKw("AND") {
			if w.Cond, err = p.expr(); err != nil {
				return nil, err
			}
		}
		if err := p.expectKw("THEN"); err != nil {
			return nil, err
		}
		switch {
		case p.acceptKw("DO"):
			if err := p.expectKw("NOTHING"); err != nil {
				return nil, err
			}
		case !w.NotMatched && p.acceptKw("UPDATE"):
			w.Action = MergeUpdate
			if err := p.expectKw("SET"); err != nil {
				return nil, err
			}
			if w.Set, err = p.assignments(); err != nil {
				return nil, err
			}
		case !w.NotMatched && p.acceptKw("DELETE"):
			w.Action = MergeDelete
		case w.NotMatched && p.acceptKw("INSERT"):
			w.Action = MergeInsert
			if p.isOp("(") {
				if w.Columns, err = p.identList("a column name"); err != nil {
					return nil, err
				}
			}
			if err := p.expectKw("VALUES"); err != nil {
				return nil, err
			}
			if err := p.expectOp("("); err != nil {
				return nil, err
			}
			if w.Values, err = p.exprList(); err != nil {
				return nil, err
			}
			if err := p.expectOp(")"); err != nil {
				return nil, err
			}
		case w.NotMatched:
			return nil, p.errExpected("INSERT or DO NOTHING after WHEN NOT MATCHED THEN")
		default:
			return nil, p.errExpected("UPDATE, DELETE or DO NOTHING after WHEN MATCHED THEN")
		}
		s.Whens = append(s.Whens, w)
	}
	if len(s.Whens) == 0 {
		return nil, p.errExpected("WHEN")
	}
	return s, nil
}

// with reads WITH name AS (statement)[, …] followed by a SELECT, INSERT,
// UPDATE or DELETE.
func (p *parser) with() (*With, error) {
	if err := p.enter(); err != nil {
		return nil, err
	}
	defer p.leave()
	p.next() // WITH
	if p.isKw("RECURSIVE") {
		return nil, p.errAt(p.peek(), "WITH RECURSIVE is outside the subset")
	}
	s := &With{}
	for {
		var c CTE
		var err error
		if c.Name, err = p.ident("a common table expression's name"); err != nil {
			return nil, err
		}
		if err := p.expectKw("AS"); err != nil {
			return nil, err
		}
		if err := p.expectOp("("); err != nil {
			return nil, err
		}
		if c.Stmt, err = p.withStmt(); err != nil {
			return nil, err
		}
		if err := p.expectOp(")"); err != nil {
			return nil, err
		}
		s.CTEs = append(s.CTEs, c)
		if !p.acceptOp(",") {
			break
		}
	}
	var err error
	s.Body, err = p.withStmt()
	return s, err
}

// withStmt reads a CTE's statement or WITH's body.
func (p *parser) withStmt() (Stmt, error) {
	switch t := p.peek(); {
	case isKw(t, "SELECT"):
		return p.selectStmt()
	case isKw(t, "INSERT"):
		return p.insert()
	case isKw(t, "UPDATE"):
		return p.update()
	case isKw(t, "DELETE"):
		return p.delete()
	}
	return nil, p.errExpected("SELECT, INSERT, UPDATE or DELETE")
}

// CrossTable names the feature (package features' names) of a write
// across tables — MERGE, a data-modifying CTE, a multiple-table UPDATE or
// DELETE (UPDATE … FROM, DELETE … USING) — or "" for any other statement.
// The model and IsoRel's rewriter treat one as a single-table write only
// where they know how; elsewhere they stop or leave it uninstrumented
// under this name.
func CrossTable(st Stmt) string {
	switch st := st.(type) {
	case *Merge:
		return "merge"
	case *With:
		if st.Writes() {
			return "cte-write"
		}
	case *Update:
		if st.MultiTable() {
			return "multi-table-update"
		}
	case *Delete:
		if st.MultiTable() {
			return "multi-table-delete"
		}
	}
	return ""
}
