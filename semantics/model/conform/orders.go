package conform

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/testcase"
)

// maxOrders bounds the orders of one schedule the model tries: past it,
// the case is left undecided rather than judged for minutes.
const maxOrders = 24

// reasonTooManyOrders is the halt reason of a schedule with more orders
// than maxOrders.
const reasonTooManyOrders = "too many orders of released statements"

// Orders are the orders, as indexes into res.Events, in which the
// schedule's statements may have taken effect on the server, the recorded
// order first. The recorded order is not always the order: a COMMIT or
// ROLLBACK may release several waiting statements at once, which then run
// at the same time and are recorded in the order their results came back
// (executor.Event.Concurrent); and an autocommit write, once released, may
// run and commit before statements of other connections that the executor
// records ahead of it. ok is false when there are more than maxOrders.
func Orders(res *executor.Result) (orders [][]int, ok bool) {
	id := make([]int, len(res.Events))
	for i := range id {
		id[i] = i
	}
	orders = [][]int{id}
	for _, u := range uncertainties(res) {
		seen := map[string]bool{}
		var next [][]int
		for _, o := range orders {
			for _, alt := range u(o) {
				k := fmt.Sprint(alt)
				if seen[k] {
					continue
				}
				seen[k] = true
				next = append(next, alt)
				if len(next) > maxOrders {
					return nil, false
				}
			}
		}
		orders = next
	}
	return orders, true
}

// uncertainty maps an order to its alternatives, itself first.
type uncertainty func(order []int) [][]int

// uncertainties finds what the recorded order does not tell: the groups of
// statements one COMMIT or ROLLBACK released together that touch data,
// and the released autocommit writes that statements of other connections
// overtook in the record.
func uncertainties(res *executor.Result) []uncertainty {
	var out []uncertainty
	groups := map[int][]int{}
	var ids []int
	for i, ev := range res.Events {
		if ev.Concurrent != 0 && ev.Status != executor.StatusBlocked && ev.Kind.For(ev.SQL).Control == testcase.NotControl {
			if groups[ev.Concurrent] == nil {
				ids = append(ids, ev.Concurrent)
			}
			groups[ev.Concurrent] = append(groups[ev.Concurrent], i)
		}
	}
	for _, g := range ids {
		if members := groups[g]; len(members) > 1 {
			out = append(out, permuted(members))
		}
	}
	// An autocommit write that waited commits when it completes. Once a
	// transaction ends it may have been released, and it may have run and
	// committed before the executor saw its result: statements recorded
	// in between might have seen it.
	type waiting struct {
		released  int // the first transaction end after it blocked; -1: none yet
		overtaken bool
	}
	explicit := map[int]bool{}
	pending := map[int]*waiting{}
	for i, ev := range res.Events {
		kind := ev.Kind.For(ev.SQL)
		ctl := kind.Control
		switch ev.Status {
		case executor.StatusBlocked:
			if ctl == testcase.NotControl && !explicit[ev.Conn] && (kind.Changes || kind.CTEWrite) {
				pending[ev.Conn] = &waiting{released: -1}
			}
			continue
		case executor.StatusSkipped:
			continue
		}
		if ctl == testcase.NotControl {
			for c, w := range pending {
				if c != ev.Conn && w.released >= 0 {
					w.overtaken = true
				}
			}
		}
		if w := pending[ev.Conn]; w != nil && w.overtaken {
			out = append(out, movedEarlier(i, w.released))
		}
		delete(pending, ev.Conn)
		ends := ctl == testcase.Commit || ctl == testcase.Rollback ||
			(ev.Error != nil && ev.Error.RolledBack) || (ctl == testcase.NotControl && !explicit[ev.Conn])
		switch {
		case ctl == testcase.Begin && ev.Error == nil:
			explicit[ev.Conn] = true
		case ends:
			explicit[ev.Conn] = false
		}
		if ends {
			for _, w := range pending {
				if w.released < 0 {
					w.released = i
				}
			}
		}
	}
	return out
}

// permuted: the members, recorded at the same time, may have taken effect
// in any order; they keep the places they hold in the order.
func permuted(members []int) uncertainty {
	return func(order []int) [][]int {
		var at []int
		for p, ev := range order {
			if slices.Contains(members, ev) {
				at = append(at, p)
			}
		}
		var out [][]int
		for _, perm := range permutations(members) {
			o := slices.Clone(order)
			for k, p := range at {
				o[p] = perm[k]
			}
			out = append(out, o)
		}
		return out
	}
}

// permutations lists every order of xs, xs itself first.
func permutations(xs []int) [][]int {
	if len(xs) <= 1 {
		return [][]int{slices.Clone(xs)}
	}
	var out [][]int
	for i := range xs {
		rest := append(slices.Clone(xs[:i]), xs[i+1:]...)
		for _, p := range permutations(rest) {
			out = append(out, append([]int{xs[i]}, p...))
		}
	}
	return out
}

// movedEarlier: event ev may have taken effect right after event after
// (the end of a transaction that released it) or at any point between.
func movedEarlier(ev, after int) uncertainty {
	return func(order []int) [][]int {
		out := [][]int{order}
		from := slices.Index(order, after)
		at := slices.Index(order, ev)
		if from < 0 || at <= from {
			return out
		}
		without := slices.Delete(slices.Clone(order), at, at+1)
		for p := at - 1; p > from; p-- {
			out = append(out, slices.Insert(slices.Clone(without), p, ev))
		}
		return out
	}
}

// orderText names an order by the steps whose place it changed.
func orderText(res *executor.Result, order []int) string {
	var moved []string
	for p, i := range order {
		if p != i {
			ev := res.Events[i]
			moved = append(moved, fmt.Sprintf("step %d", ev.Step+1))
		}
	}
	if len(moved) == 0 {
		return "the recorded order"
	}
	return "the order that moves " + strings.Join(moved, ", ")
}
