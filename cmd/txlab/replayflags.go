package main

import (
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/report"
)

// applyReplay gives the flags the command line leaves unset the values the
// arguments (bundle directories, case files) record for reproducing their
// finding (report.ReadReplay), and says on stderr what it took.
func applyReplay(cmd *cobra.Command, paths []string) error {
	fs := cmd.Flags()
	set, notes, err := report.ReadReplay(paths, cmd.Name(), func(name string) (report.CommandFlag, bool) {
		f := fs.Lookup(name)
		if f == nil {
			return report.CommandFlag{}, false
		}
		return report.CommandFlag{Bool: f.Value.Type() == "bool", Given: f.Changed, Value: f.Value.String()}, true
	})
	for _, n := range notes {
		fmt.Fprintf(cmd.ErrOrStderr(), "txlab: %s\n", termsafe.Text(n))
	}
	if err != nil {
		return err
	}
	var took []string
	for _, f := range set {
		if err := fs.Set(f.Name, f.Value); err != nil {
			return fmt.Errorf("replay header: --%s %s: %w", f.Name, f.Value, err)
		}
		took = append(took, "--"+f.Name)
		if !f.Bool {
			took = append(took, f.Value)
		}
	}
	if len(took) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "txlab: replaying with the case's %s\n", termsafe.Line(strings.Join(took, " ")))
	}
	return nil
}
