package registry_test

import (
	"context"
	"slices"
	"strings"
	"testing"

	"github.com/spf13/pflag"

	"github.com/txlab/txlab/cmd/txlab/internal/registry"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/semantics"
)

// fake is a registered oracle that records how it was configured.
type fake struct {
	free     bool
	depth    int
	validate func(c *registry.Common) error
}

func (f *fake) Validate(c *registry.Common) error {
	if f.validate != nil {
		return f.validate(c)
	}
	return nil
}
func (f *fake) Free() bool { return f.free }
func (f *fake) NewCase(context.Context, registry.Env) (oracle.CaseOracle, error) {
	return nil, nil
}
func (f *fake) NewWorkload(context.Context, registry.Env) (oracle.Workload, error) {
	return nil, nil
}

func fakes() *registry.Registry {
	return registry.NewRegistry(
		registry.Entry{Name: "a", Default: true, Flags: func(fs *pflag.FlagSet, gen bool) registry.Factory {
			f := &fake{}
			fs.IntVar(&f.depth, "depth", 3, "a: depth")
			return f
		}},
		registry.Entry{Name: "b", Default: true, Judges: true, Flags: func(*pflag.FlagSet, bool) registry.Factory { return &fake{} }},
		registry.Entry{Name: "w", Judges: true, Flags: func(fs *pflag.FlagSet, gen bool) registry.Factory {
			if !gen {
				return nil
			}
			f := &fake{free: true}
			fs.Bool("lwt", false, "w: lwt")
			return f
		}},
	)
}

func TestSelect(t *testing.T) {
	tests := []struct {
		list    string
		args    []string
		model   string
		run     bool // bound for `txlab run` (not generating)
		want    []string
		free    bool
		wantErr string
	}{
		{list: "", want: []string{"a", "b"}},
		{list: "all", want: []string{"a", "b"}},
		{list: "none", want: nil},
		{list: "b,a", want: []string{"a", "b"}},
		{list: " B , a,a", want: []string{"a", "b"}},
		{list: "w", want: []string{"w"}, free: true},
		{list: "c", wantErr: `unknown oracle "c": want none, a, b or w`},
		{list: "a,w", wantErr: "w runs a workload of its own; choose it alone"},
		{list: "b", args: []string{"--depth", "4"}, wantErr: "--depth applies to --oracle a"},
		{list: "a", args: []string{"--lwt"}, wantErr: "--lwt applies to --oracle w"},
		{list: "a", args: []string{"--depth", "4"}, want: []string{"a"}},
		{list: "a", model: "serializable", wantErr: "--model and --strict apply to --oracle b or w"},
		{list: "", model: "serializable", want: []string{"a", "b"}},
		{list: "w", run: true, wantErr: "--oracle w does not apply to this command"},
	}
	for _, tt := range tests {
		fs := pflag.NewFlagSet("test", pflag.ContinueOnError)
		b := fakes().Bind(fs, !tt.run)
		if err := fs.Parse(tt.args); err != nil {
			t.Fatal(err)
		}
		sel, err := b.Select(tt.list, &registry.Common{Model: semantics.Model(tt.model)})
		if tt.wantErr != "" {
			if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
				t.Errorf("Select(%q, %v): error %v, want %q", tt.list, tt.args, err, tt.wantErr)
			}
			continue
		}
		if err != nil {
			t.Errorf("Select(%q, %v): %v", tt.list, tt.args, err)
			continue
		}
		if !slices.Equal(sel.Names(), tt.want) || sel.Free() != tt.free {
			t.Errorf("Select(%q): %v free %v, want %v free %v", tt.list, sel.Names(), sel.Free(), tt.want, tt.free)
		}
	}
}

func TestHelpNamesEveryOracle(t *testing.T) {
	h := fakes().Help()
	for _, want := range []string{"default a,b", "\n  w:"} {
		if !strings.Contains(h, want) {
			t.Errorf("help lacks %q:\n%s", want, h)
		}
	}
}

// closer is a case oracle that records the model checker it was built with
// and whether it was closed.
type closer struct {
	oracle.CaseOracle
	env    registry.Env
	closed bool
}

func (c *closer) Close() error { c.closed = true; return nil }

type closerFactory struct {
	fake
	built *[]*closer
}

func (f *closerFactory) NewCase(_ context.Context, env registry.Env) (oracle.CaseOracle, error) {
	c := &closer{env: env}
	*f.built = append(*f.built, c)
	return c, nil
}

// TestSets: each set has a model checker of its own, every fuzz worker a
// set, and Close closes every oracle built.
func TestSets(t *testing.T) {
	var built []*closer
	r := registry.NewRegistry(registry.Entry{Name: "c", Default: true, Flags: func(*pflag.FlagSet, bool) registry.Factory {
		return &closerFactory{built: &built}
	}})
	sel, err := r.Bind(pflag.NewFlagSet("x", pflag.ContinueOnError), true).Select("", &registry.Common{})
	if err != nil {
		t.Fatal(err)
	}
	sets := sel.Sets(registry.Env{Settings: map[string]string{"k": "v"}})
	first, _, err := sets.Build(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	per, err := sets.PerWorker(context.Background(), first, 3)
	if err != nil || len(per) != 3 || len(built) != 3 || per[0][0] != first[0] {
		t.Fatalf("PerWorker: %d sets, %d built, %v", len(per), len(built), err)
	}
	if built[0].env.Model == nil || built[0].env.Model == built[1].env.Model || built[1].env.Settings["k"] != "v" {
		t.Error("the sets share a model checker, or lack the settings")
	}
	sets.Close()
	for i, c := range built {
		if !c.closed {
			t.Errorf("oracle %d not closed", i)
		}
	}
}
