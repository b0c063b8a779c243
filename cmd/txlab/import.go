package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/convert"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/testcase"
)

func newImportCmd() *cobra.Command {
	var from, out, setup string
	var maxCases int
	cmd := &cobra.Command{
		Use:   "import --from FORMAT FILE...",
		Short: "Convert other tools' published cases and the DBMSs' own concurrency tests into case files",
		Long: `Convert the case files other isolation-testing tools publish into txlab case files.
Each converted case keeps its source as a comment. The troc, writecheck and dt2
formats share one shape: setup statements, one block per transaction (headed by its
isolation level, e.g. RC, or its number), the schedule (1-1-2-2-1-2) and END. A file
may hold several cases. --from replbug reads ReplBug's Python bug modules
(src/testcase/bug_list/*.py): one case per scenario of conn_N> lines, at the bug's
original isolation level. --from pg-isolation reads PostgreSQL's isolation-tester
specs (src/test/isolation/specs/*.spec): one case per permutation, or per
interleaving when the spec lists none. --from mysql-test reads MariaDB's and MySQL's
mysql-test files (connect, connection, send and reap): one case per scenario.
Cases go to stdout, or one file each into --out DIR.
A file that would make more than --max-cases cases (default 2000; a spec's
interleavings grow as a factorial of its steps) is refused whole, with its count,
before any case is made: its first cases alone would pass for all of them. A file
that cannot be read or converted is said on its own line (the case files written of
it are removed) and the others still convert; the exit status is then 2. Inputs
must be regular files of at most 64 MiB (a spec or mysql-test file 1 MiB, as a case
file), and a converted case at most 1 MiB, as txlab run reads. Interrupted (Ctrl-C,
SIGTERM), import stops between cases with exit status 2, saying how many it wrote;
each case file written is whole.`,
		Example: `  txlab import --from troc cases/mariadb27992.txt > mdev-27992.txn
  txlab import --from writecheck --out imported/ test.txt
  txlab import --from replbug --out imported/ ReplBug/src/testcase/bug_list/MDEV-*.py
  txlab import --from pg-isolation --out imported/ src/test/isolation/specs/lock-update-delete.spec
  txlab import --from pg-isolation --max-cases 5000 --out imported/ big.spec
  txlab import --from mysql-test --out imported/ mysql-test/suite/innodb/t/lock_insert_into_empty.test
  txlab run --db mariadb imported/test-1.txn`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return usageErr(fmt.Errorf("--from is required: one of %s", strings.Join(convert.Formats, ", ")))
			}
			if !slices.Contains(convert.Formats, from) {
				return usageErr(fmt.Errorf("--from %s: unknown format (want %s)", from, strings.Join(convert.Formats, ", ")))
			}
			if maxCases < 1 {
				return usageErr(fmt.Errorf("--max-cases %d: want 1 or more", maxCases))
			}
			ctx := cmd.Context()
			opts := convert.Options{MaxCases: maxCases, Warn: func(w string) {
				fmt.Fprintf(cmd.ErrOrStderr(), "txlab: warning: %s\n", termsafe.Text(w))
			}}
			if setup != "" {
				// Read once, before any file: every case without setup
				// gets it.
				stmts, err := convert.ReadDump(setup)
				if err != nil {
					return exitcode.Fault(fmt.Errorf("--setup %w", err))
				}
				opts.Setup, opts.SetupFrom = stmts, setup
			}
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return exitcode.Fault(err)
				}
			}
			first := true
			failed, written := 0, 0
			interrupted := func() error {
				return exitcode.Fault(fmt.Errorf("interrupted after %s", english.Plural(written, "case")))
			}
			var names convert.Names
			for _, path := range args {
				if ctx.Err() != nil {
					return interrupted()
				}
				// A file that cannot be read or converted is said on its
				// own line and the others still convert, as in txlab run;
				// the exit status then says something failed. A case
				// that cannot be written ends the import.
				var writeErr error
				var mine []string // this file's case files
				err := convert.File(ctx, from, path, opts, func(_ *testcase.Case, text string, i, n int) error {
					if err := ctx.Err(); err != nil {
						return err
					}
					if out == "" {
						if !first {
							fmt.Fprintln(cmd.OutOrStdout())
						}
						first = false
						fmt.Fprint(cmd.OutOrStdout(), text)
						written++
						return nil
					}
					dst := filepath.Join(out, names.Next(path, i, n))
					if err := atomicfile.WriteFile(dst, []byte(text), 0o644); err != nil {
						writeErr = err
						return err
					}
					written++
					mine = append(mine, dst)
					fmt.Fprintln(cmd.ErrOrStderr(), "wrote", dst)
					return nil
				})
				switch {
				case writeErr != nil:
					return exitcode.Fault(writeErr)
				case err == nil:
				case ctx.Err() != nil:
					return interrupted()
				default:
					// A spec's permutation that does not convert comes
					// after the ones before it were written: a refused
					// file leaves no case file behind.
					msg := refusal(err)
					if len(mine) > 0 {
						for _, f := range mine {
							os.Remove(f)
						}
						written -= len(mine)
						msg += fmt.Sprintf(" (the %s written of it removed)", english.Plural(len(mine), "case file"))
					}
					failed++
					fmt.Fprintf(cmd.ErrOrStderr(), "txlab: %s: %s\n", termsafe.Line(path), termsafe.Text(msg))
				}
			}
			if failed == 1 && len(args) == 1 {
				return &exitcode.Error{Code: 2} // its line said it
			}
			if failed > 0 {
				return exitcode.Fault(fmt.Errorf("%d of %s not converted", failed, english.Plural(len(args), "file")))
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the source format: "+strings.Join(convert.Formats, ", ")+" (e.g. --from troc)")
	cmd.Flags().StringVar(&out, "out", "", "write one case file per case into DIR instead of stdout (e.g. --out imported/)")
	cmd.Flags().StringVar(&setup, "setup", "", "a mysqldump file whose tables and rows become the setup of every case that has none; for\nReplBug, data/sql/BUG_mysql_bk.sql beside the modules is found by itself (e.g. --setup db.sql)")
	cmd.Flags().IntVar(&maxCases, "max-cases", convert.DefaultMaxCases, "the most cases one file may make; a file that would make more is refused whole, naming\nits count (PostgreSQL's largest spec makes about 1,430) (e.g. --max-cases 5000)")
	return cmd
}

// refusal is a file's conversion error as its line says it; a file with
// too many cases says how many, and the flag that would take them.
func refusal(err error) string {
	var tm *convert.TooManyCasesError
	if !errors.As(err, &tm) {
		return err.Error()
	}
	msg := fmt.Sprintf("%s: more than --max-cases %d; none converted", tm.CountText(), tm.Max)
	if tm.Count <= 10_000_000 {
		msg += fmt.Sprintf(" (--max-cases %d converts them all)", tm.Count)
	}
	return msg
}
