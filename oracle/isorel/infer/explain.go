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
		return fmt.Sprintf("T%d read %s as written by T%d (wList %s)", e.To, d.RowName(e.Row), e.From, e.WList)
	case depgraph.WW:
		if e.ToStmt >= 0 {
			return fmt.Sprintf("T%d deleted %s after T%d wrote it (wList %s)", e.To, d.RowName(e.Row), e.From, e.WList)
		}
		return fmt.Sprintf("T%d overwrote %s after T%d wrote it (wList %s)", e.To, d.RowName(e.Row), e.From, e.WList)
	case depgraph.RW:
		if e.Predicate != "" {
			return d.becausePredicate(e)
		}
		verb := "overwrote"
		if t := d.byID[e.To]; t != nil && e.ToStmt >= 0 && e.ToStmt < len(t.Stmts) && t.Stmts[e.ToStmt].Kind != "SELECT" {
			verb = "deleted"
		}
		return fmt.Sprintf("T%d %s %s after T%d read it (T%d read wList %s)", e.To, verb, d.RowName(e.Row), e.From, e.From, e.WList)
	case depgraph.SO:
		s := 0
		if t := d.byID[e.From]; t != nil {
			s = t.Session
		}
		return fmt.Sprintf("T%d ran after T%d on session %d", e.To, e.From, s)
	}
	return "?"
}

// explain renders a cycle Elle-style: "T3 < T5, because …. Then T5 < T7,
// because …. However, T7 < T3, because …: a cycle."
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
		fmt.Fprintf(&b, "T%d < T%d, because %s", e.From, e.To, d.because(e))
		if i == len(es)-1 {
			b.WriteString(": a cycle.")
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
		return fmt.Sprintf("T%d saw %s (wList %s) match %s, and T%d wrote a later version that no longer matches", e.From, d.RowName(e.Row), e.WList, read, e.To)
	}
	return fmt.Sprintf("T%d saw %s (wList %s) not match %s, and T%d wrote a later version that matches", e.From, d.RowName(e.Row), e.WList, read, e.To)
}
