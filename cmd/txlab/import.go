package main

import (
	"bytes"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/convert"
	"github.com/txlab/txlab/internal/atomicfile"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/testcase"
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
					return &exitError{code: 2, err: err}
				}
			}
			first := true
			failed := 0
			// A file's cases are base-1.txn, base-2.txn, …: a file named
			// base-2 (PostgreSQL has nowait.spec and nowait-2.spec) must
			// not overwrite another's case.
			written := map[string]bool{}
			for _, path := range args {
				// A file that cannot be read or converted is said on its
				// own line and the others still convert, as in txlab run;
				// the exit status then says something failed.
				cases, err := importFile(from, path, setup, cmd.ErrOrStderr())
				if err != nil {
					failed++
					fmt.Fprintf(cmd.ErrOrStderr(), "txlab: %s: %v\n", path, err)
					continue
				}
				base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
				for i, c := range cases {
					if out == "" {
						if !first {
							fmt.Fprintln(cmd.OutOrStdout())
						}
						first = false
						fmt.Fprint(cmd.OutOrStdout(), c.String())
						continue
					}
					name := base + ".txn"
					if len(cases) > 1 {
						name = fmt.Sprintf("%s-%d.txn", base, i+1)
					}
					dst := filepath.Join(out, name)
					for n := 2; written[dst]; n++ {
						dst = filepath.Join(out, fmt.Sprintf("%s.%d.txn", strings.TrimSuffix(name, ".txn"), n))
					}
					written[dst] = true
					if err := atomicfile.WriteFile(dst, []byte(c.String()), 0o644); err != nil {
						return &exitError{code: 2, err: err}
					}
					fmt.Fprintln(cmd.ErrOrStderr(), "wrote", dst)
				}
			}
			if failed > 0 {
				return &exitError{code: 2, err: fmt.Errorf("%d of %s not converted", failed, english.Plural(len(args), "file"))}
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&from, "from", "", "the source format: "+strings.Join(convert.Formats, ", ")+" (e.g. --from troc)")
	cmd.Flags().StringVar(&out, "out", "", "write one case file per case into DIR instead of stdout (e.g. --out imported/)")
	cmd.Flags().StringVar(&setup, "setup", "", "a mysqldump file whose tables and rows become the setup of every case that has none; for\nReplBug, data/sql/BUG_mysql_bk.sql beside the modules is found by itself (e.g. --setup db.sql)")
	return cmd
}

// importFile converts the cases of one file and gives them their setup.
// A file that is not UTF-8 is refused with its line and byte offset, as
// txlab run refuses such a case file: its statements would reach the
// server as UTF-8, and another encoding's bytes read differently there.
func importFile(from, path, setup string, warn io.Writer) ([]*testcase.Case, error) {
	b, err := readUTF8(path, "") // the caller names the file
	if err != nil {
		return nil, err
	}
	cases, err := convert.Parse(from, path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	for _, c := range cases {
		if err := addDumpSetup(c, from, path, setup, warn); err != nil {
			return nil, err
		}
	}
	return cases, nil
}

// addDumpSetup gives a case without setup the tables and rows of a database
// dump: the one named by --setup, or, for a ReplBug module, the dump
// ReplBug keeps for the bug (TxCheck's scenarios run on such databases).
// A dump found by itself that cannot be read is said on warn, and the case
// keeps no setup.
func addDumpSetup(c *testcase.Case, from, module, setup string, warn io.Writer) error {
	if len(c.Setup) > 0 {
		return nil
	}
	dump, found := setup, false
	if dump == "" && from == "replbug" {
		dump, found = convert.ReplBugDump(module, c.Known.Bug), true
	}
	if dump == "" {
		return nil
	}
	stmts, err := readDump(dump)
	if err != nil && found {
		fmt.Fprintf(warn, "txlab: warning: %v; the case has no setup\n", err)
		return nil
	}
	if err != nil {
		return err
	}
	c.Setup = stmts
	c.Comments = append(c.Comments, "The setup is the tables and rows of "+filepath.Base(dump)+" (a database dump), its CREATE TABLE and INSERT statements only.")
	return nil
}

func readDump(path string) ([]string, error) {
	b, err := readUTF8(path, path)
	if err != nil {
		return nil, err
	}
	return convert.DumpSetup(path, bytes.NewReader(b))
}

// readUTF8 reads a file to convert, refusing one that is not UTF-8; the
// refusal names the file as name ("": only the line).
func readUTF8(path, name string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := testcase.CheckUTF8(name, string(b)); err != nil {
		return nil, err
	}
	return b, nil
}
