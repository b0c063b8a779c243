package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math/rand/v2"
	"os"
	"runtime"
	"slices"
	"strings"
	"time"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/htmlreport"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/reduce"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

func newFuzzCmd(g *globalFlags) *cobra.Command {
	var (
		duration  time.Duration
		limit     int
		seed      uint64
		shardSpec string
		isolation string
		workers   int
		doReduce  bool
		reduceFor time.Duration
		featSpec  string
		procs     int
		parentOut string // --procs-worker: this is a worker process of fuzz --procs
		orc       oracleFlags
	)
	cmd := &cobra.Command{
		Use:   "fuzz [flags]",
		Short: "Generate random transaction cases and run them on the target",
		Long: `fuzz generates random schemas, rows and 2–5 interleaved transactions per case,
runs each case once through the execution protocol and lets every chosen
oracle judge it (by default wss, isorel and troc; findings are written under --out).
It prints the seed at the start (repeat any run with --seed), a live progress
line on stderr with each oracle's findings, and a summary at the end (Ctrl-C
ends the run cleanly with the summary). The same seed generates the same cases.
Exit status: 0 no bug found, 1 a finding with verdict bug, 2 usage or
infrastructure error (the summary of what ran is still printed, then one line
saying what failed).`,
		Example: `  txlab fuzz                                  # embedded SQLite for 60 s, judged by wss, isorel and troc
  txlab fuzz --db mariadb --isolation all --duration 5m
  txlab fuzz --oracle none --duration 10s     # run cases only, no judging
  txlab fuzz --db postgres --cases 500 --seed 42 --json
  txlab fuzz --db mariadb --oracle wss --workers 2 --isolation rc
  txlab fuzz --procs 16 --duration 1h         # 16 processes: past SQLite's one allocator lock per process
  txlab fuzz --db postgres --oracle mt --isolation rc --model serializable`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			// --duration counts from here: starting a throwaway server and
			// the workers' schemas is part of the campaign.
			began := time.Now()
			var shard fuzz.Shard
			if shardSpec != "" {
				if shard, err = fuzz.ParseShard(shardSpec); err != nil {
					return usageErr(fmt.Errorf("--shard: %w", err))
				}
				if !cmd.Flags().Changed("seed") {
					// Shards of different seeds are not parts of one campaign.
					return usageErr(fmt.Errorf("--shard %s needs --seed: every shard of a campaign runs with the same seed", shardSpec))
				}
			}
			if cmd.Flags().Changed("procs") {
				switch {
				case shardSpec != "":
					return usageErr(fmt.Errorf("--procs with --shard: a shard runs in one process; run the shards' processes yourself, or one campaign with --procs"))
				case procs < 1:
					return usageErr(fmt.Errorf("--procs must be at least 1"))
				case procs > maxWorkers():
					return usageErr(fmt.Errorf("--procs %d: at most %d (4 per core, %d cores)", procs, maxWorkers(), runtime.NumCPU()))
				case procs > 1 && g.db != "sqlite":
					// The allocator lock processes get past is embedded
					// SQLite's; a server's campaign runs its workers in one
					// process, each on a schema of its own.
					return usageErr(fmt.Errorf("--procs runs embedded SQLite only (--db sqlite), not --db %s: use --workers N for a server", g.db))
				}
				if workers < 1 {
					workers = 1
				}
			}
			if !cmd.Flags().Changed("seed") {
				seed = rand.Uint64() >> 1
			}
			if err := orc.validate(); err != nil {
				return usageErr(err)
			}
			if err := checkOut(orc.out); err != nil {
				return usageErr(err)
			}
			if _, err := parseFeatures(featSpec, nil); err != nil {
				return usageErr(err)
			}
			switch {
			case cmd.Flags().Changed("workers") && workers < 1:
				return usageErr(fmt.Errorf("--workers must be at least 1"))
			case workers > maxWorkers():
				// Each worker holds a database and several connections: past
				// this many, they only queue on the CPUs and the server.
				return usageErr(fmt.Errorf("--workers %d: at most %d (4 per core, %d cores)", workers, maxWorkers(), runtime.NumCPU()))
			case workers < 1 && g.db == "sqlite":
				// Fresh embedded files: nothing shared but the CPU.
				workers = runtime.NumCPU()
			case workers < 1:
				workers = 1
			}
			if duration < 0 || limit < 0 {
				return usageErr(fmt.Errorf("--duration and --cases must not be negative"))
			}
			if reduceFor <= 0 {
				// Zero and below would mean no limit (reduce.Options), which
				// --reduce-budget does not offer: one reduction could take
				// the whole campaign.
				return usageErr(fmt.Errorf("--reduce-budget %v: want a positive duration (e.g. 30s), or --reduce=false", reduceFor))
			}
			if procs > 1 {
				return runProcs(cmd, g, procsCampaign{n: procs, workers: workers, seed: seed, cases: limit, out: orc.out, began: began, supp: orc.supp})
			}
			var until time.Time
			if duration > 0 {
				until = began.Add(duration)
			}
			s, err := openWorkerSession(cmd, g, workers, until)
			if err != nil {
				return err
			}
			defer s.end(&err)
			t, targets := s.target(), s.targets
			levels, err := parseLevels(isolation, t.Info().DBMS, t.Levels())
			if err != nil {
				return usageErr(err)
			}
			info := t.Info()
			feats, err := parseFeatures(featSpec, info.Features)
			if err != nil {
				return usageErr(fmt.Errorf("%w on %s %s", err, info.DBMS, info.Version))
			}
			var stream *workerStream
			if parentOut != "" {
				// A worker process of fuzz --procs: its parent shows the
				// seed, the progress and the summary.
				stream = newWorkerStream(cmd.OutOrStdout())
				stream.send(procsMsg{Target: info.DBMS + " " + info.Version})
			} else {
				fmt.Fprintf(cmd.ErrOrStderr(), "txlab fuzz: %s %s, seed %d\n", info.DBMS, info.Version, seed)
			}
			var progress io.Writer
			plain := false
			if !g.json && stream == nil {
				progress = cmd.ErrOrStderr()
				f, ok := progress.(*os.File)
				plain = !ok || !term.IsTerminal(int(f.Fd()))
			}
			cases, work, err := s.judge(cmd.Context(), g, &orc)
			if err != nil {
				return err
			}
			sets, err := orc.perWorker(cmd.Context(), cases, len(targets))
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			var reduceBundle func(context.Context, target.Target, []oracle.CaseOracle, verdict.Finding) (bool, error)
			if doReduce && len(cases) > 0 {
				// The worker's own oracles judge the candidates: they only
				// return findings, and a reduction saves none. It runs on the
				// worker that found the bundle, between two of its cases.
				reduceBundle = bundleReducer(g.execOptions(""), reduceFor, g.log(cmd))
			}
			saveDir := orc.out
			var onProgress func(fuzz.Progress)
			if stream != nil {
				saveDir, onProgress = parentOut, stream.progress
			}
			sum, runErr := fuzz.Run(cmd.Context(), targets, fuzz.Options{
				Seed: seed, Duration: duration, Start: began, Cases: limit, Levels: levels,
				Oracles: sets, Workload: work, Writer: orc.writer,
				Exec: g.execOptions(""), Log: g.log(cmd),
				Progress: progress, PlainProgress: plain,
				SaveDir: saveDir, Reduce: reduceBundle, Shard: shard, OnProgress: onProgress,
				Gen: gen.Config{Features: feats},
			})
			if sum == nil {
				return &exitError{code: 2, err: runErr}
			}
			if stream != nil {
				return finishWorker(stream, sum, runErr, orc.writer)
			}
			if g.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(sum); err != nil {
					return err
				}
			} else {
				sum.WriteText(cmd.OutOrStdout())
				if orc.writer != nil {
					orc.writer.WriteSummary(cmd.OutOrStdout())
				}
			}
			page, err := writeHTMLReport(orc.writer)
			if page != "" && !g.json {
				fmt.Fprintf(cmd.OutOrStdout(), "report: %s\n", page)
			}
			if err != nil && runErr == nil {
				// The findings are only on stdout: the run's files are
				// incomplete, which is a fault, not a warning.
				return &exitError{code: 2, err: err}
			}
			if runErr != nil {
				// The summary above covers what ran before the failure; a
				// frozen server is no property of the cases.
				if !target.IsFrozen(runErr) {
					runErr = fmt.Errorf("%w (repeat with --seed %d)", runErr, seed)
				}
				return &exitError{code: 2, err: runErr}
			}
			if n := verdict.CountBugs(sum.Findings); n > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%s with verdict bug", english.Plural(n, "finding"))}
			}
			return nil
		},
	}
	f := cmd.Flags()
	f.DurationVar(&duration, "duration", 60*time.Second, "how long to run, starting the workers (and a throwaway server) included; 0 = until interrupted\nor --cases is reached (e.g. --duration 5m)")
	f.IntVar(&limit, "cases", 0, "stop after this many cases (rounds of a free-running oracle: mt, isorel --mode stress);\n0 = no limit (e.g. --cases 1000)")
	f.Uint64Var(&seed, "seed", 0, "run seed; printed at the start of every run so it can be repeated (e.g. --seed 42)")
	f.StringVar(&shardSpec, "shard", "", "run only the I-th of N disjoint parts of the seed's campaign (needs --seed); with --cases the N\nshards together run exactly the cases of the whole campaign; merge their --out directories with\ntxlab report --out DIR DIR... (e.g. --shard 3/8)")
	f.IntVar(&procs, "procs", 0, "run the campaign as N worker processes (txlab itself, as --shard I/N, each with --workers\nworkers, default 1): one progress line, summary and --out; for embedded SQLite, whose allocator\nlock is per process; 1 = in this process (e.g. --procs 16)")
	f.StringVar(&parentOut, "procs-worker", "", "run as a worker process of fuzz --procs whose --out is DIR: progress and summary as JSON lines\non stdout")
	f.MarkHidden("procs-worker")
	orc.register(cmd, true)
	orc.registerSuppress(cmd)
	f.IntVar(&workers, "workers", 0, "parallel workers, each with its own database (schema SCHEMA_wN, or its own SQLite file), at most\n4 per core; default: one per core for embedded SQLite (--db sqlite), else 1 (e.g. --workers 2)")
	f.BoolVar(&doReduce, "reduce", true, "reduce the case of each new bug bundle (txlab reduce): case.txn becomes the reduced case,\ncase.orig.txn keeps the case as found; the time counts in --duration (e.g. --reduce=false)")
	f.DurationVar(&reduceFor, "reduce-budget", 30*time.Second, "time limit of each reduction; the smallest case so far is kept (e.g. --reduce-budget 2m)")
	f.StringVar(&featSpec, "features", "all", "SQL features beyond the base subset the generated cases may use: all (those the target's\nversion supports), none, or a comma-separated list of them (txlab fuzz --features help lists the names;\nCHECK, upserts, REPLACE and locking joins are in the base subset)\n(e.g. --features savepoint,rollback-to-savepoint,foreign-key)")
	f.StringVar(&isolation, "isolation", "", "comma-separated isolation levels to cycle through, or all; default: the DBMS default\n(e.g. --isolation rc,rr or --isolation all)")
	return cmd
}

// parseFeatures reads --features: all (nil: the target's), none (the base
// subset: an empty list) or names of package features. With supported
// (the target's), every name must be one of them; without, only known.
func parseFeatures(spec string, supported []string) ([]string, error) {
	switch spec = strings.TrimSpace(spec); spec {
	case "all", "":
		return nil, nil
	case "none":
		return []string{}, nil
	case "help":
		return nil, fmt.Errorf("--features takes all, none or a comma-separated list of: %s", strings.Join(features.Names, ", "))
	}
	var out []string
	for _, name := range strings.Split(spec, ",") {
		name = strings.TrimSpace(name)
		switch {
		case !slices.Contains(features.Names, name):
			return nil, fmt.Errorf("--features: unknown feature %q (known: %s)", name, strings.Join(features.Names, ", "))
		case slices.Contains(features.Base, name):
			continue // the base subset has it wherever the dialect does
		case supported != nil && !slices.Contains(supported, name):
			return nil, fmt.Errorf("--features: %s is not supported (supported: %s)", name, strings.Join(supported, ", "))
		}
		out = append(out, name)
	}
	return out, nil
}

// maxWorkers bounds --workers: four per core.
func maxWorkers() int { return 4 * runtime.NumCPU() }

// parseLevels reads a comma-separated list of levels, or "all" (every level
// the target supports).
func parseLevels(s, dbms string, supported []target.Level) ([]target.Level, error) {
	if s == "" {
		return nil, nil
	}
	if strings.EqualFold(s, "all") {
		return supported, nil
	}
	var out []target.Level
	for _, part := range strings.Split(s, ",") {
		l, err := target.ParseLevel(part)
		if err != nil {
			return nil, err
		}
		// Refused here: a campaign would otherwise skip the level and end
		// with nothing run and nothing said.
		if err := target.CheckLevel(dbms, l, supported); err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// bundleReducer reduces a bug bundle's case in place with the worker's
// oracles, keeping none of the candidates' findings. A bundle whose case
// does not give its finding again (a flaky finding), that the campaign's
// end cuts short or that cannot be reduced for any reason of its own is
// left as found (said with -v); only a failed run (a lost connection) or
// write (a full disk) is an error.
func bundleReducer(exec executor.Options, budget time.Duration, log io.Writer) func(context.Context, target.Target, []oracle.CaseOracle, verdict.Finding) (bool, error) {
	return func(ctx context.Context, t target.Target, oracles []oracle.CaseOracle, f verdict.Finding) (bool, error) {
		var res *reduce.Result
		key, err := reduce.KeyOf(f)
		if err == nil {
			res, err = reduce.Bundle(ctx, t, f.Dir, key, reduce.Options{Oracles: oracles, Exec: exec, Budget: budget, Dialect: t.Info().Dialect})
		}
		var run *reduce.RunError
		var write *reduce.WriteError
		switch {
		case ctx.Err() != nil:
			return false, nil
		case errors.As(err, &run), errors.As(err, &write):
			return false, err
		case err != nil:
			if log != nil {
				fmt.Fprintf(log, "%s: not reduced: %v\n", f.Dir, err)
			}
			return false, nil
		}
		if log != nil {
			fmt.Fprintf(log, "%s: reduced %s → %s in %.1f s\n", f.Dir, res.Before, res.After, res.Elapsed.Seconds())
		}
		return true, nil
	}
}

// writeHTMLReport saves the writer's signature counts and renders the HTML
// report over its directory; "" when the run wrote nothing there.
func writeHTMLReport(w *report.Writer) (string, error) {
	if w == nil || len(w.Summary()) == 0 {
		return "", nil
	}
	if err := w.SaveSummary(); err != nil {
		return "", err
	}
	dir := w.Dir
	if dir == "" {
		dir = report.DefaultDir
	}
	return htmlreport.Write(dir)
}
