package sqlast

import (
	"strings"
	"testing"
)

// byteSource turns fuzz input into choices; exhausted input yields zeros,
// which always select a leaf, so every input builds a finite tree.
type byteSource struct {
	b []byte
	i int
}

func (s *byteSource) n(k int) int {
	if s.i >= len(s.b) {
		return 0
	}
	c := int(s.b[s.i])
	s.i++
	return c % k
}

func (s *byteSource) pick(xs ...string) string { return xs[s.n(len(xs))] }

// astBuilder builds the kind of ASTs a generator produces: well-formed
// identifiers (some needing quotes), literals of every kind, every expression,
// query and statement shape of the subset.
type astBuilder struct {
	src *byteSource
	d   Dialect
}

func (b *astBuilder) name() string {
	return b.src.pick("t0", "c1", "c2", "a", "b", "x_1", "order", "key", "Mixed", "sp ace", "q\"u`o'te", "excluded", "values")
}

func (b *astBuilder) literal() Expr {
	switch b.src.n(6) {
	case 0:
		return &Literal{Kind: LitNull}
	case 1:
		return &Literal{Kind: LitInt, Text: b.src.pick("0", "1", "-1", "42", "-9223372036854775808", "007")}
	case 2:
		return &Literal{Kind: LitFloat, Text: b.src.pick("2.5", "-0.5", "1e3", "-1.5E-7", ".5", "1.")}
	case 3:
		return &Literal{Kind: LitString, Text: b.src.pick("", "a", "it's", `back\slash`, "--", "/*", "\x00", "\n", `\'`, "''")}
	case 4:
		return &Literal{Kind: LitBool, Text: b.src.pick("TRUE", "FALSE")}
	}
	return &ColumnRef{Table: b.src.pick("", "", "t0", "Mixed"), Column: b.name()}
}

func (b *astBuilder) expr(depth int) Expr {
	if depth <= 0 {
		return b.literal()
	}
	d := depth - 1
	switch b.src.n(12) {
	case 1:
		return &Binary{Op: b.src.pick("+", "-", "*", "/", "%", "=", "<>", "<", "<=", ">", ">=", "AND", "OR"), L: b.expr(d), R: b.expr(d)}
	case 2:
		return &Unary{Op: b.src.pick("-", "NOT"), X: b.expr(d)}
	case 3:
		return &IsNull{X: b.expr(d), Not: b.src.n(2) == 1}
	case 4:
		return &Between{X: b.expr(d), Lo: b.expr(d), Hi: b.expr(d), Not: b.src.n(2) == 1}
	case 5:
		in := &In{X: b.expr(d), Not: b.src.n(2) == 1}
		if b.src.n(2) == 1 {
			in.Sub = b.query(d)
		} else {
			for range 1 + b.src.n(3) {
				in.List = append(in.List, b.expr(d))
			}
		}
		return in
	case 6:
		return &Exists{Sub: b.query(d), Not: b.src.n(2) == 1}
	case 7:
		return &ScalarSubquery{Sub: b.query(d)}
	case 8:
		f := &Func{Name: b.src.pick("ABS", "coalesce", "COUNT", "MAX", "lower")}
		if f.Name == "COUNT" && b.src.n(2) == 1 {
			f.Star = true
		} else {
			for range 1 + b.src.n(2) {
				f.Args = append(f.Args, b.expr(d))
			}
		}
		return f
	}
	return b.literal()
}

func (b *astBuilder) tableRef(depth int) TableRef {
	switch b.src.n(4) {
	case 1:
		if depth > 0 {
			return &Subquery{Query: b.query(depth - 1), Alias: b.name()}
		}
	case 2:
		if depth > 0 {
			j := &Join{Kind: b.src.pick("JOIN", "LEFT JOIN", "CROSS JOIN"), Left: b.tableRef(depth - 1), Right: b.tableRef(depth - 1)}
			if j.Kind != "CROSS JOIN" {
				j.On = b.expr(depth - 1)
			}
			return j
		}
	}
	t := &Table{Name: b.name()}
	if b.src.n(2) == 1 {
		t.Alias = b.name()
	}
	return t
}

func (b *astBuilder) query(depth int) Query {
	if depth > 0 && b.src.n(4) == 1 {
		right := b.query(depth - 1)
		if !b.d.SupportsNestedSetOp() {
			right = b.sel(depth - 1)
		}
		return &SetOp{Op: b.src.pick("UNION", "UNION ALL"), Left: b.query(depth - 1), Right: right}
	}
	return b.sel(depth)
}

func (b *astBuilder) sel(depth int) *Select {
	s := &Select{Distinct: b.src.n(4) == 1}
	for range 1 + b.src.n(3) {
		switch b.src.n(5) {
		case 0:
			s.Items = append(s.Items, SelectItem{Star: true})
		case 1:
			s.Items = append(s.Items, SelectItem{Star: true, Table: b.name()})
		case 2:
			s.Items = append(s.Items, SelectItem{Expr: b.expr(depth), Alias: b.name()})
		default:
			s.Items = append(s.Items, SelectItem{Expr: b.expr(depth)})
		}
	}
	for range b.src.n(3) {
		s.From = append(s.From, b.tableRef(depth))
	}
	if b.src.n(2) == 1 {
		s.Where = b.expr(depth)
	}
	return s
}

func (b *astBuilder) assignments(depth int, excluded bool) []Assignment {
	var out []Assignment
	for range 1 + b.src.n(2) {
		v := b.expr(depth)
		if excluded && b.src.n(2) == 1 {
			v = &Binary{Op: "+", L: &Excluded{Column: b.name()}, R: v}
		}
		out = append(out, Assignment{Column: b.name(), Value: v})
	}
	return out
}

func (b *astBuilder) stmt(depth int) Stmt {
	switch b.src.n(10) {
	case 8, 9:
		return b.multiStmt(depth)
	case 1:
		ct := &CreateTable{Name: b.name()}
		for range 1 + b.src.n(3) {
			c := ColumnDef{Name: b.name(), Type: Type(1 + b.src.n(5)), NotNull: b.src.n(2) == 1,
				PrimaryKey: b.src.n(4) == 1, Unique: b.src.n(4) == 1}
			if b.src.n(2) == 1 {
				c.Default = b.expr(b.src.n(2))
			}
			if b.src.n(2) == 1 {
				c.Check = b.expr(depth)
			}
			ct.Columns = append(ct.Columns, c)
		}
		if b.src.n(2) == 1 {
			ct.PrimaryKey = []string{b.name(), b.name()}
		}
		if b.src.n(2) == 1 {
			ct.Uniques = [][]string{{b.name()}}
		}
		if b.src.n(2) == 1 {
			ct.Checks = []Expr{b.expr(depth)}
		}
		if b.src.n(3) == 1 {
			fk := ForeignKey{Columns: []string{b.name()}, RefTable: b.name(), OnDelete: RefAction(b.src.n(6)),
				OnUpdate: RefAction(b.src.n(6)), Deferrable: b.src.n(2) == 1}
			fk.InitiallyDeferred = fk.Deferrable && b.src.n(2) == 1
			if b.src.n(2) == 1 {
				fk.RefColumns = []string{b.name()}
			}
			ct.ForeignKeys = append(ct.ForeignKeys, fk)
		}
		return ct
	case 2:
		return &CreateIndex{Name: b.name(), Table: b.name(), Columns: []string{b.name()}, Unique: b.src.n(2) == 1}
	case 3:
		ins := &Insert{Table: b.name()}
		if b.src.n(2) == 1 {
			ins.Columns = []string{b.name(), b.name()}
		}
		if b.src.n(3) == 1 {
			ins.Select = b.query(depth)
		} else {
			for range 1 + b.src.n(2) {
				ins.Values = append(ins.Values, []Expr{b.expr(depth), b.expr(depth)})
			}
		}
		switch b.src.n(4) {
		case 1:
			ins.Replace = true
		case 2:
			ins.OnConflict = &OnConflict{Columns: []string{b.name()}, DoNothing: true}
		case 3:
			ins.OnConflict = &OnConflict{Columns: []string{b.name()}, Set: b.assignments(depth, true)}
		}
		return ins
	case 4:
		u := &Update{Table: b.name(), Set: b.assignments(depth, false)}
		if b.src.n(2) == 1 {
			u.Where = b.expr(depth)
		}
		return u
	case 5:
		del := &Delete{Table: b.name()}
		if b.src.n(2) == 1 {
			del.Where = b.expr(depth)
		}
		return del
	case 6:
		return []Stmt{&Begin{}, &Commit{}, &Rollback{}}[b.src.n(3)]
	}
	s := &SelectStmt{Query: b.query(depth), Lock: LockMode(b.src.n(3))}
	if b.d == Postgres && s.Lock != LockNone && b.src.n(2) == 1 {
		// PostgreSQL's weaker strengths: FOR NO KEY UPDATE, FOR KEY SHARE.
		s.Lock += LockNoKeyUpdate - LockShare
	}
	for range b.src.n(3) {
		s.OrderBy = append(s.OrderBy, OrderItem{Expr: b.expr(depth), Desc: b.src.n(2) == 1})
	}
	if b.src.n(2) == 1 {
		s.Limit = intp(b.src.n(100))
	}
	return s
}

// FuzzFormat builds generator-like ASTs from the fuzz input and checks that
// Format(Parse(Format(ast))) == Format(ast), that no "--" is rendered
// outside a quoted string or identifier, and that Clone copies the AST.
func FuzzFormat(f *testing.F) {
	f.Add([]byte{})
	f.Add([]byte{0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15})
	f.Add([]byte("a fairly long seed that walks through many of the choices"))
	f.Add([]byte{1, 1, 1, 1, 2, 2, 2, 2, 3, 3, 3, 4, 4, 5, 5, 6, 6, 7, 7, 8, 8})
	f.Fuzz(func(t *testing.T, data []byte) {
		for _, d := range dialects {
			b := &astBuilder{src: &byteSource{b: data}, d: d}
			s := b.stmt(3)
			checkClone(t, d, s)
			once := Format(d, s)
			if strings.Contains(stripQuoted(once), "--") {
				t.Fatalf("%s: rendered -- outside quotes: %s", d, once)
			}
			p, err := Parse(d, once)
			if err != nil {
				t.Fatalf("%s: Parse(Format(ast)) failed: %v\n%s", d, err, once)
			}
			if twice := Format(d, p); twice != once {
				t.Fatalf("%s: not stable:\n once: %s\ntwice: %s", d, once, twice)
			}
		}
	})
}

// stripQuoted removes quoted strings and identifiers (any of ' " `),
// assuming doubled quotes as the only escape, which holds for Format output
// apart from MySQL's \\ and \0 (neither contains a quote).
func stripQuoted(s string) string {
	var b strings.Builder
	var q byte
	for i := 0; i < len(s); i++ {
		c := s[i]
		switch {
		case q == 0 && (c == '\'' || c == '"' || c == '`'):
			q = c
		case q != 0 && c == q:
			q = 0
		case q == 0:
			b.WriteByte(c)
		}
	}
	return b.String()
}
