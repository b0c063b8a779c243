// Package isorel is the IsoRel oracle wired into txlab: it instruments a
// case (package instrument), runs it through the execution protocol or as a
// free-running stress workload, infers the dependency graph from the hidden
// rowId/wList columns (package infer), and turns each anomaly into a judged
// finding with a bundle: case.txn, report.txt, report.json, graph.dot and,
// when Graphviz is installed, graph.svg.
package isorel

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"sync"
	"time"

	"github.com/txlab/txlab/evidence"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/oracle/isorel/infer"
	"github.com/txlab/txlab/oracle/isorel/instrument"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/semantics/model/conform"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Name is the oracle's name in findings and on the command line.
const Name = "isorel"

// replayCommand replays a finding's bundle; reports and case headers name
// it. The case's replay header (written with the bundle) names the target,
// level, oracle and model, so the file alone is enough.
const replayCommand = "txlab run case.txn (its replay line names the target and flags)"

// Modes.
const (
	Interleaved = "interleaved"
	Stress      = "stress"
)

// Options are shared by both modes.
type Options struct {
	// Settings are the server settings the semantics table depends on.
	Settings map[string]string
	// Model judges against a textbook model instead of the DBMS's promise.
	Model semantics.Model
	// Strict makes every textbook (Adya) violation a bug.
	Strict bool
	// Checker, when set, settles each bug finding of the interleaved mode
	// below serializable on the plain execution of the case (see settle);
	// nil = the semantics table's verdict stands.
	Checker *conform.Checker
	// Seen, when set, says whether a finding with this signature was
	// recorded already (report.Writer.Seen): its bundle is then only
	// counted, so the costly part of its evidence (the replayable case,
	// confirmed by a replay in stress mode) is not made. It only reads.
	Seen func(sig string) bool
}

// Oracle is the interleaved mode: one generated case per group, run through
// the deterministic protocol, so every finding's case replays exactly. It
// implements oracle.CaseOracle.
type Oracle struct {
	Options

	// mu stays although an oracle serves one worker: Close may run while
	// a judging that a frozen server cut off (executor.Watch leaves it to
	// end by itself) still opens the sibling.
	mu sync.Mutex
	// of is the target the oracle judges on; run is where its
	// instrumented runs go (see runTarget), on a bench of its own.
	of, run target.Target
}

// siblingSuffix names the schema of the instrumented runs beside the
// target's (SCHEMA_isorel). One oracle serves a target: a worker's
// reductions judge their candidates with the oracle that judges its
// campaign's cases, one case at a time, so they share its sibling (whose
// setup the executor redoes whenever a case's setup differs).
const siblingSuffix = "isorel"

// runTarget is where the instrumented runs of cases judged on t go: a
// sibling schema of t's where the adapter offers one, so that the plain
// run's tables and the instrumented ones (with hidden columns) are each
// reused from one run of a group to the next instead of dropped and
// re-created by turns; t itself otherwise. An oracle serves one target
// (its worker's); asked about another, it closes the sibling of the
// first.
func (o *Oracle) runTarget(ctx context.Context, t target.Target) (target.Target, error) {
	sib, ok := target.As[target.Sibler](t)
	if !ok {
		return t, nil
	}
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.of == t && o.run != nil {
		return o.run, nil
	}
	if o.run != nil {
		o.run.Close()
		o.of, o.run = nil, nil
	}
	r, err := sib.Sibling(ctx, siblingSuffix)
	if err != nil {
		return nil, fmt.Errorf("isorel: opening the schema of the instrumented runs: %w", err)
	}
	o.of, o.run = t, executor.NewBench(r)
	return o.run, nil
}

// Close closes the sibling target the oracle opened.
func (o *Oracle) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.run == nil {
		return nil
	}
	err := o.run.Close()
	o.of, o.run = nil, nil
	return err
}

// Name implements oracle.CaseOracle.
func (o *Oracle) Name() string { return Name }

// JudgesPlain implements oracle.CaseOracle: IsoRel judges an instrumented
// execution of its own, not the plain one.
func (o *Oracle) JudgesPlain() bool { return false }

// atLevels is c with the levels its connections will run at written out
// (the run's --isolation overrides the case's; no level is the DBMS's
// default): how a statement is instrumented depends on its level.
func atLevels(c *testcase.Case, t target.Target, opt executor.Options) *testcase.Case {
	out := *c
	out.Isolation = executor.CaseLevelOn(t, c, opt)
	if opt.Isolation != "" {
		out.ConnIsolation = nil
	}
	return &out
}

// Check implements oracle.CaseOracle: it runs the instrumented case and
// judges the recorded history. The judgement's Execution is the
// instrumented run with the hidden columns stripped.
func (o *Oracle) Check(ctx context.Context, t target.Target, c *testcase.Case, plain *executor.Result, opt executor.Options) (*oracle.Judgement, error) {
	p, err := instrument.Instrument(atLevels(c, t, opt), t.Info())
	if err != nil {
		return nil, err
	}
	p.Original = c
	rt, err := o.runTarget(ctx, t)
	if err != nil {
		return nil, err
	}
	res, err := executor.Run(ctx, rt, p.Case, opt)
	j := &oracle.Judgement{Execution: res}
	if err != nil {
		return j, err
	}
	if res.Truncated != "" {
		// The history is read from every row the statements returned:
		// from part of them, dependencies would be missing or wrong.
		p.Strip(res)
		j.Notes = append(j.Notes, "isorel: not judged: "+res.Truncated)
		j.Undecided = model.ReasonTruncated
		return j, nil
	}
	h, err := instrument.Record(p, res)
	// Users see what the original statements return: no hidden columns.
	p.Strip(res)
	if h != nil {
		j.Notes = Uninstrumented(h)
	}
	if p.Unjudged.Reason != instrument.NoReason {
		note, why := "; the transactions it recorded are not the ones that ran", "implicit commit"
		switch p.Unjudged.Reason {
		case instrument.XATransaction:
			why = "XA transaction"
		case instrument.SavepointRollback:
			note, why = "; the row versions it undoes are not followed", "rollback to a savepoint"
		case instrument.SkipLocked:
			note, why = "; its rows are not a view of the versions it could see", "SKIP LOCKED"
		case instrument.MayCascade:
			note, why = "; the rows its foreign keys' actions write are not recorded", "on-delete-cascade"
		}
		j.Notes = append(j.Notes, "isorel: not judged: "+p.Unjudged.String()+note)
		j.Undecided = why
		return j, nil
	}
	if res.Hang {
		return j, nil
	}
	if err != nil {
		return j, fmt.Errorf("isorel: recording the history: %w", err)
	}
	// IsoRel judges at the case's level, the one atLevels planned the
	// instrumentation for, not res.Level(): connections that name a level
	// of their own do not change it (its verdicts on mixed cases as before).
	level := executor.CaseLevelOn(t, c, opt)
	// Below serializable the model decides. At serializable a cycle among
	// committed transactions breaks the promise whatever each statement
	// saw, which the model's per-statement views cannot vouch for (WSS
	// does the same).
	var decide func(*verdict.Finding) error
	var st *settle
	if o.Checker != nil && !semantics.Lookup(t.Info().DBMS, level, o.Settings).Serializable {
		st = &settle{ctx: ctx, t: t, opt: opt, checker: o.Checker, plan: p, inst: res, plain: plain}
		decide = st.decide
	}
	j.Findings, j.Evidence, err = o.judge(ctx, t, h, level, decide, func(f *infer.Finding) (*testcase.Case, string, error) {
		return annotated(c, f, level), "case.txn replays the case: " + replayCommand, nil
	})
	j.Undecided = undecided(h, j.Findings, st)
	return j, err
}

// undecided is why IsoRel did not judge a case to its end: a cycle the
// model could not settle (left suspect), or a statement it ran without
// full instrumentation, whose reads and writes the graph lacks.
func undecided(h *history.History, fs []verdict.Finding, st *settle) string {
	if st != nil && st.conf != nil && slices.ContainsFunc(fs, func(f verdict.Finding) bool { return f.Verdict == verdict.Suspect }) {
		switch {
		case st.conf.Conforms() && st.unfaithful != "":
			return "the instrumented run differs from the plain one"
		case st.conf.Deviation == nil && st.conf.Halted != "":
			return "the model cannot decide: " + st.conf.Reason
		}
	}
	if h == nil {
		return ""
	}
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Init {
			continue
		}
		for _, s := range t.Stmts {
			if s.Note != "" {
				what, rest, _ := strings.Cut(s.Note, ":")
				if f := instrument.FeatureOfNote(rest); f != "" {
					return what + ": " + f // a write across tables, by its feature's name
				}
				if r, ok := strings.CutPrefix(what, "instrumented, but the "); ok {
					what = strings.Replace(r, " are not recorded", " not recorded", 1)
				}
				return what + ": " + testcase.Classify(s.SQL).Signature()
			}
		}
	}
	return ""
}

// settle asks the model of documented semantics about IsoRel's bug
// findings. The model judges the plain execution, which is what a
// finding's case.txn replays: a deviating statement there gives the
// model's verdict and rule; a plain execution that follows the documented
// views makes the cycle allowed when the instrumented run agrees with it
// statement by statement, and suspect when it does not (the cycle is then
// one of an execution the case does not plainly have); a plain execution
// the model cannot judge makes it suspect. The plain run is made, once,
// only when no other oracle made one.
type settle struct {
	ctx     context.Context
	t       target.Target
	opt     executor.Options
	checker *conform.Checker
	plan    *instrument.Plan
	inst    *executor.Result
	plain   *executor.Result

	conf       *model.Conformance
	unfaithful string
}

func (s *settle) decide(f *verdict.Finding) error {
	if f.Verdict != verdict.Bug {
		return nil
	}
	if s.conf == nil {
		if s.plain == nil {
			res, err := executor.Run(s.ctx, s.t, s.plan.Original, s.opt)
			if err != nil {
				return fmt.Errorf("isorel: the plain run the model judges: %w", err)
			}
			s.plain = res
		}
		conf, err := s.checker.Check(s.ctx, s.t, s.plan.Original, s.plain)
		if err != nil {
			return err
		}
		s.conf, s.unfaithful = conf, instrument.Unfaithful(s.plan, s.inst, s.plain)
	}
	// The table's verdict (a bug) is the prior the model settles; no
	// promise is read, so the judge needs no DBMS.
	d, _ := semantics.Judge{}.Decide(semantics.Evidence{Prior: &semantics.Decision{Verdict: f.Verdict, Rule: verdict.Rule{Name: f.Rule}},
		Model: s.conf, Unfaithful: s.unfaithful})
	f.Verdict, f.Rule, f.Summary = d.Verdict, d.Rule.Name, f.Summary+d.Note
	return nil
}

// Uninstrumented lists, one line each, the statements of h that ran
// without (full) instrumentation: what they read or wrote is missing from
// the dependency graph, so a cycle through them cannot be seen.
func Uninstrumented(h *history.History) []string {
	return uninstrumented(h, nil)
}

// uninstrumented is Uninstrumented for the transactions in only (all when nil).
func uninstrumented(h *history.History, only map[int64]bool) []string {
	var out []string
	for i := range h.Txns {
		t := &h.Txns[i]
		if t.Init || only != nil && !only[t.ID] {
			continue // setup (DDL the oracle does not need), or not asked for
		}
		for _, s := range t.Stmts {
			if s.Note == "" {
				continue
			}
			out = append(out, fmt.Sprintf("T%d %s (%s)", t.ID, s.SQL, s.Note))
		}
	}
	return out
}

// annotated is the finding's case.txn: the original case, which replays
// the same schedule, with the finding in its header.
func annotated(c *testcase.Case, f *infer.Finding, level target.Level) *testcase.Case {
	out := *c
	out.Isolation = level
	out.Comments = append(append([]string(nil), c.Comments...),
		fmt.Sprintf("isorel %s: %s (%s)", f.Class, f.Verdict, f.Rule.Name),
		"Replay with: "+replayCommand)
	return &out
}

// judge checks h and returns the findings with their bundles; caseOf
// gives the replayable case of a finding (nil when there is none) and a
// sentence for report.txt on how to replay it; it is called once per
// signature not Seen.
func (o *Options) judge(ctx context.Context, t target.Target, h *history.History, level target.Level, decide func(*verdict.Finding) error, caseOf func(*infer.Finding) (*testcase.Case, string, error)) ([]verdict.Finding, []evidence.Bundle, error) {
	res, err := infer.CheckContext(ctx, h, infer.Options{DBMS: t.Info().DBMS, Level: level, Settings: o.Settings, Model: o.Model, Strict: o.Strict})
	if err != nil {
		return nil, nil, fmt.Errorf("isorel: %w", err)
	}
	var out []verdict.Finding
	var bundles []evidence.Bundle
	made := map[string]bool{} // signatures given a full bundle here
	for i := range res.Findings {
		f := &res.Findings[i]
		rf := verdict.Finding{Oracle: Name, Kind: f.Class, Verdict: f.Verdict, Rule: f.Rule.Name, Isolation: string(level), Summary: firstLine(f.Text)}
		for _, id := range f.Txns {
			rf.Transactions = append(rf.Transactions, int(id))
		}
		if decide != nil {
			if err := decide(&rf); err != nil {
				return nil, nil, err
			}
		}
		// A repeat is only counted: no case, no replay, no bundle.
		b := evidence.Bundle{Finding: rf, StmtKinds: f.StmtKinds, OneCause: true}
		sig := b.Signature()
		if !made[sig] && (o.Seen == nil || !o.Seen(sig)) {
			made[sig] = true
			c, replay, err := caseOf(f)
			if err != nil {
				return nil, nil, err
			}
			if b, err = bundle(rf, f, h, c, replay, res.Deps.RowName); err != nil {
				return nil, nil, err
			}
		}
		out = append(out, rf)
		bundles = append(bundles, b)
	}
	return out, bundles, nil
}

func firstLine(s string) string {
	s, _, _ = strings.Cut(s, "\n")
	return s
}

// bundle is the finding's report directory.
func bundle(rf verdict.Finding, f *infer.Finding, h *history.History, c *testcase.Case, replay string, rowName func(string) string) (evidence.Bundle, error) {
	involved := map[int64]bool{}
	for _, id := range f.Txns {
		involved[id] = true
	}
	var excerpt bytes.Buffer
	for i := range h.Txns {
		if involved[h.Txns[i].ID] {
			if err := history.WriteTxn(&excerpt, &h.Txns[i]); err != nil {
				return evidence.Bundle{}, err
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "IsoRel %s (Adya %s) at %s: verdict %s (rule %s)\n", f.Class, f.Adya, rf.Isolation, rf.Verdict, rf.Rule)
	if rf.Verdict != f.Verdict || rf.Rule != f.Rule.Name {
		settled := rf.Summary
		if i := strings.Index(settled, "; the model"); i >= 0 {
			settled = strings.TrimPrefix(settled[i+2:], "the model: ")
		}
		fmt.Fprintf(&b, "  settled by the model of documented semantics: %s\n  (the level's table alone says %s)\n", settled, f.Verdict)
	}
	fmt.Fprintf(&b, "  the level's rule %s: %s\n  source: %s\n\n", f.Rule.Name, f.Rule.Text, f.Rule.Source)
	b.WriteString(f.Text)
	if !strings.HasSuffix(f.Text, "\n") {
		b.WriteString("\n")
	}
	b.WriteString("\nThe transactions involved, with the row versions (row: wList, the transactions that wrote it) they read:\n")
	for i := range h.Txns {
		t := &h.Txns[i]
		if !involved[t.ID] {
			continue
		}
		fmt.Fprintf(&b, "  T%d (conn %d, %s):\n", t.ID, t.Session, t.Status)
		for _, s := range t.Stmts {
			fmt.Fprintf(&b, "    %s", s.SQL)
			if s.Error != "" {
				fmt.Fprintf(&b, "  -- error %s", s.Error)
			}
			b.WriteString("\n")
			if vs := versions(s.Reads, rowName); vs != "" {
				fmt.Fprintf(&b, "      read %s\n", vs)
			}
			if vs := versions(s.Deleted, rowName); vs != "" {
				fmt.Fprintf(&b, "      deleted %s\n", vs)
			}
			if s.Predicate != "" {
				fmt.Fprintf(&b, "      its view (* = matches its WHERE) %s\n", view(s, rowName))
			}
		}
	}
	if notes := uninstrumented(h, involved); len(notes) > 0 {
		b.WriteString("\nStatements outside the dependency graph (they ran, but what they read or wrote was not recorded):\n")
		for _, n := range notes {
			fmt.Fprintf(&b, "  %s\n", n)
		}
	}
	if replay != "" {
		fmt.Fprintf(&b, "\n%s\n", replay)
	}
	b.WriteString("history.jsonl holds the transactions involved as recorded.\n")
	extra := map[string][]byte{"graph.dot": f.Dot, "history.jsonl": excerpt.Bytes()}
	if svg, err := renderSVG(f.Dot); err == nil {
		extra["graph.svg"] = svg
	}
	return evidence.Bundle{Finding: rf, Case: c, StmtKinds: f.StmtKinds, OneCause: true, Text: b.String(), Details: f, Extra: extra}, nil
}

// view renders a predicate read's view: every version, the matching ones
// starred.
func view(s history.Stmt, rowName func(string) string) string {
	if len(s.Seen) == 0 {
		return "(no row)"
	}
	parts := make([]string, len(s.Seen))
	for i, v := range s.Seen {
		parts[i] = rowName(v.Row) + ": " + v.WList
		if v.Match(s.Predicate) {
			parts[i] += "*"
		}
	}
	return strings.Join(parts, ", ")
}

func versions(vs []history.Version, rowName func(string) string) string {
	parts := make([]string, len(vs))
	for i, v := range vs {
		parts[i] = rowName(v.Row) + ": " + v.WList
	}
	return strings.Join(parts, ", ")
}

// renderSVG runs Graphviz dot when it is installed.
func renderSVG(dot []byte) ([]byte, error) {
	if len(dot) == 0 {
		return nil, errors.New("no graph")
	}
	path, err := exec.LookPath("dot")
	if err != nil {
		return nil, err
	}
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, path, "-Tsvg")
	cmd.Stdin = bytes.NewReader(dot)
	return cmd.Output()
}

// StressOracle is the stress mode: Sessions connections run generated
// transactions concurrently for a round, with periodic full reads; the
// round's history is checked when it ends. It implements oracle.Workload.
type StressOracle struct {
	Options
	Sessions    int           // 2–5, default 4
	RoundLength time.Duration // length of one round, default 10s
	Gen         gen.Config
}

// Name implements oracle.Workload.
func (o *StressOracle) Name() string { return Name }

// Round implements oracle.Workload.
func (o *StressOracle) Round(ctx context.Context, t target.Target, spec oracle.RoundSpec) (*oracle.RoundResult, error) {
	level := spec.LevelOn(t)
	d := o.RoundLength
	if d == 0 {
		d = 10 * time.Second
	}
	d, ok := spec.Limit(d)
	if !ok {
		return &oracle.RoundResult{}, nil
	}
	h, err := instrument.Stress(ctx, t, instrument.StressConfig{Sessions: o.Sessions, Duration: d, Seed: spec.Seed, Isolation: level, Gen: o.Gen})
	if err != nil {
		return nil, err
	}
	res := &oracle.RoundResult{ErrorsByClass: map[string]int{}}
	for i := range h.Txns {
		tx := &h.Txns[i]
		if tx.Init {
			continue
		}
		res.Transactions++
		switch tx.Status {
		case history.OK:
			res.Committed++
		case history.Fail:
			res.Failed++
		default:
			res.Unknown++
		}
		for _, s := range tx.Stmts {
			if s.Error != "" {
				res.ErrorsByClass[s.Error]++
			}
		}
	}
	// One interleaved oracle replays the round's cut-outs: each opens the
	// schema of its instrumented runs, with connections of its own.
	replay := &Oracle{Options: Options{Settings: o.Settings, Model: o.Model, Strict: o.Strict}}
	defer replay.Close()
	res.Findings, res.Evidence, err = o.judge(ctx, t, h, level, nil, func(f *infer.Finding) (*testcase.Case, string, error) {
		return o.replayable(ctx, t, replay, h, f, level, spec.Seed)
	})
	return res, err
}
