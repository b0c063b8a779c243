package report

// This file reads back what bundle.go writes for replaying a finding (the
// replay header of case.txn, report.json's replay command): both
// directions of the format live in this package, and the round trip is
// tested here.

import (
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/pgrelease"
	"github.com/txlab/txlab/semantics/model"
	"github.com/txlab/txlab/testcase"
)

// replayable are the flags a case's replay header may set: the target, its
// settings, the level and the judging; never output or safety flags.
var replayable = map[string]bool{"db": true, "set": true, "isolation": true, "oracle": true, "model": true, "strict": true, "mode": true}

// IsBundle reports whether path is a finding bundle's directory (it holds
// a case.txn or a report.json), as opposed to a case file.
func IsBundle(path string) bool {
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

// BundleCases turns the bundle directories among paths into their case
// files: txlab run BUNDLE_DIR replays the bundle's case.txn.
func BundleCases(paths []string) []string {
	out := make([]string, len(paths))
	for i, p := range paths {
		out[i] = p
		if IsBundle(p) {
			out[i] = filepath.Join(p, "case.txn")
		}
	}
	return out
}

// AnyWritten reports whether one of paths is a bundle the writer finished
// (a directory with report.json, which it writes last): replaying it
// writes no new bundle unless --out asks (Writer.NoFiles), so that a
// bundle replayed N times is still one row of the report.
func AnyWritten(paths []string) bool {
	for _, p := range paths {
		if st, err := os.Stat(filepath.Join(p, "report.json")); err == nil && st.Mode().IsRegular() {
			return true
		}
	}
	return false
}

// RecordedFlags returns the txlab run flags path records for reproducing
// its finding ("" when it records none). A bundle's are its report.json's
// replay command, which outlives txlab reduce rewriting case.txn, less
// "txlab run" and the directory; else its case.txn's replay header. A case
// file's are its replay header.
func RecordedFlags(path string) (string, error) {
	casePath := path
	if IsBundle(path) {
		var rep struct {
			Replay string `json:"replay"`
		}
		if data, err := ReadFile(filepath.Join(path, "report.json")); err == nil && json.Unmarshal(data, &rep) == nil && rep.Replay != "" {
			words, err := ShellSplit(rep.Replay)
			if err != nil || len(words) < 3 || words[0] != "txlab" || words[1] != "run" {
				return "", fmt.Errorf("%s: report.json's replay %q is not a txlab run command", path, rep.Replay)
			}
			return ShellJoin(words[2 : len(words)-1]), nil
		}
		casePath = filepath.Join(path, "case.txn")
	}
	c, err := ParseCase(casePath)
	if err != nil {
		return "", nil // said when the case runs
	}
	return c.Replay, nil
}

// RecordedTarget is what a bundle's report.json says of the server its
// finding was made on ("postgres 15.10"), "" when it says nothing.
func RecordedTarget(path string) string {
	var rep struct {
		DB *DB `json:"db"`
	}
	data, err := ReadFile(filepath.Join(path, "report.json"))
	if err != nil || json.Unmarshal(data, &rep) != nil || rep.DB == nil || rep.DB.DBMS == "" {
		return ""
	}
	return strings.TrimSpace(rep.DB.DBMS + " " + rep.DB.Version)
}

// ReplayFlag is a flag a replay header sets: its name without the dashes
// and its value, "true" for a boolean flag.
type ReplayFlag struct {
	Name, Value string
	Bool        bool
}

// CommandFlag is what ReadReplay needs to know of one of the replaying
// command's flags.
type CommandFlag struct {
	Bool  bool   // takes no value
	Given bool   // set on the command line: its value wins
	Value string // the value now
}

// ReadReplay returns the flags the command (run, reduce, test) should
// set, of those its arguments (bundle directories, case files) record for
// reproducing their finding, when every argument that records some
// records the same; flag looks up one of the command's flags (false: it
// has none of that name). The flags the command line gives win.
//
// A bundle replays where it was found, or not at all: a --db other than a
// throwaway server of a kind and release (a URL, a file, a build's path:
// another database, or a program to run) is not taken from a file, and
// neither is a server setting that could run a program, so then the
// error names what to give rather than let the case run on another DBMS
// or server than it was found on.
//
// notes are warnings to show, before err when both are set.
func ReadReplay(paths []string, command string, flag func(name string) (CommandFlag, bool)) (set []ReplayFlag, notes []string, err error) {
	header, from := "", ""
	for _, p := range paths {
		h, err := RecordedFlags(p)
		if err != nil {
			return nil, nil, err
		}
		if h == "" {
			continue
		}
		if header != "" && header != h {
			return nil, []string{"the cases' replay headers differ; none is used (give the flags)"}, nil
		}
		header, from = h, p
	}
	if header == "" {
		return nil, nil, nil
	}
	flags, err := parseReplay(header, command, flag)
	if err != nil {
		return nil, nil, err
	}
	return takeReplay(from, flags, flag)
}

// parseReplay splits header into the flags it sets, refusing a flag the
// command does not take from a case.
func parseReplay(header, command string, flag func(string) (CommandFlag, bool)) ([]ReplayFlag, error) {
	args, err := ShellSplit(header)
	if err != nil {
		return nil, fmt.Errorf("replay header %q: %w", header, err)
	}
	var flags []ReplayFlag
	for i := 0; i < len(args); i++ {
		name, ok := strings.CutPrefix(args[i], "--")
		f, has := flag(name)
		if !ok || !has || !replayable[name] {
			return nil, fmt.Errorf("replay header %q: %q is not a flag txlab %s takes from a case", header, args[i], command)
		}
		value := "true"
		if !f.Bool {
			if i+1 >= len(args) {
				return nil, fmt.Errorf("replay header %q: %s has no value", header, args[i])
			}
			i++
			value = args[i]
		}
		flags = append(flags, ReplayFlag{Name: name, Value: value, Bool: f.Bool})
	}
	return flags, nil
}

// takeReplay picks, of the flags from records, those the command line
// leaves unset, refusing the ones a file may not choose.
func takeReplay(from string, flags []ReplayFlag, flag func(string) (CommandFlag, bool)) (set []ReplayFlag, notes []string, err error) {
	recordedDB := ""
	for _, fl := range flags {
		if fl.Name == "db" {
			recordedDB = fl.Value
		}
	}
	// The settings are the recorded server's: on another --db they would
	// configure a server they were not found on, or none at all.
	db, _ := flag("db")
	otherDB := db.Given && recordedDB != "" && db.Value != recordedDB
	for _, fl := range flags {
		name, value := fl.Name, fl.Value
		if f, _ := flag(name); f.Given {
			continue
		}
		if name == "set" && otherDB {
			notes = append(notes, fmt.Sprintf("the case's --set %s is for --db %s: not used with another --db", value, recordedDB))
			continue
		}
		if name == "set" && !SemanticSetting(value) {
			// A server setting can run programs (archive_command,
			// plugin_load): from a file only the settings the semantics
			// table reads, with plain values.
			return nil, notes, fmt.Errorf("%s sets --set %s, which is not taken from a file: give --set %s yourself to replay it as found", from, value, ShellJoin([]string{value}))
		}
		if name == "db" && !ThrowawaySpec(value) {
			return nil, notes, foreignDB(from, value)
		}
		if what := notInstalled(value); what != "" {
			return nil, notes, fmt.Errorf("%s was found on --db %s, %s not installed here; txlab downloads none on a file's say-so: give --db %s yourself (txlab installs it), or run txlab install %s", from, value, what, value, value)
		}
		set = append(set, fl)
	}
	return set, notes, nil
}

// foreignDB is the refusal of a recorded --db that is not a throwaway
// server's kind and release: it names what to give.
func foreignDB(from, value string) error {
	on := ""
	if t := RecordedTarget(from); t != "" {
		on = " (" + t + ")"
	}
	what := "which binaries to run"
	switch {
	case strings.Contains(value, "://"):
		what = "which server to connect to"
	case strings.HasPrefix(value, "sqlite:"):
		what = "which database file to open"
	}
	give := ShellJoin([]string{value})
	if strings.Contains(value, ":xxxxx@") {
		give += " with its password" // the writer left it out
	}
	return fmt.Errorf("%s was found on --db %s%s; txlab does not let a file choose %s: give --db %s to replay it there", from, value, on, what, give)
}

// ShellSplit splits a replay header as a POSIX shell would split words
// quoted by ShellJoin: blanks separate, single quotes quote.
func ShellSplit(s string) ([]string, error) {
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

// ThrowawaySpec reports whether a --db value names only a kind of
// throwaway server and maybe its release (sqlite, mariadb, postgres@18,
// tidb@8.5.6): never a URL, a file, or a path to binaries to run.
func ThrowawaySpec(v string) bool {
	kind, release, hasAt := strings.Cut(v, "@")
	if kind == "" || strings.Trim(strings.ToLower(kind), "abcdefghijklmnopqrstuvwxyz") != "" {
		return false
	}
	if !hasAt {
		return true
	}
	return release != "" && release[0] >= '0' && release[0] <= '9' && strings.Trim(release, "0123456789.-abcdefghijklmnopqrstuvwxyz") == ""
}

// SemanticSetting reports whether name=value is a setting the semantics
// table reads (innodb_snapshot_isolation, tidb_txn_mode, …; not TiDB's
// configuration file) with a plain value.
func SemanticSetting(kv string) bool {
	name, value, ok := strings.Cut(kv, "=")
	name, value = strings.TrimSpace(name), strings.TrimSpace(value)
	if !ok || name == "tidb_config" || !slices.Contains(model.SettingNames(), name) {
		return false
	}
	return value != "" && strings.Trim(strings.ToLower(value), "abcdefghijklmnopqrstuvwxyz0123456789_.-") == ""
}

// ParseCase parses a case file; one in a bundle's directory (case.txn,
// case.orig.txn) is read as ReadFile reads a bundle's files, so that a
// bundle someone sent cannot make txlab read another file through a
// symbolic link.
func ParseCase(path string) (*testcase.Case, error) {
	if !IsBundle(filepath.Dir(path)) {
		return testcase.ParseFile(path)
	}
	data, err := ReadFile(path)
	if err != nil {
		return nil, err
	}
	return testcase.ParseString(path, string(data))
}

// notInstalled says what a throwaway spec names that txlab would have to
// download before it starts it ("" for none): a PostgreSQL release not in
// its cache (fetched from the npm registry) or TiDB not built yet (built
// from Go's module proxy).
func notInstalled(spec string) string {
	kind, release, ok := strings.Cut(spec, "@")
	switch strings.ToLower(kind) {
	case "postgres", "postgresql":
		if ok && !pgrelease.IsInstalled(release) {
			return "a PostgreSQL release"
		}
	case "tidb":
		if _, built := localdb.TiDBInstalled(); !built {
			return "a TiDB build"
		}
	}
	return ""
}
