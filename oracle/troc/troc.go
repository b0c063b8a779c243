// Package troc is the per-statement oracle (Troc, ICSE 2023, generalised):
// it replays a case's plain, uninstrumented execution through the model of
// what its DBMS documents (semantics/model) and reports the first statement
// whose outcome — rows returned, rows affected, waiting, a required error —
// or the final state lies outside the permitted set, naming the statement,
// the rows it must and may return and the rule.
package troc

import (
	"context"
	"fmt"
	"strings"
	"sync"

	"github.com/spf13/pflag"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Name is the oracle's name on the command line.
const Name = "troc"

// Entry registers the oracle with the command line.
var Entry = oracle.Entry{
	Name: Name,
	Help: "Troc: each statement against the view its DBMS documents (row versions it must, may, must not see)",
	Flags: func(*pflag.FlagSet, bool) oracle.Factory {
		return factory{}
	},
}

type factory struct{}

func (factory) Validate(*oracle.Common) error { return nil }
func (factory) Free() bool                    { return false }
func (factory) New(_ context.Context, env oracle.Env) (any, error) {
	return &Oracle{Settings: env.Settings, Writer: env.Writer}, nil
}

// Oracle judges cases statement by statement.
type Oracle struct {
	// Settings are the server settings the rules depend on.
	Settings map[string]string
	// Writer receives finding bundles; nil writes none.
	Writer *report.Writer

	mu       sync.Mutex
	sessions map[target.Target]*scratch
}

// scratch is the evaluator session of one target: it holds the model's
// temporary tables. Workers use different targets, so one session per
// target is never shared.
type scratch struct {
	s      target.Session
	tables []string
}

func (s *scratch) Exec(ctx context.Context, sql string) (*target.Result, error) {
	return s.s.Exec(ctx, sql)
}

// Name implements oracle.CaseOracle.
func (o *Oracle) Name() string { return Name }

// JudgesPlain implements oracle.CaseOracle.
func (o *Oracle) JudgesPlain() bool { return true }

func (o *Oracle) scratch(ctx context.Context, t target.Target) (*scratch, error) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.sessions == nil {
		o.sessions = map[target.Target]*scratch{}
	}
	if s := o.sessions[t]; s != nil {
		if err := dropTemp(ctx, s); err == nil {
			return s, nil
		}
		s.s.Close()
		delete(o.sessions, t)
	}
	sess, err := t.Open(ctx)
	if err != nil {
		return nil, fmt.Errorf("troc: opening the model's session: %w", err)
	}
	if _, ok := sess.(target.TempTables); !ok {
		sess.Close()
		return nil, fmt.Errorf("troc: the %s adapter cannot drop temporary tables", t.Info().DBMS)
	}
	s := &scratch{s: sess}
	o.sessions[t] = s
	return s, nil
}

func dropTemp(ctx context.Context, s *scratch) error {
	if len(s.tables) == 0 {
		return nil
	}
	err := s.s.(target.TempTables).DropTemporary(ctx, s.tables)
	s.tables = nil
	return err
}

// Close ends the model's sessions.
func (o *Oracle) Close() error {
	o.mu.Lock()
	defer o.mu.Unlock()
	for t, s := range o.sessions {
		s.s.Close()
		delete(o.sessions, t)
	}
	return nil
}

// Check implements oracle.CaseOracle.
func (o *Oracle) Check(ctx context.Context, t target.Target, c *testcase.Case, plain *executor.Result, _ executor.Options) (*oracle.Judgement, error) {
	j := &oracle.Judgement{}
	if plain == nil || plain.Hang {
		return j, nil
	}
	level, ok := oneLevel(t, plain)
	if !ok {
		j.Notes = append(j.Notes, "troc: not judged: connections run at different isolation levels")
		return j, nil
	}
	info := t.Info()
	rules := model.Lookup(info.DBMS, level, o.Settings)
	if !rules.Known {
		j.Notes = append(j.Notes, fmt.Sprintf("troc: not judged: no model of %s at %s", info.DBMS, level))
		return j, nil
	}
	sc, err := o.scratch(ctx, t)
	if err != nil {
		return nil, err
	}
	eng := model.NewEngine(rules, info.Dialect, sc)
	defer func() { sc.tables = eng.Tables() }()
	if err := eng.Setup(ctx, c.Setup); err != nil {
		return nil, err
	}
	dev, err := replay(ctx, eng, plain)
	if err != nil {
		return nil, err
	}
	if dev == nil {
		dev = eng.Final(ctx, plain.Final)
	}
	if why := eng.Halted(); why != "" && dev == nil {
		j.Notes = append(j.Notes, "troc: judged up to a statement it cannot decide: "+why)
	}
	if dev == nil {
		return j, nil
	}
	b := bundle(c, level, info, dev, plain)
	if o.Writer == nil {
		j.Findings = append(j.Findings, b.Finding)
		return j, nil
	}
	f, _, err := o.Writer.Write(b)
	if err != nil {
		return j, err
	}
	j.Findings = append(j.Findings, f)
	return j, nil
}

// oneLevel is the isolation level every connection ran at.
func oneLevel(t target.Target, res *executor.Result) (target.Level, bool) {
	var l target.Level
	for _, cl := range res.Levels {
		if cl == "" {
			cl = t.DefaultLevel()
		}
		if l != "" && cl != l {
			return "", false
		}
		l = cl
	}
	if l == "" {
		l = t.DefaultLevel()
	}
	return l, true
}

// replay feeds the schedule to the engine in completion order and returns
// the first deviation.
func replay(ctx context.Context, eng *model.Engine, res *executor.Result) (*model.Deviation, error) {
	// Statements one COMMIT released together ran at the same time: if
	// more than one of them touches data, their order is unknown.
	groups := map[int]int{}
	for _, ev := range res.Events {
		if ev.Concurrent != 0 && ev.Status != executor.StatusBlocked && testcase.ControlOf(ev.SQL) == testcase.NotControl {
			groups[ev.Concurrent]++
		}
	}
	start := map[int]int{}
	for i, ev := range res.Events {
		switch ev.Status {
		case executor.StatusBlocked:
			start[ev.Conn] = i
			continue
		case executor.StatusSkipped:
			continue
		}
		if groups[ev.Concurrent] > 1 {
			eng.Stop("statements released together by one COMMIT or ROLLBACK ran in an order the schedule does not tell")
			return nil, nil
		}
		st := &model.Stmt{Conn: ev.Conn, Step: ev.Step, SQL: ev.SQL, Start: i, End: i,
			Err: ev.Error, Columns: ev.Columns, Rows: ev.Rows, Affected: ev.Affected}
		if s, ok := start[ev.Conn]; ok && ev.Resumed {
			st.Start = s
		}
		for c, s := range start {
			if c != ev.Conn && s < st.Start {
				st.Waiting = append(st.Waiting, c)
			}
		}
		delete(start, ev.Conn)
		dev, err := eng.Step(ctx, st)
		if err != nil || dev != nil {
			return dev, err
		}
	}
	return nil, nil
}

// bundle turns a deviation into a finding bundle.
func bundle(c *testcase.Case, level target.Level, info target.Info, d *model.Deviation, res *executor.Result) report.Bundle {
	f := report.Finding{Oracle: Name, Kind: d.Kind, Verdict: d.Verdict, Rule: d.Rule.Name, Isolation: string(level), Summary: d.Text}
	var b strings.Builder
	fmt.Fprintf(&b, "Troc: %s (%s %s, %s)\n\n", d.Kind, info.DBMS, info.Version, level)
	fmt.Fprintf(&b, "verdict: %s\nrule: %s — %s\nsource: %s\n\n", d.Verdict, d.Rule.Name, d.Rule.Text, d.Rule.Source)
	fmt.Fprintln(&b, d.Text)
	if d.Stmt != nil {
		fmt.Fprintf(&b, "\nstatement (connection %d, step %d): %s\n", d.Stmt.Conn, d.Stmt.Step+1, d.Stmt.SQL)
		if d.Stmt.Blocked() {
			fmt.Fprintln(&b, "it waited for a lock before it completed")
		}
	}
	if d.Kind == "incorrect-result" || d.Kind == "incorrect-final-state" {
		rows := func(title string, rs []target.Row) {
			fmt.Fprintf(&b, "%s (%d):\n", title, len(rs))
			for _, r := range rs {
				fmt.Fprintf(&b, "  %s\n", formatRow(r))
			}
		}
		rows("rows it must return", d.Want)
		if len(d.May) > 0 {
			rows("rows it may return as well", d.May)
		}
		rows("rows it returned", d.Got)
	}
	fmt.Fprintln(&b, "\nthe actual schedule:")
	res.WriteSchedule(&b)
	details := map[string]any{"kind": d.Kind, "rule": d.Rule, "statement_kind": d.StmtKind, "want": d.Want, "may": d.May, "got": d.Got}
	if d.Stmt != nil {
		details["conn"], details["step"], details["sql"] = d.Stmt.Conn, d.Stmt.Step+1, d.Stmt.SQL
	}
	return report.Bundle{Finding: f, Case: c, StmtKinds: []string{d.StmtKind}, Text: b.String(), Details: details}
}

func formatRow(r target.Row) string {
	parts := make([]string, len(r))
	for i, v := range r {
		parts[i] = v.String()
	}
	return "(" + strings.Join(parts, ", ") + ")"
}
