package main

import (
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

func newVersionCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print txlab's version, and the server's when --db is given",
		Example: `  txlab version
  txlab version --db postgres://me@localhost/postgres`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			v := version
			if bi, ok := debug.ReadBuildInfo(); ok && v == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
				v = bi.Main.Version
			}
			fmt.Fprintf(cmd.OutOrStdout(), "txlab %s (%s %s/%s)\n", v, runtime.Version(), runtime.GOOS, runtime.GOARCH)
			if !cmd.Flags().Changed("db") {
				return nil
			}
			t, err := g.open(cmd)
			if err != nil {
				return err
			}
			defer t.Close()
			info := t.Info()
			fmt.Fprintf(cmd.OutOrStdout(), "target %s %s\n", info.DBMS, info.Version)
			return nil
		},
	}
}
