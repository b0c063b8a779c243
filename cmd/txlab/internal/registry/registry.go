// Package registry is the list of oracles the command line offers and the
// binding of their flags: which oracles --oracle chooses, each one's own
// flags, and the typed constructors that build the chosen ones for a
// target. It belongs to the command layer; the oracles export what it needs
// to build them and know nothing of flags.
package registry

import (
	"context"
	"fmt"
	"io"
	"slices"
	"strings"

	"github.com/spf13/pflag"

	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/semantics/model/conform"
)

// Common holds the settings every oracle may honour; the command line owns
// their flags.
type Common struct {
	// Model judges against a textbook model instead of what the DBMS
	// documents (--model, parsed once by semantics.ParseModel); "" = the
	// DBMS's documented semantics.
	Model semantics.Model
	// Strict makes every violation of the level's textbook definition a bug
	// (--strict).
	Strict bool
	// Sessions is the number of concurrent sessions of a free-running oracle
	// (--sessions); 0 = the oracle's default.
	Sessions int
}

// Env is what an oracle is built with once the target is open.
type Env struct {
	Common
	// Settings are the server settings the semantics table depends on
	// (read from the server, --set on top).
	Settings map[string]string
	// Seen says whether a finding signature was recorded already
	// (report.Writer.Seen); nil = none was. An oracle only reads it, to
	// skip costly evidence for a repeat the writer only counts.
	Seen func(sig string) bool
	// Model judges executions against each DBMS's documented semantics;
	// one checker serves every oracle of a set, and each fuzz worker has a
	// set of its own (Build makes one when it is nil).
	Model *conform.Checker
}

// Factory builds one oracle from its flags: a case oracle or, when Free, a
// workload, each with its own typed constructor.
type Factory interface {
	// Validate checks the oracle's flags, and the common settings it
	// uses, before any server is started; it may fill in defaults.
	Validate(c *Common) error
	// Free reports whether the oracle, as configured, runs a workload of
	// its own (NewWorkload) rather than judging cases (NewCase).
	Free() bool
	// NewCase builds the case oracle (when not Free).
	NewCase(ctx context.Context, env Env) (oracle.CaseOracle, error)
	// NewWorkload builds the workload (when Free).
	NewWorkload(ctx context.Context, env Env) (oracle.Workload, error)
}

// Entry is one oracle in the registry.
type Entry struct {
	Name string
	// Help is one line for --help.
	Help string
	// Default oracles judge when --oracle is not given (and with
	// --oracle all): the relational case oracles.
	Default bool
	// Judges says the oracle honours --model and --strict.
	Judges bool
	// Flags registers the oracle's own flags on fs (generating: for `txlab
	// fuzz`, otherwise for `txlab run`) and returns the factory that reads
	// them.
	Flags func(fs *pflag.FlagSet, generating bool) Factory
}

// Registry is the list of oracles the command line offers.
type Registry struct {
	entries []Entry
}

// NewRegistry returns a registry of the given oracles, in the order they
// run and are listed.
func NewRegistry(entries ...Entry) *Registry {
	return &Registry{entries: entries}
}

// Names lists the registered oracles.
func (r *Registry) Names() []string {
	out := make([]string, len(r.entries))
	for i, e := range r.entries {
		out[i] = e.Name
	}
	return out
}

// Defaults lists the oracles that judge when --oracle is not given.
func (r *Registry) Defaults() []string {
	var out []string
	for _, e := range r.entries {
		if e.Default {
			out = append(out, e.Name)
		}
	}
	return out
}

// Help describes the --oracle flag.
func (r *Registry) Help() string {
	var b strings.Builder
	fmt.Fprintf(&b, "oracles that judge: a comma-separated list, all or none (cases only run); default %s (= all):",
		strings.Join(r.Defaults(), ","))
	for _, e := range r.entries {
		fmt.Fprintf(&b, "\n  %s: %s", e.Name, e.Help)
	}
	b.WriteString("\n(e.g. --oracle wss or --oracle isorel --mode stress)")
	return b.String()
}

// Bound is the registry with every oracle's flags registered on one
// command.
type Bound struct {
	r         *Registry
	fs        *pflag.FlagSet
	factories []Factory
	owned     [][]string // flag names each entry registered
}

// Bind registers every oracle's own flags on fs.
func (r *Registry) Bind(fs *pflag.FlagSet, generating bool) *Bound {
	b := &Bound{r: r, fs: fs}
	for _, e := range r.entries {
		before := map[string]bool{}
		fs.VisitAll(func(f *pflag.Flag) { before[f.Name] = true })
		var f Factory
		if e.Flags != nil {
			f = e.Flags(fs, generating)
		}
		var owned []string
		fs.VisitAll(func(fl *pflag.Flag) {
			if !before[fl.Name] {
				owned = append(owned, fl.Name)
			}
		})
		b.factories = append(b.factories, f)
		b.owned = append(b.owned, owned)
	}
	return b
}

// Selection is the oracles chosen with --oracle, validated.
type Selection struct {
	names     []string
	factories []Factory
	free      bool
}

// Select resolves an --oracle value ("" for the default) and validates the
// chosen oracles' flags and the common settings: a flag of an oracle that
// was not chosen, or --model/--strict without an oracle that honours them,
// is a usage error.
func (b *Bound) Select(list string, c *Common) (*Selection, error) {
	idx, err := b.parse(list)
	if err != nil {
		return nil, err
	}
	chosen := map[int]bool{}
	for _, i := range idx {
		chosen[i] = true
	}
	for i, owned := range b.owned {
		if chosen[i] {
			continue
		}
		for _, name := range owned {
			if f := b.fs.Lookup(name); f != nil && f.Changed {
				return nil, fmt.Errorf("--%s applies to --oracle %s", name, b.r.entries[i].Name)
			}
		}
	}
	if c.Model != "" || c.Strict {
		judges := false
		var names []string
		for i, e := range b.r.entries {
			if e.Judges {
				names = append(names, e.Name)
				judges = judges || chosen[i]
			}
		}
		if !judges {
			return nil, fmt.Errorf("--model and --strict apply to --oracle %s", orList(names))
		}
	}
	s := &Selection{}
	for _, i := range idx {
		f := b.factories[i]
		if f == nil {
			return nil, fmt.Errorf("--oracle %s does not apply to this command", b.r.entries[i].Name)
		}
		if err := f.Validate(c); err != nil {
			return nil, err
		}
		s.names = append(s.names, b.r.entries[i].Name)
		s.factories = append(s.factories, f)
		s.free = s.free || f.Free()
	}
	if s.free && len(idx) > 1 {
		return nil, fmt.Errorf("--oracle %s: %s runs a workload of its own; choose it alone", list, s.freeName())
	}
	return s, nil
}

func (s *Selection) freeName() string {
	for i, f := range s.factories {
		if f.Free() {
			return s.names[i]
		}
	}
	return ""
}

// parse turns an --oracle value into entry indexes.
func (b *Bound) parse(list string) ([]int, error) {
	list = strings.TrimSpace(list)
	var names []string
	switch strings.ToLower(list) {
	case "":
		names = b.r.Defaults()
	case "all":
		names = b.r.Defaults()
	case "none":
		return nil, nil
	default:
		names = strings.Split(list, ",")
	}
	var idx []int
	for _, n := range names {
		n = strings.ToLower(strings.TrimSpace(n))
		i := slices.IndexFunc(b.r.entries, func(e Entry) bool { return e.Name == n })
		if i < 0 {
			return nil, fmt.Errorf("unknown oracle %q: want none, %s (or a comma-separated list, or all)", n, orList(b.r.Names()))
		}
		if slices.Contains(idx, i) {
			continue
		}
		idx = append(idx, i)
	}
	slices.Sort(idx) // registry order: the order oracles run and are listed
	return idx, nil
}

// Names lists the chosen oracles.
func (s *Selection) Names() []string { return s.names }

// Free reports whether the selection is one free-running workload.
func (s *Selection) Free() bool { return s.free }

// Build makes the chosen oracles for a target: the case oracles, or the
// one workload when the selection is Free.
func (s *Selection) Build(ctx context.Context, env Env) ([]oracle.CaseOracle, oracle.Workload, error) {
	if env.Model == nil {
		env.Model = &conform.Checker{Settings: env.Settings}
	}
	var cases []oracle.CaseOracle
	for i, f := range s.factories {
		if f.Free() {
			w, err := f.NewWorkload(ctx, env)
			if err != nil {
				return nil, nil, fmt.Errorf("%s: %w", s.names[i], err)
			}
			return nil, w, nil
		}
		o, err := f.NewCase(ctx, env)
		if err != nil {
			return nil, nil, fmt.Errorf("%s: %w", s.names[i], err)
		}
		cases = append(cases, o)
	}
	return cases, nil, nil
}

// orList joins names as "a, b or c".
func orList(names []string) string {
	switch len(names) {
	case 0:
		return ""
	case 1:
		return names[0]
	}
	return strings.Join(names[:len(names)-1], ", ") + " or " + names[len(names)-1]
}

// Sets builds sets of a selection's oracles, each with a model checker of
// its own, and keeps what it built so that Close can release it.
type Sets struct {
	sel      *Selection
	env      Env
	built    []oracle.CaseOracle
	checkers []*conform.Checker
}

// Sets returns the builder of s's oracle sets in env; env.Model is
// ignored: each set gets a checker of its own.
func (s *Selection) Sets(env Env) *Sets {
	env.Model = nil
	return &Sets{sel: s, env: env}
}

// Build makes one set of the selected oracles with a model checker of its
// own. The oracles only judge: what they return goes to the command's one
// writer, which they may only ask whether a signature was recorded already
// (Env.Seen).
func (b *Sets) Build(ctx context.Context) ([]oracle.CaseOracle, oracle.Workload, error) {
	env := b.env
	env.Model = &conform.Checker{Settings: env.Settings}
	b.checkers = append(b.checkers, env.Model)
	cases, work, err := b.sel.Build(ctx, env)
	b.built = append(b.built, cases...)
	return cases, work, err
}

// PerWorker gives each of n fuzz workers a set of the case oracles of its
// own: first (a set Build made), then n-1 more, so that what an oracle
// keeps beside a target (its caches, the model's evaluator sessions,
// IsoRel's sibling schema) is one worker's.
func (b *Sets) PerWorker(ctx context.Context, first []oracle.CaseOracle, n int) ([][]oracle.CaseOracle, error) {
	if len(first) == 0 {
		return nil, nil
	}
	sets := [][]oracle.CaseOracle{first}
	for len(sets) < n {
		cases, _, err := b.Build(ctx)
		if err != nil {
			return nil, err
		}
		sets = append(sets, cases)
	}
	return sets, nil
}

// Close releases the connections the oracles opened for themselves
// (IsoRel's sibling schema, the model's evaluator sessions); it comes
// before the targets close.
func (b *Sets) Close() {
	for _, c := range b.built {
		if cl, ok := c.(io.Closer); ok {
			cl.Close()
		}
	}
	for _, c := range b.checkers {
		c.Close()
	}
}
