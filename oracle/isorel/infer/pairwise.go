package infer

import (
	"context"
	"slices"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
)

// InferPairwise is a direct implementation of IsoRel Algorithm 1: wr and ww
// per row of every query result (lines 5–19), then rw by comparing every
// ordered pair of query results that share a rowId (lines 20–34). It is
// quadratic in the number of query results and exists only as the reference
// Infer is tested against; it fills Edges only.
func InferPairwise(h *history.History) (*Deps, error) {
	p, err := prepare(h)
	if err != nil {
		return nil, err
	}
	c := newCollector(p, p.observed)
	c.sessionOrder()
	// Lines 5–19.
	for ri := range p.results {
		r := &p.results[ri]
		for _, o := range r.rows {
			last := o.wl[len(o.wl)-1]
			if r.del {
				if r.txn != last {
					c.add(last, r.txn, depgraph.WW, o.row, -1, r.stmt, o.wl, false)
				}
			} else if r.txn != last {
				c.add(last, r.txn, depgraph.WR, o.row, -1, r.stmt, o.wl, r.lock)
			}
			for i := 1; i < len(o.wl); i++ {
				if o.wl[i-1] != o.wl[i] {
					c.add(o.wl[i-1], o.wl[i], depgraph.WW, o.row, -1, -1, o.wl[:i+1], false)
				}
			}
		}
	}
	// Lines 20–34. Each result's rows sorted by rowId so getSameRowIds is a
	// merge; the loop over all pairs is the paper's.
	sorted := make([][]obsRow, len(p.results))
	for i := range p.results {
		sorted[i] = slices.Clone(p.results[i].rows)
		slices.SortFunc(sorted[i], func(a, b obsRow) int { return int(a.row - b.row) })
	}
	// A result may hold two versions of one row (see prepare), so every
	// pair of observations of a row is compared, the other versions in
	// the same result included.
	for i := range p.results {
		qi := &p.results[i]
		if qi.del {
			continue
		}
		for j := range p.results {
			qj := &p.results[j]
			a, b := sorted[i], sorted[j]
			for x, y := 0, 0; x < len(a) && y < len(b); {
				switch {
				case a[x].row < b[y].row:
					x++
					continue
				case a[x].row > b[y].row:
					y++
					continue
				}
				xe, ye := x, y
				for xe < len(a) && a[xe].row == a[x].row {
					xe++
				}
				for ye < len(b) && b[ye].row == b[y].row {
					ye++
				}
				for xi := x; xi < xe; xi++ {
					for yi := y; yi < ye; yi++ {
						if i == j && xi == yi {
							continue
						}
						compare(c, qi, qj, a[xi], b[yi].wl)
					}
				}
				x, y = xe, ye
			}
		}
	}
	d := newDeps(p, c)
	pe, err := predicateEdges(context.Background(), h)
	if err != nil {
		return nil, err
	}
	d.Edges = append(d.Edges, pe...)
	return d, nil
}

// compare adds the edges of Algorithm 1's lines 20–34 for one observation
// o of reader result qi against the wList wj of the same row in result qj.
func compare(c *collector, qi, qj *result, o obsRow, wj []int32) {
	wi, reader := o.wl, qi.txn
	if slices.Equal(wi, wj) {
		if qj.del && qi != qj && reader != qj.txn {
			c.add(reader, qj.txn, depgraph.RW, o.row, qi.stmt, qj.stmt, wi, qi.lock)
		}
	} else if len(wj) > len(wi) && slices.Equal(wj[:len(wi)], wi) {
		if w := wj[len(wi)]; reader != w {
			c.add(reader, w, depgraph.RW, o.row, qi.stmt, -1, wi, qi.lock)
		}
	}
}
