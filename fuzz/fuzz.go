// Package fuzz is txlab's campaign loop: generate a case, run it through the
// execution protocol, hand the result to the oracles, count what happened,
// and report a summary. The oracle work plugs into the same loop.
package fuzz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sort"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Options configure a campaign.
type Options struct {
	Seed     uint64        // run seed; group i is generated from gen.CaseSeed(Seed, i)
	Duration time.Duration // stop after this long; 0 = no time limit
	Cases    int           // stop after this many generated groups; 0 = no limit
	// Oracle generates and judges the cases; nil = Plain (run only).
	Oracle Oracle
	// Levels are cycled through, one per case; empty = the DBMS default.
	Levels []target.Level
	Exec   executor.Options
	Gen    gen.Config // Dialect is taken from the target
	// Progress receives a live progress line (usually stderr); nil = none.
	Progress io.Writer
	// PlainProgress prints the progress as a plain line every 10 s instead
	// of redrawing it in place (for logs and pipes, where \r does not work).
	PlainProgress bool
	// Log receives one line per notable event (verbose mode); nil = none.
	Log io.Writer
}

// Summary is what a campaign did. Its JSON form is `txlab fuzz --json`.
type Summary struct {
	Target          string           `json:"target"`
	Seed            uint64           `json:"seed"`
	Workers         int              `json:"workers"`
	Cases           int              `json:"cases"`
	Transactions    int              `json:"transactions"`
	Statements      int              `json:"statements"`
	Blocked         int              `json:"blocked"`
	Skipped         int              `json:"skipped"`
	Hangs           int              `json:"hangs"`
	ErrorsByClass   map[string]int   `json:"errors_by_class"`
	InvalidCount    int              `json:"invalid_statements"`
	InvalidRatio    float64          `json:"invalid_statement_ratio"`
	InvalidExamples []string         `json:"invalid_examples,omitempty"`
	Findings        []report.Finding `json:"findings"`
	ElapsedSeconds  float64          `json:"elapsed_seconds"`
	CasesPerSecond  float64          `json:"cases_per_second"`
	Interrupted     bool             `json:"interrupted"`

	// Free-running workloads (RunWorkload) count rounds in Cases and
	// transaction outcomes here.
	Free                  bool    `json:"free_running,omitempty"`
	Committed             int     `json:"committed,omitempty"`
	Failed                int     `json:"failed,omitempty"`
	Unknown               int     `json:"unknown,omitempty"`
	TransactionsPerSecond float64 `json:"transactions_per_second,omitempty"`
}

// maxInvalidExamples bounds the invalid statements kept for the summary.
const maxInvalidExamples = 5

// Oracle judges generated cases; the campaign loop calls it for every case.
type Oracle interface {
	// Group generates the cases of one group from its seed: usually one
	// case, or several submitted orders of the same transactions.
	Group(seed uint64, cfg gen.Config) []*testcase.Case
	// Check runs one case on t and judges what happened. The returned
	// result is the actual (concurrent) run, counted in the summary.
	Check(ctx context.Context, t target.Target, c *testcase.Case, opt executor.Options) (*executor.Result, []report.Finding, error)
}

// Plain generates one case per group and only runs it: no findings.
type Plain struct{}

// Group implements Oracle.
func (Plain) Group(seed uint64, cfg gen.Config) []*testcase.Case {
	return []*testcase.Case{gen.Case(seed, cfg)}
}

// Check implements Oracle.
func (Plain) Check(ctx context.Context, t target.Target, c *testcase.Case, opt executor.Options) (*executor.Result, []report.Finding, error) {
	res, err := executor.Run(ctx, t, c, opt)
	return res, nil, err
}

// Run runs a campaign on one worker per target until the duration or group
// limit is reached or ctx is cancelled (Ctrl-C), and returns the summary.
// Cancellation is not an error. Group i is generated from
// gen.CaseSeed(opt.Seed, i) whichever worker runs it, so a seed repeats the
// same cases.
func Run(ctx context.Context, targets []target.Target, opt Options) (*Summary, error) {
	if len(targets) == 0 {
		return nil, errors.New("fuzz: no target")
	}
	if opt.Oracle == nil {
		opt.Oracle = Plain{}
	}
	info := targets[0].Info()
	opt.Gen.Dialect = info.Dialect
	s := &Summary{
		Target:        fmt.Sprintf("%s %s", info.DBMS, info.Version),
		Seed:          opt.Seed,
		Workers:       len(targets),
		ErrorsByClass: map[string]int{},
		Findings:      []report.Finding{},
	}
	start := time.Now()
	if opt.Duration > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, opt.Duration)
		defer cancel()
	}
	c := &campaign{opt: opt, s: s, start: start, lastPlain: start, bar: newProgress(opt)}
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	for w, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = c.work(ctx, t)
		}()
	}
	wg.Wait()

	el := time.Since(start)
	s.ElapsedSeconds = el.Seconds()
	if el > 0 {
		s.CasesPerSecond = float64(s.Cases) / el.Seconds()
	}
	if s.Statements > 0 {
		s.InvalidRatio = float64(s.InvalidCount) / float64(s.Statements)
	}
	if c.bar != nil {
		c.bar.Finish()
	}
	s.Interrupted = ctx.Err() != nil && !(opt.Duration > 0 && errors.Is(ctx.Err(), context.DeadlineExceeded))
	return s, errors.Join(errs...)
}

// campaign is the state the workers share.
type campaign struct {
	opt       Options
	next      atomic.Int64 // next group index
	mu        sync.Mutex   // guards s, bar and lastPlain
	s         *Summary
	start     time.Time
	lastPlain time.Time
	bar       *progressbar.ProgressBar
}

// work runs groups on one target until the campaign ends.
func (c *campaign) work(ctx context.Context, t target.Target) error {
	opt := c.opt
	for ctx.Err() == nil {
		i := int(c.next.Add(1) - 1)
		if opt.Cases > 0 && i >= opt.Cases {
			return nil
		}
		seed := gen.CaseSeed(opt.Seed, i)
		for j, tc := range opt.Oracle.Group(seed, opt.Gen) {
			tc.Name = fmt.Sprintf("case-%d", i)
			if j > 0 {
				tc.Name = fmt.Sprintf("case-%d.%d", i, j)
			}
			if len(opt.Levels) > 0 {
				tc.Isolation = opt.Levels[i%len(opt.Levels)]
			}
			res, findings, err := opt.Oracle.Check(ctx, t, tc, opt.Exec)
			if ctx.Err() != nil {
				return nil // interrupted mid-case: the partial case is not counted
			}
			var setupErr *executor.SetupError
			if err != nil && !errors.As(err, &setupErr) {
				return fmt.Errorf("%s (seed %d): %w", tc.Name, seed, err)
			}
			c.record(tc, res, findings, setupErr)
		}
	}
	return nil
}

// record adds one case's outcome to the summary and the progress line.
func (c *campaign) record(tc *testcase.Case, res *executor.Result, findings []report.Finding, setupErr error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	s, opt := c.s, c.opt
	s.add(tc.Name, tc, res)
	s.Findings = append(s.Findings, findings...)
	if setupErr != nil && opt.Log != nil {
		fmt.Fprintf(opt.Log, "%s: %v\n", tc.Name, setupErr)
	}
	switch {
	case c.bar != nil:
		c.bar.Describe(s.progressLine(time.Since(c.start)))
		c.bar.Add(1)
	case opt.Progress != nil && time.Since(c.lastPlain) >= plainEvery:
		c.lastPlain = time.Now()
		fmt.Fprintln(opt.Progress, s.progressLine(time.Since(c.start)))
	}
}

// add counts one case's events.
func (s *Summary) add(name string, c *testcase.Case, res *executor.Result) {
	s.Cases++
	s.Transactions += countTransactions(c)
	if res == nil {
		return
	}
	if res.Hang {
		s.Hangs++
	}
	for _, evs := range [][]executor.Event{res.Setup, res.Events} {
		for _, ev := range evs {
			switch {
			case ev.Implicit:
				continue
			case ev.Status == executor.StatusBlocked:
				s.Blocked++
				continue
			case ev.Status == executor.StatusSkipped:
				s.Skipped++
				continue
			}
			s.Statements++
			if ev.Error == nil {
				continue
			}
			s.ErrorsByClass[string(ev.Error.Class)]++
			if ev.Error.Class == target.ClassSyntax {
				s.InvalidCount++
				if len(s.InvalidExamples) < maxInvalidExamples {
					s.InvalidExamples = append(s.InvalidExamples, fmt.Sprintf("%s: %s -- %s", name, ev.SQL, ev.Error.Message))
				}
			}
		}
	}
}

// countTransactions counts explicit transactions and autocommit statements.
func countTransactions(c *testcase.Case) int {
	inTxn := map[int]bool{}
	n := 0
	for _, st := range c.Steps {
		switch testcase.ControlOf(st.SQL) {
		case testcase.Begin:
			inTxn[st.Conn] = true
			n++
		case testcase.Commit, testcase.Rollback:
			inTxn[st.Conn] = false
		default:
			if !inTxn[st.Conn] {
				n++
			}
		}
	}
	return n
}

func (s *Summary) progressLine(el time.Duration) string {
	rate := 0.0
	if el > 0 {
		rate = float64(s.Cases) / el.Seconds()
	}
	return fmt.Sprintf("cases %d (%.1f/s) · statements %d · blocked %d · errors: %s", s.Cases, rate, s.Statements, s.Blocked, s.errorsLine())
}

func (s *Summary) errorsLine() string {
	if len(s.ErrorsByClass) == 0 {
		return "none"
	}
	classes := make([]string, 0, len(s.ErrorsByClass))
	for c := range s.ErrorsByClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = fmt.Sprintf("%s %d", c, s.ErrorsByClass[c])
	}
	return strings.Join(parts, ", ")
}

// WriteText prints the summary for people.
func (s *Summary) WriteText(w io.Writer) {
	if s.Free {
		s.writeWorkloadText(w)
		return
	}
	fmt.Fprintf(w, "txlab fuzz on %s, seed %d\n", s.Target, s.Seed)
	fmt.Fprintf(w, "  cases         %d (%.1f/s over %.1fs)\n", s.Cases, s.CasesPerSecond, s.ElapsedSeconds)
	fmt.Fprintf(w, "  transactions  %d\n", s.Transactions)
	fmt.Fprintf(w, "  statements    %d (blocked %d times, %d skipped after an abort)\n", s.Statements, s.Blocked, s.Skipped)
	fmt.Fprintf(w, "  errors        %s\n", s.errorsLine())
	fmt.Fprintf(w, "  invalid       %d statements, %.3f%% of all\n", s.InvalidCount, 100*s.InvalidRatio)
	for _, ex := range s.InvalidExamples {
		fmt.Fprintf(w, "      e.g. %s\n", ex)
	}
	if s.Hangs > 0 {
		fmt.Fprintf(w, "  hangs         %d cases did not finish in time\n", s.Hangs)
	}
	fmt.Fprintf(w, "  findings      %d (%d bugs)\n", len(s.Findings), report.CountBugs(s.Findings))
	if s.Interrupted {
		fmt.Fprintln(w, "  (interrupted)")
	}
	fmt.Fprintf(w, "repeat with --seed %d\n", s.Seed)
}

// plainEvery is the interval between plain progress lines.
const plainEvery = 10 * time.Second

func newProgress(opt Options) *progressbar.ProgressBar {
	if opt.Progress == nil || opt.PlainProgress {
		return nil
	}
	total := int64(-1)
	if opt.Cases > 0 {
		total = int64(opt.Cases)
	}
	return progressbar.NewOptions64(total,
		progressbar.OptionSetWriter(opt.Progress),
		progressbar.OptionSetDescription("starting"),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(20),
	)
}
