package sqlast

import (
	"reflect"
	"sync"
)

// Memo is one statement's text with its parse in each dialect, made the
// first time a reader asks for that dialect and kept for every reader
// after. Whatever carries a statement (a case's step, through its kind:
// testcase.Kind.Stmt) carries a Memo, so that the oracles, the model and
// the reducer take one parse instead of each parsing the text again.
//
// The parsed statement is shared by all readers, who may run at once: it
// must not be changed. A reader that rewrites it takes a Clone first.
type Memo struct {
	sql  string
	mu   sync.Mutex
	done [numDialects]bool
	st   [numDialects]Stmt
	err  [numDialects]error
}

// numDialects counts the dialects, DialectNone included.
const numDialects = int(SQLite) + 1

// NewMemo returns the memo of statement sql, parsed in no dialect yet.
func NewMemo(sql string) *Memo { return &Memo{sql: sql} }

// SQL is the statement's text.
func (m *Memo) SQL() string { return m.sql }

// Parse is Parse(d, m.SQL()), parsed once per dialect; the statement is
// shared (see Memo).
func (m *Memo) Parse(d Dialect) (Stmt, error) {
	// A value that is no dialect of this package is parsed each time:
	// there is nothing to keep it under.
	kept := d >= 0 && int(d) < numDialects
	m.mu.Lock()
	defer m.mu.Unlock()
	if kept && m.done[d] {
		return m.st[d], m.err[d]
	}
	// The parse of a carried statement: every reader of a step's
	// statement comes here, once per dialect, through the memo its kind
	// carries.
	st, err := Parse(d, m.sql)
	if kept {
		m.st[d], m.err[d], m.done[d] = st, err, true
	}
	return st, err
}

// Clone returns a deep copy of statement s, for a reader that changes a
// shared parse (Memo): every node, slice and pointer below s is copied, and
// a node s reaches twice is one node of the copy, reached twice.
func Clone(s Stmt) Stmt {
	if s == nil {
		return nil
	}
	return deepCopy(reflect.ValueOf(s), map[any]reflect.Value{}).Interface().(Stmt)
}

// deepCopy copies v, and everything it points to, as Clone does; seen maps
// each pointer copied so far to its copy.
func deepCopy(v reflect.Value, seen map[any]reflect.Value) reflect.Value {
	switch v.Kind() {
	case reflect.Pointer:
		if v.IsNil() {
			return v
		}
		if c, ok := seen[v.Interface()]; ok {
			return c
		}
		c := reflect.New(v.Type().Elem())
		seen[v.Interface()] = c
		c.Elem().Set(deepCopy(v.Elem(), seen))
		return c
	case reflect.Interface:
		if v.IsNil() {
			return v
		}
		c := reflect.New(v.Type()).Elem()
		c.Set(deepCopy(v.Elem(), seen))
		return c
	case reflect.Slice:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeSlice(v.Type(), v.Len(), v.Len())
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i), seen))
		}
		return c
	case reflect.Map:
		if v.IsNil() {
			return v
		}
		c := reflect.MakeMapWithSize(v.Type(), v.Len())
		for it := v.MapRange(); it.Next(); {
			c.SetMapIndex(it.Key(), deepCopy(it.Value(), seen))
		}
		return c
	case reflect.Struct:
		c := reflect.New(v.Type()).Elem()
		c.Set(v) // the plain fields
		for i := range v.NumField() {
			if !c.Field(i).CanSet() {
				continue // unexported: the AST's types have none
			}
			switch v.Field(i).Kind() {
			case reflect.Pointer, reflect.Interface, reflect.Slice, reflect.Map, reflect.Struct, reflect.Array:
				c.Field(i).Set(deepCopy(v.Field(i), seen))
			}
		}
		return c
	case reflect.Array:
		c := reflect.New(v.Type()).Elem()
		for i := range v.Len() {
			c.Index(i).Set(deepCopy(v.Index(i), seen))
		}
		return c
	}
	return v
}
