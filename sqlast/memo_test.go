package sqlast

import (
	"reflect"
	"sync"
	"testing"
)

// TestMemo: a memo parses its statement once per dialect and hands every
// reader that parse, error included, also when they ask at once.
func TestMemo(t *testing.T) {
	m := NewMemo("SELECT a FROM t WHERE a = 1 FOR UPDATE")
	var wg sync.WaitGroup
	got := make([]Stmt, 8)
	for i := range got {
		wg.Go(func() {
			s, err := m.Parse(dialects[i%len(dialects)])
			if err != nil {
				t.Error(err)
			}
			got[i] = s
		})
	}
	wg.Wait()
	for i, s := range got {
		if again, _ := m.Parse(dialects[i%len(dialects)]); again != s {
			t.Errorf("dialect %s: a second parse %p, want the first %p", dialects[i%len(dialects)], again, s)
		}
	}
	if got[0] == got[1] {
		t.Errorf("dialects %s and %s share one parse", dialects[0], dialects[1])
	}
	bad := NewMemo("SELECT FROM")
	_, err1 := bad.Parse(MySQL)
	_, err2 := bad.Parse(MySQL)
	if err1 == nil || err1 != err2 {
		t.Errorf("a statement that does not parse: errors %v and %v, want one error twice", err1, err2)
	}
	if m.SQL() != "SELECT a FROM t WHERE a = 1 FOR UPDATE" {
		t.Errorf("SQL() = %q", m.SQL())
	}
}

// checkClone holds Clone(s) to a copy equal to s that shares nothing
// with it that could be changed.
func checkClone(t *testing.T, d Dialect, s Stmt) {
	t.Helper()
	c := Clone(s)
	if !reflect.DeepEqual(c, s) {
		t.Fatalf("%s: Clone(%s) = %s, not equal", d, Format(d, s), Format(d, c))
	}
	orig := map[uintptr]bool{}
	addresses(reflect.ValueOf(s), orig)
	copied := map[uintptr]bool{}
	addresses(reflect.ValueOf(c), copied)
	for a := range copied {
		if orig[a] {
			t.Fatalf("%s: Clone(%s) shares memory with the original", d, Format(d, s))
		}
	}
}

// addresses collects the addresses of what v points to (pointers, slices'
// arrays), leaving out zero-sized values, which may share one address.
func addresses(v reflect.Value, out map[uintptr]bool) {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() || out[v.Pointer()] {
			return
		}
		if v.Type().Elem().Size() > 0 {
			out[v.Pointer()] = true
		}
		addresses(v.Elem(), out)
	case reflect.Interface:
		if !v.IsNil() {
			addresses(v.Elem(), out)
		}
	case reflect.Slice:
		if v.IsNil() {
			return
		}
		if v.Cap() > 0 && v.Type().Elem().Size() > 0 {
			out[v.Pointer()] = true
		}
		for i := range v.Len() {
			addresses(v.Index(i), out)
		}
	case reflect.Struct:
		for i := range v.NumField() {
			addresses(v.Field(i), out)
		}
	}
}

func TestClone(t *testing.T) {
	for _, d := range dialects {
		for _, c := range formatCases() {
			checkClone(t, d, c.stmt)
		}
	}
	if Clone(nil) != nil {
		t.Error("Clone(nil) is not nil")
	}
	// A node reached twice stays one node.
	e := &ColumnRef{Column: "a"}
	s := &SelectStmt{Query: &Select{Items: []SelectItem{{Expr: e}}, Where: e}}
	c := Clone(s).(*SelectStmt).Query.(*Select)
	if c.Items[0].Expr != c.Where || c.Where == Expr(e) {
		t.Error("a node reached twice is not one copied node")
	}
}
