package infer

import (
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
	for i := range p.results {
		qi := &p.results[i]
		if qi.del {
			continue
		}
		for j := range p.results {
			if i == j {
				continue
			}
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
				wi, wj := a[x].wl, b[y].wl
				reader := qi.txn
				if slices.Equal(wi, wj) {
					if qj.del && reader != qj.txn {
						c.add(reader, qj.txn, depgraph.RW, a[x].row, qi.stmt, qj.stmt, wi, qi.lock)
					}
				} else if len(wj) > len(wi) && slices.Equal(wj[:len(wi)], wi) {
					if w := wj[len(wi)]; reader != w {
						c.add(reader, w, depgraph.RW, a[x].row, qi.stmt, -1, wi, qi.lock)
					}
				}
				x++
				y++
			}
		}
	}
	return newDeps(p, c), nil
}
