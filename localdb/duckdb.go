package localdb

import (
	"context"
	"crypto/sha256"
	_ "embed"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
)

// DuckDB has no server: txlab builds one small program, txlab-duckdb,
// from the Go module in the repository's duckdb/ directory (DuckDB's Go
// driver, cgo and a static libduckdb, stays out of txlab's own go.mod and
// build), once, into its cache, and the DuckDB adapter (target/duckdb)
// starts it on a database file and talks to it over a Unix socket.
//
// The module's files reach the txlab binary as copies in duckdbmodule/
// (go:embed cannot reach into a nested module); go generate refreshes
// them and TestDuckDBModuleCopy fails when they differ.
//
//go:generate cp ../duckdb/go.mod duckdbmodule/go.mod.txt
//go:generate cp ../duckdb/go.sum duckdbmodule/go.sum.txt
//go:generate cp ../duckdb/cmd/txlab-duckdb/main.go duckdbmodule/main.go.txt
//go:generate cp ../duckdb/cmd/txlab-duckdb/wire.go duckdbmodule/wire.go.txt

// DuckDBVersion is the DuckDB release the module's driver links
// (github.com/duckdb/duckdb-go/v2 v2.10506.0 is DuckDB 1.5.6).
const DuckDBVersion = "1.5.6"

var (
	//go:embed duckdbmodule/go.mod.txt
	duckdbGoMod string
	//go:embed duckdbmodule/go.sum.txt
	duckdbGoSum string
	//go:embed duckdbmodule/main.go.txt
	duckdbMain string
	//go:embed duckdbmodule/wire.go.txt
	duckdbWire string
)

// How txlab-duckdb is built: the toolchain of txlab's own go.mod, cgo on
// (the driver links libduckdb), no symbol tables.
const (
	duckdbToolchain = "go1.26.8"
	duckdbPackage   = "./cmd/txlab-duckdb"
	duckdbLDFlags   = "-s -w"
	// DuckDBProgram is the program's file name.
	DuckDBProgram = "txlab-duckdb"
	// duckdbBuildNote is what a user waits for, measured on 2 cores.
	duckdbBuildNote = "about 45 s on 2 cores the first time, with a C compiler; Go's module cache grows by about 165 MB, its build cache by 70 MB"
)

// duckdbFiles are the module's files as the build directory holds them.
func duckdbFiles() map[string]string {
	return map[string]string{
		"go.mod": duckdbGoMod, "go.sum": duckdbGoSum,
		"cmd/txlab-duckdb/main.go": duckdbMain, "cmd/txlab-duckdb/wire.go": duckdbWire,
	}
}

// duckdbBuildKey names a build: it changes with anything that changes the
// program (its sources, the module's requirements, the toolchain, flags).
func duckdbBuildKey() string {
	h := sha256.New()
	files := duckdbFiles()
	names := make([]string, 0, len(files))
	for n := range files {
		names = append(names, n)
	}
	slices.Sort(names)
	for _, n := range names {
		io.WriteString(h, n)
		h.Write([]byte{0})
		io.WriteString(h, files[n])
		h.Write([]byte{0})
	}
	for _, s := range []string{duckdbToolchain, duckdbPackage, duckdbLDFlags} {
		io.WriteString(h, s)
		h.Write([]byte{0})
	}
	return "v" + DuckDBVersion + "-" + hex.EncodeToString(h.Sum(nil))[:12]
}

// DuckDBBuildDir is the directory txlab's build of txlab-duckdb lives in
// (whether or not it is built yet): CACHE/duckdb/vVERSION-KEY, holding
// the program and the module and build.log it was built from.
func DuckDBBuildDir() (string, error) {
	root, err := cacheRoot()
	if err != nil {
		return "", err
	}
	return filepath.Join(root, "duckdb", duckdbBuildKey()), nil
}

// DuckDBInstalled returns txlab's build of txlab-duckdb when it is built,
// or false.
func DuckDBInstalled() (string, bool) {
	dir, err := DuckDBBuildDir()
	if err != nil {
		return "", false
	}
	bin := filepath.Join(dir, DuckDBProgram)
	return bin, isExecutable(bin)
}

// DuckDBBuildable says why txlab-duckdb cannot be built here (no go
// command, no C compiler), or nil; a build can still fail for want of
// the module proxy.
func DuckDBBuildable() error {
	if _, ok := DuckDBInstalled(); ok {
		return nil
	}
	_, err := duckdbTools()
	return err
}

// duckdbTools finds the go command and checks for the C compiler cgo
// uses ($CC, else gcc or cc).
func duckdbTools() (string, error) {
	goCmd, err := goTool()
	if err != nil {
		return "", errors.New("building txlab-duckdb needs the go command (https://go.dev/dl/) on PATH")
	}
	cc := strings.Fields(os.Getenv("CC"))
	if len(cc) > 0 {
		if _, err := exec.LookPath(cc[0]); err != nil {
			return "", fmt.Errorf("building txlab-duckdb needs a C compiler for cgo: CC=%s is not found", cc[0])
		}
		return goCmd, nil
	}
	for _, c := range []string{"gcc", "cc", "clang"} {
		if _, err := exec.LookPath(c); err == nil {
			return goCmd, nil
		}
	}
	return "", errors.New("building txlab-duckdb needs a C compiler for cgo (gcc or clang; apt-get install gcc g++)")
}

// InstallDuckDB builds txlab-duckdb once into txlab's cache
// (DuckDBBuildDir) and returns its path; when it is already built it only
// returns the path. It needs the go command, a C compiler and Go's module
// proxy (or the modules in Go's module cache), and says what it does on
// log (nil discards). Concurrent calls, in one process or several, build
// once.
func InstallDuckDB(ctx context.Context, log io.Writer) (string, error) {
	dir, err := DuckDBBuildDir()
	if err != nil {
		return "", err
	}
	goCmd, toolErr := duckdbTools()
	return buildOnce(ctx, buildSpec{
		dir: dir, bin: DuckDBProgram, what: "txlab-duckdb (DuckDB " + DuckDBVersion + ")", note: duckdbBuildNote,
		files: duckdbFiles(),
		check: func() error {
			if toolErr != nil {
				return fmt.Errorf("localdb: txlab-duckdb (DuckDB %s) is not built: %w", DuckDBVersion, toolErr)
			}
			return nil
		},
		build: func(tmp string) error {
			args := []string{"build", "-trimpath", "-ldflags", duckdbLDFlags, "-o", filepath.Join(tmp, DuckDBProgram), duckdbPackage}
			return goBuild(ctx, goCmd, tmp, args, goBuildEnv(duckdbToolchain, "CGO_ENABLED=1"), "txlab-duckdb (DuckDB "+DuckDBVersion+")", log)
		},
	}, log)
}
