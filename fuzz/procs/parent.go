package procs

import (
	"bufio"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/htmlreport"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// Campaign is a campaign run as worker processes: what the parent needs;
// the rest travels to the worker processes in their arguments.
type Campaign struct {
	Procs   int    // worker processes, shard I/Procs each
	Workers int    // each worker process's workers
	Seed    uint64 // the campaign's seed, said with its failure
	Cases   int    // the campaign's cases, for the progress line (0: no limit)
	Out     string // the directory the worker processes' bundles merge into
	Began   time.Time

	// Executable is the worker processes' program (txlab), Args(i, dir)
	// worker process i's arguments (from 0): shard i+1 of Procs, writing
	// its bundles into dir and reporting as a Reporter on its stdout.
	Executable string
	Args       func(i int, dir string) []string
	// StopDelay is how long a stopped worker process gets to end with its
	// summary (its bound per case, and some) before it is killed.
	StopDelay time.Duration

	Stderr        io.Writer // the campaign's first line: target, seed, processes
	Log           io.Writer // the worker processes' stderr, a line at a time (nil: none)
	Progress      io.Writer // the one progress line (nil: none)
	PlainProgress bool      // a plain line every 10 s rather than one redrawn in place
}

// Result is what the worker processes ran, merged.
type Result struct {
	Summary    *fuzz.Summary
	Signatures []report.SignatureCount // in Out; nil when no bundle was written
	Page       string                  // the HTML report; "" when none was written
}

// Finish prints the campaign's one summary to out (indented JSON, or the
// text summary with the signatures' counts, supp marking the known ones,
// and the report's path) and returns how the campaign ends (exitcode):
// exit status 2 for runErr, 1 for a finding with verdict bug.
func (r *Result) Finish(out io.Writer, runErr error, asJSON bool, supp *report.Suppressions) error {
	if asJSON {
		if err := fuzz.WriteJSON(out, r.Summary); err != nil {
			return err
		}
	} else {
		r.Summary.WriteText(out)
		report.WriteSignatures(out, r.Signatures, supp)
		if r.Page != "" {
			fmt.Fprintf(out, "report: %s\n", termsafe.Line(r.Page))
		}
	}
	if runErr != nil {
		return exitcode.Fault(runErr)
	}
	return fuzz.Outcome(r.Summary)
}

// worker is one worker process as the parent sees it.
type worker struct {
	shard    string // "I/N"
	dir      string // its bundle directory
	cmd      *exec.Cmd
	progress fuzz.Progress
	summary  *fuzz.Summary
	stderr   []string // its last lines, for the error it ends with
	// crash is the first line of a Go panic or fatal error on its stderr,
	// whose stack trace follows it for many lines.
	crash string
	err   error // why it failed; nil when it did not
}

// maxStderrLines are the last lines kept of a worker process's stderr.
const maxStderrLines = 5

// parent is the running campaign: its worker processes and what they said.
type parent struct {
	c        Campaign
	stop     context.CancelFunc // stops every worker process
	display  *fuzz.Display
	finished sync.WaitGroup // the worker processes' goroutines
	tmp      string         // holds the worker processes' bundle directories
	keep     bool           // the merge failed: tmp is kept for the bundles

	mu      sync.Mutex // guards the workers' state, display, shown, header and failed
	workers []*worker
	shown   int  // cases the display has counted
	header  bool // the first line is written
	failed  []*worker
}

// Run runs the campaign as c.Procs worker processes, each writing its
// bundles into a directory of its own, merged into c.Out at the end. A
// worker process that fails stops the others; when ctx ends (Ctrl-C) they
// are all stopped (each gets SIGINT and ends with its summary), and what
// ran is merged. The Result is nil when no worker process reported a
// summary; the error says why the campaign or the merge failed.
func Run(ctx context.Context, c Campaign) (*Result, error) {
	tmp, err := makeTmp()
	if err != nil {
		return nil, fmt.Errorf("--procs: %w", err)
	}
	ctx, stop := context.WithCancel(ctx)
	defer stop()
	p := &parent{c: c, stop: stop, tmp: tmp, display: fuzz.NewDisplay(c.Progress, c.PlainProgress, c.Cases, c.Began)}
	defer func() {
		if !p.keep {
			os.RemoveAll(tmp)
		}
	}()
	// All before any starts: each one's progress line sums them all.
	for i := range c.Procs {
		p.workers = append(p.workers, &worker{shard: fmt.Sprintf("%d/%d", i+1, c.Procs), dir: filepath.Join(tmp, fmt.Sprintf("shard-%d", i+1))})
	}
	for i, w := range p.workers {
		if err := p.start(ctx, i, w); err != nil {
			stop()
			p.finished.Wait()
			return nil, err
		}
	}
	p.finished.Wait()
	p.display.Finish()
	return p.merge()
}

// start starts worker process i and the goroutine that follows it.
func (p *parent) start(ctx context.Context, i int, w *worker) error {
	w.cmd = exec.CommandContext(ctx, p.c.Executable, p.c.Args(i, w.dir)...)
	w.cmd.Env = Env(os.Environ(), runtime.NumCPU(), p.c.Procs, p.c.Workers)
	// A parent killed with kill -9 cannot stop them: the kernel does
	// (Linux), with the signal that makes them end with their summary
	// and close their targets.
	w.cmd.SysProcAttr = endWithParent()
	// Stopped as Ctrl-C stops fuzz, so that it ends with its summary;
	// killed only when it does not end within StopDelay.
	w.cmd.Cancel = func() error {
		if err := w.cmd.Process.Signal(os.Interrupt); err != nil {
			return w.cmd.Process.Kill()
		}
		return nil
	}
	w.cmd.WaitDelay = p.c.StopDelay
	stdout, err := w.cmd.StdoutPipe()
	if err != nil {
		return err
	}
	stderr, err := w.cmd.StderrPipe()
	if err != nil {
		return err
	}
	if err := w.cmd.Start(); err != nil {
		return fmt.Errorf("--procs: starting worker process %s: %w", w.shard, err)
	}
	p.finished.Add(1)
	go p.follow(w, stdout, stderr)
	return nil
}

// follow reads worker process w's reports and stderr until it ends; one
// that failed stops the others.
func (p *parent) follow(w *worker, stdout, stderr io.Reader) {
	defer p.finished.Done()
	var lines sync.WaitGroup
	lines.Add(1)
	go func() {
		defer lines.Done()
		p.readStderr(w, stderr)
	}()
	readErr := p.readReports(w, stdout)
	// Wait closes the pipes: only once both are read to their end.
	lines.Wait()
	waitErr := w.cmd.Wait()
	p.mu.Lock()
	defer p.mu.Unlock()
	if why := w.failure(waitErr, readErr); why != nil {
		w.err = why
		p.failed = append(p.failed, w)
		p.stop()
	}
}

// readStderr keeps w's last lines on stderr and its first crash line, and
// logs every line.
func (p *parent) readStderr(w *worker, r io.Reader) {
	sc := bufio.NewScanner(r)
	for sc.Scan() {
		line := sc.Text()
		p.mu.Lock()
		if p.c.Log != nil {
			fmt.Fprintf(p.c.Log, "shard %s: %s\n", w.shard, termsafe.Line(line))
		}
		if w.crash == "" && (strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")) {
			w.crash = line
		}
		w.stderr = append(w.stderr, line)
		if len(w.stderr) > maxStderrLines {
			w.stderr = w.stderr[1:]
		}
		p.mu.Unlock()
	}
}

// readReports takes w's messages until its stdout ends; the error says
// why it could not read one.
func (p *parent) readReports(w *worker, r io.Reader) error {
	dec := json.NewDecoder(r)
	for {
		var m Message
		if err := dec.Decode(&m); err != nil {
			if errors.Is(err, io.EOF) {
				return nil
			}
			// Drained, so that the process does not block writing.
			io.Copy(io.Discard, r)
			return fmt.Errorf("reading its reports: %w", err)
		}
		p.mu.Lock()
		p.take(w, m)
		p.mu.Unlock()
	}
}

// take applies one of w's messages; p.mu is held.
func (p *parent) take(w *worker, m Message) {
	switch {
	case m.Target != "" && !p.header:
		// Every worker process sends it; the first is said.
		p.header = true
		fmt.Fprintf(p.c.Stderr, "txlab fuzz: %s, seed %d, %d processes\n", termsafe.Line(m.Target), p.c.Seed, p.c.Procs)
	case m.Progress != nil:
		w.progress = *m.Progress
		var sum fuzz.Progress
		for _, w := range p.workers {
			sum = sum.Add(w.progress)
		}
		p.display.Show(sum.Line(time.Since(p.c.Began)), sum.Cases-p.shown)
		p.shown = sum.Cases
	case m.Summary != nil:
		w.summary = m.Summary
		w.progress.Cases = m.Summary.Cases
	}
}

// failure says why a worker process failed, or nil: exit status 0 (no
// bug) and 1 (a bug finding) are a campaign's; anything else, or reports
// it could not read, is a failure, told in its own words where it gave
// any (its summary's error, else its last line on stderr).
func (w *worker) failure(waitErr, readErr error) error {
	// Not waitErr: once the parent stopped it, Wait reports that
	// (context.Canceled) however the process ended.
	st := w.cmd.ProcessState
	ok := st != nil && (st.ExitCode() == 0 || st.ExitCode() == 1)
	switch {
	case ok && readErr == nil && w.summary != nil:
		return nil
	case ok && readErr != nil:
		return fmt.Errorf("worker process %s: %w", w.shard, readErr)
	case w.summary != nil && w.summary.Error != "":
		return fmt.Errorf("worker process %s: %s", w.shard, w.summary.Error)
	case w.crash != "":
		return fmt.Errorf("worker process %s: %s", w.shard, w.crash)
	case len(w.stderr) > 0:
		return fmt.Errorf("worker process %s: %s", w.shard, strings.TrimPrefix(w.stderr[len(w.stderr)-1], "txlab: "))
	case waitErr != nil:
		return fmt.Errorf("worker process %s: %w", w.shard, waitErr)
	}
	return fmt.Errorf("worker process %s ended without its summary", w.shard)
}

// Env is the environment of a worker process of procs worker processes
// of workers each on cores cores: environ, with GOMAXPROCS its share of
// the cores (at least its workers) unless environ sets it. Each process
// would otherwise size its scheduler and garbage collector for every
// core: the collector's idle-time workers of N processes then take cores
// from the others' cases (on 2 cores, two processes with GOMAXPROCS 2
// used 25 % more CPU per case than with 1).
func Env(environ []string, cores, procs, workers int) []string {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return environ
		}
	}
	return append(slices.Clone(environ), "GOMAXPROCS="+strconv.Itoa(max(workers, cores/procs, 1)))
}

// merge sums what the worker processes reported, merges their bundle
// directories into c.Out and writes the HTML report there. The Result
// is nil when none reported a summary; a campaign's error wins over the
// merge's, and says the seed to repeat it with.
func (p *parent) merge() (*Result, error) {
	var parts []*fuzz.Summary
	var srcs []string
	for _, w := range p.workers {
		if w.summary != nil {
			parts = append(parts, w.summary)
		}
		srcs = append(srcs, w.dir)
	}
	var runErr error
	if len(p.failed) > 0 {
		runErr = p.failed[0].err
		if len(p.failed) > 1 {
			runErr = fmt.Errorf("%w (and %s)", runErr, english.Plural(len(p.failed)-1, "other worker process"))
		}
	}
	if len(parts) == 0 {
		if runErr == nil {
			runErr = errors.New("--procs: no worker process reported a summary")
		}
		return nil, runErr
	}
	res := &Result{Summary: fuzz.Merge(time.Since(p.c.Began), parts...)}
	if runErr != nil {
		// The merged summary says the campaign stopped by an error even
		// when the failing process could not say so itself.
		res.Summary.Error, res.Summary.Interrupted = runErr.Error(), false
	}
	var mergeErr error
	res.Signatures, mergeErr = mergeDirs(p.c.Out, srcs)
	if mergeErr != nil {
		p.keep = true
		os.Remove(filepath.Join(p.tmp, ownerFile)) // kept for the user: no later campaign removes it
		mergeErr = fmt.Errorf("merging the worker processes' bundles into %s: %w (they are kept in %s)", p.c.Out, mergeErr, p.tmp)
	}
	relocate(res.Summary.Findings, res.Signatures)
	if mergeErr == nil && len(res.Signatures) > 0 {
		res.Page, mergeErr = htmlreport.Write(p.c.Out)
	}
	if runErr != nil {
		return res, fmt.Errorf("%w (repeat with --seed %d)", runErr, p.c.Seed)
	}
	return res, mergeErr
}

// mergeDirs merges the worker processes' bundle directories into out (nil
// and no directory when none wrote one: a campaign that finds nothing
// writes nothing).
func mergeDirs(out string, srcs []string) ([]report.SignatureCount, error) {
	var existing []string
	for _, src := range srcs {
		if _, err := os.Stat(src); err == nil {
			existing = append(existing, src)
		}
	}
	if len(existing) == 0 {
		return nil, nil
	}
	merged, _, err := report.MergeInto(out, existing)
	return merged, err
}

// relocate points the findings at their signature's bundle in the merged
// directory; a finding whose bundle did not survive the merge names none
// rather than a worker's removed directory.
func relocate(fs []verdict.Finding, merged []report.SignatureCount) {
	dirs := map[string]string{}
	for _, s := range merged {
		if s.Dir != "" {
			dirs[s.Signature] = s.Dir
		}
	}
	for i := range fs {
		if fs[i].Dir != "" {
			fs[i].Dir = dirs[fs[i].Signature]
		}
	}
}
