package main

import (
	"encoding/json"
	"fmt"
	"runtime"
	"runtime/debug"

	"github.com/spf13/cobra"
)

// version is set at build time with -ldflags "-X main.version=v1.2.3".
var version = "dev"

// targetVersion is the server part of `txlab version --json`.
type targetVersion struct {
	DBMS    string `json:"dbms"`
	Version string `json:"version"`
}

func newVersionCmd(g *globalFlags) *cobra.Command {
	return &cobra.Command{
		Use:   "version",
		Short: "Print txlab's version, and the server's when --db is given",
		Example: `  txlab version
  txlab version --db postgres://me@localhost/postgres
  txlab version --json --db sqlite`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, args []string) error {
			id := buildIdentity()
			out := struct {
				Version  string         `json:"version"`
				Revision string         `json:"revision,omitempty"`
				Modified bool           `json:"modified,omitempty"`
				Go       string         `json:"go"`
				OS       string         `json:"os"`
				Arch     string         `json:"arch"`
				Target   *targetVersion `json:"target,omitempty"`
			}{Version: id.version, Revision: id.revision, Modified: id.modified, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
			if cmd.Flags().Changed("db") {
				t, err := g.open(cmd)
				if err != nil {
					return err
				}
				defer t.Close()
				info := t.Info()
				out.Target = &targetVersion{info.DBMS, info.Version}
			}
			if g.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				return enc.Encode(out)
			}
			fmt.Fprintf(cmd.OutOrStdout(), "txlab %s (%s %s/%s)\n", id, out.Go, out.OS, out.Arch)
			if out.Target != nil {
				fmt.Fprintf(cmd.OutOrStdout(), "target %s %s\n", out.Target.DBMS, out.Target.Version)
			}
			return nil
		},
	}
}

// identity is what a build knows of itself: the module version (a tagged
// release under `go install …@vX`, else "dev" or -ldflags' value) and the
// VCS revision `go build` stamps in a checkout.
type identity struct {
	version  string
	revision string
	modified bool
}

func buildIdentity() identity {
	id := identity{version: version}
	bi, ok := debug.ReadBuildInfo()
	if !ok {
		return id
	}
	if id.version == "dev" && bi.Main.Version != "" && bi.Main.Version != "(devel)" {
		id.version = bi.Main.Version
	}
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			id.revision = s.Value
		case "vcs.modified":
			id.modified = s.Value == "true"
		}
	}
	return id
}

// String is the identity on one line: "v1.2.3", "dev (revision 0b69b1a2c3d4)"
// or "dev (revision 0b69b1a2c3d4, modified)".
func (id identity) String() string {
	if id.revision == "" {
		return id.version
	}
	rev := id.revision
	if len(rev) > 12 {
		rev = rev[:12]
	}
	if id.modified {
		return fmt.Sprintf("%s (revision %s, modified)", id.version, rev)
	}
	return fmt.Sprintf("%s (revision %s)", id.version, rev)
}
