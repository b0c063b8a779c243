package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/chzyer/readline"
	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/shell"
)

func newShellCmd(g *globalFlags) *cobra.Command {
	var isolation string
	cmd := &cobra.Command{
		Use:   "shell [flags]",
		Short: "An interactive session over several connections: N> statement;",
		Long: `shell runs statements as you type them, each line "N> statement;" on connection N
(opened on first use, at --isolation or the DBMS default), a bare statement on the last
connection used. It follows run's execution protocol: a statement that waits on a lock
prints BLOCKED at once and its RESUMED result when it completes, while the other
connections stay usable. The session starts on txlab's emptied database, as a case does.

` + shell.Help + `

With a terminal, lines are edited and kept in a history (~/.txlab_history); otherwise
shell reads a script from stdin, printing each statement with its outcome.`,
		Example: `  txlab shell --db mariadb --isolation rc
  printf '1> CREATE TABLE t (id INT PRIMARY KEY, v INT);\n1> INSERT INTO t VALUES (1, 0);\n1> BEGIN;\n1> UPDATE t SET v = 1 WHERE id = 1;\n2> BEGIN;\n2> UPDATE t SET v = 2 WHERE id = 1;\n1> COMMIT;\n2> COMMIT;\n\\save /tmp/s.txn\n' | txlab shell --db mariadb`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			level, err := parseLevel(isolation)
			if err != nil {
				return err
			}
			t, err := g.openAt(cmd, level)
			if err != nil {
				return err
			}
			defer t.Close()
			ctx := cmd.Context()
			in := cmd.InOrStdin()
			f, isFile := in.(*os.File)
			interactive := isFile && readline.IsTerminal(int(f.Fd()))
			var out io.Writer = cmd.OutOrStdout()
			var rl *readline.Instance
			if interactive {
				home, _ := os.UserHomeDir()
				rl, err = readline.NewEx(&readline.Config{Prompt: "txlab 1> ", HistoryFile: filepath.Join(home, ".txlab_history")})
				if err != nil {
					return exitcode.Fault(err)
				}
				defer rl.Close()
				// Lines printed while you type appear above the prompt.
				out = rl.Stdout()
			}
			sh, err := shell.New(ctx, t, level, g.execOptions(level), out)
			if err != nil {
				return exitcode.Fault(err)
			}
			if interactive {
				fmt.Fprintf(out, "txlab shell on %s %s: N> statement; runs on connection N; \\help for commands, Ctrl-D ends.\n", t.Info().DBMS, termsafe.Line(t.Info().Version))
				pctx, stop := context.WithCancel(ctx)
				defer stop()
				go sh.PollEvery(pctx, 100*time.Millisecond)
			}
			if interactive {
				err = sh.RunTerminal(ctx, rl)
			} else {
				err = sh.RunScript(ctx, in)
			}
			if cerr := sh.Close(); err == nil {
				err = cerr
			}
			if err != nil && !errors.Is(err, shell.ErrQuit) {
				return exitcode.Fault(err)
			}
			return nil
		},
	}
	cmd.Flags().StringVar(&isolation, "isolation", "", "isolation level of every connection (e.g. --isolation rc); \\isolation N L changes one")
	return cmd
}
