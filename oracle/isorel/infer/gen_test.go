package infer

import (
	"fmt"
	"math/rand/v2"
	"strings"

	"github.com/txlab/txlab/history"
)

// genOptions shape a random relational history.
type genOptions struct {
	Stmts    int     // total statements (approximately)
	Rows     int     // initial rows
	Sessions int     // sessions
	Stale    float64 // probability that a read sees an older version (interleaving)
	Fail     float64 // probability that a transaction aborts
	Fork     float64 // probability that an UPDATE overwrites an older version (inconsistent history)
	FullRead int     // a full-table read every FullRead transactions (0: never)
	MaxRows  int     // when this many rows live, an INSERT deletes instead (0: unbounded)
}

// genHistory simulates transactions over a few rows: reads see the current
// version or (interleaved) an older one, updates append to wLists, deletes
// record their pre-read, inserts create rows. It is a history generator,
// not a DBMS model: it only has to produce the shapes Algorithm 1 reads.
func genHistory(seed uint64, o genOptions) *history.History {
	rnd := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	wl := make(map[string][]int64) // current version per live row
	var live []string
	var dead []string
	next := 1
	for ; next <= o.Rows; next++ {
		r := fmt.Sprintf("r%d", next)
		wl[r] = []int64{0}
		live = append(live, r)
	}
	all := make(map[string][]int64) // last version of every row ever (incl. deleted)
	for r, w := range wl {
		all[r] = w
	}
	str := func(w []int64) string {
		var b strings.Builder
		for i, t := range w {
			if i > 0 {
				b.WriteByte(',')
			}
			fmt.Fprintf(&b, "T%d", t)
		}
		return b.String()
	}
	h := &history.History{Txns: []history.Txn{{ID: 0, Init: true}}}
	version := func(r string) string {
		w := all[r]
		if rnd.Float64() < o.Stale && len(w) > 1 {
			w = w[:1+rnd.IntN(len(w)-1)]
		}
		return str(w)
	}
	n := 0
	for id := int64(1); n < o.Stmts; id++ {
		t := history.Txn{ID: id, Session: 1 + rnd.IntN(o.Sessions), Isolation: "serializable"}
		if rnd.Float64() < o.Fail {
			t.Status = history.Fail
		}
		if o.FullRead > 0 && id%int64(o.FullRead) == 0 {
			s := history.Stmt{SQL: "SELECT * FROM t", Kind: "SELECT"}
			for _, r := range live {
				s.Reads = append(s.Reads, history.Version{Row: r, WList: str(wl[r])})
			}
			t.Stmts = append(t.Stmts, s)
			n++
		}
		for k := 1 + rnd.IntN(4); k > 0 && len(live) > 0; k-- {
			n++
			p := rnd.IntN(10)
			if p >= 8 && o.MaxRows > 0 && len(live) >= o.MaxRows {
				p = 7 // keep the table size stationary, like a stress run
			}
			switch {
			case p < 4: // SELECT of 1–4 rows, sometimes FOR UPDATE
				s := history.Stmt{SQL: "SELECT", Kind: "SELECT", Locking: rnd.IntN(5) == 0}
				seen := make(map[string]bool)
				for j := 1 + rnd.IntN(4); j > 0; j-- {
					r := live[rnd.IntN(len(live))]
					if len(dead) > 0 && rnd.IntN(10) == 0 {
						r = dead[rnd.IntN(len(dead))]
					}
					if seen[r] {
						continue // a row appears once per result
					}
					seen[r] = true
					s.Reads = append(s.Reads, history.Version{Row: r, WList: version(r)})
				}
				t.Stmts = append(t.Stmts, s)
			case p < 7: // UPDATE of 1–2 rows
				for j := 1 + rnd.IntN(2); j > 0; j-- {
					r := live[rnd.IntN(len(live))]
					w := wl[r]
					if rnd.Float64() < o.Fork && len(w) > 1 {
						w = w[:1+rnd.IntN(len(w)-1)]
					}
					w = append(w[:len(w):len(w)], id)
					wl[r], all[r] = w, w
				}
				t.Stmts = append(t.Stmts, history.Stmt{SQL: "UPDATE", Kind: "UPDATE"})
			case p < 8: // DELETE with its pre-read; REPLACE sometimes
				i := rnd.IntN(len(live))
				r := live[i]
				kind := "DELETE"
				s := history.Stmt{SQL: kind, Kind: kind, Locking: true, Deleted: []history.Version{{Row: r, WList: str(wl[r])}}}
				live = append(live[:i], live[i+1:]...)
				dead = append(dead, r)
				delete(wl, r)
				if rnd.IntN(2) == 0 {
					s.Kind, s.SQL = "REPLACE", "REPLACE"
					nr := fmt.Sprintf("r%d", next)
					next++
					s.Inserted = []string{nr}
					wl[nr], all[nr] = []int64{id}, []int64{id}
					live = append(live, nr)
				}
				t.Stmts = append(t.Stmts, s)
			default: // INSERT
				nr := fmt.Sprintf("r%d", next)
				next++
				wl[nr], all[nr] = []int64{id}, []int64{id}
				live = append(live, nr)
				t.Stmts = append(t.Stmts, history.Stmt{SQL: "INSERT", Kind: "INSERT", Inserted: []string{nr}})
			}
		}
		h.Txns = append(h.Txns, t)
	}
	return h
}
