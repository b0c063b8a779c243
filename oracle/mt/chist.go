package mt

import (
	"github.com/txlab/txlab/history"
)

// chist is a history as the checks read it: of each transaction only what
// they use, 64 bytes (a history.Txn is 112, with the fields of relational
// histories) besides its ops. CheckFile reads a file into one directly, its
// ops in a few large blocks (opSlab), and never holds the file's history
// as history.Txns.
type chist struct {
	Txns []ctxn
}

// ctxn is a transaction of a chist: history.Txn's fields of the same names.
type ctxn struct {
	ID         int64
	Start, End int64
	Session    int
	Ops        []history.Op
	Status     history.Status
	Init       bool
}

// compact is h as a chist; the ops are h's own, not copied.
func compact(h *history.History) *chist {
	c := &chist{Txns: make([]ctxn, len(h.Txns))}
	for i := range h.Txns {
		c.Txns[i] = newCtxn(&h.Txns[i], h.Txns[i].Ops)
	}
	return c
}

func newCtxn(t *history.Txn, ops []history.Op) ctxn {
	return ctxn{ID: t.ID, Start: t.Start, End: t.End, Session: t.Session, Ops: ops, Status: t.Status, Init: t.Init}
}

// opSlab hands out the ops of many transactions from blocks of
// opSlabSize, each op slice capped at its length.
type opSlab struct{ free []history.Op }

const opSlabSize = 1 << 16

// copy returns a copy of ops in the slab.
func (s *opSlab) copy(ops []history.Op) []history.Op {
	if len(ops) == 0 {
		return []history.Op{}
	}
	if len(ops) > cap(s.free)-len(s.free) {
		if len(ops) > opSlabSize/4 {
			return append([]history.Op(nil), ops...) // a large one on its own
		}
		s.free = make([]history.Op, 0, opSlabSize)
	}
	at := len(s.free)
	s.free = append(s.free, ops...)
	return s.free[at:len(s.free):len(s.free)]
}
