package infer

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/txlab/txlab/depgraph"
)

// because says why e.From precedes e.To, in words.
func (d *Deps) because(e Edge) string {
	switch e.Kind {
	case depgraph.WR:
		return fmt.Sprintf("T%d read %s as T%d wrote it (%s)", e.To, d.RowName(e.Row), e.From, e.WList.leftBy())
	case depgraph.WW:
		if e.ToStmt >= 0 {
			return fmt.Sprintf("T%d deleted %s after T%d wrote it (%s)", e.To, d.RowName(e.Row), e.From, e.WList.leftBy())
		}
		return fmt.Sprintf("T%d overwrote %s after T%d wrote it (%s)", e.To, d.RowName(e.Row), e.From, e.WList.leftBy())
	case depgraph.RW:
		if e.Predicate != "" {
			return d.becausePredicate(e)
		}
		verb := "overwrote"
		if t := d.byID[e.To]; t != nil && e.ToStmt >= 0 && e.ToStmt < len(t.Stmts) && t.Stmts[e.ToStmt].Kind != "SELECT" {
			verb = "deleted"
		}
		return fmt.Sprintf("T%d %s %s after T%d read it (T%d read it %s)", e.To, verb, d.RowName(e.Row), e.From, e.From, e.WList.leftBy())
	case depgraph.SO:
		s := 0
		if t := d.byID[e.From]; t != nil {
			s = t.Session
		}
		return fmt.Sprintf("T%d ran after T%d on session %d", e.To, e.From, s)
	}
	return "?"
}

// explain renders a cycle Elle-style, in words a DBMS's developer reads:
// "T3 must come before T5, because …. Then T5 must come before T7, because
// …. However, T7 must come before T3, because …: a cycle, so no serial
// order of them gives this."
func (d *Deps) explain(es []Edge) string {
	var b strings.Builder
	for i, e := range es {
		switch {
		case i == 0:
		case i == len(es)-1:
			b.WriteString(" However, ")
		default:
			b.WriteString(" Then ")
		}
		fmt.Fprintf(&b, "T%d must come before T%d, because %s", e.From, e.To, d.because(e))
		if i == len(es)-1 {
			b.WriteString(": a cycle, so no serial order of them gives this.")
		} else {
			b.WriteString(".")
		}
	}
	return b.String()
}

// dot renders the involved transactions (labelled with their statements)
// and the edges (labelled kind and row) as a Graphviz digraph.
func (d *Deps) dot(txns []int64, es []Edge) []byte {
	var b bytes.Buffer
	b.WriteString("digraph cycle {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n")
	for _, id := range txns {
		label := fmt.Sprintf("T%d", id)
		if t := d.byID[id]; t != nil {
			if t.Status.String() != "ok" {
				label += " (" + t.Status.String() + ")"
			}
			for _, s := range t.Stmts {
				label += "\\l" + dotEscape(s.SQL)
			}
			label += "\\l"
		}
		fmt.Fprintf(&b, "  T%d [label=\"%s\"];\n", id, label)
	}
	for _, e := range es {
		l := e.Kind.String()
		if e.Row != "" {
			l += " " + d.RowName(e.Row)
		}
		fmt.Fprintf(&b, "  T%d -> T%d [label=\"%s\"];\n", e.From, e.To, dotEscape(l))
	}
	b.WriteString("}\n")
	return b.Bytes()
}

var dotEscaper = strings.NewReplacer(`\`, `\\`, `"`, `\"`, "\n", " ")

func dotEscape(s string) string { return dotEscaper.Replace(s) }

// becausePredicate explains a predicate rw edge: the read's WHERE, what its
// view held of the row, and what the writer made of it.
func (d *Deps) becausePredicate(e Edge) string {
	read := "a predicate read"
	matched := false
	if t := d.byID[e.From]; t != nil && e.FromStmt >= 0 && e.FromStmt < len(t.Stmts) {
		s := &t.Stmts[e.FromStmt]
		read = fmt.Sprintf("its read %q", s.SQL)
		for _, v := range s.Seen {
			if v.Row == e.Row && v.Match(s.Predicate) {
				matched = true
			}
		}
	}
	switch {
	case e.WList.String() == "":
		return fmt.Sprintf("T%d did not see %s in %s, and T%d wrote a version of %s that it matches (a phantom)", e.From, d.RowName(e.Row), read, e.To, d.RowName(e.Row))
	case matched:
		return fmt.Sprintf("T%d saw %s (%s) match %s, and T%d changed it so that it no longer matches", e.From, d.RowName(e.Row), e.WList.leftBy(), read, e.To)
	}
	return fmt.Sprintf("T%d saw %s (%s) not match %s, and T%d changed it so that it matches", e.From, d.RowName(e.Row), e.WList.leftBy(), read, e.To)
}

// leftBy names the version by its last writer, as a reader of a bug
// report says it: "as the setup left it", "as T3 left it" (the wList, the
// row's writers in order, is in report.txt's listing and history.jsonl).
func (w WList) leftBy() string {
	if w.p == nil || len(w.wl) == 0 {
		return "as no transaction wrote it"
	}
	if id := w.p.ids[w.wl[len(w.wl)-1]]; id != 0 {
		return fmt.Sprintf("as T%d left it", id)
	}
	return "as the setup left it"
}
