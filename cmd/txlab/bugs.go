package main

import (
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
)

func newBugsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bugs",
		Short: "The corpus of known bugs (bugs/*.txn): list them",
		Long: `The corpus of known bugs: one case file per bug and DBMS in bugs/, each with the
known-bug headers (bug, link, affects, fixed, levels, oracle, symptom). Replay one with
txlab run --db DBMS bugs/FILE.txn.`,
	}
	var dbms string
	list := &cobra.Command{
		Use:   "list",
		Short: "List the known bugs, optionally of one DBMS",
		Example: `  txlab bugs list
  txlab bugs list --dbms mariadb --json`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			entries, err := bugs.List(dbms)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			out := cmd.OutOrStdout()
			if g.json {
				enc := json.NewEncoder(out)
				for _, e := range entries {
					if err := enc.Encode(e); err != nil {
						return err
					}
				}
				return nil
			}
			tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
			fmt.Fprintln(tw, "BUG\tDBMS\tLEVELS\tORACLE\tFILE\tSYMPTOM")
			for _, e := range entries {
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Bug, e.DBMS, dash(e.Levels), dash(e.Oracle), e.File, e.Symptom)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&dbms, "dbms", "", "only the bugs of this DBMS: mariadb, mysql, postgres, sqlite, tidb (e.g. --dbms mariadb)")
	cmd.AddCommand(list)
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
