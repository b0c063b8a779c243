package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/target"
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
				return &exitError{code: 2, err: fmt.Errorf("--dbms: %w", err)}
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
			fmt.Fprintln(tw, "BUG\tKIND\tDBMS\tLEVELS\tFILE\tSYMPTOM")
			for _, e := range entries {
				levels := e.Levels
				if levels == "" && e.Case.Isolation != "" {
					levels = strings.ToLower(e.Case.Isolation.Abbrev())
				}
				fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", e.Bug, e.Kind, e.DBMS, dash(levels), e.File, e.Symptom)
			}
			return tw.Flush()
		},
	}
	list.Flags().StringVar(&dbms, "dbms", "", "only the bugs of this DBMS: "+strings.Join(bugs.DBMSs, ", ")+" (e.g. --dbms mariadb)")
	cmd.AddCommand(list, newBugsTestCmd(g))
	return cmd
}

func newBugsTestCmd(g *globalFlags) *cobra.Command {
	var orc oracleFlags
	var isolation, dbms string
	var check bool
	var record string
	cmd := &cobra.Command{
		Use:   "test [flags] [BUG...]",
		Short: "Run the known bugs of the target's DBMS at their levels and say which reproduce",
		Long: `test runs the corpus's bugs for the target's DBMS (its own, and other DBMSs' bugs
whose status header records a run on it; --dbms chooses another DBMS's bugs), or only
the BUG ids given, at each level of the bug's levels header (or of --isolation), through
the chosen oracles (default: all), and prints one line per bug and level:

  STATUS   reproduces (every clause of the case's expect header holds; without one,
           an oracle says bug), not-reproduced, error (the case could not run) or
           unsupported (the target has no such level)
  VERDICT  the strongest oracle verdict on the run (bug, suspect, known, allowed, none)
  RECORDED the status the case's status header holds for this DBMS version and level;
           a different status is marked CHANGED

Exit status: 0 when every bug ran (or failed to run where its status header records
error) (and, with --check, every status is the recorded
one); 1 with --check when a status changed; 2 on a usage or infrastructure error or a
bug that could not run.`,
		Example: `  txlab bugs test --db mariadb
  txlab bugs test --db mariadb --isolation all --check   # the bug × level table, compared with the corpus
  txlab bugs test --db mariadb --dbms mysql              # MySQL's bugs on MariaDB
  txlab bugs test --db mariadb --json MDEV-30835`,
		RunE: func(cmd *cobra.Command, args []string) (err error) {
			if err := orc.validateForCases(); err != nil {
				return usageErr(err)
			}
			if dbms != "" {
				// Before a server starts for nothing.
				if _, err := bugs.List(dbms); err != nil {
					return usageErr(fmt.Errorf("--dbms: %w", err))
				}
			}
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			// The oracles' sessions end before the target.
			closeOracles := func() {}
			defer release(&err, t, func() {
				closeOracles()
				t.Close()
			})
			info := t.Info()
			var entries []bugs.Entry
			if dbms != "" {
				entries, err = bugs.List(dbms)
			} else {
				entries, err = bugs.ForTarget(info.DBMS)
			}
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
						return usageErr(fmt.Errorf("no bug %s for %s in the corpus (txlab bugs list --dbms %s)", id, info.DBMS, info.DBMS))
					}
				}
				entries = chosen
			}
			cases, _, err := orc.build(cmd.Context(), g, t)
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			closeOracles = orc.close
			levels, err := parseLevels(isolation, info.DBMS, t.Levels())
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
				writeBugTable(out, results)
			}
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			if record != "" {
				if err := recordStatuses(record, info, results); err != nil {
					return &exitError{code: 2, err: err}
				}
			}
			changed := 0
			for _, r := range results {
				for _, l := range r.Levels {
					if l.Status == bugs.Error && l.Recorded != bugs.Error {
						return &exitError{code: 2, err: fmt.Errorf("%s at %s could not run", r.Bug, l.Level)}
					}
					if l.Changed {
						changed++
					}
				}
			}
			if check && changed > 0 {
				return &exitError{code: 1, err: fmt.Errorf("%d bug × level status(es) differ from the corpus's status headers for %s %s", changed, info.DBMS, info.Version)}
			}
			return nil
		},
	}
	orc.register(cmd, false)
	cmd.Flags().StringVar(&isolation, "isolation", "", "run every bug at these levels instead of its levels header: a comma-separated list, or all\n(every level the target has) (e.g. --isolation all)")
	cmd.Flags().StringVar(&dbms, "dbms", "", "run this DBMS's bugs instead of the target's (e.g. --dbms mysql on a MariaDB target)")
	cmd.Flags().StringVar(&record, "record", "", "write the measured statuses into the status headers of the case files in this directory\n(the corpus's source, e.g. --record bugs), for this DBMS version")
	cmd.Flags().BoolVar(&check, "check", false, "exit 1 when a measured status differs from the one the case's status header records\nfor this DBMS version (what CI runs)")
	return cmd
}

// recordStatuses writes each result's statuses into the status header of
// its case file in dir.
func recordStatuses(dir string, info target.Info, results []bugs.Result) error {
	for _, r := range results {
		path := filepath.Join(dir, filepath.Base(r.File))
		data, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		text, err := bugs.Record(string(data), bugs.FormatStatus(info.DBMS, bugs.VersionKey(info.Version), r.Levels))
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		if err := atomicfile.WriteFile(path, []byte(text), 0o644); err != nil {
			return err
		}
	}
	return nil
}

// writeBugTable prints the bug × level table of bugs test.
func writeBugTable(w io.Writer, results []bugs.Result) {
	tw := tabwriter.NewWriter(w, 0, 4, 2, ' ', 0)
	fmt.Fprintln(tw, "BUG\tLEVEL\tSTATUS\tVERDICT\tRECORDED\tDETAIL")
	for _, r := range results {
		for _, l := range r.Levels {
			rec := dash(l.Recorded)
			if l.Changed {
				rec = "CHANGED (was " + l.Recorded + ")"
			}
			detail := strings.Join(l.Rules, " ")
			switch {
			case l.Error != "":
				detail = l.Error
			case l.Status == bugs.NotReproduced && len(l.Failed) > 0:
				detail = strings.Join(l.Failed, "; ")
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\t%s\n", r.Bug, l.Level.Abbrev(), l.Status, dash(l.Verdict), rec, dash(detail))
		}
	}
	tw.Flush()
}

func dash(s string) string {
	if s == "" {
		return "-"
	}
	return s
}
