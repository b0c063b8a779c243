// Command txlab finds transaction and isolation bugs in relational databases.
// This file only turns flags into configuration and calls the packages that
// do the work.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"strings"
	"syscall"

	"github.com/spf13/cobra"
	"golang.org/x/term"

	"github.com/txlab/txlab/internal/buildinfo"
	"github.com/txlab/txlab/internal/crash"
	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/memlimit"
	"github.com/txlab/txlab/internal/termsafe"
)

func main() {
	memlimit.Set()
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, os.Args[1:], os.Stdout, os.Stderr)
	stop()
	os.Exit(code)
}

// run executes the command line and returns the process exit code.
func run(ctx context.Context, args []string, stdout, stderr io.Writer) int {
	return runIO(ctx, args, os.Stdin, stdout, stderr)
}

// runIO is run with stdin given (txlab shell reads its script from it).
// A panic in the command is exit 2 with one line, like any other failure:
// the commands' deferred cleanup (stopping a throwaway server, dropping
// the case account) has run by then, as the panic unwound through it.
func runIO(ctx context.Context, args []string, stdin io.Reader, stdout, stderr io.Writer) int {
	prof := &profiles{}
	return execute(ctx, newRoot(prof), prof, args, stdin, stdout, stderr)
}

// execute runs root's command line and returns the exit code.
func execute(ctx context.Context, root *cobra.Command, prof *profiles, args []string, stdin io.Reader, stdout, stderr io.Writer) (code int) {
	var crashed error
	defer func() {
		if crashed != nil {
			fmt.Fprintln(stderr, "txlab:", oneLine(crashed))
			code = 2
		}
	}()
	defer crash.Recover(&crashed)
	root.SetArgs(args)
	root.SetIn(stdin)
	root.SetOut(stdout)
	root.SetErr(stderr)
	err := root.ExecuteContext(ctx)
	if perr := prof.stop(); perr != nil && err == nil {
		err = exitcode.Fault(perr)
	}
	if err == nil {
		return 0
	}
	var ee *exitcode.Error
	if errors.As(err, &ee) {
		if ee.Err != nil {
			fmt.Fprintln(stderr, "txlab:", oneLine(ee.Err))
		}
		return ee.Code
	}
	fmt.Fprintln(stderr, "txlab:", oneLine(err))
	return 2
}

// isTerminal says whether w is a terminal, where a progress line is
// redrawn in place.
func isTerminal(w io.Writer) bool {
	f, ok := w.(*os.File)
	return ok && term.IsTerminal(int(f.Fd()))
}

// oneLine is an error's message on one line, safe to print on a terminal
// (it may quote a case, a value or a server's message: termsafe): joined
// errors (several workers or sessions failing together) are separated by
// "; ".
func oneLine(err error) string {
	return termsafe.Line(strings.ReplaceAll(strings.TrimSpace(err.Error()), "\n", "; "))
}

func newRoot(prof *profiles) *cobra.Command {
	g := &globalFlags{}
	root := &cobra.Command{
		Use:   "txlab",
		Short: "Find transaction and isolation bugs in relational databases",
		Long: `txlab runs interleaved transactions on a real database, detects blocking by
asking the server, and checks what happened against what the DBMS promises.

Targets (--db): sqlite (default, embedded, a fresh temporary file), sqlite:PATH;
a throwaway local server for the duration of the command: mariadb or postgres
(Debian's binaries), postgres@VERSION (a PostgreSQL release txlab installs:
postgres@18, postgres@12.22), tidb (TiDB v8.5.6, built once), KIND@/path/to/bin
(your own build); or a URL: mysql://, mariadb://, tidb://, postgres://,
postgresql://, cockroach://.`,
		Example: `  txlab fuzz                                   # 60 s of random cases on embedded SQLite
  txlab run --db mariadb --isolation rc case.txn
  txlab fuzz --db postgres@18 --isolation all  # PostgreSQL 18, installed on first use
  txlab server postgres                        # prints a DSN to use with --db`,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	g.register(root)
	root.PersistentFlags().StringVar(&prof.cpu, "cpuprofile", "", "write a CPU profile of the command to FILE, for go tool pprof (e.g. --cpuprofile cpu.out)")
	root.PersistentFlags().StringVar(&prof.mem, "memprofile", "", "write an allocation profile of the command to FILE when it ends (e.g. --memprofile mem.out)")
	root.PersistentPreRunE = func(*cobra.Command, []string) error { return prof.start() }
	root.Version = buildinfo.Read(version).String()
	root.SetVersionTemplate("txlab {{.Version}}\n")
	root.AddCommand(newRunCmd(g), newFuzzCmd(g), newCheckCmd(g), newServerCmd(g), newInstallCmd(g), newImportCmd(), newBugsCmd(g), newReduceCmd(g), newReportCmd(), newShellCmd(g), newVersionCmd(g))
	root.SetFlagErrorFunc(func(c *cobra.Command, err error) error {
		return exitcode.Fault(fmt.Errorf("%w (see '%s --help')", err, c.CommandPath()))
	})
	return root
}
