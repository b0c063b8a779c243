package main

import (
	"encoding/json"
	"fmt"
	"strings"
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
	cmd.AddCommand(list, newBugsTestCmd(g))
	return cmd
}

func newBugsTestCmd(g *globalFlags) *cobra.Command {
	var orc oracleFlags
	var isolation string
	cmd := &cobra.Command{
		Use:   "test [flags] [BUG...]",
		Short: "Run the known bugs of the target's DBMS at their levels and say which reproduce",
		Long: `test runs every bug of the corpus whose dbms header names the target's DBMS (or
only the BUG ids given) at each level of its levels header (or of --isolation), through the chosen
oracles (default: all), and prints one line per bug and level: reproduces (an
oracle says bug, with its rule), not-reproduced, error (the case could not run)
or unsupported (the target has no such level). Exit status: 0 when every bug ran,
2 on a usage or infrastructure error or a bug that could not run.`,
		Example: `  txlab bugs test --db mariadb
  txlab bugs test --db mariadb --isolation all     # every bug at every level: the bug × level table
  txlab bugs test --db mariadb --json MDEV-30835`,
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := orc.validateForCases(); err != nil {
				return usageErr(err)
			}
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			defer t.Close()
			entries, err := bugs.List(t.Info().DBMS)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if len(args) > 0 {
				var chosen []bugs.Entry
				for _, id := range args {
					n := len(chosen)
					for _, e := range entries {
						if strings.EqualFold(e.Bug, id) {
							chosen = append(chosen, e)
						}
					}
					if len(chosen) == n {
						return usageErr(fmt.Errorf("no bug %s for %s in the corpus (txlab bugs list --dbms %s)", id, t.Info().DBMS, t.Info().DBMS))
					}
				}
				entries = chosen
			}
			cases, _, err := orc.build(cmd.Context(), g, t)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			defer orc.close()
			levels, err := parseLevels(isolation, t.Info().DBMS, t.Levels())
			if err != nil {
				return usageErr(err)
			}
			results, err := bugs.Test(cmd.Context(), t, entries, levels, cases, g.execOptions(""))
			out := cmd.OutOrStdout()
			if g.json {
				enc := json.NewEncoder(out)
				for _, r := range results {
					if err := enc.Encode(r); err != nil {
						return err
					}
				}
			} else {
				tw := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
				fmt.Fprintln(tw, "BUG\tLEVEL\tSTATUS\tRULES")
				for _, r := range results {
					for _, l := range r.Levels {
						detail := strings.Join(l.Rules, " ")
						if l.Error != "" {
							detail = l.Error
						}
						fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", r.Bug, l.Level.Abbrev(), l.Status, dash(detail))
					}
				}
				tw.Flush()
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			for _, r := range results {
				for _, l := range r.Levels {
					if l.Status == bugs.Error {
						return &exitError{code: 2, err: fmt.Errorf("%s at %s could not run", r.Bug, l.Level)}
					}
				}
			}
			return nil
		},
	}
	orc.register(cmd, false)
	cmd.Flags().StringVar(&isolation, "isolation", "", "run every bug at these levels instead of its levels header: a comma-separated list, or all\n(every level the target has) (e.g. --isolation all)")
	return cmd
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
