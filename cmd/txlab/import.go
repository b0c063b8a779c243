package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/convert"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
)

func newImportCmd() *cobra.Command {
	var from, out, setup string
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
Cases go to stdout, or one file each into --out DIR.`,
		Example: `  txlab import --from troc cases/mariadb27992.txt > mdev-27992.txn
  txlab import --from writecheck --out imported/ test.txt
  txlab import --from replbug --out imported/ ReplBug/src/testcase/bug_list/MDEV-*.py
  txlab import --from pg-isolation --out imported/ src/test/isolation/specs/lock-update-delete.spec
  txlab import --from mysql-test --out imported/ mysql-test/suite/innodb/t/lock_insert_into_empty.test
  txlab run --db mariadb imported/test-1.txn`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if from == "" {
				return usageErr(fmt.Errorf("--from is required: one of %s", strings.Join(convert.Formats, ", ")))
			}
			if out != "" {
				if err := os.MkdirAll(out, 0o755); err != nil {
					return exitcode.Fault(err)
				}
			}
			first := true
			failed := 0
			var names convert.Names
			for _, path := range args {
				// A file that cannot be read or converted is said on its
				// own line and the others still convert, as in txlab run;
				// the exit status then says something failed.
				cases, err := convert.File(from, path, setup, func(w string) {
					fmt.Fprintf(cmd.ErrOrStderr(), "txlab: warning: %s\n", termsafe.Text(w))
				})
				if err != nil {
					failed++
					fmt.Fprintf(cmd.ErrOrStderr(), "txlab: %s: %s\n", termsafe.Line(path), termsafe.Text(err.Error()))
					continue
				}
				for i, c := range cases {
					if out == "" {
						if !first {
							fmt.Fprintln(cmd.OutOrStdout())
						}
						first = false
						fmt.Fprint(cmd.OutOrStdout(), c.String())
						continue
					}
					dst := filepath.Join(out, names.Next(path, i, len(cases)))
					if err := atomicfile.WriteFile(dst, []byte(c.String()), 0o644); err != nil {
						return exitcode.Fault(err)
					}
					fmt.Fprintln(cmd.ErrOrStderr(), "wrote", dst)
				}
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
	return cmd
}
