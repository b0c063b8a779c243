package fuzz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
)

// Workload is an oracle that runs free instead of through the execution
// protocol: its sessions run concurrently for a round, record a history, and
// the history is checked when the round ends (MTC mini-transactions, IsoRel
// stress mode).
type Workload interface {
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

// RoundResult is what one round did.
type RoundResult struct {
	Transactions  int
	Committed     int
	Failed        int
	Unknown       int
	ErrorsByClass map[string]int
	Findings      []report.Finding
}

// WorkloadOptions configure a free-running campaign.
type WorkloadOptions struct {
	Seed     uint64
	Duration time.Duration // 0 = until Rounds are done or interrupted
	Rounds   int           // 0 = no limit
	Levels   []target.Level
	Workload Workload
	// Progress, PlainProgress and Log as in Options.
	Progress      io.Writer
	PlainProgress bool
	Log           io.Writer
}

// RunWorkload runs rounds of a free-running workload on one worker per
// target until the duration or the round limit is reached, or ctx is
// cancelled, and returns the summary. Round i gets seed
// gen.CaseSeed(Seed, i) and level Levels[i % len(Levels)].
func RunWorkload(ctx context.Context, targets []target.Target, opt WorkloadOptions) (*Summary, error) {
	if len(targets) == 0 {
		return nil, errors.New("fuzz: no target")
	}
	if opt.Workload == nil {
		return nil, errors.New("fuzz: no workload")
	}
	info := targets[0].Info()
	s := &Summary{
		Target:        fmt.Sprintf("%s %s", info.DBMS, info.Version),
		Seed:          opt.Seed,
		Workers:       len(targets),
		ErrorsByClass: map[string]int{},
		Findings:      []report.Finding{},
		Free:          true,
	}
	start := time.Now()
	var until time.Time
	if opt.Duration > 0 {
		until = start.Add(opt.Duration)
	}
	bar := newProgress(Options{Progress: opt.Progress, PlainProgress: opt.PlainProgress})
	var (
		next      atomic.Int64
		mu        sync.Mutex
		running   = make([]int, len(targets)) // transactions of each worker's current round
		lastPlain = start
	)
	progress := func() {
		// called with mu held
		inFlight := 0
		for _, n := range running {
			inFlight += n
		}
		line := s.workloadLine(time.Since(start), inFlight)
		switch {
		case bar != nil:
			bar.Describe(line)
			bar.Add(0)
		case opt.Progress != nil && time.Since(lastPlain) >= plainEvery:
			lastPlain = time.Now()
			fmt.Fprintln(opt.Progress, line)
		}
	}
	work := func(w int, t target.Target) error {
		for ctx.Err() == nil && (until.IsZero() || time.Now().Before(until)) {
			i := int(next.Add(1) - 1)
			if opt.Rounds > 0 && i >= opt.Rounds {
				return nil
			}
			spec := RoundSpec{Index: i, Seed: gen.CaseSeed(opt.Seed, i), Until: until}
			if len(opt.Levels) > 0 {
				spec.Level = opt.Levels[i%len(opt.Levels)]
			}
			spec.Progress = func(done int) {
				mu.Lock()
				running[w] = done
				progress()
				mu.Unlock()
			}
			res, err := opt.Workload.Round(ctx, t, spec)
			if ctx.Err() != nil && res == nil {
				return nil
			}
			if err != nil {
				return fmt.Errorf("round %d (seed %d): %w", i, opt.Seed, err)
			}
			mu.Lock()
			running[w] = 0
			s.Cases++
			s.Transactions += res.Transactions
			s.Committed += res.Committed
			s.Failed += res.Failed
			s.Unknown += res.Unknown
			for c, n := range res.ErrorsByClass {
				s.ErrorsByClass[c] += n
			}
			s.Findings = append(s.Findings, res.Findings...)
			if opt.Log != nil {
				fmt.Fprintf(opt.Log, "round %d: %d transactions, %d findings\n", i, res.Transactions, len(res.Findings))
			}
			progress()
			mu.Unlock()
		}
		return nil
	}
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	for w, t := range targets {
		wg.Add(1)
		go func() {
			defer wg.Done()
			errs[w] = work(w, t)
		}()
	}
	wg.Wait()
	el := time.Since(start)
	s.ElapsedSeconds = el.Seconds()
	if el > 0 {
		s.CasesPerSecond = float64(s.Cases) / el.Seconds()
		s.TransactionsPerSecond = float64(s.Transactions) / el.Seconds()
	}
	if bar != nil {
		bar.Finish()
	}
	s.Interrupted = ctx.Err() != nil
	return s, errors.Join(errs...)
}

func (s *Summary) workloadLine(el time.Duration, inFlight int) string {
	rate := 0.0
	if el > 0 {
		rate = float64(s.Transactions+inFlight) / el.Seconds()
	}
	return fmt.Sprintf("rounds %d · transactions %d (%.0f/s) · committed %d · failed %d · findings %d",
		s.Cases, s.Transactions+inFlight, rate, s.Committed, s.Failed, len(s.Findings))
}

func (s *Summary) writeWorkloadText(w io.Writer) {
	fmt.Fprintf(w, "txlab fuzz on %s, seed %d\n", s.Target, s.Seed)
	fmt.Fprintf(w, "  rounds        %d over %.1fs\n", s.Cases, s.ElapsedSeconds)
	fmt.Fprintf(w, "  transactions  %d (%.0f/s): %d committed, %d failed, %d unknown outcome\n",
		s.Transactions, s.TransactionsPerSecond, s.Committed, s.Failed, s.Unknown)
	fmt.Fprintf(w, "  errors        %s\n", s.errorsLine())
	fmt.Fprintf(w, "  findings      %d (%d bugs)\n", len(s.Findings), report.CountBugs(s.Findings))
	if s.Interrupted {
		fmt.Fprintln(w, "  (interrupted)")
	}
	fmt.Fprintf(w, "repeat with --seed %d\n", s.Seed)
}
