package main

import (
	"encoding/json"
	"fmt"
	"runtime"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/buildinfo"
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
			id := buildinfo.Read(version)
			out := struct {
				Version  string         `json:"version"`
				Revision string         `json:"revision,omitempty"`
				Modified bool           `json:"modified,omitempty"`
				Go       string         `json:"go"`
				OS       string         `json:"os"`
				Arch     string         `json:"arch"`
				Target   *targetVersion `json:"target,omitempty"`
			}{Version: id.Version, Revision: id.Revision, Modified: id.Modified, Go: runtime.Version(), OS: runtime.GOOS, Arch: runtime.GOARCH}
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
