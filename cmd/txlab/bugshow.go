package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
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
			var entries []bugs.Entry
			for _, id := range args {
				found, err := bugs.Find(id)
				if err != nil {
					return err
				}
				if len(found) == 0 {
					return &exitError{code: 2, err: fmt.Errorf("no known bug or corpus file %q (txlab bugs list names them)", id)}
				}
				entries = append(entries, found...)
			}
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			for i, e := range entries {
				text, err := bugs.Text(e)
				if err != nil {
					return err
				}
				if out == "" {
					if i > 0 {
						fmt.Fprintln(cmd.OutOrStdout())
					}
					fmt.Fprintf(cmd.OutOrStdout(), "-- %s\n%s", e.File, text)
					continue
				}
				path := filepath.Join(out, strings.TrimPrefix(e.File, "bugs/"))
				if err := os.WriteFile(path, text, 0o644); err != nil {
					return &exitError{code: 2, err: err}
				}
				fmt.Fprintf(cmd.OutOrStdout(), "%s (%s)\n", path, e.Bug)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "write the case files into this directory instead of printing them (e.g. --out /tmp/cases)")
	return cmd
}
