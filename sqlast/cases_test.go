package sqlast

// Hand-written ASTs shared by the golden format test and the round-trip
// tests: one or more per construct of the subset, named for the golden files.

func col(c string) *ColumnRef       { return &ColumnRef{Column: c} }
func qcol(t, c string) *ColumnRef   { return &ColumnRef{Table: t, Column: c} }
func num(s string) *Literal         { return &Literal{Kind: LitInt, Text: s} }
func flt(s string) *Literal         { return &Literal{Kind: LitFloat, Text: s} }
func str(s string) *Literal         { return &Literal{Kind: LitString, Text: s} }
func bin(op string, l, r Expr) Expr { return &Binary{Op: op, L: l, R: r} }
func intp(n int) *int               { return &n }

func sel(items []SelectItem, from []TableRef, where Expr) *Select {
	return &Select{Items: items, From: from, Where: where}
}

func star() []SelectItem { return []SelectItem{{Star: true}} }
func items(es ...Expr) []SelectItem {
	var out []SelectItem
	for _, e := range es {
		out = append(out, SelectItem{Expr: e})
	}
	return out
}
func tbl(n string) []TableRef { return []TableRef{&Table{Name: n}} }

var (
	null   = &Literal{Kind: LitNull}
	true_  = &Literal{Kind: LitBool, Text: "TRUE"}
	false_ = &Literal{Kind: LitBool, Text: "FALSE"}
)

func simple() *Select { return sel(items(col("c1")), tbl("t0"), nil) }

type namedStmt struct {
	name string
	stmt Stmt
}

// formatCases builds fresh ASTs on every call, so tests may mutate them.
func formatCases() []namedStmt {
	return []namedStmt{
		{"begin", &Begin{}},
		{"commit", &Commit{}},
		{"rollback", &Rollback{}},
		{"create-table-types", &CreateTable{Name: "t0", Columns: []ColumnDef{
			{Name: "c0", Type: TypeInt, PrimaryKey: true},
			{Name: "c1", Type: TypeDouble},
			{Name: "c2", Type: TypeDecimal, NotNull: true},
			{Name: "c3", Type: TypeVarchar, Unique: true, Default: str("a'b")},
			{Name: "c4", Type: TypeBool, Default: false_},
		}}},
		{"create-table-constraints", &CreateTable{Name: "t1", Columns: []ColumnDef{
			{Name: "a", Type: TypeInt, NotNull: true, Default: num("-1"), Check: bin(">", col("a"), num("-10"))},
			{Name: "b", Type: TypeInt, Default: bin("+", num("1"), num("2"))},
			{Name: "c", Type: TypeVarchar, Default: null},
			{Name: "d", Type: TypeDouble, Default: &Unary{Op: "-", X: flt("2.5")}},
		},
			PrimaryKey: []string{"a", "b"},
			Uniques:    [][]string{{"b", "c"}, {"d"}},
			Checks:     []Expr{bin("OR", &IsNull{X: col("c")}, bin("<>", col("c"), str("")))},
		}},
		{"create-table-quoted", &CreateTable{Name: "Order", Columns: []ColumnDef{
			{Name: "select", Type: TypeInt},
			{Name: "we`ird\"name", Type: TypeInt},
			{Name: "key", Type: TypeInt},
		}}},
		{"create-table-foreign-keys", &CreateTable{Name: "t2", Columns: []ColumnDef{
			{Name: "a", Type: TypeInt, References: &ForeignKey{RefTable: "t0", RefColumns: []string{"c0"}, OnDelete: RefCascade}},
			{Name: "b", Type: TypeVarchar},
		},
			ForeignKeys: []ForeignKey{{Name: "fk1", Columns: []string{"b"}, RefTable: "t0", RefColumns: []string{"c3"},
				OnDelete: RefSetNull, OnUpdate: RefRestrict, Deferrable: true, InitiallyDeferred: true}},
		}},
		{"create-index", &CreateIndex{Name: "i0", Table: "t0", Columns: []string{"c1", "c2"}}},
		{"create-unique-index", &CreateIndex{Name: "i1", Table: "t0", Columns: []string{"c1"}, Unique: true}},
		{"insert-values", &Insert{Table: "t0", Columns: []string{"c0", "c1"}, Values: [][]Expr{
			{num("1"), flt("2.5")}, {num("-3"), null}, {bin("+", num("1"), num("2")), str(`back\slash 'q'`)},
		}}},
		{"insert-no-columns", &Insert{Table: "t0", Values: [][]Expr{{num("1"), true_}}}},
		{"insert-default-values", &Insert{Table: "t0"}},
		{"insert-select", &Insert{Table: "t0", Columns: []string{"c0"},
			Select: sel(items(bin("+", col("c0"), num("10"))), tbl("t1"), bin(">", col("c0"), num("0")))}},
		{"replace", &Insert{Table: "t0", Columns: []string{"c0", "c1"}, Values: [][]Expr{{num("1"), num("2")}}, Replace: true}},
		{"upsert-do-nothing", &Insert{Table: "t0", Columns: []string{"c0", "c1"}, Values: [][]Expr{{num("1"), num("2")}},
			OnConflict: &OnConflict{Columns: []string{"c0"}, DoNothing: true}}},
		{"upsert-do-nothing-no-target", &Insert{Table: "t0", Values: [][]Expr{{num("1"), num("2")}},
			OnConflict: &OnConflict{DoNothing: true}}},
		{"upsert-update", &Insert{Table: "t0", Columns: []string{"c0", "c1"}, Values: [][]Expr{{num("1"), num("2")}},
			OnConflict: &OnConflict{Columns: []string{"c0"}, Set: []Assignment{
				{Column: "c1", Value: &Excluded{Column: "c1"}},
				{Column: "c2", Value: bin("+", qcol("t0", "c2"), &Excluded{Column: "c1"})},
			}}}},
		{"update", &Update{Table: "t0", Set: []Assignment{
			{Column: "c1", Value: bin("*", col("c1"), num("2"))},
			{Column: "c2", Value: bin("=", col("c0"), num("1"))},
		}, Where: &Between{X: col("c0"), Lo: num("1"), Hi: bin("+", num("5"), col("c3"))}}},
		{"update-no-where", &Update{Table: "t0", Set: []Assignment{{Column: "c1", Value: null}}}},
		{"delete", &Delete{Table: "t0", Where: &In{X: col("c0"), List: []Expr{num("1"), num("2"), num("3")}, Not: true}}},
		{"delete-all", &Delete{Table: "t0"}},
		{"select-star", &SelectStmt{Query: sel(star(), tbl("t0"), nil)}},
		{"select-no-from", &SelectStmt{Query: sel(items(num("1"), str("x")), nil, nil)}},
		{"select-distinct-alias", &SelectStmt{Query: &Select{Distinct: true,
			Items: []SelectItem{{Expr: col("c1"), Alias: "a"}, {Star: true, Table: "t0"}},
			From:  []TableRef{&Table{Name: "t0"}}}}},
		{"select-order-limit", &SelectStmt{Query: simple(),
			OrderBy: []OrderItem{{Expr: col("c1"), Desc: true}, {Expr: col("c2")}}, Limit: intp(3)}},
		{"select-for-update", &SelectStmt{Query: sel(star(), tbl("t0"), bin("=", col("c0"), num("1"))), Lock: LockUpdate}},
		{"select-for-share", &SelectStmt{Query: sel(star(), tbl("t0"), nil), Lock: LockShare}},
		{"union", &SelectStmt{Query: &SetOp{Op: "UNION",
			Left:  &SetOp{Op: "UNION ALL", Left: simple(), Right: sel(items(col("c2")), tbl("t1"), nil)},
			Right: sel(items(num("1")), nil, nil)}}},
		{"union-right-nested", &SelectStmt{Query: &SetOp{Op: "UNION ALL", Left: simple(),
			Right: &SetOp{Op: "UNION", Left: simple(), Right: simple()}}, OrderBy: []OrderItem{{Expr: num("1")}}}},
		{"joins", &SelectStmt{Query: sel(star(), []TableRef{
			&Join{Kind: "LEFT JOIN",
				Left:  &Join{Kind: "JOIN", Left: &Table{Name: "t0", Alias: "a"}, Right: &Table{Name: "t1", Alias: "b"}, On: bin("=", qcol("a", "c0"), qcol("b", "c0"))},
				Right: &Table{Name: "t2"}, On: bin("AND", bin("=", qcol("t2", "c0"), qcol("a", "c0")), true_)},
			&Table{Name: "t3"},
		}, nil)}},
		{"join-right-nested", &SelectStmt{Query: sel(star(), []TableRef{
			&Join{Kind: "CROSS JOIN", Left: &Table{Name: "t0"},
				Right: &Join{Kind: "JOIN", Left: &Table{Name: "t1"}, Right: &Table{Name: "t2"}, On: bin("=", qcol("t1", "c0"), qcol("t2", "c0"))}},
		}, nil)}},
		{"subqueries", &SelectStmt{Query: sel(
			[]SelectItem{{Expr: &ScalarSubquery{Sub: sel(items(&Func{Name: "count", Star: true}), tbl("t1"), nil)}, Alias: "n"}},
			[]TableRef{&Subquery{Query: sel(star(), tbl("t0"), nil), Alias: "s"}},
			bin("AND",
				&In{X: qcol("s", "c0"), Sub: sel(items(col("c0")), tbl("t1"), nil)},
				bin("OR", &Exists{Sub: sel(items(num("1")), tbl("t2"), nil)},
					&Exists{Sub: sel(items(num("1")), tbl("t3"), nil), Not: true})))}},
		{"functions", &SelectStmt{Query: sel(items(
			&Func{Name: "coalesce", Args: []Expr{col("c1"), num("0")}},
			&Func{Name: "ABS", Args: []Expr{&Unary{Op: "-", X: col("c1")}}},
			&Func{Name: "sum", Args: []Expr{col("c2")}},
		), tbl("t0"), nil)}},
		{"expr-precedence", &SelectStmt{Query: sel(items(
			bin("*", bin("+", col("a"), col("b")), col("c")),
			bin("+", col("a"), bin("*", col("b"), col("c"))),
			bin("-", col("a"), bin("-", col("b"), col("c"))),
			bin("-", bin("-", col("a"), col("b")), col("c")),
			bin("-", col("a"), num("-1")),
			&Unary{Op: "-", X: num("-1")},
			&Unary{Op: "-", X: &Unary{Op: "-", X: col("a")}},
			&Unary{Op: "-", X: bin("+", col("a"), num("1"))},
			bin("=", bin("=", col("a"), col("b")), false_),
			bin("=", &IsNull{X: col("a")}, true_),
			&IsNull{X: bin("=", col("a"), col("b")), Not: true},
			&Between{X: bin("+", col("a"), num("1")), Lo: &Unary{Op: "-", X: col("b")}, Hi: bin("=", col("c"), num("1")), Not: true},
			bin("AND", col("a"), bin("AND", col("b"), col("c"))),
			bin("OR", bin("AND", col("a"), col("b")), col("c")),
			bin("AND", bin("OR", col("a"), col("b")), col("c")),
			bin("%", col("a"), bin("/", col("b"), num("2"))),
		), tbl("t0"), nil)}},
		{"expr-not", &SelectStmt{Query: sel(items(
			&Unary{Op: "NOT", X: col("a")},
			&Unary{Op: "NOT", X: bin("=", col("a"), num("1"))},
			&Unary{Op: "NOT", X: &Unary{Op: "NOT", X: col("a")}},
			bin("=", &Unary{Op: "NOT", X: col("a")}, false_),
			bin("AND", &Unary{Op: "NOT", X: col("a")}, &Unary{Op: "NOT", X: bin("OR", col("b"), col("c"))}),
			&Unary{Op: "NOT", X: num("-1")},
			&Unary{Op: "NOT", X: &Exists{Sub: simple(), Not: true}},
			&In{X: &Unary{Op: "NOT", X: col("a")}, List: []Expr{true_}},
		), tbl("t0"), nil)}},
		{"not-exists-normalized", &SelectStmt{Query: sel(items(&Unary{Op: "NOT", X: &Exists{Sub: simple()}}), nil, nil)}},
		{"literals", &SelectStmt{Query: sel(items(
			num("0"), num("-42"), flt("2.5"), flt("-0.125"), flt("1e3"), flt("1.5E-7"),
			str(""), str("it's"), str(`a\b`), str("--not a comment"), str("/* nor this */"),
			true_, false_, null,
		), nil, nil)}},
		{"in-list-subquery-element", &SelectStmt{Query: sel(star(), tbl("t0"),
			&In{X: col("c0"), List: []Expr{&ScalarSubquery{Sub: sel(items(&Func{Name: "MAX", Args: []Expr{col("c0")}}), tbl("t1"), nil)}, num("1")}})}},
	}
}
