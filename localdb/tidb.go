package localdb

import (
	"context"
	"crypto/sha256"
	"database/sql"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/txlab/txlab/internal/cachedir"
)

// TiDB is not installed anywhere: txlab builds tidb-server once from TiDB's
// Go module, pinned by the module in the repository's tidb/ directory, into
// its cache, and runs it with TiDB's embedded storage (unistore, in memory),
// which is how TiDB's own tests run its SQL, transaction and
// pessimistic-lock code. A user's own build runs instead through
// Options.Bin.
//
// The module's go.mod and go.sum reach the txlab binary as copies in
// tidbmodule/ (go:embed cannot reach into a nested module); go generate
// refreshes them and TestTiDBModuleCopy fails when they differ.
//
//go:generate cp ../tidb/go.mod tidbmodule/go.mod.txt
//go:generate cp ../tidb/go.sum tidbmodule/go.sum.txt

// TiDBVersion is the TiDB release txlab builds: the one tidb/go.mod
// requires (github.com/pingcap/tidb at v8.5.6's commit).
const TiDBVersion = "8.5.6"

var (
	//go:embed tidbmodule/go.mod.txt
	tidbGoMod string
	//go:embed tidbmodule/go.sum.txt
	tidbGoSum string
)

// How tidb-server is built. A build with Go 1.26 compiles but panics at
// start-up (TiDB checks the runtime's map ABI), so the toolchain is pinned;
// "codes" is the tag of TiDB's own Makefile. The ldflags give the binary the
// version a release reports (SELECT VERSION() is "8.0.11-TiDB-v8.5.6").
const (
	tidbToolchain = "go1.25.8"
	tidbPackage   = "github.com/pingcap/tidb/cmd/tidb-server"
	tidbTags      = "codes"
	tidbCommit    = "ae18096e0237"
	tidbLDFlags   = "-X github.com/pingcap/tidb/pkg/parser/mysql.TiDBReleaseVersion=v" + TiDBVersion +
		" -X github.com/pingcap/tidb/pkg/util/versioninfo.TiDBGitHash=" + tidbCommit
	tidbServerName = "tidb-server"
	// tidbBuildNote is what a user waits for, measured on 2 cores.
	tidbBuildNote = "about 10 minutes on 2 cores and 3 GB of memory; Go's module and build caches grow by about 3 GB"
)

// tidbBuildKey names a build: it changes with anything that changes the
// binary (the module's requirements, the toolchain, tags and flags).
func tidbBuildKey() string {
	h := sha256.New()
	for _, s := range []string{tidbGoMod, tidbGoSum, tidbToolchain, tidbPackage, tidbTags, tidbLDFlags} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	return "v" + TiDBVersion + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// cacheRoot is where txlab keeps what it installs (package cachedir), the
// PostgreSQL releases of package pgrelease too.
func cacheRoot() (string, error) { return cachedir.Dir() }

// TiDBBuildDir is the directory txlab's build of TiDB lives in (whether or
// not it is built yet): CACHE/tidb/vVERSION-KEY, holding tidb-server and
// the go.mod, go.sum and build.log it was built from.
func TiDBBuildDir() (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "tidb", tidbBuildKey()), nil
}

// tidbBuilt returns txlab's build of tidb-server, or an error saying how to
// build it.
func tidbBuilt() (string, error) {
	dir, err := TiDBBuildDir()
	if err != nil {
		return "", err
	}
	bin := filepath.Join(dir, tidbServerName)
	if !isExecutable(bin) {
		return "", fmt.Errorf("localdb: TiDB %s is not built yet (%s); `txlab install tidb` builds it (%s)", TiDBVersion, bin, tidbBuildNote)
	}
	return bin, nil
}

// TiDBInstalled returns txlab's build of tidb-server when it is built
// (what txlab install --list shows beside the PostgreSQL releases), or
// false.
func TiDBInstalled() (string, bool) {
	bin, err := tidbBuilt()
	return bin, err == nil
}

// tidbAvailable is Available(TiDB): the build exists, or Go is there to
// make it on first use.
func tidbAvailable() error {
	if _, err := tidbBuilt(); err == nil {
		return nil
	}
	if _, err := goTool(); err != nil {
		return fmt.Errorf("localdb: TiDB %s is not built and %v", TiDBVersion, err)
	}
	return nil
}

// goTool finds the go command that builds TiDB.
func goTool() (string, error) {
	if p, err := exec.LookPath("go"); err == nil {
		return p, nil
	}
	return "", errors.New("building it needs the go command (https://go.dev/dl/) on PATH; or give your own tidb-server: --db tidb@/path/to/tidb-server")
}

// CheckTiDBVersion accepts the release this txlab builds: "", "8", "8.5",
// "8.5.6" (a leading "v" too), and explains any other.
func CheckTiDBVersion(v string) error {
	w := strings.TrimPrefix(v, "v")
	if w == "" || w == TiDBVersion || strings.HasPrefix(TiDBVersion, w+".") {
		return nil
	}
	return fmt.Errorf("localdb: TiDB %s: this txlab builds TiDB %s only (tidb or tidb@%s); for another release build tidb-server yourself and give --db tidb@/path/to/tidb-server", v, TiDBVersion, TiDBVersion)
}

// tidbBin is the tidb-server Start runs: opts.Bin when set (a binary or a
// directory holding one; Version is then not looked at), else txlab's
// build, made first when missing.
func tidbBin(ctx context.Context, opts Options) (string, error) {
	if opts.Bin != "" {
		return opts.Bin, nil
	}
	if err := CheckTiDBVersion(opts.Version); err != nil {
		return "", err
	}
	w := opts.Log
	if opts.Progress != nil {
		if w == nil {
			w = opts.Progress
		} else {
			w = io.MultiWriter(opts.Progress, opts.Log)
		}
	}
	return InstallTiDB(ctx, w)
}

// tidbBinaries resolves a tidb-server: bin itself when it is an executable
// file, bin/tidb-server or bin/bin/tidb-server for a directory, txlab's
// build when bin is "".
func tidbBinaries(bin string) (binaries, error) {
	if bin == "" {
		p, err := tidbBuilt()
		return binaries{server: p}, err
	}
	abs, err := filepath.Abs(bin)
	if err != nil {
		return binaries{}, fmt.Errorf("localdb: %s: %w", bin, err)
	}
	for _, p := range []string{abs, filepath.Join(abs, tidbServerName), filepath.Join(abs, "bin", tidbServerName)} {
		if isExecutable(p) {
			return binaries{server: p}, nil
		}
	}
	return binaries{}, fmt.Errorf("localdb: %s is neither a tidb-server binary nor a directory holding one", bin)
}

// InstallTiDB builds tidb-server once into txlab's cache (TiDBBuildDir) and
// returns its path; when it is already built it only returns the path. It
// needs the go command and network access to Go's module proxy (or the
// modules in Go's module cache), and says what it does on log (nil
// discards). Concurrent calls, in one process or several, build once: the
// others wait for the first.
func InstallTiDB(ctx context.Context, log io.Writer) (string, error) {
	dir, err := TiDBBuildDir()
	if err != nil {
		return "", err
	}
	goCmd, goErr := goTool()
	return buildOnce(ctx, buildSpec{
		dir: dir, bin: tidbServerName, what: "TiDB v" + TiDBVersion, note: tidbBuildNote,
		files: map[string]string{"go.mod": tidbGoMod, "go.sum": tidbGoSum},
		check: func() error {
			if goErr != nil {
				return fmt.Errorf("localdb: TiDB %s is not built: %w", TiDBVersion, goErr)
			}
			return nil
		},
		build: func(tmp string) error { return goBuildTiDB(ctx, goCmd, tmp, log) },
	}, log)
}

// buildSpec is a program txlab builds once into its cache.
type buildSpec struct {
	dir   string            // where it lives once built
	bin   string            // the program's file name in dir
	what  string            // its name in messages
	note  string            // what the build costs, for the user who waits
	files map[string]string // written into the build directory first
	check func() error      // may the build start (tools present)?
	build func(tmp string) error
}

// buildOnce builds spec into spec.dir unless it is there, and returns
// the program's path. Concurrent calls, in one process or several, build
// once: the others wait for the first.
func buildOnce(ctx context.Context, spec buildSpec, log io.Writer) (string, error) {
	if log == nil {
		log = io.Discard
	}
	dir := spec.dir
	bin := filepath.Join(dir, spec.bin)
	if isExecutable(bin) {
		return bin, nil
	}
	if err := spec.check(); err != nil {
		return "", err
	}
	parent := filepath.Dir(dir)
	if err := os.MkdirAll(parent, 0o755); err != nil {
		return "", fmt.Errorf("localdb: %w", err)
	}
	unlock, err := lockFile(ctx, dir+".lock", func() {
		fmt.Fprintf(log, "localdb: waiting for another txlab that is building %s into %s\n", spec.what, dir)
	})
	if err != nil {
		return "", fmt.Errorf("localdb: lock %s.lock: %w", dir, err)
	}
	defer unlock()
	if isExecutable(bin) { // the other one built it
		return bin, nil
	}
	// Leftovers of a build that was killed: nobody else builds under the lock.
	if old, _ := filepath.Glob(dir + ".build-*"); len(old) > 0 {
		for _, d := range old {
			_ = os.RemoveAll(d)
		}
	}
	tmp, err := os.MkdirTemp(parent, filepath.Base(dir)+".build-")
	if err != nil {
		return "", fmt.Errorf("localdb: %w", err)
	}
	defer os.RemoveAll(tmp) // gone after the rename; a failed build's only
	for name, text := range spec.files {
		p := filepath.Join(tmp, filepath.FromSlash(name))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return "", fmt.Errorf("localdb: %w", err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			return "", fmt.Errorf("localdb: %w", err)
		}
	}
	fmt.Fprintf(log, "localdb: building %s once (%s) into %s\n", spec.what, spec.note, dir)
	began := time.Now()
	if err := spec.build(tmp); err != nil {
		return "", err
	}
	_ = os.RemoveAll(dir)    // an incomplete one (the binary deleted by hand)
	_ = os.Chmod(tmp, 0o755) // MkdirTemp's 0700: others may run it too
	if err := os.Rename(tmp, dir); err != nil {
		return "", fmt.Errorf("localdb: %w", err)
	}
	fmt.Fprintf(log, "localdb: %s built in %v: %s\n", spec.what, time.Since(began).Round(time.Second), bin)
	return bin, nil
}

// goBuildTiDB runs go build in the module directory dir, writing
// dir/tidb-server and dir/build.log, with a line on log every minute.
func goBuildTiDB(ctx context.Context, goCmd, dir string, log io.Writer) error {
	args := []string{"build", "-tags", tidbTags, "-ldflags", tidbLDFlags, "-o", filepath.Join(dir, tidbServerName), tidbPackage}
	return goBuild(ctx, goCmd, dir, args, goBuildEnv(tidbToolchain), "TiDB v"+TiDBVersion, log)
}

// goBuild runs the go command with args in the module directory dir and
// env, writing its output to dir/build.log, with a line on log every
// minute; what names the build in its messages.
func goBuild(ctx context.Context, goCmd, dir string, args, env []string, what string, log io.Writer) error {
	logPath := filepath.Join(dir, "build.log")
	f, err := os.Create(logPath)
	if err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	defer f.Close()
	cmd := exec.CommandContext(ctx, goCmd, args...)
	cmd.Dir = dir
	cmd.Stdout, cmd.Stderr = f, f
	cmd.Env = env
	began := time.Now()
	if err := cmd.Start(); err != nil {
		return fmt.Errorf("localdb: build %s: %w", what, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	tick := time.NewTicker(time.Minute)
	defer tick.Stop()
	for {
		select {
		case err := <-done:
			if err != nil {
				if ctx.Err() != nil {
					return fmt.Errorf("localdb: build of %s interrupted: %w", what, context.Cause(ctx))
				}
				return &startError{err: fmt.Errorf("localdb: go build of %s failed: %w", what, err), log: logTail(logPath, logTailLines), logPath: logPath}
			}
			return nil
		case <-tick.C:
			fmt.Fprintf(log, "localdb: still building %s (%v so far)\n", what, time.Since(began).Round(time.Minute))
		}
	}
}

// goBuildEnv is the caller's environment with the Go settings that would
// change the build replaced: the pinned toolchain, module mode with go.sum
// as it is, no workspace, the host's platform; extra settings last.
func goBuildEnv(toolchain string, extra ...string) []string {
	var env []string
	for _, kv := range os.Environ() {
		switch k, _, _ := strings.Cut(kv, "="); k {
		case "GOTOOLCHAIN", "GOFLAGS", "GOWORK", "GO111MODULE", "GOOS", "GOARCH", "GOEXPERIMENT":
			continue
		}
		env = append(env, kv)
	}
	env = append(env, "GOTOOLCHAIN="+toolchain, "GOFLAGS=-mod=readonly", "GOWORK=off", "GO111MODULE=on")
	return append(env, extra...)
}

// Files in a TiDB server's directory.
const (
	tidbConfigFile = "tidb.toml"
	tidbSlowLog    = "slow.log"
)

// tidbServerArgs are tidb-server's flags: unistore in memory, loopback
// only, every file it writes inside the server's directory (its defaults
// listen on every address and write into /tmp/tidb and the current
// directory). The status port (HTTP and the gRPC that cluster tables use)
// gets a free port of its own on each launch.
func (s *Server) tidbServerArgs() []string {
	status, err := freePort()
	if err != nil {
		status = s.port + 1 // the start fails and says so if that is taken
	}
	args := []string{
		"-store", "unistore",
		"-path", "",
		"-host", "127.0.0.1",
		"-status-host", "127.0.0.1",
		"-P", strconv.Itoa(s.port),
		"-status", strconv.Itoa(status),
		"-temp-dir", s.dataDir(),
		"-socket", "",
		"-log-file", filepath.Join(s.dir, serverLogFile),
		"-log-slow-query", filepath.Join(s.dir, tidbSlowLog),
		"-config", filepath.Join(s.dir, tidbConfigFile), "-config-strict",
	}
	return args
}

// tidbDefaultConfig are localdb's configuration items, before the user's
// (which replace them): TiDB's info log writes some 6 MB a minute under a
// campaign (every DDL job's steps), warnings and errors are what a run
// needs; --set log.level=info brings it back.
var tidbDefaultConfig = [][2]string{{"log.level", "warn"}}

// tidbPrepare stands in for a data directory's initialisation: unistore
// lives in memory, so there is only TiDB's temporary directory to make and
// its configuration file: localdb's items and the settings that are items.
func (s *Server) tidbPrepare() error {
	if err := os.Mkdir(s.dataDir(), 0o700); err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	_, _, items := tidbSplitSettings(s.extra)
	for _, d := range tidbDefaultConfig {
		if !slices.ContainsFunc(items, func(it [2]string) bool { return it[0] == d[0] }) {
			items = append(items, d)
		}
	}
	if err := os.WriteFile(filepath.Join(s.dir, tidbConfigFile), []byte(tidbConfig(items)), 0o644); err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	return nil
}

// TiDB settings (Options.Settings, --set) are "name=value". A name with a
// "." or "-" is an item of TiDB's configuration file ("[section.]item",
// e.g. "performance.txn-total-size-limit=1073741824"), written into a TOML
// file given with -config and -config-strict, so an unknown item stops the
// start. Any other name is a system variable, set with SET GLOBAL once the
// server is up and before Start returns, so every session sees it (e.g.
// "tidb_txn_mode=optimistic"); an unknown one fails the start too.

var tidbSettingName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_.-]*$`)

// tidbSettingArgs checks TiDB settings and keeps them as "name=value".
func tidbSettingArgs(settings []string) ([]string, error) {
	var out []string
	for _, raw := range settings {
		k, v, ok := strings.Cut(strings.TrimSpace(raw), "=")
		k, v = strings.TrimSpace(k), strings.TrimSpace(v)
		if !ok || !tidbSettingName.MatchString(k) || strings.HasSuffix(k, ".") || strings.Contains(k, "..") {
			return nil, fmt.Errorf("localdb: bad TiDB setting %q (want system_variable=value or config.item=value)", raw)
		}
		out = append(out, k+"="+v)
	}
	return out, nil
}

// tidbSplitSettings parts "name=value" settings into system variables and
// configuration items, in their order.
func tidbSplitSettings(extra []string) (vars, values []string, items [][2]string) {
	for _, kv := range extra {
		k, v, _ := strings.Cut(kv, "=")
		if strings.ContainsAny(k, ".-") {
			items = append(items, [2]string{k, v})
		} else {
			vars, values = append(vars, k), append(values, v)
		}
	}
	return vars, values, items
}

var tomlBare = regexp.MustCompile(`^(true|false|[-+]?[0-9]+(\.[0-9]+)?)$`)

// tidbConfig renders configuration items as TOML: top-level items first,
// then one table per section. A value that is a TOML boolean or number
// stays bare, anything else is a string.
func tidbConfig(items [][2]string) string {
	sections := map[string][]string{}
	for _, it := range items {
		sec, key := "", it[0]
		if i := strings.LastIndexByte(it[0], '.'); i >= 0 {
			sec, key = it[0][:i], it[0][i+1:]
		}
		val := it[1]
		if !tomlBare.MatchString(val) {
			val = strconv.Quote(val)
		}
		sections[sec] = append(sections[sec], key+" = "+val)
	}
	names := make([]string, 0, len(sections))
	for n := range sections {
		names = append(names, n)
	}
	sort.Strings(names) // "" first
	var b strings.Builder
	for _, n := range names {
		if n != "" {
			fmt.Fprintf(&b, "\n[%s]\n", n)
		}
		for _, l := range sections[n] {
			b.WriteString(l + "\n")
		}
	}
	return b.String()
}

var sqlBare = regexp.MustCompile(`^([-+]?[0-9]+(\.[0-9]+)?|[A-Za-z_][A-Za-z0-9_]*)$`)

// tidbAfterReady sets the settings that are system variables, globally.
func (s *Server) tidbAfterReady(ctx context.Context) error {
	vars, values, _ := tidbSplitSettings(s.extra)
	if len(vars) == 0 {
		return nil
	}
	db, err := sql.Open("mysql", s.DriverDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	for i, k := range vars {
		v := values[i]
		if !sqlBare.MatchString(v) {
			v = "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(v) + "'"
		}
		q := "SET GLOBAL " + k + " = " + v
		if _, err := db.ExecContext(ctx, q); err != nil {
			return fmt.Errorf("localdb: TiDB setting %s=%s: %s: %w", k, values[i], q, err)
		}
		s.logf("tidb: %s", q)
	}
	return nil
}
