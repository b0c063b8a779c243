package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/testcase"
)

// bundleCases turns bundle directories among run's arguments into their
// case files: txlab run BUNDLE_DIR replays the bundle's case.txn.
func bundleCases(args []string) []string {
	out := make([]string, len(args))
	for i, a := range args {
		out[i] = a
		if isBundle(a) {
			out[i] = filepath.Join(a, "case.txn")
		}
	}
	return out
}

// isBundle reports whether path is a finding bundle's directory (it holds
// a case.txn or a report.json), as opposed to a case file.
func isBundle(path string) bool {
	if st, err := os.Stat(path); err != nil || !st.IsDir() {
		return false
	}
	for _, name := range []string{"case.txn", "report.json"} {
		if _, err := os.Stat(filepath.Join(path, name)); err == nil {
			return true
		}
	}
	return false
}

// replayable are the flags a case's replay header may set: the target, its
// settings, the level and the judging; never output or safety flags.
var replayable = map[string]bool{"db": true, "set": true, "isolation": true, "oracle": true, "model": true, "strict": true, "mode": true}

// recordedFlags returns the txlab run flags path records for reproducing
// its finding ("" when it records none). A bundle's are its report.json's
// replay command, which outlives txlab reduce rewriting case.txn, less
// "txlab run" and the directory; else its case.txn's replay header. A case
// file's are its replay header.
func recordedFlags(path string) (string, error) {
	casePath := path
	if isBundle(path) {
		var rep struct {
			Replay string `json:"replay"`
		}
		if data, err := os.ReadFile(filepath.Join(path, "report.json")); err == nil && json.Unmarshal(data, &rep) == nil && rep.Replay != "" {
			words, err := shellSplit(rep.Replay)
			if err != nil || len(words) < 3 || words[0] != "txlab" || words[1] != "run" {
				return "", fmt.Errorf("%s: report.json's replay %q is not a txlab run command", path, rep.Replay)
			}
			return report.ShellJoin(words[2 : len(words)-1]), nil
		}
		casePath = filepath.Join(path, "case.txn")
	}
	c, err := testcase.ParseFile(casePath)
	if err != nil {
		return "", nil // said when the case runs
	}
	return c.Replay, nil
}

// recordedTarget is what a bundle's report.json says of the server its
// finding was made on ("postgres 15.10"), "" when it says nothing.
func recordedTarget(path string) string {
	var rep struct {
		DB *report.DB `json:"db"`
	}
	data, err := os.ReadFile(filepath.Join(path, "report.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil || rep.DB == nil || rep.DB.DBMS == "" {
		return ""
	}
	return strings.TrimSpace(rep.DB.DBMS + " " + rep.DB.Version)
}

// applyReplay gives the flags the command line leaves unset the values the
// arguments (bundle directories, case files) record for reproducing their
// finding, when every argument that records some records the same. It says
// on stderr what it took. A bundle replays where it was found, or not at
// all: a --db other than a throwaway server of a kind and release (a URL,
// a file, a build's path: another database, or a program to run) is not
// taken from a file, and neither is a server setting that could run a
// program, so then the command ends with one line naming what to give
// rather than run the case on another DBMS or server than it was found on.
func applyReplay(cmd *cobra.Command, paths []string) error {
	header, from := "", ""
	for _, p := range paths {
		h, err := recordedFlags(p)
		if err != nil {
			return err
		}
		if h == "" {
			continue
		}
		if header != "" && header != h {
			fmt.Fprintln(cmd.ErrOrStderr(), "txlab: the cases' replay headers differ; none is used (give the flags)")
			return nil
		}
		header, from = h, p
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
	type flag struct{ name, value string }
	var flags []flag
	recordedDB := ""
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		f := fs.Lookup(name)
		if !ok || f == nil || !replayable[name] {
			return fmt.Errorf("replay header %q: %q is not a flag txlab %s takes from a case", header, args[i], cmd.Name())
		}
		value := "true"
		if f.Value.Type() != "bool" {
			if i+1 >= len(args) {
				return fmt.Errorf("replay header %q: %s has no value", header, args[i])
			}
			i++
			value = args[i]
		}
		if name == "db" {
			recordedDB = value
		}
		flags = append(flags, flag{name, value})
	}
	// The settings are the recorded server's: on another --db they would
	// configure a server they were not found on, or none at all.
	otherDB := given["db"] && recordedDB != "" && fs.Lookup("db").Value.String() != recordedDB
	for _, fl := range flags {
		name, value := fl.name, fl.value
		if given[name] {
			continue
		}
		if name == "set" && otherDB {
			fmt.Fprintf(cmd.ErrOrStderr(), "txlab: the case's --set %s is for --db %s: not used with another --db\n", value, recordedDB)
			continue
		}
		if name == "set" && !semanticSetting(value) {
			// A server setting can run programs (archive_command,
			// plugin_load): from a file only the settings the semantics
			// table reads, with plain values.
			return fmt.Errorf("%s sets --set %s, which is not taken from a file: give --set %s yourself to replay it as found", from, value, report.ShellJoin([]string{value}))
		}
		if name == "db" && !throwawaySpec(value) {
			on := ""
			if t := recordedTarget(from); t != "" {
				on = " (" + t + ")"
			}
			what := "binaries to run"
			switch {
			case strings.Contains(value, "://"):
				what = "a server to connect to"
			case strings.HasPrefix(value, "sqlite:"):
				what = "a database file"
			}
			give := report.ShellJoin([]string{value})
			if strings.Contains(value, ":xxxxx@") {
				give += " with its password" // shownSpec left it out
			}
			return fmt.Errorf("%s was found on --db %s%s; txlab takes no %s from a file: give --db %s to replay it there", from, value, on, what, give)
		}
		if err := fs.Set(name, value); err != nil {
			return fmt.Errorf("replay header: --%s %s: %w", name, value, err)
		}
		took = append(took, "--"+name)
		if fs.Lookup(name).Value.Type() != "bool" {
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
