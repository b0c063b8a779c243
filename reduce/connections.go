package reduce

import (
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// renumberConnections numbers the connections 1, 2, … in the order of
// their first steps: a case whose transactions were dropped keeps
// connections 3 and 5, and a bug report that talks of connection 3 and
// connection 5 of two makes its reader look for the others. It is one
// candidate (nil when the numbers are already so), kept, as every
// candidate, only when the finding stays.
func renumberConnections(_ *reducer, c *testcase.Case, i int) *testcase.Case {
	if i > 0 {
		return noMore
	}
	to := map[int]int{}
	changed := false
	for _, s := range c.Steps {
		if _, ok := to[s.Conn]; !ok {
			to[s.Conn] = len(to) + 1
			changed = changed || to[s.Conn] != s.Conn
		}
	}
	if !changed {
		return nil
	}
	d := clone(c)
	for k := range d.Steps {
		d.Steps[k].Conn = to[d.Steps[k].Conn]
	}
	if c.ConnIsolation != nil {
		d.ConnIsolation = map[int]target.Level{}
		for conn, l := range c.ConnIsolation {
			if n, ok := to[conn]; ok {
				d.ConnIsolation[n] = l
			}
		}
	}
	return d
}
