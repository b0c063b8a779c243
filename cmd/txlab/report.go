package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/htmlreport"
)

func newReportCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "report DIR",
		Short: "Write a static HTML report over a directory of finding bundles",
		Long: `report writes DIR/index.html, a table of the finding bundles in DIR (oracle, kind,
verdict, rule, DBMS, level, count, first seen, statements) with filters, and a
report.html in each bundle: the case, a timeline of the actual schedule (one lane per
connection, blocked spans shaded, commits and rollbacks marked), the dependency graph
where there is one, and for Troc findings the rows expected beside the rows returned.
The pages need no server and load nothing from the network. fuzz writes the report
by itself at the end of a run.`,
		Example: `  txlab report txlab-reports
  txlab report /tmp/findings && xdg-open /tmp/findings/index.html`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			path, err := htmlreport.Write(args[0])
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			fmt.Fprintln(cmd.OutOrStdout(), path)
			return nil
		},
	}
}
