package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/internal/exitcode"
)

// newBugsShowCmd prints (or writes) corpus cases: the corpus is embedded
// in the binary, so a user without a clone still gets files to replay.
func newBugsShowCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "show BUG|FILE...",
		Short: "Print the case files of known bugs (or write them with --out)",
		Long: `show prints the corpus case of each bug id (txlab bugs list), comments and
headers included; a bug with a case per DBMS prints each. With --out DIR the
files are written there instead (DIR/NAME.txn), ready for txlab run --db T DIR/NAME.txn.`,
		Example: `  txlab bugs show MDEV-30835
  txlab bugs show --out /tmp/cases MDEV-30835 PG-SSI-ON-CONFLICT
  txlab bugs show mdev-30835-rc.txn`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, err := bugs.FindAll(args)
			if err != nil {
				return exitcode.Fault(err)
			}
			if out == "" {
				return bugs.WriteCases(cmd.OutOrStdout(), entries)
			}
			paths, err := bugs.SaveCases(out, entries)
			for i, path := range paths {
				fmt.Fprintf(cmd.OutOrStdout(), "%s (%s)\n", path, entries[i].Bug)
			}
			if err != nil {
				return exitcode.Fault(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the case files into this directory instead of printing them (e.g. --out /tmp/cases)")
	return cmd
}
