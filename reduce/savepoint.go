package reduce

import (
	"slices"

	"github.com/txlab/txlab/testcase"
)

// dropSavepoint removes the i-th SAVEPOINT of c together with the
// ROLLBACK TO and RELEASE of it that follow in its transaction: alone,
// either half of the pair fails (no such savepoint) or means something
// else, so the steps pass rarely removes a pair.
func dropSavepoint(_ *reducer, c *testcase.Case, i int) *testcase.Case {
	n := 0
	for _, txn := range testcase.Transactions(c) {
		for k, s := range txn.Steps {
			op, name := testcase.SavepointOf(c.Steps[s].SQL)
			if op != testcase.SavepointSet {
				continue
			}
			if n++; n <= i {
				continue
			}
			drop := []int{s}
			for _, later := range txn.Steps[k+1:] {
				lop, lname := testcase.SavepointOf(c.Steps[later].SQL)
				if lname != name {
					continue
				}
				if lop == testcase.SavepointSet {
					break // a new savepoint of the same name: its own pair
				}
				drop = append(drop, later)
			}
			d := clone(c)
			d.Steps = d.Steps[:0]
			for j, st := range c.Steps {
				if !slices.Contains(drop, j) {
					d.Steps = append(d.Steps, st)
				}
			}
			return tidy(d)
		}
	}
	return noMore
}
