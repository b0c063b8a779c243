// Package oracle is what the campaign loop, `txlab run` and the oracles agree
// on: the two kinds of oracle (one that judges each generated or replayed case,
// one that runs a free-running workload of its own), what they are given and
// what they return, the per-case pipeline that shares one plain execution
// among every oracle that judges it. An oracle only judges: it returns its
// findings with their evidence and writes nothing. It is a leaf: oracles
// import it, never the loop (package fuzz) or the command line, which holds
// the registry of oracles and their flags (cmd/txlab/internal/registry).
package oracle

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/txlab/txlab/evidence"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// CaseOracle judges one case at a time: a generated case in `txlab fuzz`, a
// case file in `txlab run`.
type CaseOracle interface {
	// Name is the oracle's name on the command line and in findings.
	Name() string
	// JudgesPlain reports whether the oracle judges the case's plain
	// execution. Every such oracle is handed the same one; an oracle that
	// needs an execution of its own (IsoRel's instrumented run) makes it
	// through the executor inside Check.
	JudgesPlain() bool
	// Check judges case c on t. plain is the case's plain execution, made
	// whenever an oracle judges it (always when JudgesPlain is true), nil
	// otherwise. Further executions (serial re-runs, an instrumented run)
	// go through the executor with opt.
	Check(ctx context.Context, t target.Target, c *testcase.Case, plain *executor.Result, opt executor.Options) (*Judgement, error)
}

// Judgement is what one oracle made of one case. An oracle only judges:
// it writes no file; the caller hands the evidence to one report.Writer,
// which names each finding's bundle, signature and suppression.
type Judgement struct {
	Findings []verdict.Finding
	// Evidence is each finding's bundle, in the order of Findings
	// (Evidence[i].Finding is Findings[i]).
	Evidence []evidence.Bundle
	// Notes are lines for the reader (e.g. statements IsoRel could not
	// instrument).
	Notes []string
	// Undecided says, in a short form that is the same for every case
	// stopped by the same cause ("open rows: UPDATE"), why the oracle did
	// not judge the case to its end; "" when it did. A campaign counts its
	// cases by it: each is a place where a bug can hide.
	Undecided string
	// Execution is the oracle's own execution of the case (IsoRel's
	// instrumented run, hidden columns stripped), or nil. It stands for the
	// case when no plain execution was made.
	Execution *executor.Result
}

// Workload is an oracle that runs free instead of case by case: its
// sessions run concurrently for a round, record a history, and the history
// is checked when the round ends (MTC mini-transactions, IsoRel stress
// mode).
type Workload interface {
	Name() string
	// Round runs one round on t and checks it. It starts no new
	// transaction after spec.Until, so the campaign ends on time with every
	// round checked; ctx is cancelled only on interruption.
	Round(ctx context.Context, t target.Target, spec RoundSpec) (*RoundResult, error)
}

// RoundSpec says what one round runs.
type RoundSpec struct {
	Index int
	Seed  uint64
	Level target.Level // "" = the DBMS default
	Until time.Time    // zero = no deadline
	// Progress may be called by the workload with the transactions finished
	// so far in this round.
	Progress func(done int)
}

// LevelOn is the round's isolation level on t: its own, or t's default.
func (s RoundSpec) LevelOn(t target.Target) target.Level {
	return executor.ConcreteOn(t, s.Level)
}

// Limit bounds a round's own duration d (0 = unbounded) by the time left
// until Until; ok is false when no time is left.
func (s RoundSpec) Limit(d time.Duration) (limited time.Duration, ok bool) {
	if s.Until.IsZero() {
		return d, true
	}
	left := time.Until(s.Until)
	if left <= 0 {
		return 0, false
	}
	if d == 0 || left < d {
		return left, true
	}
	return d, true
}

// RoundResult is what one workload round did.
type RoundResult struct {
	Transactions  int
	Committed     int
	Failed        int
	Unknown       int
	ErrorsByClass map[string]int
	Findings      []verdict.Finding
	// Evidence is each finding's bundle, in the order of Findings.
	Evidence []evidence.Bundle
}

// Outcome is one case run through the pipeline.
type Outcome struct {
	// Result is the execution that stands for the case: the plain one, or
	// the first oracle's own when no oracle judged a plain execution.
	Result *executor.Result
	// Judged names the oracles that judged the case, in order.
	Judged []string
	// Undecided maps an oracle that judged the case, but not to its end,
	// to why (Judgement.Undecided).
	Undecided map[string]string
	Findings  []verdict.Finding
	// Evidence is each finding's bundle, in the order of Findings: the
	// caller hands it to a report.Writer (or report.Sign when nothing is
	// to be written).
	Evidence []evidence.Bundle
	Notes    []string
	// Own are the oracles' own executions other than Result (IsoRel's
	// instrumented run), for a user who asks to see the rewritten statements.
	Own []OwnRun
	// JudgeTimeout names the oracle whose judging the case's bound
	// (executor.Options.HangTimeout) ended; it and the oracles after it
	// did not judge the case. Not a finding: the case is too costly to
	// judge in time.
	JudgeTimeout string
}

// TooLarge reports whether an oracle did not judge the case because a
// result was larger than txlab keeps (executor.TruncatedReason).
func (o *Outcome) TooLarge() bool {
	for _, why := range o.Undecided {
		if why == executor.TruncatedReason {
			return true
		}
	}
	return false
}

// OwnRun is an oracle's own execution of a case.
type OwnRun struct {
	Oracle string
	Result *executor.Result
}

// CheckCase runs case c through the pipeline: one plain execution when an
// oracle judges it, when show is set (the caller shows the case as it ran:
// `txlab run`) or when there is no oracle, then every oracle in turn. A
// setup failure is returned as the executor's *SetupError with what ran so
// far; any other error ends the case.
//
// Judging counts against the case's bound: every oracle judges under a
// context that ends opt.HangTimeout after the case began, and one still
// judging then ends the case's judging (Outcome.JudgeTimeout) — unless the
// server no longer answers, which is a *target.FrozenError.
func CheckCase(ctx context.Context, t target.Target, c *testcase.Case, oracles []CaseOracle, opt executor.Options, show bool) (*Outcome, error) {
	out := &Outcome{}
	hang := opt.Hang()
	deadline := time.Now().Add(hang)
	plain := show || len(oracles) == 0
	for _, o := range oracles {
		plain = plain || o.JudgesPlain()
	}
	if plain {
		res, err := executor.Run(ctx, t, c, opt)
		out.Result = res
		if err != nil {
			return out, err
		}
		if res.Hang {
			return out, nil // an oracle's own runs would hang as well
		}
	}
	given := out.Result // the plain execution, or nil
	jctx, cancel := context.WithDeadline(ctx, deadline)
	defer cancel()
	for _, o := range oracles {
		if given != nil && given.Truncated != "" {
			// Part of a result is no evidence: not judged, never a
			// verdict on the rows txlab happened to keep. An oracle's
			// own runs (IsoRel's instrumented one, WSS's serial ones)
			// return the same rows, so none is made; when only those
			// are too large, the oracle says so itself.
			out.Judged = append(out.Judged, o.Name())
			if out.Undecided == nil {
				out.Undecided = map[string]string{}
			}
			out.Undecided[o.Name()] = executor.TruncatedReason
			out.Notes = append(out.Notes, o.Name()+": not judged: "+given.Truncated)
			continue
		}
		j, err := executor.Watch(jctx, t, deadline, target.PingTimeout(hang), func(ctx context.Context) (*Judgement, error) {
			return o.Check(ctx, t, c, given, opt)
		})
		if target.IsFrozen(err) {
			return out, err
		}
		if ctx.Err() == nil && jctx.Err() != nil {
			// Whatever the oracle returned, it did not finish in time.
			if aerr := target.CheckAlive(ctx, t, target.PingTimeout(hang)); aerr != nil {
				return out, aerr
			}
			out.JudgeTimeout = o.Name()
			out.Notes = append(out.Notes, fmt.Sprintf("%s did not finish judging within the case's bound (--hang-timeout %v); the case is not judged", o.Name(), hang))
			return out, nil
		}
		if j != nil && j.Execution != nil {
			if out.Result == nil {
				out.Result = j.Execution
			} else {
				out.Own = append(out.Own, OwnRun{Oracle: o.Name(), Result: j.Execution})
			}
		}
		if err != nil {
			var setup *executor.SetupError
			if errors.As(err, &setup) {
				return out, err
			}
			return out, fmt.Errorf("%s: %w", o.Name(), err)
		}
		out.Judged = append(out.Judged, o.Name())
		if j == nil {
			continue
		}
		if j.Undecided != "" {
			if out.Undecided == nil {
				out.Undecided = map[string]string{}
			}
			out.Undecided[o.Name()] = j.Undecided
		}
		out.Findings = append(out.Findings, j.Findings...)
		out.Evidence = append(out.Evidence, j.Evidence...)
		out.Notes = append(out.Notes, j.Notes...)
	}
	return out, nil
}
