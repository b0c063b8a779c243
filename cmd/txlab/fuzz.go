package main

import (
	"fmt"
	"io"
	"math/rand/v2"
	"runtime"
	"time"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/fuzz"
	"github.com/txlab/txlab/fuzz/procs"
	"github.com/txlab/txlab/gen"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/reduce"
	"github.com/txlab/txlab/target"
)

// fuzzFlags are txlab fuzz's flags.
type fuzzFlags struct {
	duration  time.Duration
	cases     int
	seed      uint64
	shardSpec string
	shard     fuzz.Shard // --shard, parsed
	isolation string
	workers   int
	reduce    bool
	reduceFor time.Duration
	features  string
	procs     int
	parentOut string // --procs-worker: this is a worker process of fuzz --procs
	orc       oracleFlags
}

func newFuzzCmd(g *globalFlags) *cobra.Command {
	var ff fuzzFlags
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
		RunE: func(cmd *cobra.Command, args []string) error {
			return ff.run(cmd, g)
		},
	}
	f := cmd.Flags()
	f.DurationVar(&ff.duration, "duration", 60*time.Second, "how long to run, starting the workers (and a throwaway server) included; 0 = until interrupted\nor --cases is reached (e.g. --duration 5m)")
	f.IntVar(&ff.cases, "cases", 0, "stop after this many cases (rounds of a free-running oracle: mt, isorel --mode stress);\n0 = no limit (e.g. --cases 1000)")
	f.Uint64Var(&ff.seed, "seed", 0, "run seed; printed at the start of every run so it can be repeated (e.g. --seed 42)")
	f.StringVar(&ff.shardSpec, "shard", "", "run only the I-th of N disjoint parts of the seed's campaign (needs --seed); with --cases the N\nshards together run exactly the cases of the whole campaign; merge their --out directories with\ntxlab report --out DIR DIR... (e.g. --shard 3/8)")
	f.IntVar(&ff.procs, "procs", 0, "run the campaign as N worker processes (txlab itself, as --shard I/N, each with --workers\nworkers, default 1): one progress line, summary and --out; for embedded SQLite, whose allocator\nlock is per process; 1 = in this process (e.g. --procs 16)")
	f.StringVar(&ff.parentOut, "procs-worker", "", "run as a worker process of fuzz --procs whose --out is DIR: progress and summary as JSON lines\non stdout")
	f.MarkHidden("procs-worker")
	ff.orc.register(cmd, true)
	ff.orc.registerSuppress(cmd)
	f.IntVar(&ff.workers, "workers", 0, "parallel workers, each with its own database (schema SCHEMA_wN, or its own SQLite file), at most\n4 per core; default: one per core for embedded SQLite (--db sqlite), else 1 (e.g. --workers 2)")
	f.BoolVar(&ff.reduce, "reduce", true, "reduce the case of each new bug bundle (txlab reduce): case.txn becomes the reduced case,\ncase.orig.txn keeps the case as found; the time counts in --duration (e.g. --reduce=false)")
	f.DurationVar(&ff.reduceFor, "reduce-budget", 30*time.Second, "time limit of each reduction; the smallest case so far is kept (e.g. --reduce-budget 2m)")
	f.StringVar(&ff.features, "features", "all", "SQL features beyond the base subset the generated cases may use: all (those the target's\nversion supports), none, or a comma-separated list of them (txlab fuzz --features help lists the names;\nCHECK, upserts, REPLACE and locking joins are in the base subset)\n(e.g. --features savepoint,rollback-to-savepoint,foreign-key)")
	f.StringVar(&ff.isolation, "isolation", "", "comma-separated isolation levels to cycle through, or all; default: the DBMS default\n(e.g. --isolation rc,rr or --isolation all)")
	return cmd
}

// run runs the campaign: in this process, or as --procs worker processes.
func (ff *fuzzFlags) run(cmd *cobra.Command, g *globalFlags) (err error) {
	// --duration counts from here: starting a throwaway server and the
	// workers' schemas is part of the campaign.
	began := time.Now()
	if err := ff.validate(cmd, g); err != nil {
		return err
	}
	if ff.procs > 1 {
		return ff.runProcs(cmd, g, began)
	}
	var until time.Time
	if ff.duration > 0 {
		until = began.Add(ff.duration)
	}
	s, err := openWorkerSession(cmd, g, ff.workers, until)
	if err != nil {
		return err
	}
	defer s.end(&err)
	opt, stream, err := ff.options(cmd, g, s)
	if err != nil {
		return err
	}
	opt.Start = began
	sum, runErr := fuzz.Run(cmd.Context(), s.targets, opt)
	if sum == nil {
		return exitcode.Fault(runErr)
	}
	if stream != nil {
		// A worker process of fuzz --procs reports to its parent.
		if err := stream.Finish(sum, runErr, ff.orc.writer); err != nil {
			return exitcode.Fault(err)
		}
		return fuzz.Outcome(sum)
	}
	return fuzz.Finish(cmd.OutOrStdout(), sum, runErr, g.json, ff.orc.writer, ff.seed)
}

// validate checks the flags before any server starts, and fills in the
// defaults that depend on others (--seed, --workers).
func (ff *fuzzFlags) validate(cmd *cobra.Command, g *globalFlags) error {
	if err := ff.validateProcs(cmd, g); err != nil {
		return err
	}
	if !cmd.Flags().Changed("seed") {
		ff.seed = rand.Uint64() >> 1
	}
	if err := ff.orc.validate(); err != nil {
		return usageErr(err)
	}
	if err := checkOut(ff.orc.out); err != nil {
		return usageErr(err)
	}
	if _, err := parseFeatures(ff.features, nil); err != nil {
		return usageErr(err)
	}
	switch {
	case cmd.Flags().Changed("workers") && ff.workers < 1:
		return usageErr(fmt.Errorf("--workers must be at least 1"))
	case ff.workers > maxWorkers():
		// Each worker holds a database and several connections: past
		// this many, they only queue on the CPUs and the server.
		return usageErr(fmt.Errorf("--workers %d: at most %d (4 per core, %d cores)", ff.workers, maxWorkers(), runtime.NumCPU()))
	case ff.workers < 1 && (g.db == "sqlite" || g.db == "duckdb"):
		// Fresh embedded files: nothing shared but the CPU.
		ff.workers = runtime.NumCPU()
	case ff.workers < 1:
		ff.workers = 1
	}
	if ff.duration < 0 || ff.cases < 0 {
		return usageErr(fmt.Errorf("--duration and --cases must not be negative"))
	}
	if ff.reduceFor <= 0 {
		// Zero and below would mean no limit (reduce.Options), which
		// --reduce-budget does not offer: one reduction could take the
		// whole campaign.
		return usageErr(fmt.Errorf("--reduce-budget %v: want a positive duration (e.g. 30s), or --reduce=false", ff.reduceFor))
	}
	return nil
}

// validateProcs checks --shard and --procs.
func (ff *fuzzFlags) validateProcs(cmd *cobra.Command, g *globalFlags) error {
	if ff.shardSpec != "" {
		var err error
		if ff.shard, err = fuzz.ParseShard(ff.shardSpec); err != nil {
			return usageErr(fmt.Errorf("--shard: %w", err))
		}
		if !cmd.Flags().Changed("seed") {
			// Shards of different seeds are not parts of one campaign.
			return usageErr(fmt.Errorf("--shard %s needs --seed: every shard of a campaign runs with the same seed", ff.shardSpec))
		}
	}
	if !cmd.Flags().Changed("procs") {
		return nil
	}
	switch {
	case ff.shardSpec != "":
		return usageErr(fmt.Errorf("--procs with --shard: a shard runs in one process; run the shards' processes yourself, or one campaign with --procs"))
	case ff.procs < 1:
		return usageErr(fmt.Errorf("--procs must be at least 1"))
	case ff.procs > maxWorkers():
		return usageErr(fmt.Errorf("--procs %d: at most %d (4 per core, %d cores)", ff.procs, maxWorkers(), runtime.NumCPU()))
	case ff.procs > 1 && g.db != "sqlite":
		// The allocator lock processes get past is embedded SQLite's; a
		// server's campaign runs its workers in one process, each on a
		// schema of its own.
		return usageErr(fmt.Errorf("--procs runs embedded SQLite only (--db sqlite), not --db %s: use --workers N for a server", g.db))
	}
	if ff.workers < 1 {
		ff.workers = 1
	}
	return nil
}

// options are the campaign's on the session's targets, with its oracles
// built; stream is set in a worker process of fuzz --procs, which reports
// to its parent instead of the terminal.
func (ff *fuzzFlags) options(cmd *cobra.Command, g *globalFlags, s *session) (opt fuzz.Options, stream *procs.Reporter, err error) {
	t := s.target()
	info := t.Info()
	levels, err := target.ParseLevels(ff.isolation, info.DBMS, t.Levels())
	if err != nil {
		return opt, nil, usageErr(err)
	}
	feats, err := parseFeatures(ff.features, info.Features)
	if err != nil {
		return opt, nil, usageErr(fmt.Errorf("%w on %s %s", err, info.DBMS, info.Version))
	}
	if ff.parentOut != "" {
		// A worker process of fuzz --procs: its parent shows the seed,
		// the progress and the summary.
		stream = procs.NewReporter(cmd.OutOrStdout())
		stream.Send(procs.Message{Target: info.DBMS + " " + info.Version})
	} else {
		fmt.Fprintf(cmd.ErrOrStderr(), "txlab fuzz: %s %s, seed %d\n", info.DBMS, termsafe.Line(info.Version), ff.seed)
	}
	var progress io.Writer
	plain := false
	if !g.json && stream == nil {
		progress = cmd.ErrOrStderr()
		plain = !isTerminal(progress)
	}
	cases, work, err := s.judge(cmd.Context(), g, &ff.orc)
	if err != nil {
		return opt, nil, err
	}
	sets, err := ff.orc.sets.PerWorker(cmd.Context(), cases, len(s.targets))
	if err != nil {
		return opt, nil, exitcode.Fault(err)
	}
	opt = fuzz.Options{
		Seed: ff.seed, Duration: ff.duration, Cases: ff.cases, Levels: levels,
		Oracles: sets, Workload: work, Writer: ff.orc.writer,
		Exec: g.execOptions(""), Log: g.log(cmd),
		Progress: progress, PlainProgress: plain,
		SaveDir: ff.orc.out, Shard: ff.shard, Gen: gen.Config{Features: feats},
	}
	if ff.reduce && len(cases) > 0 {
		// The worker's own oracles judge the candidates: they only return
		// findings, and a reduction saves none. It runs on the worker
		// that found the bundle, between two of its cases.
		opt.Reduce = reduce.InPlace(g.execOptions(""), ff.reduceFor, g.log(cmd))
	}
	if stream != nil {
		opt.SaveDir, opt.OnProgress = ff.parentOut, stream.Progress
	}
	return opt, stream, nil
}

// parseFeatures reads --features (features.Parse); --features help lists
// the names.
func parseFeatures(spec string, supported []string) ([]string, error) {
	feats, err := features.Parse(spec, supported)
	if err != nil {
		return nil, fmt.Errorf("--features: %w", err)
	}
	return feats, nil
}

// maxWorkers bounds --workers and --procs: four per core.
func maxWorkers() int { return 4 * runtime.NumCPU() }
