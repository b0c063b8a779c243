package main

import (
	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/replay"
	"github.com/txlab/txlab/report"
)

func newRunCmd(g *globalFlags) *cobra.Command {
	var isolation string
	var orc oracleFlags
	cmd := &cobra.Command{
		Use:   "run [flags] CASE|BUNDLE_DIR...",
		Short: "Replay case files and print the actual schedule and final state",
		Long: `run replays each case file on freshly created tables: setup statements in
autocommit, then the submitted order, one session per connection. It prints the
actual schedule — every statement with ok and its rows, error and its class,
BLOCKED, RESUMED or SKIPPED, in the order the DBMS completed them — and the final
state. Every chosen oracle judges each case (by default wss, isorel and troc; --oracle
none only runs). A case file that cannot be read, or whose setup fails, is
reported on stderr and the other cases still run. Exit status: 0 ran and found
no bug, 1 a finding with verdict bug, 2 usage or infrastructure error, a case
that did not run or did not finish (HANG) or was not judged within --hang-timeout,
or a server that stopped answering.

A finding's bundle replays as it was found: txlab run BUNDLE_DIR runs its
case.txn, whose replay header names the target, its settings, the level, the
oracle and its judging flags (--model, --strict); flags given on the command
line win. A URL or a path as --db, or a PostgreSQL release not installed, is
never taken from a file: then run says which --db to give and exits 2 (it never
replays on another DBMS).`,
		Example: `  txlab run case.txn
  txlab run --db mariadb --isolation read-committed case.txn
  txlab run --db postgres --json a.txn b.txn     # JSON Lines, one object per case
  txlab run --db mariadb --oracle wss examples/design-read-committed.txn
  txlab run txlab-reports/0003-troc-incorrect-blocking-bug   # a bundle, with its target and flags`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			replaysBundle := report.AnyWritten(args)
			if err := applyReplay(cmd, args); err != nil {
				return usageErr(err)
			}
			args = report.BundleCases(args)
			level, err := parseLevel(isolation)
			if err != nil {
				return err
			}
			if err := orc.validateForCases(); err != nil {
				return usageErr(err)
			}
			// A finding's bundle is written after its case ran: say an
			// unwritable --out before the run, not after it.
			if !replaysBundle || cmd.Flags().Changed("out") {
				if err := checkOut(orc.out); err != nil {
					return usageErr(err)
				}
			}
			s, err := openSession(cmd, g, level)
			if err != nil {
				return err
			}
			defer s.end(&err)
			cases, _, err := s.judge(cmd.Context(), g, &orc)
			if err != nil {
				return err
			}
			if replaysBundle && !cmd.Flags().Changed("out") {
				// The bundle is the finding already: a replay writes a new
				// one only when --out asks for it.
				orc.writer.NoFiles = true
			}
			st, err := replay.RunFiles(cmd.Context(), s.target(), args, replay.Options{
				Exec: g.execOptions(level), Oracles: cases, Writer: orc.writer, JSON: g.json,
				Out: cmd.OutOrStdout(), Errs: cmd.ErrOrStderr(), Verbose: g.verbose,
			})
			if err != nil {
				return exitcode.Fault(err)
			}
			return st.Err(g.hangTimeout)
		},
	}
	orc.register(cmd, false)
	orc.registerSuppress(cmd)
	cmd.Flags().StringVar(&isolation, "isolation", "", "isolation level for every connection, overriding the case's header:\nread-uncommitted, read-committed, repeatable-read, snapshot, serializable (or RU, RC, RR, SI, SER)\n(e.g. --isolation rr)")
	return cmd
}
