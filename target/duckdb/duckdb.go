// Package duckdb is txlab's target adapter for DuckDB. DuckDB is embedded
// and needs cgo, which txlab's own build does without: the adapter starts
// txlab-duckdb (the Go module in the repository's duckdb/ directory, built
// once into txlab's cache by package localdb) on one database file and
// talks to it over a Unix socket in a private temporary directory, one
// socket connection per session (the protocol: wire.go, a copy of the
// program's). The program confines DuckDB to the file (no file access
// outside it, no extensions, the configuration locked) and refuses the
// statement kinds that reach further.
//
// DuckDB has one isolation level, snapshot isolation (optimistic: a
// write conflict fails at once with "Conflict on update", a duplicate key
// at COMMIT), no lock waits and no locking reads.
package duckdb

//go:generate sh -c "(echo '// Code generated from duckdb/cmd/txlab-duckdb/wire.go by go generate; DO NOT EDIT.'; echo; sed 's/^package main$/package duckdb/' ../../duckdb/cmd/txlab-duckdb/wire.go) > wire.go"

import (
	"bufio"
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// DBMS is the adapter's target.Info().DBMS.
const DBMS = "duckdb"

// levels: DuckDB's transactions run under snapshot isolation, the only
// level it has (it accepts no SET TRANSACTION ISOLATION LEVEL).
var levels = []target.Level{target.Snapshot}

// ScratchPrefix names the private temporary directories (the socket, a
// fresh database, DuckDB's spill files); those of a txlab process that
// died are removed by the next Open.
const ScratchPrefix = "txlab-duckdb-"

// Options tune Open.
type Options struct {
	// Program is txlab-duckdb; default txlab's build, made first when
	// missing (localdb.InstallDuckDB).
	Program string
	// Progress receives what a user waits for (the first build).
	Progress io.Writer
}

// Target is one DuckDB database file served by one txlab-duckdb.
type Target struct {
	path    string
	dir     string // the private directory: socket, temp files, a fresh database
	temp    bool   // the database is a fresh one in dir
	version string
	p       *proc
	admin   *Session // the registry and the catalogs
	nextID  atomic.Int64
	target.Owned
}

var _ target.Target = (*Target)(nil)

// Open starts txlab-duckdb on the database file at path, creating it if
// needed; an empty path means a fresh database in a new temporary
// directory, removed on Close. An existing file is first opened read-only
// and refused when it holds tables txlab did not create.
func Open(ctx context.Context, path string, opt Options) (*Target, error) {
	if strings.ContainsAny(path, "?#%") {
		return nil, fmt.Errorf("duckdb: %s: a file name with ?, # or %% is not supported", path)
	}
	bin := opt.Program
	if bin == "" {
		var err error
		if bin, err = localdb.InstallDuckDB(ctx, opt.Progress); err != nil {
			return nil, err
		}
	}
	dir, err := localdb.ScratchDir(ScratchPrefix)
	if err != nil {
		return nil, fmt.Errorf("duckdb: temp dir: %w", err)
	}
	t := &Target{path: path, dir: dir}
	if path == "" {
		t.temp = true
		t.path = filepath.Join(dir, "txlab.db")
	} else {
		abs, err := filepath.Abs(path)
		if err != nil {
			os.RemoveAll(dir)
			return nil, fmt.Errorf("duckdb: %w", err)
		}
		t.path = abs
		if _, err := os.Stat(abs); err == nil {
			if err := t.checkExisting(ctx, bin); err != nil {
				os.RemoveAll(dir)
				return nil, err
			}
		}
	}
	if err := t.start(ctx, bin, false); err != nil {
		os.RemoveAll(dir)
		return nil, err
	}
	return t, nil
}

// checkExisting refuses a user's file that holds tables txlab did not
// create, before anything changes it.
func (t *Target) checkExisting(ctx context.Context, bin string) error {
	if err := t.start(ctx, bin, true); err != nil {
		return err
	}
	err := t.Owned.Check(ctx)
	t.stop()
	return err
}

// start runs the program and opens the administrative session.
func (t *Target) start(ctx context.Context, bin string, readOnly bool) error {
	p, version, err := startProc(ctx, bin, t.path, t.dir, readOnly)
	if err != nil {
		return err
	}
	t.p, t.version = p, version
	admin, err := t.session(ctx)
	if err != nil {
		p.stop()
		return err
	}
	t.admin = admin
	res, err := admin.Exec(ctx, "SELECT current_database()")
	if err != nil || len(res.Rows) != 1 {
		t.stop()
		return fmt.Errorf("duckdb: the database's name: %v", err)
	}
	t.Owned = target.Owned{Cat: catalog{s: admin, db: res.Rows[0][0].S, sweep: t.temp}, Where: fmt.Sprintf("DuckDB file %s", t.path),
		Elsewhere: "use a file of txlab's own with --db duckdb:PATH"}
	return nil
}

func (t *Target) stop() error {
	if t.admin != nil {
		t.admin.close()
		t.admin = nil
	}
	if t.p == nil {
		return nil
	}
	err := t.p.stop()
	t.p = nil
	return err
}

// Path is the database file.
func (t *Target) Path() string { return t.path }

// Info implements target.Target. DuckDB reads PostgreSQL's syntax (its
// parser is PostgreSQL's), so cases are rendered in that dialect; it has
// no locking reads.
func (t *Target) Info() target.Info {
	return target.Info{DBMS: DBMS, Version: t.version, Dialect: sqlast.Postgres, Schema: "main",
		Returning: true, NoSharedLocks: true, NoLockingReads: true, Features: features}
}

// Levels implements target.Target.
func (t *Target) Levels() []target.Level { return levels }

// DefaultLevel implements target.Target.
func (t *Target) DefaultLevel() target.Level { return target.Snapshot }

// Open implements target.Target: a new connection of the program's.
func (t *Target) Open(ctx context.Context) (target.Session, error) {
	return t.session(ctx)
}

func (t *Target) session(ctx context.Context) (*Session, error) {
	var d net.Dialer
	nc, err := d.DialContext(ctx, "unix", t.p.socket)
	if err != nil {
		if e := t.p.exited(); e != nil {
			return nil, e
		}
		return nil, fmt.Errorf("duckdb: new session: %w", err)
	}
	return &Session{nc: nc, r: bufio.NewReaderSize(nc, 64<<10), id: strconv.FormatInt(t.nextID.Add(1), 10), p: t.p}, nil
}

// Waiting implements target.Target: a DuckDB statement never waits for
// another transaction (a write conflict fails at once), so no session is
// waiting; one that runs past the block timeout counts as blocked.
func (t *Target) Waiting(ctx context.Context, ids []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

// Close implements target.Target: the program closes the database and
// exits; a fresh database's directory goes with it.
func (t *Target) Close() error {
	err := t.stop()
	// A fresh database, the socket and DuckDB's spill files: never a
	// duckdb:PATH file, which lives elsewhere.
	os.RemoveAll(t.dir)
	return err
}

// readyTimeout bounds the program's start (it opens or creates the file).
const readyTimeout = 30 * time.Second

// proc is a running txlab-duckdb.
type proc struct {
	cmd    *exec.Cmd
	stdin  io.WriteCloser
	socket string
	done   chan struct{} // closed when the program exited
	err    error         // its exit, once done
	stderr *tailBuffer
}

// startProc starts bin on the file path with its socket and temporary
// files in dir, and waits for its ready line.
func startProc(ctx context.Context, bin, path, dir string, readOnly bool) (*proc, string, error) {
	socket := filepath.Join(dir, "s")
	if readOnly {
		socket = filepath.Join(dir, "ro")
	}
	if len(socket) > 100 {
		return nil, "", fmt.Errorf("duckdb: socket path %s is too long for a Unix socket (set TMPDIR to a shorter directory)", socket)
	}
	args := []string{"-db", path, "-socket", socket, "-temp", filepath.Join(dir, "tmp")}
	if readOnly {
		args = append(args, "-read-only")
	}
	cmd := exec.Command(bin, args...)
	cmd.Dir = dir
	stdin, err := cmd.StdinPipe()
	if err != nil {
		return nil, "", err
	}
	stdout, err := cmd.StdoutPipe()
	if err != nil {
		return nil, "", err
	}
	p := &proc{cmd: cmd, stdin: stdin, socket: socket, done: make(chan struct{}), stderr: &tailBuffer{max: 4 << 10}}
	cmd.Stderr = p.stderr
	if err := localdb.StartChild(cmd); err != nil {
		return nil, "", fmt.Errorf("duckdb: start %s: %w", bin, err)
	}
	lines := make(chan string, 1)
	go func() {
		r := bufio.NewReader(io.LimitReader(stdout, 1<<10))
		line, _ := r.ReadString('\n')
		lines <- line
		io.Copy(io.Discard, stdout)
	}()
	go func() {
		p.err = cmd.Wait()
		close(p.done)
	}()
	timer := time.NewTimer(readyTimeout)
	defer timer.Stop()
	var line string
	select {
	case line = <-lines:
	case <-ctx.Done():
		p.stop()
		return nil, "", fmt.Errorf("duckdb: start: %w", ctx.Err())
	case <-timer.C:
		p.stop()
		return nil, "", fmt.Errorf("duckdb: %s did not get ready within %v", bin, readyTimeout)
	}
	f := strings.Fields(line)
	if len(f) != 3 || f[0] != ReadyWord {
		p.stop()
		<-p.done
		return nil, "", fmt.Errorf("duckdb: %s did not start on %s: %s", bin, path, p.why())
	}
	if f[1] != strconv.Itoa(ProtocolVersion) {
		p.stop()
		return nil, "", fmt.Errorf("duckdb: %s speaks protocol %s, this txlab %d: rebuild it (txlab install duckdb)", bin, f[1], ProtocolVersion)
	}
	return p, f[2], nil
}

// why is the program's last error output, or its exit status.
func (p *proc) why() string {
	if s := strings.TrimSpace(p.stderr.String()); s != "" {
		return s
	}
	select {
	case <-p.done:
		return fmt.Sprint(p.err)
	default:
		return "no ready line"
	}
}

// exited returns an error saying the program is gone, or nil while it runs.
func (p *proc) exited() error {
	select {
	case <-p.done:
		return &target.Error{Class: target.ClassConnection, RolledBack: true,
			Message: "txlab-duckdb exited: " + p.why()}
	default:
		return nil
	}
}

// stop closes the program's standard input, on which it closes the
// database and exits, and kills it if it has not after a while.
func (p *proc) stop() error {
	p.stdin.Close()
	select {
	case <-p.done:
	case <-time.After(15 * time.Second):
		p.cmd.Process.Kill()
		<-p.done
		return fmt.Errorf("duckdb: txlab-duckdb did not exit; killed it")
	}
	var ee *exec.ExitError
	if p.err != nil && !errors.As(p.err, &ee) {
		return p.err
	}
	if p.err != nil {
		return fmt.Errorf("duckdb: txlab-duckdb: %v: %s", p.err, p.why())
	}
	return nil
}

// tailBuffer keeps the last max bytes written to it.
type tailBuffer struct {
	mu  sync.Mutex
	max int
	b   bytes.Buffer
}

func (t *tailBuffer) Write(p []byte) (int, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	t.b.Write(p)
	if over := t.b.Len() - t.max; over > 0 {
		t.b.Next(over)
	}
	return len(p), nil
}

func (t *tailBuffer) String() string {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.b.String()
}

// features are the SQL features beyond the base subset (package
// features' names) that DuckDB runs as txlab generates them
// (TestGenerated): several transactions on one connection, UPDATE … FROM
// and DELETE … USING, sequences, expression indexes and MERGE (DuckDB
// 1.4). DuckDB has no savepoints, no row locks (FOR UPDATE, SKIP LOCKED,
// LOCK TABLE), no foreign-key actions (ON DELETE CASCADE, SET NULL), no
// SERIAL, no STORED generated columns, no data-modifying CTEs and no
// partial indexes.
var features = []string{
	"several-transactions-per-connection", "multi-table-update", "multi-table-delete",
	"sequence", "expression-index", "merge",
}
