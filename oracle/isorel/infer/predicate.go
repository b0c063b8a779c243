package infer

import (
	"context"
	"slices"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
)

// Predicate anti-dependencies (Adya's thesis, §4.2.2): T overwrites a
// predicate read of U when it installs a version, later than the one U's
// view held, that changes whether the row matches the read's predicate.
// The history gives both halves: a predicate read's Seen (every version
// of the table in its view, and which matched) and the Installed versions
// of the writes, each with the recorded predicates it matches. A version
// whose match is not known (its write evaluated no such predicate) yields
// no edge, so an edge is never guessed.
//
// A row missing from a read's view was not in it: either it did not exist
// yet or it was already gone. Only the rows of the final state were never
// deleted (rowIds are not reused), so only for those is every version
// later than the view's, and an installed version that matches is a
// phantom: the reader rw→ its writer.

// installed is one version a write left, with the predicates it matches.
type installed struct {
	wl      []int64
	matches []string
	eval    []string
	txn     int64 // the transaction whose statement reported it
	stmt    int
}

// predicateEdges derives the predicate rw edges of h, deduplicated by
// (From, To, row), in history order of the reading transactions.
func predicateEdges(ctx context.Context, h *history.History) ([]Edge, error) {
	versions := map[string][]installed{}
	final := map[string]bool{}
	reads := false
	for i := range h.Txns {
		t := &h.Txns[i]
		for si := range t.Stmts {
			s := &t.Stmts[si]
			reads = reads || s.Predicate != ""
			if t.Final {
				for _, v := range s.Reads {
					final[v.Row] = true
				}
			}
			if s.Error != "" {
				continue
			}
			for _, v := range s.Installed {
				wl, err := history.ParseWList(v.WList)
				if err != nil {
					continue
				}
				versions[v.Row] = append(versions[v.Row], installed{wl: wl, matches: v.Matches, eval: s.Evaluated, txn: t.ID, stmt: si})
			}
		}
	}
	if !reads || len(versions) == 0 {
		return nil, nil
	}
	rows := make([]string, 0, len(versions))
	for r := range versions {
		rows = append(rows, r)
	}
	slices.Sort(rows)
	var out []Edge
	seen := map[key]bool{}
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Init || t.Final {
			continue
		}
		// Latest read first: the evidence kept for an edge is the last read
		// that missed the change, the one after any locking read of the row
		// (see readsBack).
		for si := len(t.Stmts) - 1; si >= 0; si-- {
			s := &t.Stmts[si]
			if s.Predicate == "" || s.Error != "" {
				continue
			}
			// Each read looks at every row's versions.
			if err := ctx.Err(); err != nil {
				return nil, err
			}
			view := map[string]history.Version{}
			for _, v := range s.Seen {
				view[v.Row] = v
			}
			for _, r := range rows {
				v, inView := view[r]
				if !inView && !final[r] {
					continue
				}
				var base []int64
				if inView {
					var err error
					if base, err = history.ParseWList(v.WList); err != nil {
						continue
					}
				}
				was := inView && v.Match(s.Predicate)
				for _, x := range versions[r] {
					if !slices.Contains(x.eval, s.Predicate) || len(x.wl) <= len(base) || !slices.Equal(x.wl[:len(base)], base) {
						continue
					}
					writer := x.wl[len(x.wl)-1]
					if writer == t.ID || slices.Contains(x.matches, s.Predicate) == was {
						continue
					}
					k := key{t.ID, writer, depgraph.RW, r, true}
					if seen[k] {
						continue
					}
					seen[k] = true
					e := Edge{From: t.ID, To: writer, Kind: depgraph.RW, Row: r, FromStmt: si, ToStmt: -1, Predicate: s.Predicate, WList: plainWList(base)}
					if x.txn == writer {
						e.ToStmt = x.stmt
					}
					out = append(out, e)
				}
			}
		}
	}
	return out, nil
}

// plainWList is a WList of transaction ids outside any prepared history.
func plainWList(ids []int64) WList {
	if len(ids) == 0 {
		return WList{}
	}
	wl := make([]int32, len(ids))
	for i := range wl {
		wl[i] = int32(i)
	}
	return WList{&prepared{ids: ids}, wl}
}
