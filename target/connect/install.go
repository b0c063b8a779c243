package connect

import (
	"context"
	"fmt"
	"io"
	"path/filepath"
	"strings"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/pgrelease"
)

// Installed is a server release in txlab's cache: what --db Spec uses
// without fetching or building it first.
type Installed struct {
	Spec    string `json:"spec"`
	Version string `json:"version"`
	Dir     string `json:"dir"`
}

// ListInstalled lists the PostgreSQL releases in txlab's cache and
// txlab's builds of TiDB and txlab-duckdb.
func ListInstalled() ([]Installed, error) {
	cache, err := pgrelease.CacheDir()
	if err != nil {
		return nil, err
	}
	rels, err := pgrelease.Installed(cache)
	if err != nil {
		return nil, err
	}
	var out []Installed
	for _, r := range rels {
		out = append(out, Installed{Spec: "postgres@" + r.Package, Version: r.Version, Dir: r.Dir})
	}
	if bin, ok := localdb.DuckDBInstalled(); ok {
		out = append(out, Installed{Spec: "duckdb", Version: localdb.DuckDBVersion, Dir: filepath.Dir(bin)})
	}
	if bin, ok := localdb.TiDBInstalled(); ok {
		out = append(out, Installed{Spec: "tidb", Version: localdb.TiDBVersion, Dir: filepath.Dir(bin)})
	}
	return out, nil
}

// Install fetches or builds what --db spec would on first use, logging
// its progress to log: the newest PostgreSQL release matching
// postgres@VERSION (always asking the registry, unlike --db, which keeps
// using a release it has), or TiDB's server, built once.
func Install(ctx context.Context, spec string, log io.Writer) (Installed, error) {
	kind, ver, _ := strings.Cut(spec, "@")
	switch strings.ToLower(kind) {
	case "postgres", "postgresql":
		if ver == "" {
			return Installed{}, fmt.Errorf("which release? e.g. postgres@18")
		}
		r, err := pgrelease.Install(ctx, ver, pgrelease.Options{Log: log})
		if err != nil {
			return Installed{}, err
		}
		return Installed{Spec: spec, Version: "PostgreSQL " + r.Version, Dir: r.Dir}, nil
	case "duckdb":
		if ver != "" && ver != localdb.DuckDBVersion && ver != "v"+localdb.DuckDBVersion {
			return Installed{}, fmt.Errorf("this txlab builds DuckDB %s only (duckdb)", localdb.DuckDBVersion)
		}
		path, err := localdb.InstallDuckDB(ctx, log)
		if err != nil {
			return Installed{}, err
		}
		return Installed{Spec: "duckdb", Version: "DuckDB " + localdb.DuckDBVersion, Dir: path}, nil
	case "tidb":
		if err := localdb.CheckTiDBVersion(ver); err != nil {
			return Installed{}, err
		}
		path, err := localdb.InstallTiDB(ctx, log)
		if err != nil {
			return Installed{}, err
		}
		return Installed{Spec: "tidb", Version: "TiDB " + localdb.TiDBVersion, Dir: path}, nil
	}
	return Installed{}, fmt.Errorf("txlab installs postgres@VERSION, tidb and duckdb (MariaDB comes from Debian's mariadb-server)")
}
