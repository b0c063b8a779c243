// Package fuzz is txlab's campaign loop: round after round, on one worker per
// target, it either generates a group of cases and runs each through the
// oracle pipeline (one plain execution shared by every oracle that judges it)
// or runs one round of a free-running workload; it counts what happened,
// shows live progress, and returns the summary. Oracles plug in through
// package oracle; they never import this one.
package fuzz

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"time"

	"github.com/schollz/progressbar/v3"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/crash"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Options configure a campaign.
type Options struct {
	Seed     uint64        // run seed; round i is generated from gen.CaseSeed(Seed, i)
	Duration time.Duration // stop after this long; 0 = no time limit
	// Start is when the campaign began, so that Duration counts the
	// workers' start-up (a throwaway server, a schema each); zero = when
	// Run is called.
	Start time.Time
	// Cases stops the campaign after this many cases (rounds of a
	// Workload); 0 = no limit.
	Cases int
	// Oracles judge every generated case: Oracles[w] those of worker w (on
	// targets[w]), the same oracles in the same order for every worker. Each
	// worker has a set of its own, so what an oracle keeps beside its target
	// (a cache, a sibling schema) is one worker's and needs no lock. None =
	// the cases only run.
	Oracles [][]oracle.CaseOracle
	// Workload, when set, runs instead of generated cases.
	Workload oracle.Workload
	// Writer saves the findings' bundles (the oracles only return them);
	// nil = the findings are only counted.
	Writer *report.Writer
	// Levels are cycled through, one per round; empty = the DBMS default.
	Levels []target.Level
	Exec   executor.Options
	Gen    gen.Config // Dialect is taken from the target
	// Progress receives a live progress line (usually stderr); nil = none.
	Progress io.Writer
	// PlainProgress prints the progress as a plain line every 10 s instead
	// of redrawing it in place (for logs and pipes, where \r does not work).
	PlainProgress bool
	// OnProgress, when set, is given the campaign's progress whenever the
	// progress line would be redrawn: after every case and every second
	// (how a worker process of txlab fuzz --procs reports to its parent).
	// It is called with the campaign's lock held and must not block long.
	OnProgress func(Progress)
	// Log receives one line per notable event (verbose mode); nil = none.
	Log io.Writer
	// Shard, when its Of is above 1, runs only the rounds i with
	// i mod Of = Index: one of Of disjoint parts of the campaign, for many
	// machines. Under a case limit every shard counts the others' rounds
	// against it too, so the shards together run exactly the cases of the
	// unsharded campaign.
	Shard Shard
	// SaveDir, when set, receives the case file of a case whose run ended
	// the campaign with an error, so that it can be replayed.
	SaveDir string
	// Reduce, when set, is called on the worker's target, with the
	// worker's oracles, for the first finding with verdict bug of each
	// bundle (f.Dir), after its case is counted, and says whether it
	// reduced the bundle; an error ends the campaign. Its time is the
	// campaign's.
	Reduce func(ctx context.Context, t target.Target, oracles []oracle.CaseOracle, f verdict.Finding) (bool, error)
}

// Run runs a campaign on one worker per target until the duration or the
// case limit is reached, ctx is cancelled (Ctrl-C: not an error) or a worker
// fails (the others stop; the summary says so and the error is returned).
// Round i is generated from gen.CaseSeed(opt.Seed, i) whichever worker runs
// it, so a seed repeats the same cases.
func Run(ctx context.Context, targets []target.Target, opt Options) (*Summary, error) {
	if len(targets) == 0 {
		return nil, errors.New("fuzz: no target")
	}
	if len(opt.Oracles) > 0 && len(opt.Oracles) != len(targets) {
		return nil, fmt.Errorf("fuzz: %d sets of oracles for %d workers", len(opt.Oracles), len(targets))
	}
	info := targets[0].Info()
	opt.Gen.Dialect = info.Dialect
	opt.Gen.NoSharedLocks = info.NoSharedLocks
	opt.Gen.NoLockingReads = info.NoLockingReads
	if opt.Gen.Features == nil {
		opt.Gen.Features = info.Features
	}
	start := opt.Start
	if start.IsZero() {
		start = time.Now()
	}
	l := &loop{opt: opt, s: newSummary(info, opt, len(targets)), start: start}
	l.running = make([]int, len(targets))
	if opt.Cases > 0 {
		l.budget = int64(opt.Cases)
	} else {
		l.budget = -1
	}
	if opt.Duration > 0 {
		l.until = l.start.Add(opt.Duration)
	}
	l.display = NewDisplay(opt.Progress, opt.PlainProgress, opt.Cases, l.start)

	// A failing worker stops the others; Ctrl-C (ctx) stops everyone.
	runCtx, stop := context.WithCancel(ctx)
	defer stop()
	// A heartbeat keeps the progress line moving while no case ends (a
	// reduction, a slow case): plain progress at least every plainEvery.
	beat := time.NewTicker(time.Second)
	beatDone, beatStopped := make(chan struct{}), make(chan struct{})
	go func() {
		defer crash.Exit()
		defer close(beatStopped)
		for {
			select {
			case <-beatDone:
				return
			case <-beat.C:
				l.mu.Lock()
				l.progress(0)
				l.mu.Unlock()
			}
		}
	}()
	var wg sync.WaitGroup
	errs := make([]error, len(targets))
	for w, t := range targets {
		// Each worker works on a bench of its own: its target and the
		// executor's note of the setup it left there (the one the command
		// layer made, when it made one).
		t := executor.NewBench(t)
		wg.Add(1)
		go func() {
			defer wg.Done()
			// A worker's panic ends the campaign as its error would.
			if err := crash.Do(func() error { return l.work(runCtx, w, t, l.oracles(w)) }); err != nil {
				if len(targets) > 1 {
					err = fmt.Errorf("worker %d: %w", w+1, err)
				}
				errs[w] = err
				stop()
			}
		}()
	}
	wg.Wait()
	beat.Stop()
	close(beatDone)
	<-beatStopped
	err := errors.Join(errs...)
	l.s.finish(time.Since(l.start), err, ctx.Err() != nil)
	l.display.Finish()
	return l.s, err
}

// loop is the state the workers share.
type loop struct {
	opt     Options
	start   time.Time
	until   time.Time  // zero = no deadline
	claimMu sync.Mutex // guards next and budget together
	next    int        // the next round
	budget  int64      // cases (rounds) left; negative = unlimited
	mu      sync.Mutex // guards s, display and running
	s       *Summary
	display *Display
	running []int           // transactions of each worker's current workload round
	reduced map[string]bool // bundle directories handed to Options.Reduce
	// reducing are the bundles being reduced now, with when each began.
	reducing map[string]time.Time
}

// overdue reports whether the campaign's deadline has passed.
func (l *loop) overdue() bool {
	return !l.until.IsZero() && !time.Now().Before(l.until)
}

// Shard is one of Of disjoint parts of a campaign (Index from 0).
type Shard struct{ Index, Of int }

// ParseShard reads "I/N" (I from 1 to N, as people count shards; Kubernetes'
// JOB_COMPLETION_INDEX counts from 0, so I = index+1).
func ParseShard(s string) (Shard, error) {
	var i, n int
	if _, err := fmt.Sscanf(s, "%d/%d", &i, &n); err != nil || fmt.Sprintf("%d/%d", i, n) != strings.TrimSpace(s) || n < 1 || i < 1 || i > n {
		return Shard{}, fmt.Errorf("shard %q: want I/N with 1 ≤ I ≤ N (e.g. 2/8)", s)
	}
	return Shard{Index: i - 1, Of: n}, nil
}

// String is "I/N", or "" for the whole campaign.
func (sh Shard) String() string {
	if sh.Of <= 1 {
		return ""
	}
	return fmt.Sprintf("%d/%d", sh.Index+1, sh.Of)
}

// mine reports whether round i belongs to the shard.
func (sh Shard) mine(i int) bool { return sh.Of <= 1 || i%sh.Of == sh.Index }

// nextRound takes the next round and, under a case budget, its share of
// it: the rounds are handed out in order and each takes its cases (or, for
// a workload, itself) from the budget at once, so with --cases N the same
// seed runs the same cases whatever the number of workers and however fast
// each is. ok is false when the budget is spent. A shard skips the other
// shards' rounds, under a budget taking their cases from it as they would.
func (l *loop) nextRound() (spec oracle.RoundSpec, group []*testcase.Case, ok bool) {
	l.claimMu.Lock()
	for !l.opt.Shard.mine(l.next) && l.budget != 0 {
		switch {
		case l.budget < 0:
		case l.opt.Workload != nil:
			l.budget--
		default:
			l.budget -= min(int64(len(l.group(gen.CaseSeed(l.opt.Seed, l.next)))), l.budget)
		}
		l.next++
	}
	if l.budget == 0 {
		l.claimMu.Unlock()
		return spec, nil, false
	}
	i := l.next
	l.next++
	spec = oracle.RoundSpec{Index: i, Seed: gen.CaseSeed(l.opt.Seed, i), Until: l.until}
	if len(l.opt.Levels) > 0 {
		spec.Level = l.opt.Levels[i%len(l.opt.Levels)]
	}
	switch {
	case l.opt.Workload != nil:
		if l.budget > 0 {
			l.budget--
		}
		l.claimMu.Unlock()
	case l.budget < 0:
		// No budget to share: generate outside the lock.
		l.claimMu.Unlock()
		group = l.group(spec.Seed)
	default:
		group = l.group(spec.Seed)
		group = group[:min(int64(len(group)), l.budget)]
		l.budget -= int64(len(group))
		l.claimMu.Unlock()
	}
	return spec, group, true
}

// oracles are worker w's case oracles.
func (l *loop) oracles(w int) []oracle.CaseOracle {
	if len(l.opt.Oracles) == 0 {
		return nil
	}
	return l.opt.Oracles[w]
}

// work runs rounds on one target, judged by its worker's oracles, until
// the campaign ends.
func (l *loop) work(ctx context.Context, w int, t target.Target, oracles []oracle.CaseOracle) error {
	for ctx.Err() == nil && (l.until.IsZero() || time.Now().Before(l.until)) {
		spec, group, ok := l.nextRound()
		if !ok {
			return nil
		}
		var err error
		if l.opt.Workload != nil {
			err = l.workloadRound(ctx, w, t, spec)
		} else {
			err = l.caseRound(ctx, t, oracles, spec, group)
		}
		if err != nil {
			return err
		}
	}
	return nil
}

// caseRound generates one group of cases and runs each through the oracle
// pipeline. Cases stop at the deadline: a case cut short is not counted.
func (l *loop) caseRound(ctx context.Context, t target.Target, oracles []oracle.CaseOracle, spec oracle.RoundSpec, group []*testcase.Case) error {
	if !l.until.IsZero() {
		var cancel context.CancelFunc
		ctx, cancel = context.WithDeadline(ctx, l.until)
		defer cancel()
	}
	for j, tc := range group {
		tc.Name = fmt.Sprintf("case-%d", spec.Index)
		if j > 0 {
			tc.Name = fmt.Sprintf("case-%d.%d", spec.Index, j)
		}
		if spec.Level != "" {
			tc.Isolation = spec.Level
		}
		out, err := oracle.CheckCase(ctx, t, tc, oracles, l.opt.Exec, false)
		// What the oracles returned is saved whatever ended the case after
		// them (a later oracle's error, the campaign's end).
		if serr := l.opt.Writer.Save(out.Findings, out.Evidence); serr != nil && err == nil {
			err = serr
		}
		if target.IsFrozen(err) {
			return err
		}
		if ctx.Err() != nil || l.overdue() {
			if err != nil && l.overdue() {
				// The campaign's end cut the case short; had the server
				// stopped answering, the run must not end as if all went well.
				if aerr := target.CheckAlive(context.WithoutCancel(ctx), t, target.PingTimeout(l.opt.Exec.HangTimeout)); target.IsFrozen(aerr) {
					return aerr
				}
			}
			// Interrupted or out of time mid-case: not counted. A driver's
			// own deadline (a dial bounded by the campaign's end) can fire
			// a moment before ctx reports it, hence the clock check.
			return nil
		}
		var setupErr *executor.SetupError
		if err != nil && !errors.As(err, &setupErr) {
			err = fmt.Errorf("%s (seed %d): %w", tc.Name, spec.Seed, err)
			if path, serr := l.save(tc); serr == nil && path != "" {
				err = fmt.Errorf("%w; the case is saved in %s", err, path)
			}
			return err
		}
		hangDir := ""
		if out.Result != nil && out.Result.Hang && l.opt.Writer != nil {
			// Saved once the case counts: a hang is a case to replay.
			f, _, err := l.opt.Writer.Write(hangBundle(t, tc, out.Result, l.opt.Exec.Hang()))
			if err != nil {
				return fmt.Errorf("%s (seed %d): saving the hang: %w", tc.Name, spec.Seed, err)
			}
			hangDir = f.Dir
		}
		l.mu.Lock()
		var failed error
		if setupErr != nil {
			failed = setupErr
		}
		l.s.addCase(tc, out, failed)
		if out.Result != nil && out.Result.Hang {
			if hangDir != "" {
				l.s.HangBundles = append(l.s.HangBundles, hangDir)
			}
			if l.opt.Log != nil {
				fmt.Fprintf(l.opt.Log, "%s: HANG: did not finish within --hang-timeout %v%s\n", tc.Name, l.opt.Exec.Hang(), arrow(hangDir))
			}
		}
		if setupErr != nil && l.opt.Log != nil {
			fmt.Fprintf(l.opt.Log, "%s: %s\n", tc.Name, termsafe.Text(setupErr.Error()))
		}
		l.progress(1)
		todo := l.toReduce(out)
		l.mu.Unlock()
		for _, f := range todo {
			// A reduction takes seconds to minutes: the progress line
			// says why the count stands still (see heartbeat).
			l.mu.Lock()
			if l.reducing == nil {
				l.reducing = map[string]time.Time{}
			}
			l.reducing[f.Dir] = time.Now()
			l.progress(0)
			l.mu.Unlock()
			ok, err := l.opt.Reduce(ctx, t, oracles, f)
			l.mu.Lock()
			delete(l.reducing, f.Dir)
			l.mu.Unlock()
			if err != nil {
				return fmt.Errorf("%s (seed %d): reducing %s: %w", tc.Name, spec.Seed, f.Dir, err)
			}
			l.mu.Lock()
			l.s.ToReduce++
			if ok {
				l.s.Reduced++
			}
			l.mu.Unlock()
		}
	}
	l.mu.Lock()
	l.s.Rounds++
	l.mu.Unlock()
	return nil
}

// arrow is " → dir", or "" for no directory.
func arrow(dir string) string {
	if dir == "" {
		return ""
	}
	return " → " + dir
}

// toReduce picks the bug findings of out whose bundles no reduction has
// been given yet; called with mu held.
func (l *loop) toReduce(out *oracle.Outcome) []verdict.Finding {
	if l.opt.Reduce == nil || out == nil {
		return nil
	}
	var todo []verdict.Finding
	for _, f := range out.Findings {
		if f.Verdict != verdict.Bug || f.Dir == "" || l.reduced[f.Dir] {
			continue
		}
		if l.reduced == nil {
			l.reduced = map[string]bool{}
		}
		l.reduced[f.Dir] = true
		todo = append(todo, f)
	}
	return todo
}

// save writes tc's case file under SaveDir and returns its path ("" when
// there is no SaveDir).
func (l *loop) save(tc *testcase.Case) (string, error) {
	if l.opt.SaveDir == "" {
		return "", nil
	}
	if err := os.MkdirAll(l.opt.SaveDir, 0o755); err != nil {
		return "", err
	}
	path := filepath.Join(l.opt.SaveDir, "failed-"+tc.Name+".txn")
	return path, atomicfile.WriteFile(path, []byte(tc.String()), 0o644)
}

// Grouper is implemented by a case oracle that wants the campaign to
// generate groups of cases sharing their transactions (WSS: several
// submitted orders of the same transactions). Without one, a group is one
// generated case. Generating is the campaign's business: the oracle
// contract (package oracle) knows nothing of the generator.
type Grouper interface {
	Group(seed uint64, cfg gen.Config) []*testcase.Case
}

// group generates the cases of one round: the group of the first oracle
// that generates groups, or one generated case.
func (l *loop) group(seed uint64) []*testcase.Case {
	// Every worker's set is the same oracles: the first set's groups are
	// everyone's (a round's cases do not depend on its worker).
	for _, o := range l.oracles(0) {
		if g, ok := o.(Grouper); ok {
			return g.Group(seed, l.opt.Gen)
		}
	}
	return []*testcase.Case{gen.Case(seed, l.opt.Gen)}
}

// workloadRound runs one round of the free-running workload.
func (l *loop) workloadRound(ctx context.Context, w int, t target.Target, spec oracle.RoundSpec) error {
	spec.Progress = func(done int) {
		l.mu.Lock()
		l.running[w] = done
		l.progress(0)
		l.mu.Unlock()
	}
	res, err := l.guarded(ctx, t, func(ctx context.Context) (*oracle.RoundResult, error) {
		return l.opt.Workload.Round(ctx, t, spec)
	})
	if target.IsFrozen(err) {
		return err
	}
	if ctx.Err() != nil && res == nil {
		return nil
	}
	if err == nil && res != nil {
		err = l.opt.Writer.Save(res.Findings, res.Evidence)
	}
	if err != nil {
		return fmt.Errorf("round %d (seed %d): %w", spec.Index, spec.Seed, err)
	}
	l.mu.Lock()
	defer l.mu.Unlock()
	l.running[w] = 0
	l.s.addRound(l.opt.Workload.Name(), res)
	if l.opt.Log != nil {
		fmt.Fprintf(l.opt.Log, "round %d: %d transactions, %d findings\n", spec.Index, res.Transactions, len(res.Findings))
	}
	l.progress(1)
	return nil
}

// guarded runs a workload round, which has no bound of its own (its
// sessions run for --txns transactions), asking the server a trivial query
// every hang timeout meanwhile: when the server does not answer, the
// round is cancelled and left to end by itself, and the campaign stops
// with the *target.FrozenError.
func (l *loop) guarded(ctx context.Context, t target.Target, round func(context.Context) (*oracle.RoundResult, error)) (*oracle.RoundResult, error) {
	type result struct {
		res *oracle.RoundResult
		err error
	}
	rctx, cancel := context.WithCancel(ctx)
	defer cancel()
	done := make(chan result, 1)
	go func() {
		res, err := crash.Call(func() (*oracle.RoundResult, error) { return round(rctx) })
		done <- result{res, err}
	}()
	hang := l.opt.Exec.HangTimeout
	if hang <= 0 {
		hang = 30 * time.Second
	}
	tick := time.NewTicker(hang)
	defer tick.Stop()
	for {
		select {
		case r := <-done:
			return r.res, r.err
		case <-tick.C:
		}
		err := target.CheckAlive(context.WithoutCancel(ctx), t, target.PingTimeout(hang))
		if target.IsFrozen(err) {
			return nil, err
		}
	}
}

// progress redraws the progress line after n more cases (rounds) are
// done; called with mu held.
func (l *loop) progress(n int) {
	inFlight := 0
	for _, n := range l.running {
		inFlight += n
	}
	p := l.s.progress(inFlight)
	for d, t := range l.reducing {
		if p.Reducing == "" || time.Since(t) > p.ReducingFor {
			p.Reducing, p.ReducingFor = filepath.Base(d), time.Since(t)
		}
	}
	if l.opt.OnProgress != nil {
		l.opt.OnProgress(p)
	}
	l.display.Show(p.Line(time.Since(l.start)), n)
}

// plainEvery is the interval between plain progress lines.
const plainEvery = 10 * time.Second

// Display shows a campaign's progress line: redrawn in place on a
// terminal, or as a plain line every 10 s for logs and pipes (where \r
// does not work). A nil *Display shows nothing.
type Display struct {
	w         io.Writer
	bar       *progressbar.ProgressBar
	start     time.Time
	lastPlain time.Time
}

// NewDisplay shows progress on w (nil: nowhere, and NewDisplay returns
// nil), plain or redrawn, counting up to total cases (0: no limit) from
// start.
func NewDisplay(w io.Writer, plain bool, total int, start time.Time) *Display {
	if w == nil {
		return nil
	}
	d := &Display{w: w, start: start, lastPlain: start}
	if plain {
		return d
	}
	limit := int64(-1)
	if total > 0 {
		limit = int64(total)
	}
	d.bar = progressbar.NewOptions64(limit,
		progressbar.OptionSetWriter(w),
		progressbar.OptionSetDescription("starting"),
		progressbar.OptionThrottle(200*time.Millisecond),
		progressbar.OptionShowCount(),
		progressbar.OptionSpinnerType(14),
		progressbar.OptionClearOnFinish(),
		progressbar.OptionSetWidth(20),
	)
	return d
}

// Show shows line after n more cases are done.
func (d *Display) Show(line string, n int) {
	switch {
	case d == nil:
	case d.bar != nil:
		d.bar.Describe(line)
		d.bar.Add(n)
	case time.Since(d.lastPlain) >= plainEvery:
		d.lastPlain = time.Now()
		fmt.Fprintf(d.w, "[%s] %s\n", time.Since(d.start).Round(time.Second), line)
	}
}

// Finish clears the redrawn line.
func (d *Display) Finish() {
	if d != nil && d.bar != nil {
		d.bar.Finish()
	}
}
