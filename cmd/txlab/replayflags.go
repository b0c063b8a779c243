package main

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/testcase"
)

// bundleCases turns bundle directories among run's arguments into their
// case files: txlab run BUNDLE_DIR replays the bundle's case.txn.
func bundleCases(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if st, err := os.Stat(a); err == nil && st.IsDir() {
			if _, err := os.Stat(filepath.Join(a, "case.txn")); err == nil {
				out[i] = filepath.Join(a, "case.txn")
			}
		}
	}
	return out
}

// replayable are the flags a case's replay header may set: the target, its
// settings, the level and the judging; never output or safety flags.
var replayable = map[string]bool{"db": true, "set": true, "isolation": true, "oracle": true, "model": true, "strict": true, "mode": true}

// applyReplay gives the flags the command line leaves unset the values of
// the cases' replay header (a bundle's case.txn carries the flags that
// reproduce its finding), when every case that has one has the same. It
// says on stderr what it took. A --db other than a throwaway server of a
// kind and release (a URL, a file, a build's path: another database, or a
// program to run) is not taken from a file: the user names such a target.
func applyReplay(cmd *cobra.Command, paths []string) error {
	header := ""
	for _, p := range paths {
		c, err := testcase.ParseFile(p)
		if err != nil {
			continue // said when the case runs
		}
		if c.Replay == "" {
			continue
		}
		if header != "" && header != c.Replay {
			fmt.Fprintln(cmd.ErrOrStderr(), "txlab: the cases' replay headers differ; none is used (give the flags)")
			return nil
		}
		header = c.Replay
	}
	if header == "" {
		return nil
	}
	args, err := shellSplit(header)
	if err != nil {
		return fmt.Errorf("replay header %q: %w", header, err)
	}
	var took []string
	fs := cmd.Flags()
	given := map[string]bool{} // set on the command line: its value wins
	for name := range replayable {
		if f := fs.Lookup(name); f != nil && f.Changed {
			given[name] = true
		}
	}
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		f := fs.Lookup(name)
		if !ok || f == nil || !replayable[name] {
			return fmt.Errorf("replay header %q: %q is not a flag txlab run takes from a case", header, args[i])
		}
		value := "true"
		if f.Value.Type() != "bool" {
			if i+1 >= len(args) {
				return fmt.Errorf("replay header %q: %s has no value", header, args[i])
			}
			i++
			value = args[i]
		}
		if given[name] {
			continue
		}
		if name == "set" && !semanticSetting(value) {
			// A server setting can run programs (archive_command,
			// plugin_load): from a file only the settings the semantics
			// table reads, with plain values.
			fmt.Fprintf(cmd.ErrOrStderr(), "txlab: the case sets %s: not taken from a file; give --set yourself\n", value)
			continue
		}
		if name == "db" && !throwawaySpec(value) {
			fmt.Fprintf(cmd.ErrOrStderr(), "txlab: the case names --db %s: not taken from a file; give --db yourself\n", value)
			continue
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("replay header: --%s %s: %w", name, value, err)
		}
		took = append(took, "--"+name)
		if f.Value.Type() != "bool" {
			took = append(took, value)
		}
	}
	if len(took) > 0 {
		fmt.Fprintf(cmd.ErrOrStderr(), "txlab: replaying with the case's %s\n", strings.Join(took, " "))
	}
	return nil
}

// shellSplit splits a replay header as a POSIX shell would split words
// quoted by report.ShellJoin: blanks separate, single quotes quote.
func shellSplit(s string) ([]string, error) {
	var out []string
	var cur strings.Builder
	in, any := false, false
	for i := 0; i < len(s); i++ {
		ch := s[i]
		switch {
		case in && ch == '\'':
			in = false
		case in:
			cur.WriteByte(ch)
		case ch == '\'':
			in, any = true, true
		case ch == '\\' && i+1 < len(s):
			i++
			cur.WriteByte(s[i])
			any = true
		case ch == ' ' || ch == '\t':
			if any {
				out = append(out, cur.String())
				cur.Reset()
				any = false
			}
		default:
			cur.WriteByte(ch)
			any = true
		}
	}
	if in {
		return nil, errors.New("unterminated quote")
	}
	if any {
		out = append(out, cur.String())
	}
	return out, nil
}

// throwawaySpec reports whether a --db value names only a kind of
// throwaway server and maybe its release (sqlite, mariadb, postgres@18,
// tidb@8.5.6): never a URL, a file, or a path to binaries to run.
func throwawaySpec(v string) bool {
	kind, release, hasAt := strings.Cut(v, "@")
	if kind == "" || strings.Trim(strings.ToLower(kind), "abcdefghijklmnopqrstuvwxyz") != "" {
		return false
	}
	if !hasAt {
		return true
	}
	return release != "" && release[0] >= '0' && release[0] <= '9' && strings.Trim(release, "0123456789.-abcdefghijklmnopqrstuvwxyz") == ""
}

// semanticSetting reports whether name=value is a setting the semantics
// table reads (innodb_snapshot_isolation, tidb_txn_mode, …; not TiDB's
// configuration file) with a plain value.
func semanticSetting(kv string) bool {
	name, value, ok := strings.Cut(kv, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "tidb_config" || !slices.Contains(model.SettingNames(), name) {
		return false
	}
	return value != "" && strings.Trim(strings.ToLower(value), "abcdefghijklmnopqrstuvwxyz0123456789_.-") == ""
}
