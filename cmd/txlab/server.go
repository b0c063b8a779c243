package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/target/connect"
)

func newServerCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "server mariadb|postgres|postgres@VERSION|tidb|KIND@/path [--set key=value]...",
		Short: "Start a throwaway MariaDB, PostgreSQL or TiDB server and print its DSN",
		Long: `server starts a throwaway server, in its own temporary data directory on a
free loopback port: mariadb and postgres run the binaries installed on this
machine (Debian's mariadb-server and postgresql packages), postgres@VERSION a
PostgreSQL release txlab installs on first use (see txlab install), tidb
TiDB v8.5.6 built once from its Go module, and KIND@/path/to/bin your own
build. It prints the server's DSN on stdout — a URL
that --db accepts — and keeps the server until interrupted (Ctrl-C), then stops
it and deletes its directory.`,
		Example: `  txlab server mariadb --set innodb_snapshot_isolation=ON
  txlab server postgres@18
  txlab server postgres@/usr/local/pgsql/bin   # your own build
  # in the background, for other commands (a script):
  txlab server postgres > dsn.txt & until [ -s dsn.txt ]; do sleep 0.2; done
  txlab run --db "$(cat dsn.txt)" case.txn; kill %1`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if err := g.validate(); err != nil {
				return err
			}
			srv, err := connect.StartServer(cmd.Context(), args[0], connect.Options{Settings: g.settings, Log: g.log(cmd), Progress: cmd.ErrOrStderr()})
			if err != nil {
				return exitcode.Fault(err)
			}
			kind := args[0]
			defer srv.Stop()
			fmt.Fprintln(cmd.OutOrStdout(), srv.DSN())
			fmt.Fprintf(cmd.ErrOrStderr(), "txlab server: %s ready; press Ctrl-C to stop and delete it\n", kind)
			select {
			case <-cmd.Context().Done():
				fmt.Fprintf(cmd.ErrOrStderr(), "txlab server: stopping %s\n", kind)
				return nil
			case <-srv.Done():
				why, _, _ := strings.Cut(fmt.Sprint(srv.Stop()), "\n")
				return exitcode.Fault(fmt.Errorf("the %s server process died: %s", kind, why))
			}
		},
	}
}
