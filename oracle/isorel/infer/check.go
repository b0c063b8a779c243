package infer

import (
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/depgraph"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
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
	// Model, when set, judges against what the DBMS promises at this
	// (stronger) level instead, e.g. "serializable" on a read-committed run.
	Model string
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
	Adya    string         `json:"adya"`
	Verdict report.Verdict `json:"verdict"`
	// Rule is the sentence that decided the verdict.
	Rule string `json:"rule"`
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

// names lists, most specific first, the anomaly names under which a class
// may appear in a forbidden list. Refined classes fall back to their Adya
// class: lost-update and read-write-skew are G-single cycles (one
// anti-dependency), write-skew is G2-item; every cycle with an
// anti-dependency is Adya's G2, so a level forbidding G2 forbids them all.
func names(class, adya string) []string {
	out := []string{class}
	b := base(adya)
	if b != class {
		out = append(out, b)
	}
	switch b {
	case "G1a", "G1b", "G1c":
		out = append(out, "G1")
	case "G-single", "G-nonadjacent", "G2-item":
		out = append(out, "G2")
	}
	return out
}

// Check infers the dependencies of h, finds its anomalies and judges them.
func Check(h *history.History, o Options) (*Result, error) {
	level, err := resolveLevel(h, o.Level)
	if err != nil {
		return nil, err
	}
	d, err := Infer(h)
	if err != nil {
		return nil, err
	}
	res := &Result{Deps: d, Level: level}
	j, err := newJudge(o, level)
	if err != nil {
		return nil, err
	}
	for _, f := range d.Forks {
		res.Findings = append(res.Findings, Finding{
			Class: "version-fork", Adya: "version-fork", Verdict: report.Bug,
			Rule:      "every level forbids a lost write: a row's versions must form one order",
			Txns:      uniq(f.AStmt.Txn, f.BStmt.Txn),
			Text:      f.Reason + ".",
			StmtKinds: d.kinds(nil, []Read{f.AStmt, f.BStmt}),
		})
	}
	for _, r := range d.AbortedReads {
		f := Finding{Class: "G1a", Adya: "G1a", Txns: uniq(r.Writer, r.Txn),
			Text: fmt.Sprintf("T%d read %s as written by T%d (wList %s), but T%d aborted: an aborted read.", r.Txn, r.Row, r.Writer, r.WList, r.Writer)}
		f.StmtKinds = d.kinds(nil, []Read{r})
		j.judge(&f)
		f.Dot = d.dot(f.Txns, []Edge{{From: r.Writer, To: r.Txn, Kind: depgraph.WR, Row: r.Row, FromStmt: -1, ToStmt: r.Stmt, WList: r.WList}})
		res.Findings = append(res.Findings, f)
	}
	intermediate := make(map[key]bool)
	for _, r := range d.IntermediateReads {
		intermediate[key{r.Writer, r.Txn, depgraph.WR, r.Row}] = true
		f := Finding{Class: "G1b", Adya: "G1b", Txns: uniq(r.Writer, r.Txn),
			Text: fmt.Sprintf("T%d read %s as written by T%d (wList %s), but T%d wrote %s again afterwards: an intermediate read.", r.Txn, r.Row, r.Writer, r.WList, r.Writer, r.Row)}
		f.StmtKinds = d.kinds(nil, []Read{r})
		j.judge(&f)
		f.Dot = d.dot(f.Txns, []Edge{{From: r.Writer, To: r.Txn, Kind: depgraph.WR, Row: r.Row, FromStmt: -1, ToStmt: r.Stmt, WList: r.WList}})
		res.Findings = append(res.Findings, f)
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
		j.judge(&f)
		res.Findings = append(res.Findings, f)
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

// judge holds the forbidden lists a finding is checked against.
type judge struct {
	o         Options
	level     target.Level
	promise   []string          // documented (or the model's) forbidden classes
	promiseBy string            // who promises it, for the rule text
	adya      semantics.Promise // the textbook definition of the level, for Strict
}

func newJudge(o Options, level target.Level) (*judge, error) {
	j := &judge{o: o, level: level, adya: semantics.AdyaPromise(level)}
	at := level
	j.promiseBy = fmt.Sprintf("%s %s", o.DBMS, level)
	if o.Model != "" {
		m, err := target.ParseLevel(o.Model)
		if err != nil {
			return nil, fmt.Errorf("model: %w", err)
		}
		at = m
		j.promiseBy = fmt.Sprintf("model %s (%s %s)", m, o.DBMS, m)
	}
	for _, a := range semantics.Lookup(o.DBMS, at, o.Settings).Forbidden {
		j.promise = append(j.promise, string(a))
	}
	if len(o.Settings) > 0 {
		var kv []string
		for k, v := range o.Settings {
			kv = append(kv, k+"="+v)
		}
		slices.Sort(kv)
		j.promiseBy += " with " + strings.Join(kv, ", ")
	}
	return j, nil
}

func (j *judge) judge(f *Finding) {
	ns := names(f.Class, f.Adya)
	for _, n := range ns {
		if slices.Contains(j.promise, n) {
			f.Verdict, f.Rule = report.Bug, fmt.Sprintf("%s forbids %s", j.promiseBy, n)
			return
		}
	}
	if j.o.Strict {
		for _, n := range ns {
			if j.adya.Forbids(semantics.Anomaly(n)) {
				f.Verdict, f.Rule = report.Bug, fmt.Sprintf("strict: Adya's %s forbids %s", j.level, n)
				return
			}
		}
	}
	f.Verdict = report.Allowed
	f.Rule = fmt.Sprintf("allowed: %s permits %s (it forbids only %s)", j.promiseBy, f.Class, orNothing(j.promise))
}

func orNothing(s []string) string {
	if len(s) == 0 {
		return "nothing"
	}
	return strings.Join(s, ", ")
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
