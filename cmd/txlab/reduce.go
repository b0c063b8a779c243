package main

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"time"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/reduce"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

func newReduceCmd(g *globalFlags) *cobra.Command {
	var (
		finding   string
		isolation string
		runs      int
		budget    time.Duration
		orc       oracleFlags
	)
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
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			// A bundle reduces where it was found, as txlab run replays it.
			if err := applyReplay(cmd, args); err != nil {
				return usageErr(err)
			}
			level, err := parseLevel(isolation)
			if err != nil {
				return err
			}
			if runs < 1 {
				return usageErr(fmt.Errorf("--runs must be at least 1"))
			}
			if budget < 0 {
				return usageErr(fmt.Errorf("--budget %v: want a positive duration, or 0 for no limit (e.g. 30s)", budget))
			}
			input := args[0]
			st, err := os.Stat(input)
			if err != nil {
				return usageErr(err)
			}
			bundleDir := ""
			var key reduce.Key
			haveKey := false
			if finding != "" {
				if key, err = reduce.ParseKey(finding); err != nil {
					return usageErr(fmt.Errorf("--finding: %w", err))
				}
				haveKey = true
			}
			var c *testcase.Case
			if st.IsDir() {
				bundleDir = input
				if !haveKey {
					if key, err = reduce.BundleKey(input); err != nil {
						return usageErr(fmt.Errorf("%s is not a finding bundle: %w", input, err))
					}
					haveKey = true
				}
				if c, _, err = reduce.ReadBundleCase(input); err != nil {
					return usageErr(err)
				}
			} else {
				if c, err = testcase.ParseFile(input); err == nil {
					err = c.Validate()
				}
				if err != nil {
					return usageErr(err)
				}
			}
			if haveKey && !cmd.Flags().Changed("oracle") {
				orc.list = key.Oracle
			}
			if err := orc.validateForCases(); err != nil {
				return usageErr(err)
			}
			from := input
			s, err := openSession(cmd, g, level)
			if err != nil {
				return err
			}
			defer s.end(&err)
			t := s.target()
			// --out is the reduced case's file; the candidates' findings
			// are only matched, never saved.
			out := orc.out
			oracles, _, err := s.judge(cmd.Context(), g, &orc)
			if err != nil {
				return err
			}
			exec := g.execOptions(level)
			// The budget covers the whole reduction, finding the finding to
			// keep included.
			began := time.Now()
			if !haveKey {
				fctx := cmd.Context()
				if budget > 0 {
					var cancel context.CancelFunc
					fctx, cancel = context.WithTimeout(fctx, budget)
					defer cancel()
				}
				if key, err = firstFinding(fctx, t, c, oracles, exec); err != nil {
					var se *executor.ScopeError
					if errors.As(err, &se) {
						return &exitError{code: 2, err: fmt.Errorf("%s: %w", input, err)}
					}
					return err
				}
				if budget > 0 {
					if budget -= time.Since(began); budget <= 0 {
						return &exitError{code: 2, err: fmt.Errorf("the --budget ran out while running %s to find its finding", c.Name)}
					}
				}
			}
			errs := cmd.ErrOrStderr()
			fmt.Fprintf(errs, "txlab reduce: keeping %s on %s %s\n", key, t.Info().DBMS, t.Info().Version)
			opt := reduce.Options{Oracles: oracles, Exec: exec, Runs: runs, Budget: budget, Dialect: t.Info().Dialect, Log: errs}
			var res *reduce.Result
			if bundleDir != "" {
				res, err = reduce.Bundle(cmd.Context(), t, bundleDir, key, opt)
				out = filepath.Join(bundleDir, reduce.CaseFile)
			} else {
				res, err = reduce.Reduce(cmd.Context(), t, c, key, opt)
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if bundleDir == "" {
				reduce.Annotate(res, from, key, c)
				text := res.Case.String()
				if out == "" {
					fmt.Fprint(cmd.OutOrStdout(), text)
				} else if err := atomicfile.WriteFile(out, []byte(text), 0o644); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			fmt.Fprintf(errs, "txlab reduce: %s → %s in %.1f s (%d runs)", res.Before, res.After, res.Elapsed.Seconds(), res.Executions)
			if res.OutOfTime {
				fmt.Fprint(errs, "; the --budget ran out")
			}
			if out != "" {
				fmt.Fprintf(errs, "; written to %s", out)
			}
			fmt.Fprintln(errs)
			return nil
		},
	}
	f := cmd.Flags()
	f.StringVar(&finding, "finding", "", "the finding to keep, as a signature (report.json's \"signature\"); default: the bundle's,\nor the case's first bug finding (e.g. --finding 'troc incorrect-result SELECT repeatable-read bug [mdev-26642-noop-update-view]')")
	f.StringVar(&isolation, "isolation", "", "isolation level for every connection, overriding the case's header (e.g. --isolation rc)")
	f.IntVar(&runs, "runs", 3, "a candidate is kept only when each of this many runs gives the finding (e.g. --runs 5)")
	f.DurationVar(&budget, "budget", 5*time.Minute, "stop reducing after this long and keep the smallest case so far; 0 = no limit (e.g. --budget 30s)")
	orc.register(cmd, false)
	// --out is the reduced case here.
	orc.out = ""
	outFlag := cmd.Flags().Lookup("out")
	outFlag.DefValue = ""
	outFlag.Usage = "write the reduced case to this file instead of stdout (a bundle's is written in place) (e.g. --out small.txn)"
	return cmd
}

// firstFinding runs c once and returns the key of its first bug finding, or
// of its first finding when none is a bug.
func firstFinding(ctx context.Context, t target.Target, c *testcase.Case, oracles []oracle.CaseOracle, exec executor.Options) (reduce.Key, error) {
	o, err := oracle.CheckCase(ctx, t, c, oracles, exec, false)
	if err != nil {
		if errors.Is(ctx.Err(), context.DeadlineExceeded) && !target.IsFrozen(err) {
			err = fmt.Errorf("the --budget ran out while running %s to find its finding", c.Name)
		}
		return reduce.Key{}, &exitError{code: 2, err: err}
	}
	report.Sign(o.Findings, o.Evidence)
	if len(o.Findings) == 0 {
		return reduce.Key{}, &exitError{code: 2, err: fmt.Errorf("%s gives no finding on %s: nothing to keep", c.Name, t.Info().DBMS)}
	}
	i := slices.IndexFunc(o.Findings, func(f verdict.Finding) bool { return f.Verdict == verdict.Bug })
	if i < 0 {
		i = 0
	}
	k, err := reduce.KeyOf(o.Findings[i])
	if err != nil {
		return reduce.Key{}, &exitError{code: 2, err: err}
	}
	return k, nil
}
