package model

import "github.com/txlab/txlab/target"

// choice is one outcome of a row for a statement checked row by row: the
// output row it contributes (row nil: none) and the variation, if only a
// variation permits it.
type choice struct {
	key  string
	row  target.Row
	vary *Variation
}

// conforms reports whether the actual rows can be produced by picking one
// choice per row (without variations unless withVary), and which variations
// that takes. It never enumerates subsets: it is a bipartite matching
// between actual rows and model rows, where a row that may be absent need
// not be matched and every actual row must be (Mendelsohn–Dulmage: a
// matching that saturates the actual rows extends to the rows that must
// appear whenever both can be saturated separately).
func conforms(choices [][]choice, actual []target.Row, withVary bool) (bool, []*Variation) {
	n := len(choices)
	mayAbsent := make([]bool, n)
	adj := make([][]int, len(actual)) // actual row -> model rows
	keys := make([]string, len(actual))
	for j, r := range actual {
		keys[j] = rowKey(r)
	}
	for i, cs := range choices {
		for _, c := range cs {
			if c.vary != nil && !withVary {
				continue
			}
			if c.row == nil {
				mayAbsent[i] = true
				continue
			}
			for j := range actual {
				if keys[j] == c.key {
					adj[j] = append(adj[j], i)
				}
			}
		}
	}
	rowAdj := make([][]int, n)
	for j, is := range adj {
		for _, i := range is {
			rowAdj[i] = append(rowAdj[i], j)
		}
	}
	matchRow := make([]int, n) // model row -> actual row
	matchAct := make([]int, len(actual))
	for i := range matchRow {
		matchRow[i] = -1
	}
	for j := range matchAct {
		matchAct[j] = -1
	}
	// Saturate the actual rows.
	var tryAct func(j int, seen []bool) bool
	tryAct = func(j int, seen []bool) bool {
		for _, i := range adj[j] {
			if seen[i] {
				continue
			}
			seen[i] = true
			if matchRow[i] < 0 || tryAct(matchRow[i], seen) {
				matchRow[i], matchAct[j] = j, i
				return true
			}
		}
		return false
	}
	for j := range actual {
		if !tryAct(j, make([]bool, n)) {
			return false, nil
		}
	}
	// Extend to the rows that must appear, keeping every actual row matched.
	var tryRow func(i int, seen []bool) bool
	tryRow = func(i int, seen []bool) bool {
		for _, j := range rowAdj[i] {
			if seen[j] {
				continue
			}
			seen[j] = true
			k := matchAct[j]
			if k < 0 || mayAbsent[k] || tryRow(k, seen) {
				if k >= 0 && matchRow[k] == j {
					matchRow[k] = -1
				}
				matchAct[j], matchRow[i] = i, j
				return true
			}
		}
		return false
	}
	for i := range choices {
		if matchRow[i] < 0 && !mayAbsent[i] {
			if !tryRow(i, make([]bool, len(actual))) {
				return false, nil
			}
		}
	}
	if !withVary {
		return true, nil
	}
	var varies []*Variation
	for i, cs := range choices {
		plain := false
		var vary *Variation
		for _, c := range cs {
			hit := (matchRow[i] < 0 && c.row == nil) || (matchRow[i] >= 0 && c.row != nil && c.key == keys[matchRow[i]])
			if !hit {
				continue
			}
			if c.vary == nil {
				plain = true
			} else {
				vary = c.vary
			}
		}
		if !plain && vary != nil {
			varies = append(varies, vary)
		}
	}
	return true, varies
}
