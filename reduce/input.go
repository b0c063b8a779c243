package reduce

import (
	"context"
	"errors"
	"fmt"
	"os"
	"slices"
	"time"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Input is what txlab reduce shrinks: a case file, or a finding bundle's
// directory reduced in place, with the finding to keep once it is known.
type Input struct {
	Path   string // as given
	Case   *testcase.Case
	Bundle string // the bundle's directory; "" for a case file
	Key    Key
	// HaveKey is set when Key is the finding to keep: given, the bundle's,
	// or found by FindKey.
	HaveKey bool
}

// Open reads path (a case file or a bundle's directory) and the finding to
// keep: finding as a signature when not "", else a bundle's own. Its
// errors are all the input's: nothing has run.
func Open(path, finding string) (*Input, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	in := &Input{Path: path}
	if finding != "" {
		if in.Key, err = ParseKey(finding); err != nil {
			return nil, fmt.Errorf("--finding: %w", err)
		}
		in.HaveKey = true
	}
	if !st.IsDir() {
		if in.Case, err = testcase.ParseFile(path); err == nil {
			err = in.Case.Validate()
		}
		if err != nil {
			return nil, err
		}
		return in, nil
	}
	in.Bundle = path
	if !in.HaveKey {
		if in.Key, err = BundleKey(path); err != nil {
			return nil, fmt.Errorf("%s is not a finding bundle: %w", path, err)
		}
		in.HaveKey = true
	}
	if in.Case, _, err = ReadBundleCase(path); err != nil {
		return nil, err
	}
	return in, nil
}

// FindKey runs the case once, when the finding to keep is not known yet,
// and keeps its first bug finding, or its first finding when none is a
// bug. The budget (0: no limit) covers the whole reduction, this run
// included: FindKey returns what is left of it.
func (in *Input) FindKey(ctx context.Context, t target.Target, oracles []oracle.CaseOracle, exec executor.Options, budget time.Duration) (time.Duration, error) {
	if in.HaveKey {
		return budget, nil
	}
	began := time.Now()
	fctx := ctx
	if budget > 0 {
		var cancel context.CancelFunc
		fctx, cancel = context.WithTimeout(ctx, budget)
		defer cancel()
	}
	key, err := firstFinding(fctx, t, in.Case, oracles, exec)
	if err != nil {
		var se *executor.ScopeError
		if errors.As(err, &se) {
			return 0, fmt.Errorf("%s: %w", in.Path, err)
		}
		return 0, err
	}
	in.Key, in.HaveKey = key, true
	if budget > 0 {
		if budget -= time.Since(began); budget <= 0 {
			return 0, fmt.Errorf("the --budget ran out while running %s to find its finding", in.Case.Name)
		}
	}
	return budget, nil
}

// firstFinding runs c once and returns the key of its first bug finding,
// or of its first finding when none is a bug.
func firstFinding(ctx context.Context, t target.Target, c *testcase.Case, oracles []oracle.CaseOracle, exec executor.Options) (Key, error) {
	o, err := oracle.CheckCase(ctx, t, c, oracles, exec, false)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && !target.IsFrozen(err) {
			err = fmt.Errorf("the --budget ran out while running %s to find its finding", c.Name)
		}
		return Key{}, err
	}
	report.Sign(o.Findings, o.Evidence)
	if len(o.Findings) == 0 {
		return Key{}, fmt.Errorf("%s gives no finding on %s: nothing to keep", c.Name, t.Info().DBMS)
	}
	i := slices.IndexFunc(o.Findings, func(f verdict.Finding) bool { return f.Verdict == verdict.Bug })
	if i < 0 {
		i = 0
	}
	return KeyOf(o.Findings[i])
}

// Run reduces the input keeping in.Key: a bundle in place (Bundle), a case
// file into the result's case, annotated with where it came from.
func (in *Input) Run(ctx context.Context, t target.Target, opt Options) (*Result, error) {
	if in.Bundle != "" {
		return Bundle(ctx, t, in.Bundle, in.Key, opt)
	}
	res, err := Reduce(ctx, t, in.Case, in.Key, opt)
	if err != nil {
		return nil, err
	}
	Annotate(res, in.Path, in.Key, in.Case)
	return res, nil
}
