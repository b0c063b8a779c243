package main

import (
	"fmt"
	"path/filepath"
	"time"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/reduce"
)

// reduceFlags are txlab reduce's flags.
type reduceFlags struct {
	finding   string
	isolation string
	runs      int
	budget    time.Duration
	orc       oracleFlags
}

func newReduceCmd(g *globalFlags) *cobra.Command {
	var rf reduceFlags
	cmd := &cobra.Command{
		Use:   "reduce [flags] CASE|BUNDLE",
		Short: "Shrink a case to the smallest one that still gives its finding",
		Long: `reduce shrinks a case that gives a finding — a case file, or a finding bundle
directory that fuzz or run wrote — into a small case that still gives it: it drops
transactions, tables, steps, setup statements, setup rows and columns, simplifies WHERE
clauses (a condition removed, an AND/OR cut to one side), moves autocommit steps into
the setup, groups each transaction's steps, and makes literal values simpler. Every candidate runs on
freshly created tables through the normal executor and the finding's oracle, and is
kept only when it gives the same finding (oracle, kind, isolation, verdict, rule, and
statement kinds among the original's) in each of --runs runs.

The finding is the bundle's (its report.json signature), the one --finding names, or
else the case's first bug finding (first finding) on the target. For a bundle the
reduced case replaces case.txn and the case as found is kept as case.orig.txn; for a
case file the reduced case goes to stdout or --out. Progress goes to stderr.
Exit status: 0 reduced, 2 usage or infrastructure error, or a case that does not
give the finding in every run.

A bundle (and a case file with a replay header) is reduced on the target, with the
settings, level and oracle it records, as txlab run replays it; a URL or a path
as --db is never taken from a file: then reduce says which --db to give and exits 2.`,
		Example: `  txlab reduce txlab-reports/0003-troc-incorrect-blocking-bug   # on the target it was found on
  txlab reduce --db mariadb --isolation rc --out small.txn case.txn
  txlab reduce --db mariadb --finding 'wss tx-wss INSERT+UPDATE read-committed bug [mdev-30835-update-skips-uncommitted-insert]' case.txn`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			return rf.run(cmd, g, args[0])
		},
	}
	f := cmd.Flags()
	f.StringVar(&rf.finding, "finding", "", "the finding to keep, as a signature (report.json's \"signature\"); default: the bundle's,\nor the case's first bug finding (e.g. --finding 'troc incorrect-result SELECT repeatable-read bug [mdev-26642-noop-update-view]')")
	f.StringVar(&rf.isolation, "isolation", "", "isolation level for every connection, overriding the case's header (e.g. --isolation rc)")
	f.IntVar(&rf.runs, "runs", 3, "a candidate is kept only when each of this many runs gives the finding (e.g. --runs 5)")
	f.DurationVar(&rf.budget, "budget", 5*time.Minute, "stop reducing after this long and keep the smallest case so far; 0 = no limit (e.g. --budget 30s)")
	rf.orc.register(cmd, false)
	// --out is the reduced case here.
	rf.orc.out = ""
	outFlag := cmd.Flags().Lookup("out")
	outFlag.DefValue = ""
	outFlag.Usage = "write the reduced case to this file instead of stdout (a bundle's is written in place) (e.g. --out small.txn)"
	return cmd
}

// run reduces the case file or bundle at path.
func (rf *reduceFlags) run(cmd *cobra.Command, g *globalFlags, path string) (err error) {
	// A bundle reduces where it was found, as txlab run replays it.
	if err := applyReplay(cmd, []string{path}); err != nil {
		return usageErr(err)
	}
	level, err := parseLevel(rf.isolation)
	if err != nil {
		return err
	}
	if rf.runs < 1 {
		return usageErr(fmt.Errorf("--runs must be at least 1"))
	}
	if rf.budget < 0 {
		return usageErr(fmt.Errorf("--budget %v: want a positive duration, or 0 for no limit (e.g. 30s)", rf.budget))
	}
	in, err := reduce.Open(path, rf.finding)
	if err != nil {
		return usageErr(err)
	}
	if in.HaveKey && !cmd.Flags().Changed("oracle") {
		rf.orc.list = in.Key.Oracle
	}
	if err := rf.orc.validateForCases(); err != nil {
		return usageErr(err)
	}
	s, err := openSession(cmd, g, level)
	if err != nil {
		return err
	}
	defer s.end(&err)
	t := s.target()
	// The candidates' findings are only matched, never saved.
	oracles, _, err := s.judge(cmd.Context(), g, &rf.orc)
	if err != nil {
		return err
	}
	exec := g.execOptions(level)
	budget, err := in.FindKey(cmd.Context(), t, oracles, exec, rf.budget)
	if err != nil {
		return exitcode.Fault(err)
	}
	errs := cmd.ErrOrStderr()
	fmt.Fprintf(errs, "txlab reduce: keeping %s on %s %s\n", in.Key, t.Info().DBMS, t.Info().Version)
	res, err := in.Run(cmd.Context(), t, reduce.Options{Oracles: oracles, Exec: exec, Runs: rf.runs, Budget: budget, Dialect: t.Info().Dialect, Log: errs})
	if err != nil {
		return exitcode.Fault(err)
	}
	// --out is the reduced case's file; a bundle's is written in place.
	out := rf.orc.out
	if in.Bundle != "" {
		out = filepath.Join(in.Bundle, reduce.CaseFile)
	} else if out == "" {
		fmt.Fprint(cmd.OutOrStdout(), res.Case.String())
	} else if err := atomicfile.WriteFile(out, []byte(res.Case.String()), 0o644); err != nil {
		return exitcode.Fault(err)
	}
	fmt.Fprintln(errs, "txlab reduce:", res.Summary(out))
	return nil
}
