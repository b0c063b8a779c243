package main

import (
	"fmt"
	"os"
	"slices"
	"strings"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/target"
)

func newBugsCmd(g *globalFlags) *cobra.Command {
	cmd := &cobra.Command{
		Use:   "bugs",
		Short: "The corpus of known bugs (bugs/*.txn): list, show and test them",
		Long: `The corpus of known bugs: one case file per bug and DBMS in bugs/, each with the
known-bug headers (bug, link, affects, fixed, levels, oracle, symptom). The files are
built into txlab: txlab bugs show BUG prints one (--out DIR writes it), and
txlab run --db DBMS DIR/FILE.txn replays it (in a clone: bugs/FILE.txn).`,
		// Runnable, so that a mistyped subcommand is an error (exit 2)
		// rather than the help and exit 0, which a script takes for success.
		Args: cobra.ArbitraryArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			if len(args) == 0 {
				return cmd.Help()
			}
			var names []string
			for _, c := range cmd.Commands() {
				if c.IsAvailableCommand() {
					names = append(names, c.Name())
				}
			}
			want := strings.Join(names, ", ")
			if n := len(names); n > 1 {
				want = strings.Join(names[:n-1], ", ") + " or " + names[n-1]
			}
			return usageErr(fmt.Errorf("unknown command %q for txlab bugs: want %s (see 'txlab bugs --help')", args[0], want))
		},
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
			if g.json {
				return bugs.WriteListJSON(cmd.OutOrStdout(), entries)
			}
			return bugs.WriteList(cmd.OutOrStdout(), entries)
		},
	}
	list.Flags().StringVar(&dbms, "dbms", "", "only the bugs of this DBMS: "+strings.Join(bugs.DBMSs, ", ")+" (e.g. --dbms mariadb)")
	cmd.AddCommand(list, newBugsTestCmd(g), newBugsShowCmd())
	return cmd
}

func newBugsTestCmd(g *globalFlags) *cobra.Command {
	var orc oracleFlags
	var opt bugTestOptions
	cmd := &cobra.Command{
		Use:   "test [flags] [BUG...]",
		Short: "Run the known bugs of each target's DBMS at their levels and say which reproduce",
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

--db takes several targets, comma-separated (--db postgres@10,postgres@18,tidb): each
runs its own DBMS's corpus (or --dbms's), one after another, a throwaway server
stopped before the next starts, and the output is one table, a column per target
(rows grouped by the bugs' DBMS; — where a bug is not in that target's corpus),
then each target's statuses compared with the recorded ones. A target that cannot
start is said and the others still run. Progress goes to stderr.

Exit status: 0 when every bug ran (or failed to run where its status header records
error) (and, with --check, every status is the recorded
one); 1 with --check when a status changed; 2 on a usage or infrastructure error (a
target that could not start or stopped answering) or a bug that could not run.

A finding bundle's directory as BUG stands for the corpus bug its finding is (the
one whose rule decided it), run on the target, with the settings, level and oracle
the bundle records, as txlab run replays it (a URL or a path is not taken from a
file: give --db).`,
		Example: `  txlab bugs test --db mariadb
  txlab bugs test --db mariadb --isolation all --check   # the bug × level table, compared with the corpus
  txlab bugs test --db sqlite,postgres,mariadb --isolation all   # one column per target
  txlab bugs test --db mariadb --dbms mysql              # MySQL's bugs on MariaDB
  txlab bugs test --db mariadb --json MDEV-30835
  txlab bugs test txlab-reports/0003-troc-incorrect-blocking-bug   # the bundle's bug, where it was found`,
		RunE: func(cmd *cobra.Command, args []string) error {
			// Before opt is copied: a bundle sets its recorded --isolation.
			args, err := bundleBugs(cmd, args)
			if err != nil {
				return usageErr(err)
			}
			return runBugsTest(cmd, g, &orc, opt, args)
		},
	}
	orc.register(cmd, false)
	cmd.Flags().StringVar(&opt.isolation, "isolation", "", "run every bug at these levels instead of its levels header: a comma-separated list, or all\n(every level the target has) (e.g. --isolation all)")
	cmd.Flags().StringVar(&opt.dbms, "dbms", "", "run this DBMS's bugs instead of the target's (e.g. --dbms mysql on a MariaDB target)")
	cmd.Flags().StringVar(&opt.record, "record", "", "write the measured statuses into the status headers of the case files in this directory\n(the corpus's source, e.g. --record bugs), for each target's DBMS version")
	cmd.Flags().BoolVar(&opt.check, "check", false, "exit 1 when a measured status differs from the one the case's status header records\nfor the target's DBMS version (what CI runs)")
	return cmd
}

// bugTestOptions are bugs test's own flags.
type bugTestOptions struct {
	isolation, dbms, record string
	check                   bool
}

// runBugsTest runs bugs test: the ids given (or the corpus) on each target
// of --db in turn, checked against the corpus before any server starts.
func runBugsTest(cmd *cobra.Command, g *globalFlags, orc *oracleFlags, opt bugTestOptions, args []string) error {
	if err := orc.validateForCases(); err != nil {
		return usageErr(err)
	}
	if err := checkOut(orc.out); err != nil {
		return usageErr(err)
	}
	specs := splitDB(g.db)
	if len(specs) == 0 {
		return usageErr(fmt.Errorf("--db %q names no target", g.db))
	}
	// Before a server starts for nothing.
	corpus, err := bugs.List(opt.dbms)
	if err != nil {
		return usageErr(fmt.Errorf("--dbms: %w", err))
	}
	multi := len(specs) > 1
	if multi {
		// Each target checks its levels against its own below; a level
		// one of them lacks is a cell saying so.
		if _, err := parseLevelNames(opt.isolation); err != nil {
			return usageErr(err)
		}
	}
	// An id no DBMS has is said before a server starts for nothing, and so
	// is one the one target's DBMS lacks when its spec names the DBMS.
	if _, missing := bugs.Select(corpus, args); len(missing) > 0 {
		return usageErr(fmt.Errorf("no bug %s in the corpus (txlab bugs list)", missing[0]))
	}
	if d := specDBMS(specs[0]); !multi && d != "" && opt.dbms == "" {
		own, err := bugs.ForTarget(d)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		if _, missing := bugs.Select(own, args); len(missing) > 0 {
			return usageErr(noBugFor(missing[0], d))
		}
	}
	stderr := cmd.ErrOrStderr()
	f, ok := stderr.(*os.File)
	// -v's log lines would break a line redrawn in place.
	prog := bugs.NewDisplay(stderr, !g.verbose && ok && term.IsTerminal(int(f.Fd())), len(specs))
	var runs []*bugs.TargetRun
	for i, spec := range specs {
		if cmd.Context().Err() != nil {
			break
		}
		bt := &bugs.TargetRun{Spec: shownSpec(spec)}
		runs = append(runs, bt)
		prog.Start(i, bt.Spec)
		err := testTarget(cmd, g, orc, opt, spec, args, multi, bt, prog)
		prog.Done(bt)
		if err != nil && !multi {
			return printBugTests(cmd, g, runs, false, opt.check, err)
		}
		bt.Err = err
	}
	return printBugTests(cmd, g, runs, multi, opt.check, nil)
}

// bundleBugs replaces the finding bundles among bugs test's arguments with
// the corpus bugs their findings are (bugs.OfBundle) and takes the target,
// settings, level and oracle the bundles record, as txlab run does: txlab
// bugs test BUNDLE_DIR asks whether that bug still reproduces where it was
// found.
func bundleBugs(cmd *cobra.Command, args []string) ([]string, error) {
	var out, dirs []string
	for _, a := range args {
		if !isBundle(a) {
			out = append(out, a)
			continue
		}
		e, err := bugs.OfBundle(a)
		if err != nil {
			return nil, err
		}
		if !slices.Contains(out, e.Bug) {
			out = append(out, e.Bug)
		}
		dirs = append(dirs, a)
	}
	if len(dirs) > 0 {
		if err := applyReplay(cmd, dirs); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// noBugFor says that the id given is no bug of dbms's corpus.
func noBugFor(id, dbms string) error {
	return fmt.Errorf("no bug %s for %s in the corpus (txlab bugs list --dbms %s)", id, dbms, dbms)
}

// testTarget runs the corpus on one target into bt; an error says the run
// did not finish.
func testTarget(cmd *cobra.Command, g *globalFlags, orc *oracleFlags, opt bugTestOptions, spec string, ids []string, multi bool, bt *bugs.TargetRun, prog *bugs.Display) (err error) {
	tg := *g
	tg.db = spec
	t, err := tg.open(cmd)
	if err != nil {
		return err
	}
	// The oracles' sessions end before the target.
	closeOracles := func() {}
	defer release(&err, t, func() error {
		closeOracles()
		return t.Close()
	})
	info := t.Info()
	bt.Info = info
	var entries []bugs.Entry
	if opt.dbms != "" {
		entries, err = bugs.List(opt.dbms)
	} else {
		entries, err = bugs.ForTarget(info.DBMS)
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if len(ids) > 0 {
		entries, bt.Missing = bugs.Select(entries, ids)
		if len(bt.Missing) > 0 && !multi {
			return usageErr(noBugFor(bt.Missing[0], info.DBMS))
		}
	}
	var levels []target.Level
	if multi {
		levels, err = parseLevelNames(opt.isolation)
		if strings.EqualFold(opt.isolation, "all") {
			levels = t.Levels()
		}
	} else {
		levels, err = parseLevels(opt.isolation, info.DBMS, t.Levels())
	}
	if err != nil {
		return usageErr(err)
	}
	cases, _, err := orc.build(cmd.Context(), &tg, t)
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	closeOracles = orc.close
	prog.Opened(bt)
	bt.Results, err = bugs.Test(cmd.Context(), t, entries, levels, cases, orc.writer, tg.execOptions(""), prog.Run)
	for i := range bt.Results {
		bt.Results[i].DB = bt.Spec
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if opt.record != "" {
		if err := bugs.RecordStatuses(opt.record, info, bt.Results); err != nil {
			return &exitError{code: 2, err: err}
		}
	}
	return nil
}

// parseLevelNames reads a multi-target --isolation: level names, or all
// (nil here: each target's own levels).
func parseLevelNames(s string) ([]target.Level, error) {
	if s == "" || strings.EqualFold(s, "all") {
		return nil, nil
	}
	var out []target.Level
	for _, part := range strings.Split(s, ",") {
		l, err := target.ParseLevel(part)
		if err != nil {
			return nil, err
		}
		out = append(out, l)
	}
	return out, nil
}

// printBugTests prints the results (the one-target table, or the table with
// a column per target) and says how the command ends: runErr (a run that
// ended the command), a failure of the runs (bugs.Failure), or with check
// a changed status.
func printBugTests(cmd *cobra.Command, g *globalFlags, runs []*bugs.TargetRun, multi, check bool, runErr error) error {
	if runErr != nil && !slices.ContainsFunc(runs, func(r *bugs.TargetRun) bool { return len(r.Results) > 0 }) {
		return runErr
	}
	out := cmd.OutOrStdout()
	switch {
	case g.json:
		if err := bugs.WriteJSON(out, runs); err != nil {
			return err
		}
	case multi:
		bugs.WriteMatrix(out, runs)
	default:
		bugs.WriteTable(out, runs)
	}
	if runErr != nil {
		return runErr
	}
	if err := bugs.Failure(runs, multi); err != nil {
		return &exitError{code: 2, err: err}
	}
	if err := bugs.CheckRecorded(runs); check && err != nil {
		return &exitError{code: 1, err: err}
	}
	return nil
}

// specDBMS is the DBMS a --db spec names by itself (sqlite, a throwaway
// mariadb, postgres or tidb server, of any release or build), "" for a URL,
// whose server says what it is only once connected.
func specDBMS(spec string) string {
	name, _, _ := strings.Cut(strings.ToLower(strings.TrimSpace(spec)), "@")
	switch {
	case strings.Contains(name, "://"):
		return ""
	case name == "sqlite" || strings.HasPrefix(name, "sqlite:"):
		return "sqlite"
	case name == "postgresql":
		return "postgres"
	case name == "mariadb" || name == "postgres" || name == "tidb":
		return name
	}
	return ""
}
