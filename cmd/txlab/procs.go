package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"
	"golang.org/x/term"

	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/fuzz/procs"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// selfExecutable is the program a worker process runs: txlab itself (a
// test makes it something else).
var selfExecutable = os.Executable

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

// runProcs runs the campaign as c.n worker processes (procs.Run): txlab
// itself as fuzz --shard I/N with the same seed and flags. The parent
// prints the one summary; its exit status is fuzz's.
func runProcs(cmd *cobra.Command, g *globalFlags, c procsCampaign) error {
	exe, err := selfExecutable()
	if err != nil {
		return &exitError{code: 2, err: fmt.Errorf("--procs: cannot find txlab's own program to run: %w", err)}
	}
	stderr := cmd.ErrOrStderr()
	pc := procs.Campaign{
		Procs: c.n, Workers: c.workers, Seed: c.seed, Cases: c.cases, Out: c.out, Began: c.began,
		Executable: exe, StopDelay: g.hangTimeout + 15*time.Second,
		Stderr: stderr, Log: g.log(cmd),
	}
	pc.Args = func(i int, dir string) []string { return workerArgs(cmd, pc, i, dir) }
	if !g.json {
		f, ok := stderr.(*os.File)
		pc.Progress, pc.PlainProgress = stderr, !ok || !term.IsTerminal(int(f.Fd()))
	}
	res, err := procs.Run(cmd.Context(), pc)
	if res == nil {
		return &exitError{code: 2, err: err}
	}
	out := cmd.OutOrStdout()
	if g.json {
		enc := json.NewEncoder(out)
		enc.SetIndent("", "  ")
		if err := enc.Encode(res.Summary); err != nil {
			return err
		}
	} else {
		res.Summary.WriteText(out)
		report.WriteSignatures(out, res.Signatures, c.supp)
		if res.Page != "" {
			fmt.Fprintf(out, "report: %s\n", res.Page)
		}
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	return bugsFound(res.Summary)
}

// bugsFound is exit status 1 when the campaign found a bug.
func bugsFound(sum *fuzz.Summary) error {
	if n := verdict.CountBugs(sum.Findings); n > 0 {
		return &exitError{code: 1, err: fmt.Errorf("%s with verdict bug", english.Plural(n, "finding"))}
	}
	return nil
}

// workerArgs are the arguments of worker process i: the command line's
// flags as given, but for those the parent sets per process.
func workerArgs(cmd *cobra.Command, c procs.Campaign, i int, dir string) []string {
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
		"--shard", fmt.Sprintf("%d/%d", i+1, c.Procs),
		"--seed", strconv.FormatUint(c.Seed, 10),
		"--workers", strconv.Itoa(c.Workers),
		"--out", dir,
		"--procs-worker", c.Out)
}

// The worker process's side, under the names fuzz.go uses: procs.Reporter.
type (
	workerStream struct{ *procs.Reporter }
	procsMsg     = procs.Message
)

func newWorkerStream(w io.Writer) *workerStream { return &workerStream{procs.NewReporter(w)} }

func (s *workerStream) send(m procsMsg)          { s.Send(m) }
func (s *workerStream) progress(p fuzz.Progress) { s.Progress(p) }

// finishWorker ends a worker process's campaign (procs.Reporter.Finish)
// with fuzz's exit status.
func finishWorker(stream *workerStream, sum *fuzz.Summary, runErr error, w *report.Writer) error {
	if err := stream.Finish(sum, runErr, w); err != nil {
		return &exitError{code: 2, err: err}
	}
	return bugsFound(sum)
}
