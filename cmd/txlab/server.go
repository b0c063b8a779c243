package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/localdb"
)

func newServerCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "server mariadb|postgres [--set key=value]...",
		Short: "Start a throwaway MariaDB or PostgreSQL server and print its DSN",
		Long: `server starts a throwaway server from the binaries installed on this machine
(Debian's mariadb-server and postgresql packages), in its own temporary data
directory on a free loopback port. It prints the server's DSN on stdout — a URL
that --db accepts — and keeps the server until interrupted (Ctrl-C), then stops
it and deletes its directory.`,
		Example: `  txlab server mariadb --set innodb_snapshot_isolation=ON
  # in the background, for other commands (a script):
  txlab server postgres > dsn.txt & until [ -s dsn.txt ]; do sleep 0.2; done
  txlab run --db "$(cat dsn.txt)" case.txn; kill %1`,
		Args:      cobra.ExactArgs(1),
		ValidArgs: []string{"mariadb", "postgres"},
		RunE: func(cmd *cobra.Command, args []string) error {
			kind := localdb.Kind(args[0])
			if kind != localdb.MariaDB && kind != localdb.Postgres {
				return usageErr(fmt.Errorf("unknown server kind %q: want mariadb or postgres", args[0]))
			}
			if err := g.validate(); err != nil {
				return err
			}
			if err := localdb.Available(kind); err != nil {
				return &exitError{code: 2, err: err}
			}
			srv, err := localdb.Start(cmd.Context(), kind, localdb.Options{Settings: g.settings, Log: g.log(cmd)})
			if err != nil {
				return &exitError{code: 2, err: err}
			}
			defer srv.Stop()
			fmt.Fprintln(cmd.OutOrStdout(), srv.DSN())
			fmt.Fprintf(cmd.ErrOrStderr(), "txlab server: %s ready; press Ctrl-C to stop and delete it\n", kind)
			select {
			case <-cmd.Context().Done():
				fmt.Fprintf(cmd.ErrOrStderr(), "txlab server: stopping %s\n", kind)
				return nil
			case <-srv.Done():
				why, _, _ := strings.Cut(fmt.Sprint(srv.Stop()), "\n")
				return &exitError{code: 2, err: fmt.Errorf("the %s server process died: %s", kind, why)}
			}
		},
	}
}
