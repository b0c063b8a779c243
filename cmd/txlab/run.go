package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/replay"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

func newRunCmd(g *globalFlags) *cobra.Command {
	var isolation string
	var orc oracleFlags
	cmd := &cobra.Command{
		Use:   "run [flags] CASE...",
		Short: "Replay case files and print the actual schedule and final state",
		Long: `run replays each case file on freshly created tables: setup statements in
autocommit, then the submitted order, one session per connection. It prints the
actual schedule — every statement with ok and its rows, error and its class,
BLOCKED, RESUMED or SKIPPED, in the order the DBMS completed them — and the final
state. Exit status: 0 ran and found no bug, 1 a finding with verdict bug,
2 usage or infrastructure error.`,
		Example: `  txlab run case.txn
  txlab run --db mariadb --isolation read-committed case.txn
  txlab run --db postgres --json a.txn b.txn     # JSON Lines, one object per case
  txlab run --db mariadb --oracle wss examples/design-read-committed.txn`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			var level target.Level
			if isolation != "" {
				l, err := target.ParseLevel(isolation)
				if err != nil {
					return usageErr(err)
				}
				level = l
			}
			var cases []*testcase.Case
			for _, path := range args {
				c, err := testcase.ParseFile(path)
				if err != nil {
					return usageErr(err)
				}
				if err := c.Validate(); err != nil {
					return usageErr(err)
				}
				cases = append(cases, c)
			}
			if err := orc.validate(); err != nil {
				return usageErr(err)
			}
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			defer t.Close()
			check, err := orc.check(cmd.Context(), g, t)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			bugs, err := replay.Run(cmd.Context(), t, cases, replay.Options{Exec: g.execOptions(level), JSON: g.json, Out: cmd.OutOrStdout(), Check: check})
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if bugs > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d finding(s) with verdict bug", bugs)}
			}
			return nil
		},
	}
	orc.register(cmd, false)
	cmd.Flags().StringVar(&isolation, "isolation", "", "isolation level for every connection, overriding the case's header:\nread-uncommitted, read-committed, repeatable-read, snapshot, serializable (or RU, RC, RR, SI, SER)\n(e.g. --isolation rr)")
	return cmd
}
