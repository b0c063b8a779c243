package main

import (
	"fmt"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/connect"
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
				return exitcode.Fault(fmt.Errorf("--dbms: %w", err))
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
	specs := connect.Split(g.db)
	if len(specs) == 0 {
		return usageErr(fmt.Errorf("--db %q names no target", g.db))
	}
	// Before a server starts for nothing. Each of several targets checks
	// the levels against its own; a level one of them lacks is a cell
	// saying so.
	multi, one := len(specs) > 1, connect.DBMS(specs[0])
	if multi {
		one = ""
		if _, err := target.ParseLevelNames(opt.isolation); err != nil {
			return usageErr(err)
		}
	}
	if err := bugs.CheckIDs(opt.dbms, args, one); err != nil {
		return usageErr(err)
	}
	stderr := cmd.ErrOrStderr()
	// -v's log lines would break a line redrawn in place.
	prog := bugs.NewDisplay(stderr, !g.verbose && isTerminal(stderr), len(specs))
	var runs []*bugs.TargetRun
	for i, spec := range specs {
		if cmd.Context().Err() != nil {
			break
		}
		bt := &bugs.TargetRun{Spec: report.ShownSpec(spec)}
		runs = append(runs, bt)
		prog.Start(i, bt.Spec)
		err := testTarget(cmd, g, orc, opt, spec, args, multi, bt, prog)
		prog.Done(bt)
		if err != nil && !multi {
			return bugs.Report(cmd.OutOrStdout(), runs, g.json, false, opt.check, err)
		}
		bt.Err = err
	}
	return bugs.Report(cmd.OutOrStdout(), runs, g.json, multi, opt.check, nil)
}

// bundleBugs replaces the finding bundles among bugs test's arguments with
// the corpus bugs their findings are (bugs.OfBundle) and takes the target,
// settings, level and oracle the bundles record, as txlab run does: txlab
// bugs test BUNDLE_DIR asks whether that bug still reproduces where it was
// found.
func bundleBugs(cmd *cobra.Command, args []string) ([]string, error) {
	var out, dirs []string
	for _, a := range args {
		if !report.IsBundle(a) {
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
	defer connect.Release(&err, t, func() error {
		closeOracles()
		return t.Close()
	})
	info := t.Info()
	bt.Info = info
	entries, missing, err := bugs.Entries(info.DBMS, opt.dbms, ids)
	if err != nil {
		return exitcode.Fault(err)
	}
	if bt.Missing = missing; len(missing) > 0 && !multi {
		return usageErr(bugs.NoBugFor(missing[0], info.DBMS))
	}
	levels, err := target.ParseLevels(opt.isolation, info.DBMS, t.Levels())
	if multi && !strings.EqualFold(opt.isolation, "all") {
		// A level this target lacks is a cell saying so.
		levels, err = target.ParseLevelNames(opt.isolation)
	}
	if err != nil {
		return usageErr(err)
	}
	cases, _, err := orc.build(cmd.Context(), &tg, t)
	if err != nil {
		return exitcode.Fault(err)
	}
	closeOracles = orc.close
	prog.Opened(bt)
	bt.Results, err = bugs.Test(cmd.Context(), t, entries, levels, cases, orc.writer, tg.execOptions(""), prog.Run)
	for i := range bt.Results {
		bt.Results[i].DB = bt.Spec
	}
	if err != nil {
		return exitcode.Fault(err)
	}
	if opt.record != "" {
		if err := bugs.RecordStatuses(opt.record, info, bt.Results); err != nil {
			return exitcode.Fault(err)
		}
	}
	return nil
}
