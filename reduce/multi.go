package reduce

import "github.com/txlab/txlab/sqlast"

// singleTable makes one write across tables a single-table write: UPDATE …
// FROM and DELETE … USING without their other tables, the MySQL family's
// multiple-table UPDATE of one of the tables it writes (with that table's
// assignments) and DELETE of one of its targets. A candidate whose SET or
// WHERE still reads a table it dropped fails on the DBMS and is not kept;
// the WHERE pass may first free it of them.
var singleTable = inPlace(singleTableSimplifications)

// singleTableSimplifications lists the single-table forms of s, each as a
// function that rewrites s into it.
func singleTableSimplifications(s sqlast.Stmt) []func() {
	var out []func()
	switch s := s.(type) {
	case *sqlast.Update:
		if len(s.From) > 0 {
			out = append(out, func() { s.From = nil })
		}
		if len(s.Tables) == 0 {
			break
		}
		var written []string
		for _, a := range s.Set {
			if a.Table != "" && !contains(written, a.Table) {
				written = append(written, a.Table)
			}
		}
		for _, t := range written {
			out = append(out, func() {
				var set []sqlast.Assignment
				for _, a := range s.Set {
					if a.Table == t {
						a.Table = ""
						set = append(set, a)
					}
				}
				s.Table, s.Tables, s.Set = t, nil, set
			})
		}
	case *sqlast.Delete:
		if len(s.Using) > 0 {
			out = append(out, func() { s.Using = nil })
		}
		for _, t := range s.Targets {
			out = append(out, func() { s.Table, s.Targets, s.Tables = t, nil, nil })
		}
	}
	return out
}

func contains(xs []string, x string) bool {
	for _, y := range xs {
		if y == x {
			return true
		}
	}
	return false
}
