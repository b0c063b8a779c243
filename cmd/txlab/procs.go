package main

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

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/htmlreport"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// Why worker processes: embedded SQLite (modernc.org/sqlite, C transpiled
// to Go) allocates through one lock per process (modernc.org/libc's
// Xmalloc/Xfree), which caps the workers of one process at a few times
// one worker on a large machine. Worker processes each have their own.

// selfExecutable is the program a worker process runs: txlab itself (a
// test makes it something else).
var selfExecutable = os.Executable

// procsMsg is one JSON line a worker process writes on its stdout for its
// parent: first the target, then its progress, last its summary.
type procsMsg struct {
	Target   string         `json:"target,omitempty"`
	Progress *fuzz.Progress `json:"progress,omitempty"`
	Summary  *fuzz.Summary  `json:"summary,omitempty"`
}

// progressEvery bounds how often a worker process sends its progress.
const progressEvery = 250 * time.Millisecond

// workerStream is the worker process's side: its messages to the parent.
type workerStream struct {
	enc  *json.Encoder
	last time.Time
	err  error // the first failed write: the parent is gone
}

func newWorkerStream(w io.Writer) *workerStream { return &workerStream{enc: json.NewEncoder(w)} }

func (s *workerStream) send(m procsMsg) {
	if s.err == nil {
		s.err = s.enc.Encode(m)
	}
}

// progress sends p, at most every progressEvery (fuzz.Options.OnProgress).
func (s *workerStream) progress(p fuzz.Progress) {
	if time.Since(s.last) < progressEvery {
		return
	}
	s.last = time.Now()
	s.send(procsMsg{Progress: &p})
}

// procsCampaign is what the parent of fuzz --procs needs of the command
// line; the rest travels to the worker processes as flags.
type procsCampaign struct {
	n, workers int
	seed       uint64
	cases      int
	out        string
	began      time.Time
	supp       *report.Suppressions
}

// procsWorker is one worker process as the parent sees it.
type procsWorker struct {
	shard    string // "I/N"
	dir      string // its --out
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

// runProcs runs the campaign as c.n worker processes: txlab itself as fuzz
// --shard I/N with the same seed and flags, each reporting its progress
// and summary as JSON lines on its stdout and writing its bundles into a
// directory of its own, merged into --out at the end. The parent keeps the
// one progress line, the one summary and the one bundle directory. A
// worker process that fails stops the others; Ctrl-C stops them all
// (each gets SIGINT and ends with its summary), and what ran is merged.
func runProcs(cmd *cobra.Command, g *globalFlags, c procsCampaign) (err error) {
	exe, err := selfExecutable()
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--procs: cannot find txlab's own program to run: %w", err)}
	}
	tmp, err := os.MkdirTemp("", "txlab-procs-")
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--procs: %w", err)}
	}
	keepTmp := false
	defer func() {
		if !keepTmp {
			os.RemoveAll(tmp)
		}
	}()
	ctx, stop := context.WithCancel(cmd.Context())
	defer stop()
	stderr := cmd.ErrOrStderr()
	var display *fuzz.Display
	if !g.json {
		f, ok := stderr.(*os.File)
		display = fuzz.NewDisplay(stderr, !ok || !term.IsTerminal(int(f.Fd())), c.cases, c.began)
	}
	var (
		mu       sync.Mutex // guards the workers' state, display, shown, header and failed
		workers  = make([]*procsWorker, c.n)
		shown    int
		header   bool
		failed   []*procsWorker // in the order they failed
		finished sync.WaitGroup
	)
	redraw := func() {
		var sum fuzz.Progress
		for _, w := range workers {
			sum = sum.Add(w.progress)
		}
		display.Show(sum.Line(time.Since(c.began)), sum.Cases-shown)
		shown = sum.Cases
	}
	for i := range workers {
		w := &procsWorker{shard: fmt.Sprintf("%d/%d", i+1, c.n), dir: filepath.Join(tmp, fmt.Sprintf("shard-%d", i+1))}
		workers[i] = w
		w.cmd = exec.CommandContext(ctx, exe, workerArgs(cmd, c, i, w.dir)...)
		w.cmd.Env = workerEnv(os.Environ(), runtime.NumCPU(), c)
		// Stopped as Ctrl-C stops fuzz, so that it ends with its summary;
		// killed only when it does not end within its bound per case.
		w.cmd.Cancel = func() error {
			if err := w.cmd.Process.Signal(os.Interrupt); err != nil {
				return w.cmd.Process.Kill()
			}
			return nil
		}
		w.cmd.WaitDelay = g.hangTimeout + 15*time.Second
		stdout, err := w.cmd.StdoutPipe()
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		errPipe, err := w.cmd.StderrPipe()
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		if err := w.cmd.Start(); err != nil {
			stop()
			finished.Wait()
			return &exitError{code: 2, err: fmt.Errorf("--procs: starting worker process %s: %w", w.shard, err)}
		}
		finished.Add(1)
		go func() {
			defer finished.Done()
			var lines sync.WaitGroup
			lines.Add(1)
			go func() {
				defer lines.Done()
				sc := bufio.NewScanner(errPipe)
				for sc.Scan() {
					mu.Lock()
					if g.verbose {
						fmt.Fprintf(stderr, "shard %s: %s\n", w.shard, sc.Text())
					}
					if line := sc.Text(); w.crash == "" && (strings.HasPrefix(line, "panic: ") || strings.HasPrefix(line, "fatal error: ")) {
						w.crash = line
					}
					w.stderr = append(w.stderr, sc.Text())
					if len(w.stderr) > maxStderrLines {
						w.stderr = w.stderr[1:]
					}
					mu.Unlock()
				}
			}()
			dec := json.NewDecoder(stdout)
			var readErr error
			for {
				var m procsMsg
				if err := dec.Decode(&m); err != nil {
					if !errors.Is(err, io.EOF) {
						readErr = fmt.Errorf("reading its reports: %w", err)
						io.Copy(io.Discard, stdout)
					}
					break
				}
				mu.Lock()
				switch {
				case m.Target != "" && !header:
					header = true
					fmt.Fprintf(stderr, "txlab fuzz: %s, seed %d, %d processes\n", m.Target, c.seed, c.n)
				case m.Progress != nil:
					w.progress = *m.Progress
					redraw()
				case m.Summary != nil:
					w.summary = m.Summary
					w.progress.Cases = m.Summary.Cases
				}
				mu.Unlock()
			}
			lines.Wait()
			waitErr := w.cmd.Wait()
			mu.Lock()
			defer mu.Unlock()
			if why := w.failure(waitErr, readErr); why != nil {
				w.err = why
				failed = append(failed, w)
				stop()
			}
		}()
	}
	finished.Wait()
	display.Finish()

	var parts []*fuzz.Summary
	var srcs []string
	for _, w := range workers {
		if w.summary != nil {
			parts = append(parts, w.summary)
		}
		srcs = append(srcs, w.dir)
	}
	var runErr error
	if len(failed) > 0 {
		runErr = failed[0].err
		if len(failed) > 1 {
			runErr = fmt.Errorf("%w (and %s)", runErr, english.Plural(len(failed)-1, "other worker process"))
		}
	}
	if len(parts) == 0 {
		if runErr == nil {
			runErr = errors.New("--procs: no worker process reported a summary")
		}
		return &exitError{code: 2, err: runErr}
	}
	sum := fuzz.Merge(time.Since(c.began), parts...)
	if runErr != nil {
		// The merged summary says the campaign stopped by an error even
		// when the failing process could not say so itself.
		sum.Error, sum.Interrupted = runErr.Error(), false
	}

	merged, mergeErr := mergeProcs(c.out, srcs)
	if mergeErr != nil {
		keepTmp = true
		mergeErr = fmt.Errorf("merging the worker processes' bundles into %s: %w (they are kept in %s)", c.out, mergeErr, tmp)
	}
	relocate(sum.Findings, merged)
	out := cmd.OutOrStdout()
	if g.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(sum); err != nil {
			return err
		}
	} else {
		sum.WriteText(out)
		report.WriteSignatures(out, merged, c.supp)
	}
	var page string
	if mergeErr == nil && len(merged) > 0 {
		page, mergeErr = htmlreport.Write(c.out)
		if page != "" && !g.json {
			fmt.Fprintf(out, "report: %s\n", page)
		}
	}
	if runErr != nil {
		return &exitError{code: 2, err: fmt.Errorf("%w (repeat with --seed %d)", runErr, c.seed)}
	}
	if mergeErr != nil {
		return &exitError{code: 2, err: mergeErr}
	}
	if n := verdict.CountBugs(sum.Findings); n > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s with verdict bug", english.Plural(n, "finding"))}
	}
	return nil
}

// failure says why a worker process failed, or nil: exit status 0 (no
// bug) and 1 (a bug finding) are a campaign's; anything else, or reports
// it could not read, is a failure, told in its own words where it gave
// any (its summary's error, else its last line on stderr).
func (w *procsWorker) failure(waitErr, readErr error) error {
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

// workerArgs are the arguments of worker process i: the command line's
// flags as given, but for those the parent sets per process.
func workerArgs(cmd *cobra.Command, c procsCampaign, i int, dir string) []string {
	args := []string{"fuzz"}
	cmd.Flags().Visit(func(f *pflag.Flag) {
		switch f.Name {
		case "procs", "shard", "seed", "workers", "out", "json", "procs-worker", "cpuprofile", "memprofile":
			return
		}
		if sv, ok := f.Value.(pflag.SliceValue); ok {
			for _, v := range sv.GetSlice() {
				args = append(args, "--"+f.Name+"="+v)
			}
			return
		}
		args = append(args, "--"+f.Name+"="+f.Value.String())
	})
	return append(args,
		"--shard", fmt.Sprintf("%d/%d", i+1, c.n),
		"--seed", strconv.FormatUint(c.seed, 10),
		"--workers", strconv.Itoa(c.workers),
		"--out", dir,
		"--procs-worker", c.out)
}

// workerEnv is the environment of a worker process: the parent's, with
// GOMAXPROCS its share of the cores (at least its workers) unless the
// parent's sets it. Each process would otherwise size its scheduler and
// garbage collector for every core: the collector's idle-time workers of N
// processes then take cores from the others' cases (on 2 cores, two
// processes with GOMAXPROCS 2 used 25 % more CPU per case than with 1).
func workerEnv(environ []string, cores int, c procsCampaign) []string {
	for _, kv := range environ {
		if strings.HasPrefix(kv, "GOMAXPROCS=") {
			return environ
		}
	}
	return append(slices.Clone(environ), "GOMAXPROCS="+strconv.Itoa(max(c.workers, cores/c.n, 1)))
}

// mergeProcs merges the worker processes' bundle directories into out (nil
// and no directory when none wrote one: a campaign that finds nothing
// writes nothing).
func mergeProcs(out string, srcs []string) ([]report.SignatureCount, error) {
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

// finishWorker ends a worker process's campaign: its bundles' signature
// counts in its directory (the parent merges them and writes the HTML
// report), its summary to the parent, and its exit status as fuzz's.
func finishWorker(stream *workerStream, sum *fuzz.Summary, runErr error, w *report.Writer) error {
	if w != nil {
		if err := w.SaveSummary(); err != nil && runErr == nil {
			runErr = err
			sum.Error = err.Error()
		}
	}
	stream.send(procsMsg{Summary: sum})
	switch {
	case runErr != nil:
		return &exitError{code: 2, err: runErr}
	case stream.err != nil:
		return &exitError{code: 2, err: fmt.Errorf("reporting to the parent process: %w", stream.err)}
	case verdict.CountBugs(sum.Findings) > 0:
		return &exitError{code: 1, err: fmt.Errorf("%s with verdict bug", english.Plural(verdict.CountBugs(sum.Findings), "finding"))}
	}
	return nil
}
