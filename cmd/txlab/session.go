package main

import (
	"context"
	"errors"
	"time"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
)

// session is what a command opens to run cases: its targets (one, or a
// target per fuzz worker) and the oracles built on them. end releases them
// together, the oracles' sessions before the targets they run on, so that
// every command cleans up in the same order and says a failed cleanup the
// same way (connect.Release).
type session struct {
	targets []target.Target
	orc     *oracleFlags // set once judge built the oracles: end closes them
}

// openSession opens --db at level ("" is the case's or the DBMS default),
// refusing a level the target does not have.
func openSession(cmd *cobra.Command, g *globalFlags, level target.Level) (*session, error) {
	t, err := g.openAt(cmd, level)
	if err != nil {
		return nil, err
	}
	return &session{targets: []target.Target{t}}, nil
}

// openWorkerSession opens the targets of n fuzz workers (openWorkers).
func openWorkerSession(cmd *cobra.Command, g *globalFlags, n int, until time.Time) (*session, error) {
	targets, err := g.openWorkers(cmd, n, until)
	if err != nil {
		return nil, err
	}
	return &session{targets: targets}, nil
}

// target is the session's first target: the one oracles read the server's
// settings from, and the only one outside fuzz.
func (s *session) target() target.Target { return s.targets[0] }

// judge builds orc's oracles on the session's target; end closes them. A
// failure is exit 2.
func (s *session) judge(ctx context.Context, g *globalFlags, orc *oracleFlags) ([]oracle.CaseOracle, oracle.Workload, error) {
	cases, work, err := orc.build(ctx, g, s.target())
	if err != nil {
		return nil, nil, exitcode.Fault(err)
	}
	s.orc = orc
	return cases, work, nil
}

// end releases the session when the command ends with *err: deferred
// right after the session opened, as defer s.end(&err) in a function
// whose error result is named err.
func (s *session) end(err *error) {
	connect.Release(err, s.target(), func() error {
		if s.orc != nil {
			s.orc.close()
		}
		var errs []error
		for _, t := range s.targets {
			errs = append(errs, t.Close())
		}
		return errors.Join(errs...)
	})
}
