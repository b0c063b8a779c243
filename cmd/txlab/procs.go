package main

import (
	"fmt"
	"os"
	"strconv"
	"time"

	"github.com/spf13/cobra"
	"github.com/spf13/pflag"

	"github.com/txlab/txlab/fuzz/procs"
	"github.com/txlab/txlab/internal/exitcode"
)

// selfExecutable is the program a worker process runs: txlab itself (a
// test makes it something else).
var selfExecutable = os.Executable

// runProcs runs the campaign as --procs worker processes (procs.Run): txlab
// itself as fuzz --shard I/N with the same seed and flags. The parent
// prints the one summary; its exit status is fuzz's.
func (ff *fuzzFlags) runProcs(cmd *cobra.Command, g *globalFlags, began time.Time) error {
	exe, err := selfExecutable()
	if err != nil {
		return exitcode.Fault(fmt.Errorf("--procs: cannot find txlab's own program to run: %w", err))
	}
	stderr := cmd.ErrOrStderr()
	pc := procs.Campaign{
		Procs: ff.procs, Workers: ff.workers, Seed: ff.seed, Cases: ff.cases, Out: ff.orc.out, Began: began,
		Executable: exe, StopDelay: g.hangTimeout + 15*time.Second,
		Stderr: stderr, Log: g.log(cmd),
	}
	pc.Args = func(i int, dir string) []string { return workerArgs(cmd, pc, i, dir) }
	if !g.json {
		pc.Progress, pc.PlainProgress = stderr, !isTerminal(stderr)
	}
	res, err := procs.Run(cmd.Context(), pc)
	if res == nil {
		return exitcode.Fault(err)
	}
	return res.Finish(cmd.OutOrStdout(), err, g.json, ff.orc.supp)
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
