package main

import (
	"encoding/json"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/report"
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

// bugTarget is one target's run of bugs test.
type bugTarget struct {
	Spec    string // --db's spec, as shown (shownSpec)
	Info    target.Info
	Results []bugs.Result
	// Err says why the target's run did not finish (it did not start, its
	// server stopped answering); Results hold what ran before.
	Err error
	// Missing are the BUG ids given that are not in this target's corpus.
	Missing []string
}

// label names the target in the table's header: the spec, or for a URL
// the DBMS.
func (bt *bugTarget) label() string {
	if strings.Contains(bt.Spec, "://") && bt.Info.DBMS != "" {
		return bt.Info.DBMS
	}
	return bt.Spec
}

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
	for _, id := range args {
		if !slices.ContainsFunc(corpus, func(e bugs.Entry) bool { return strings.EqualFold(e.Bug, id) }) {
			return usageErr(fmt.Errorf("no bug %s in the corpus (txlab bugs list)", id))
		}
	}
	if d := specDBMS(specs[0]); !multi && d != "" && opt.dbms == "" {
		own, err := bugs.ForTarget(d)
		if err != nil {
			return &exitError{code: 2, err: err}
		}
		for _, id := range args {
			if !slices.ContainsFunc(own, func(e bugs.Entry) bool { return strings.EqualFold(e.Bug, id) }) {
				return usageErr(fmt.Errorf("no bug %s for %s in the corpus (txlab bugs list --dbms %s)", id, d, d))
			}
		}
	}
	prog := newBugProgress(cmd.ErrOrStderr(), !g.verbose, len(specs))
	var runs []*bugTarget
	for i, spec := range specs {
		if cmd.Context().Err() != nil {
			break
		}
		bt := &bugTarget{Spec: shownSpec(spec)}
		runs = append(runs, bt)
		prog.start(i, bt.Spec)
		err := testTarget(cmd, g, orc, opt, spec, args, multi, bt, prog)
		prog.done(bt)
		if err != nil && !multi {
			return printBugTests(cmd, g, runs, false, opt.check, err)
		}
		bt.Err = err
	}
	return printBugTests(cmd, g, runs, multi, opt.check, nil)
}

// bundleBugs replaces the finding bundles among bugs test's arguments with
// the corpus bugs their findings are (the entry whose rule decided the
// verdict, or the one a suppression matched) and takes the target,
// settings, level and oracle the bundles record, as txlab run does: txlab
// bugs test BUNDLE_DIR asks whether that bug still reproduces where it was
// found. A bundle whose finding is no corpus bug is an error, not a run of
// every bug.
func bundleBugs(cmd *cobra.Command, args []string) ([]string, error) {
	var out, dirs []string
	for _, a := range args {
		if !isBundle(a) {
			out = append(out, a)
			continue
		}
		data, err := os.ReadFile(filepath.Join(a, "report.json"))
		if err != nil {
			return nil, fmt.Errorf("%s is not a finding bundle: %w", a, err)
		}
		var rep report.Report
		if err := json.Unmarshal(data, &rep); err != nil {
			return nil, fmt.Errorf("%s: %w", filepath.Join(a, "report.json"), err)
		}
		e, ok := bugs.ByRule(rep.Finding.Rule)
		if !ok && rep.Finding.KnownAs != "" {
			if es, _ := bugs.Find(rep.Finding.KnownAs); len(es) > 0 {
				e, ok = es[0], true
			}
		}
		if !ok {
			return nil, fmt.Errorf("%s: its finding (rule %s) is no bug of the corpus (txlab bugs list): txlab run %s replays it", a, rep.Finding.Rule, a)
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
func testTarget(cmd *cobra.Command, g *globalFlags, orc *oracleFlags, opt bugTestOptions, spec string, ids []string, multi bool, bt *bugTarget, prog *bugProgress) (err error) {
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
		var chosen []bugs.Entry
		for _, id := range ids {
			n := len(chosen)
			for _, e := range entries {
				if strings.EqualFold(e.Bug, id) {
					chosen = append(chosen, e)
				}
			}
			if len(chosen) == n && !multi {
				return usageErr(fmt.Errorf("no bug %s for %s in the corpus (txlab bugs list --dbms %s)", id, info.DBMS, info.DBMS))
			}
			if len(chosen) == n {
				bt.Missing = append(bt.Missing, id)
			}
		}
		entries = chosen
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
	prog.opened(bt)
	bt.Results, err = bugs.Test(cmd.Context(), t, entries, levels, cases, orc.writer, tg.execOptions(""), prog.run)
	for i := range bt.Results {
		bt.Results[i].DB = bt.Spec
	}
	if err != nil {
		return &exitError{code: 2, err: err}
	}
	if opt.record != "" {
		if err := recordStatuses(opt.record, info, bt.Results); err != nil {
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
// ended the command), the targets that did not finish, a bug that could not
// run, or with check a changed status.
func printBugTests(cmd *cobra.Command, g *globalFlags, runs []*bugTarget, multi, check bool, runErr error) error {
	out := cmd.OutOrStdout()
	var ran []bugs.Result
	for _, bt := range runs {
		ran = append(ran, bt.Results...)
	}
	if runErr != nil && len(ran) == 0 {
		return runErr
	}
	if g.json {
		enc := json.NewEncoder(out)
		for _, bt := range runs {
			for _, r := range bt.Results {
				if err := enc.Encode(r); err != nil {
					return err
				}
			}
			if bt.Err != nil {
				if err := enc.Encode(struct {
					DB    string `json:"db"`
					Error string `json:"error"`
				}{bt.Spec, oneLine(bt.Err)}); err != nil {
					return err
				}
			}
		}
	} else if multi {
		writeBugMatrix(out, runs)
	} else {
		writeBugTable(out, ran)
	}
	if runErr != nil {
		return runErr
	}
	var failed []string
	for _, bt := range runs {
		if bt.Err != nil {
			failed = append(failed, bt.Spec+": "+oneLine(bt.Err))
		}
	}
	if len(failed) > 0 {
		return &exitError{code: 2, err: fmt.Errorf("%d of %d targets did not finish: %s", len(failed), len(runs), strings.Join(failed, "; "))}
	}
	if err := unrun(runs); err != nil {
		return err
	}
	changed := 0
	for _, bt := range runs {
		for _, r := range bt.Results {
			for _, l := range r.Levels {
				if l.Status == bugs.Error && l.Recorded != bugs.Error {
					on := ""
					if multi {
						on = " on " + bt.Spec
					}
					return &exitError{code: 2, err: fmt.Errorf("%s at %s%s could not run", r.Bug, l.Level, on)}
				}
				if l.Changed {
					changed++
				}
			}
		}
	}
	if check && changed > 0 {
		var where []string
		for _, bt := range runs {
			where = append(where, bt.Info.DBMS+" "+bt.Info.Version)
		}
		return &exitError{code: 1, err: fmt.Errorf("%d bug × level status(es) differ from the corpus's status headers for %s", changed, strings.Join(where, ", "))}
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

// unrun says which BUG ids given ran on none of the targets (a MariaDB bug
// given to --db postgres@10,postgres@18), which the table alone would show
// by leaving them out.
func unrun(runs []*bugTarget) error {
	if len(runs) == 0 {
		return nil
	}
	var none []string
	for _, id := range runs[0].Missing {
		if !slices.ContainsFunc(runs[1:], func(bt *bugTarget) bool { return !slices.Contains(bt.Missing, id) }) {
			none = append(none, id)
		}
	}
	if len(none) == 0 {
		return nil
	}
	var of []string
	for _, id := range none {
		es, _ := bugs.Find(id)
		var dbmss []string
		for _, e := range es {
			if !slices.Contains(dbmss, e.DBMS) {
				dbmss = append(dbmss, e.DBMS)
			}
		}
		of = append(of, fmt.Sprintf("%s (a %s bug)", id, strings.Join(dbmss, "/")))
	}
	return usageErr(fmt.Errorf("not in any target's corpus, so not run: %s; --dbms DBMS runs a DBMS's bugs on another", strings.Join(of, ", ")))
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
