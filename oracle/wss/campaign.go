package wss

import (
	"context"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Oracle plugs WSS into `txlab fuzz` and `txlab run`: it generates groups and
// checks cases, writing a bundle per new finding signature.
type Oracle struct {
	Options Options
	Groups  GroupConfig
	// Writer receives the finding bundles; nil writes none.
	Writer *report.Writer
}

// Group generates one group's submitted orders (the fuzz loop's hook).
func (o *Oracle) Group(seed uint64, cfg gen.Config) []*testcase.Case {
	gc := o.Groups
	gc.Dialect = cfg.Dialect
	return Group(seed, gc)
}

// Check runs c with the oracle and returns the actual run and the findings,
// each with the directory of its bundle (or of the first bundle with the same
// signature).
func (o *Oracle) Check(ctx context.Context, t target.Target, c *testcase.Case, opt executor.Options) (*executor.Result, []report.Finding, error) {
	wo := o.Options
	wo.Exec = opt
	out, err := Check(ctx, t, c, wo)
	if out == nil {
		return nil, nil, err
	}
	if err != nil {
		return out.Actual, nil, err
	}
	if o.Writer == nil {
		return out.Actual, out.Findings, nil
	}
	var findings []report.Finding
	for _, b := range out.Bundles() {
		f, _, err := o.Writer.Write(b)
		if err != nil {
			return out.Actual, findings, err
		}
		findings = append(findings, f)
	}
	return out.Actual, findings, nil
}
