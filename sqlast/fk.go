package sqlast

// Foreign keys: CREATE TABLE's FOREIGN KEY (cols) REFERENCES p (cols)
// element and a column's own REFERENCES p (c), with their referential
// actions and, on PostgreSQL and SQLite, whether the check is deferred to
// COMMIT.
//
// MySQL parses a column's REFERENCES and ignores it (MySQL 8.4 Reference
// Manual, 15.1.20.5 "FOREIGN KEY Constraints": "MySQL parses but ignores
// 'inline REFERENCES specifications'"), as MariaDB did before 10.5, which
// makes it a foreign key (MDEV-20729; MariaDB KB "Foreign Keys": "From
// MariaDB 10.5, MariaDB will attempt to apply the constraint"). A
// table-level FOREIGN KEY element makes one on all of them. So Format
// writes every foreign key as a table-level element on the MySQL family,
// a column's too (what it means there depends on the server).

// RefAction is a foreign key's ON DELETE or ON UPDATE action.
type RefAction int

// The referential actions; RefDefault is none written (NO ACTION on
// PostgreSQL and SQLite, RESTRICT on InnoDB, which treats both alike).
const (
	RefDefault RefAction = iota
	RefNoAction
	RefRestrict
	RefCascade
	RefSetNull
	RefSetDefault
)

var refActionText = [...]string{RefNoAction: "NO ACTION", RefRestrict: "RESTRICT", RefCascade: "CASCADE",
	RefSetNull: "SET NULL", RefSetDefault: "SET DEFAULT"}

// String is the action as SQL writes it ("" for RefDefault).
func (a RefAction) String() string {
	if a <= RefDefault || int(a) >= len(refActionText) {
		return ""
	}
	return refActionText[a]
}

// ForeignKey is FOREIGN KEY (Columns) REFERENCES RefTable (RefColumns),
// or a column's REFERENCES RefTable (RefColumns) (Columns nil there).
type ForeignKey struct {
	Name       string // CONSTRAINT name; "" when none
	Columns    []string
	RefTable   string
	RefColumns []string // nil: the referenced table's primary key (PostgreSQL, SQLite)
	OnDelete   RefAction
	OnUpdate   RefAction
	// Deferrable and InitiallyDeferred (PostgreSQL, SQLite): the check of
	// a deferred constraint runs at COMMIT. DEFERRABLE alone is checked
	// at each statement's end, as NOT DEFERRABLE is, until SET
	// CONSTRAINTS changes it.
	Deferrable        bool
	InitiallyDeferred bool
}

// Deferred reports whether the constraint is checked at COMMIT unless a
// transaction says otherwise.
func (fk *ForeignKey) Deferred() bool { return fk.Deferrable && fk.InitiallyDeferred }

// ForeignKeysOf returns every foreign key of s, a column's REFERENCES as
// a table-level one (Columns set to that column).
func ForeignKeysOf(s *CreateTable) []ForeignKey {
	var out []ForeignKey
	for _, c := range s.Columns {
		if c.References != nil {
			fk := *c.References
			fk.Columns = []string{c.Name}
			out = append(out, fk)
		}
	}
	return append(out, s.ForeignKeys...)
}

// foreignKey reads a table-level foreign key after FOREIGN KEY: [name]
// (cols) and the REFERENCES clause. The MySQL family allows an index name
// before the columns; it names the index InnoDB creates and changes no
// result.
func (p *parser) foreignKey(name string) (ForeignKey, error) {
	fk := ForeignKey{Name: name}
	if p.d == MySQL && !p.isOp("(") {
		if _, err := p.ident("an index name"); err != nil {
			return fk, err
		}
	}
	var err error
	if fk.Columns, err = p.identList("a column name"); err != nil {
		return fk, err
	}
	if err := p.expectKw("REFERENCES"); err != nil {
		return fk, err
	}
	if err := p.references(&fk); err != nil {
		return fk, err
	}
	if len(fk.RefColumns) > 0 && len(fk.RefColumns) != len(fk.Columns) {
		return fk, p.errAt(p.peek(), "a foreign key of %d columns references %d", len(fk.Columns), len(fk.RefColumns))
	}
	return fk, nil
}

// references reads what follows REFERENCES: the table, its columns, the
// actions and the deferral, in any order, as each dialect allows.
func (p *parser) references(fk *ForeignKey) error {
	var err error
	if fk.RefTable, err = p.ident("a table name"); err != nil {
		return err
	}
	if p.isOp("(") {
		if fk.RefColumns, err = p.identList("a column name"); err != nil {
			return err
		}
	}
	seen := map[string]bool{}
	once := func(what string) error {
		if seen[what] {
			return p.errAt(p.toks[p.i-1], "duplicate %s in a foreign key", what)
		}
		seen[what] = true
		return nil
	}
	for {
		t := p.peek()
		switch {
		case isKw(t, "ON") && (isKw(p.peekAt(1), "DELETE") || isKw(p.peekAt(1), "UPDATE")):
			p.next()
			what := "ON " + asciiUpper(p.next().text)
			if err := once(what); err != nil {
				return err
			}
			a, err := p.refAction()
			if err != nil {
				return err
			}
			if what == "ON DELETE" {
				fk.OnDelete = a
			} else {
				fk.OnUpdate = a
			}
		case p.d != MySQL && (isKw(t, "DEFERRABLE") || isKw(t, "NOT") && isKw(p.peekAt(1), "DEFERRABLE")):
			if err := once("DEFERRABLE"); err != nil {
				return err
			}
			fk.Deferrable = !p.acceptKw("NOT")
			p.next()
		case p.d != MySQL && isKw(t, "INITIALLY"):
			p.next()
			if err := once("INITIALLY"); err != nil {
				return err
			}
			switch {
			case p.acceptKw("DEFERRED"):
				fk.InitiallyDeferred = true
			case p.acceptKw("IMMEDIATE"):
			default:
				return p.errExpected("DEFERRED or IMMEDIATE")
			}
		default:
			if fk.InitiallyDeferred && !fk.Deferrable {
				if seen["DEFERRABLE"] || p.d == SQLite {
					// NOT DEFERRABLE INITIALLY DEFERRED: PostgreSQL
					// refuses it; SQLite checks such a key at once.
					return p.errAt(t, "INITIALLY DEFERRED on a constraint that is not DEFERRABLE is not understood")
				}
				// PostgreSQL: INITIALLY DEFERRED implies DEFERRABLE.
				fk.Deferrable = true
			}
			return nil
		}
	}
}

// refAction reads CASCADE, SET NULL, SET DEFAULT, RESTRICT or NO ACTION.
func (p *parser) refAction() (RefAction, error) {
	switch {
	case p.acceptKw("CASCADE"):
		return RefCascade, nil
	case p.acceptKw("RESTRICT"):
		return RefRestrict, nil
	case p.isKw("NO") && isKw(p.peekAt(1), "ACTION"):
		p.next()
		p.next()
		return RefNoAction, nil
	case p.isKw("SET") && isKw(p.peekAt(1), "NULL"):
		p.next()
		p.next()
		return RefSetNull, nil
	case p.isKw("SET") && isKw(p.peekAt(1), "DEFAULT"):
		p.next()
		p.next()
		return RefSetDefault, nil
	}
	return RefDefault, p.errExpected("CASCADE, SET NULL, SET DEFAULT, RESTRICT or NO ACTION")
}

// foreignKey prints a table-level FOREIGN KEY element (cols given), or a
// column's REFERENCES clause.
func (p *printer) foreignKey(fk *ForeignKey, cols []string) {
	if cols != nil {
		if fk.Name != "" {
			p.w("CONSTRAINT ")
			p.ident(fk.Name)
			p.w(" ")
		}
		p.w("FOREIGN KEY ")
		p.idents(cols)
		p.w(" ")
	}
	p.w("REFERENCES ")
	p.ident(fk.RefTable)
	if len(fk.RefColumns) > 0 {
		p.w(" ")
		p.idents(fk.RefColumns)
	}
	if a := fk.OnDelete.String(); a != "" {
		p.w(" ON DELETE " + a)
	}
	if a := fk.OnUpdate.String(); a != "" {
		p.w(" ON UPDATE " + a)
	}
	if p.d != MySQL && fk.Deferrable {
		p.w(" DEFERRABLE")
		if fk.InitiallyDeferred {
			p.w(" INITIALLY DEFERRED")
		}
	}
}

func asciiUpper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
