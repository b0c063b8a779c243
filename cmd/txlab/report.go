package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/htmlreport"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/report"
)

func newReportCmd() *cobra.Command {
	var out string
	cmd := &cobra.Command{
		Use:   "report [--out DIR] DIR...",
		Short: "Write a static HTML report over a directory of finding bundles, or merge several",
		Long: `report writes DIR/index.html, a table of the finding bundles in DIR (oracle, kind,
verdict, rule, DBMS, level, count, first seen, statements) with the totals by oracle
and verdict and filters, and a report.html in each bundle: what went wrong (rows
expected beside rows returned, or the wait that should have happened), the actual
schedule (a column per connection, each statement with its outcome), the dependency
graph where there is one, a bug report to paste and the case. The pages need no
server and load nothing from the network. fuzz writes the report by itself at the
end of a run.

With --out, the bundle directories of several campaigns (the shards of fuzz --shard,
or runs on several machines) are merged into DIR first: one bundle per signature,
every signature's findings summed. DIR must be new or empty.

A finding bundle's own directory as DIR gets its report.html alone.`,
		Example: `  txlab report txlab-reports
  txlab report /tmp/findings && xdg-open /tmp/findings/index.html
  txlab report --out merged shard-1 shard-2 shard-3
  txlab report txlab-reports/0003-troc-incorrect-blocking-bug   # one bundle's page`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			dir := args[0]
			if out != "" {
				n, missing, err := report.Merge(out, args)
				if err != nil {
					return exitcode.Fault(fmt.Errorf("merge: %w", err))
				}
				for _, m := range missing {
					fmt.Fprintf(cmd.ErrOrStderr(), "%s does not exist: a campaign that found nothing writes no directory\n", termsafe.Line(m))
				}
				fmt.Fprintf(cmd.ErrOrStderr(), "merged %d director%s into %s: %s\n", len(args), map[bool]string{true: "y", false: "ies"}[len(args) == 1], termsafe.Line(out), english.Plural(n, "bundle"))
				dir = out
			} else if len(args) > 1 {
				return usageErr(fmt.Errorf("several directories (%d) need --out DIR to merge them into", len(args)))
			}
			if err := report.CheckDir(dir); err != nil {
				return usageErr(err)
			}
			write := htmlreport.Write
			if out == "" && report.IsBundle(dir) {
				write = htmlreport.WriteBundle
			}
			path, err := write(dir)
			if err != nil {
				return exitcode.Fault(err)
			}
			fmt.Fprintln(cmd.OutOrStdout(), termsafe.Line(path))
			return nil
		},
	}
	cmd.Flags().StringVar(&out, "out", "", "merge the directories into this new directory and report over it (e.g. --out merged)")
	return cmd
}
