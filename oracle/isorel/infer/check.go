package infer

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// Options says what a history is judged against.
type Options struct {
	// DBMS is a target.Info().DBMS value (mariadb, mysql, postgres, sqlite…).
	DBMS string
	// Level is the isolation level the transactions ran at; empty: the
	// transactions' own Isolation (all must agree).
	Level target.Level
	// Settings are the server settings that change the promise (e.g.
	// innodb_snapshot_isolation=ON); nil for defaults.
	Settings map[string]string
	// Model, when set, judges against this textbook model instead of what
	// the DBMS documents (semantics.Judge), e.g. "serializable" on a
	// read-committed run.
	Model semantics.Model
	// Strict makes every violation of Adya's definition of the level's name
	// a bug, whatever the DBMS documents.
	Strict bool
}

// Finding is one anomaly with its verdict.
type Finding struct {
	// Class is the IsoRel name (lost-update, read-write-skew, write-skew) or
	// the Adya/Elle one (G0, G1a, G1b, G1c, G-single, G-nonadjacent,
	// G2-item, with -process when session order is needed), or
	// version-fork for an inconsistent row history.
	Class string `json:"class"`
	// Adya is the Adya/Elle class of the cycle (equal to Class when not
	// refined).
	Adya    string          `json:"adya"`
	Verdict verdict.Verdict `json:"verdict"`
	// Rule decided the verdict.
	Rule verdict.Rule `json:"rule"`
	// Txns are the transactions involved, in cycle order.
	Txns []int64 `json:"transactions"`
	// Cycle is the witness (empty for G1a, G1b, version-fork: their evidence
	// is the single read in Text).
	Cycle []Edge `json:"cycle,omitempty"`
	// Text explains the finding in plain English, Elle-style.
	Text string `json:"explanation"`
	// Dot is a Graphviz digraph of the involved transactions (graph.dot
	// of the bundle, not repeated in report.json).
	Dot []byte `json:"-"`
	// StmtKinds are the kinds of the statements involved, sorted.
	StmtKinds []string `json:"stmt_kinds"`
}

// Result is what Check returns.
type Result struct {
	Deps     *Deps
	Findings []Finding
	// Excused are the cycles dropped by the SELECT FOR UPDATE exception.
	Excused []Excuse
	// Level is the level judged (after resolving Options.Level).
	Level target.Level
}

// Check infers the dependencies of h, finds its anomalies and judges them
// with semantics.Judge; anomalies that are no finding at all (permitted even
// by the textbook definition of the level) are left out.
func Check(h *history.History, o Options) (*Result, error) {
	return CheckContext(context.Background(), h, o)
}

// CheckContext is Check ending with ctx: the predicate edges of a long
// history cost time in reads × versions, and judging a case must end with
// the case's bound.
func CheckContext(ctx context.Context, h *history.History, o Options) (*Result, error) {
	level, err := resolveLevel(h, o.Level)
	if err != nil {
		return nil, err
	}
	d, err := inferContext(ctx, h)
	if err != nil {
		return nil, err
	}
	res := &Result{Deps: d, Level: level}
	j := semantics.Judge{DBMS: o.DBMS, Level: level, Settings: o.Settings, Model: o.Model, Strict: o.Strict}
	add := func(f Finding) {
		classes := []semantics.Anomaly{semantics.Anomaly(f.Class)}
		if f.Adya != f.Class {
			classes = append(classes, semantics.Anomaly(f.Adya))
		}
		d, ok := j.Decide(semantics.Evidence{Classes: classes})
		if !ok {
			return
		}
		f.Verdict, f.Rule = d.Verdict, d.Rule
		res.Findings = append(res.Findings, f)
	}
	for _, f := range d.Forks {
		add(Finding{
			Class: string(semantics.VersionFork), Adya: string(semantics.VersionFork),
			Txns:      uniq(f.AStmt.Txn, f.BStmt.Txn),
			Text:      f.Reason + ".",
			StmtKinds: d.kinds(nil, []Read{f.AStmt, f.BStmt}),
		})
	}
	for _, r := range d.AbortedReads {
		f := Finding{Class: string(semantics.G1a), Adya: string(semantics.G1a), Txns: uniq(r.Writer, r.Txn),
			Text: fmt.Sprintf("T%d read %s as written by T%d (wList %s), but T%d aborted: an aborted read.", r.Txn, d.RowName(r.Row), r.Writer, r.WList, r.Writer)}
		f.StmtKinds = d.kinds(nil, []Read{r})
		f.Dot = d.dot(f.Txns, []Edge{{From: r.Writer, To: r.Txn, Kind: depgraph.WR, Row: r.Row, FromStmt: -1, ToStmt: r.Stmt, WList: r.WList}})
		add(f)
	}
	intermediate := make(map[key]bool)
	for _, r := range d.IntermediateReads {
		intermediate[key{r.Writer, r.Txn, depgraph.WR, r.Row, false}] = true
		f := Finding{Class: string(semantics.G1b), Adya: string(semantics.G1b), Txns: uniq(r.Writer, r.Txn),
			Text: fmt.Sprintf("T%d read %s as written by T%d (wList %s), but T%d wrote %s again afterwards: an intermediate read.", r.Txn, d.RowName(r.Row), r.Writer, r.WList, r.Writer, d.RowName(r.Row))}
		f.StmtKinds = d.kinds(nil, []Read{r})
		f.Dot = d.dot(f.Txns, []Edge{{From: r.Writer, To: r.Txn, Kind: depgraph.WR, Row: r.Row, FromStmt: -1, ToStmt: r.Stmt, WList: r.WList}})
		add(f)
	}
	gr, excuses := d.buildGraph()
	res.Excused = excuses
	for _, c := range gr.cycles(intermediate) {
		f := Finding{Class: c.Class, Adya: c.Adya, Cycle: c.Edges}
		for _, e := range c.Edges {
			f.Txns = append(f.Txns, e.From)
		}
		f.Text = d.explain(c.Edges)
		f.Dot = d.dot(f.Txns, c.Edges)
		f.StmtKinds = d.kinds(c.Edges, nil)
		add(f)
	}
	return res, nil
}

func resolveLevel(h *history.History, l target.Level) (target.Level, error) {
	if l != "" {
		return target.ParseLevel(string(l))
	}
	var seen string
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Init || t.Isolation == "" {
			continue
		}
		if seen != "" && !strings.EqualFold(seen, t.Isolation) {
			return "", fmt.Errorf("transactions ran at %s and %s: pass the level to judge against", seen, t.Isolation)
		}
		seen = t.Isolation
	}
	if seen == "" {
		return "", fmt.Errorf("no isolation level in the history or the options")
	}
	return target.ParseLevel(seen)
}

func uniq(ids ...int64) []int64 {
	var out []int64
	for _, id := range ids {
		if !slices.Contains(out, id) {
			out = append(out, id)
		}
	}
	return out
}

// kinds collects the kinds of the statements behind the edges and reads;
// where an edge's writer statement is unknown, the kinds of that
// transaction's write statements stand in.
func (d *Deps) kinds(es []Edge, rs []Read) []string {
	set := make(map[string]bool)
	stmt := func(id int64, i int) {
		t := d.byID[id]
		if t == nil {
			return
		}
		if i >= 0 && i < len(t.Stmts) {
			set[strings.ToUpper(t.Stmts[i].Kind)] = true
			return
		}
		for _, s := range t.Stmts {
			if k := strings.ToUpper(s.Kind); k != "SELECT" {
				set[k] = true
			}
		}
	}
	for _, e := range es {
		if e.Kind == depgraph.SO {
			continue
		}
		stmt(e.From, e.FromStmt)
		stmt(e.To, e.ToStmt)
	}
	for _, r := range rs {
		stmt(r.Txn, r.Stmt)
		if r.Writer != 0 {
			stmt(r.Writer, -1)
		}
	}
	out := make([]string, 0, len(set))
	for k := range set {
		out = append(out, k)
	}
	slices.Sort(out)
	return out
}
