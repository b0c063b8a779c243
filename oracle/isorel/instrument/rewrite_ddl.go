package instrument

import (
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// Setup rewrites one setup statement: CREATE TABLE gains the hidden
// columns, INSERT rows get rowIds and wList 'T0', anything else runs as
// written. It also learns the schema, so setup must go through it first.
func (rw *Rewriter) Setup(sql string) (string, Info) {
	// A setup statement is text, not a step: its kind, made here, carries
	// its parse to schema and to the rewrite below, parsed once.
	k := testcase.Classify(sql)
	if out, info, ok := rw.schema(k); ok {
		return out, info
	}
	info := Info{Kind: k.Keyword}
	st, err := k.Stmt(rw.d)
	if err != nil {
		info.Note = "not parsed: " + err.Error()
		return rw.asWritten(k), info
	}
	if s, ok := st.(*sqlast.Insert); ok {
		sent, err := rw.insert(s, "T0", &info)
		if err != nil {
			info.Note = err.Error()
			return rw.asWritten(k), info
		}
		info.Instrumented = true
		return sent[len(sent)-1].SQL, info
	}
	return sql, info
}

// schema handles the statements that define tables and indexes, in setup
// and in steps alike: CREATE TABLE, in any of the forms people write, gets
// the two hidden columns after its last column, inserted into the text as
// written (ENGINE=InnoDB, int(11), KEY k (b) … stay as they are);
// CREATE INDEX and ALTER TABLE … ADD INDEX/KEY/UNIQUE/PRIMARY KEY run as
// written and tell the rewriter the table's keys. ok is false for other
// statements.
func (rw *Rewriter) schema(k testcase.Kind) (string, Info, bool) {
	sql := k.Of
	info := Info{Kind: k.Keyword}
	switch info.Kind {
	case "CREATE":
		def, err := sqlast.ReadCreateTable(rw.d, sql)
		if err == nil {
			rw.learn(def)
			info.Instrumented = true
			return sql[:def.ColumnsEnd] + ", " + RowIDColumn + " TEXT, " + WListColumn + " TEXT" + sql[def.ColumnsEnd:], info, true
		}
		if rw.schemaFeature(k) {
			return sql, info, true
		}
		idx, ierr := sqlast.ReadIndex(rw.d, sql)
		if ierr != nil {
			info.Note = "not instrumented: " + err.Error()
			rw.schemaUnsure = true
			return sql, info, true
		}
		rw.addIndex(idx)
		return sql, info, true
	case "ALTER":
		idx, err := sqlast.ReadIndex(rw.d, sql)
		if err != nil {
			info.Note = "a schema change IsoRel does not follow: " + err.Error()
			rw.schemaUnsure = true
			return sql, info, true
		}
		rw.addIndex(idx)
		return sql, info, true
	}
	return "", info, false
}

// learn records a table's columns and keys.
func (rw *Rewriter) learn(def *sqlast.TableDef) {
	t := &table{name: def.Name, columns: def.Columns, primary: def.PrimaryKey, temporary: def.Temporary, generated: def.Generated}
	for _, ref := range def.References {
		if ref == def.Name {
			t.referenced = true
		} else if r := rw.tables[ref]; r != nil {
			r.referenced = true
		} else {
			rw.schemaUnsure = true // a table made later, or elsewhere
		}
	}
	if old := rw.tables[def.Name]; old != nil {
		t.referenced = old.referenced
		t.actedOnDelete, t.actedOnUpdate = old.actedOnDelete, old.actedOnUpdate
	}
	rw.learnActions(def, t)
	if def.PrimaryKey != nil {
		t.keys = append(t.keys, def.PrimaryKey)
	}
	t.keys = append(t.keys, def.Uniques...)
	t.indexes = append(append(t.indexes, def.Uniques...), def.Indexes...)
	if rw.tables[def.Name] == nil {
		rw.order = append(rw.order, def.Name)
	}
	rw.tables[def.Name] = t
}

// addIndex records an index a statement adds to a known table.
func (rw *Rewriter) addIndex(idx *sqlast.IndexDef) {
	t := rw.tables[idx.Table]
	if t == nil || idx.Columns == nil {
		return
	}
	switch {
	case idx.Primary:
		t.primary = idx.Columns
		t.keys = append(t.keys, idx.Columns)
	case idx.Unique:
		t.keys = append(t.keys, idx.Columns)
		t.indexes = append(t.indexes, idx.Columns)
	default:
		t.indexes = append(t.indexes, idx.Columns)
	}
}
