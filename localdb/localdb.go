package localdb

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"time"

	// The readiness probe uses the same drivers as txlab's targets. pgx is used
	// natively: its database/sql adapter pulls in pgxpool and another module.
	_ "github.com/go-sql-driver/mysql"
	"github.com/jackc/pgx/v5"
)

// Kind names a DBMS localdb can start.
type Kind string

// The kinds localdb can start.
const (
	MariaDB  Kind = "mariadb"
	Postgres Kind = "postgres"
	TiDB     Kind = "tidb"
)

// Options tune a server.
type Options struct {
	// Settings are server settings "key=value", e.g.
	// "innodb_snapshot_isolation=ON" or "max_connections=200". They are passed on
	// the command line after localdb's defaults, so they win: "--key=value" for
	// mariadbd (a bare "key" becomes "--key"), "-c key=value" for postgres.
	Settings []string
	// Log receives progress and diagnostics; nil discards them.
	Log io.Writer
	// Bin is a directory of server binaries to run instead of the Debian
	// ones: a release txlab installed or a user's own build. For PostgreSQL
	// it holds postgres and initdb (or has them in bin/); for MariaDB
	// mariadbd and mariadb-install-db (or has them in bin/, sbin/, scripts/
	// or sql/); for TiDB it is the tidb-server binary or its directory.
	Bin string
	// Progress receives the steps a user waits for (TiDB being built
	// once); nil discards them. Log gets them too.
	Progress io.Writer
	// Version asks for a release of kind ("8.5.6"); "" is the default one.
	// Only TiDB builds a release itself; PostgreSQL releases are installed
	// by package pgrelease and reach Start through Bin.
	Version string
}

// Timeouts. Variables so a test could shorten them; not part of the API.
var (
	initTimeout  = 60 * time.Second // mariadb-install-db / initdb
	readyTimeout = 60 * time.Second // until SELECT 1 works
	stopTimeout  = 30 * time.Second // graceful shutdown before SIGKILL
)

const (
	dirPrefix     = "txlab-localdb-"
	ownerFile     = "owner.pid"  // "PID STARTTIME" of the process that owns the dir
	serverPIDFile = "server.pid" // "PID STARTTIME" of the server, written by localdb
	serverLogFile = "server.log"
	initLogFile   = "init.log"
	pgSuperuser   = "txlab"
	startAttempts = 3 // new port after "address already in use"
	logTailLines  = 30
)

// Server is a running throwaway server. Its methods are safe for concurrent use.
type Server struct {
	kind  Kind
	dir   string
	port  int
	bins  binaries
	cred  *credential
	extra []string // user settings as command-line arguments
	log   io.Writer

	proc *process

	stopOnce sync.Once
	stopErr  error
}

// process is one started server process and its exit status.
type process struct {
	cmd     *exec.Cmd
	exited  chan struct{} // closed when Wait returned
	waitErr error         // valid after exited is closed
}

// Available reports nil when kind's binaries are installed, else an error
// naming the missing binary and the Debian package that provides it.
func Available(kind Kind) error {
	if !supported {
		return fmt.Errorf("localdb: only supported on Linux")
	}
	if kind == TiDB {
		return tidbAvailable() // built, or Go is there to build it
	}
	_, err := findBinaries(kind, "")
	return err
}

// Start initialises a fresh data directory and starts a server of the given
// kind on a free loopback port, returning once a real connection works. ctx
// bounds start-up only; the server runs until Stop. On failure nothing is left
// behind and the error includes the tail of the server's log.
func Start(ctx context.Context, kind Kind, opts Options) (*Server, error) {
	if !supported {
		return nil, fmt.Errorf("localdb: only supported on Linux")
	}
	if kind == TiDB {
		bin, err := tidbBin(ctx, opts) // builds it once when opts.Bin is ""
		if err != nil {
			return nil, err
		}
		opts.Bin = bin
	}
	bins, err := findBinaries(kind, opts.Bin)
	if err != nil {
		return nil, err
	}
	extra, err := settingArgs(kind, opts.Settings)
	if err != nil {
		return nil, err
	}
	cred, err := runAsFor(kind)
	if err != nil {
		return nil, err
	}
	logw := opts.Log
	if logw == nil {
		logw = io.Discard
	}
	bases := tempBases()
	sweepStale(bases, logw)
	base, err := pickBase(bases, cred)
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp(base, dirPrefix)
	if err != nil {
		return nil, fmt.Errorf("localdb: %w", err)
	}
	s := &Server{kind: kind, dir: dir, bins: bins, cred: cred, extra: extra, log: logw}
	began := time.Now()
	if err := s.start(ctx); err != nil {
		s.abandon()
		return nil, err
	}
	s.logf("%s ready on 127.0.0.1:%d in %v (dir %s)", kind, s.port, time.Since(began).Round(time.Millisecond), dir)
	return s, nil
}

// start does the work of Start after the directory exists.
func (s *Server) start(ctx context.Context) error {
	// Written first so a sweep by another process never mistakes this
	// directory for an abandoned one.
	if err := os.WriteFile(filepath.Join(s.dir, ownerFile), []byte(selfIdentity().String()+"\n"), 0o644); err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	if s.cred != nil {
		// The server user must create its data directory and socket here.
		if err := os.Chown(s.dir, int(s.cred.Uid), int(s.cred.Gid)); err != nil {
			return fmt.Errorf("localdb: chown %s: %w", s.dir, err)
		}
	}
	t0 := time.Now()
	if err := s.prepareData(ctx, filepath.Dir(s.dir)); err != nil {
		return err
	}
	s.logf("%s data directory ready in %v", s.kind, time.Since(t0).Round(time.Millisecond))

	var err error
	for attempt := 1; attempt <= startAttempts; attempt++ {
		if s.port, err = freePort(); err != nil {
			return err
		}
		if err = s.launch(ctx); err == nil {
			return nil
		}
		s.kill()
		// Between closing the probe listener and the server binding, someone
		// else may take the port; only that failure is worth a retry.
		if !portTaken(err) || ctx.Err() != nil {
			return err
		}
		s.logf("port %d taken, retrying", s.port)
	}
	return err
}

// portTaken says whether a start failed because the port was taken. It reads
// the whole server log, not the error's short line, which may cut the
// message off. (TiDB, a Go program, says it in lower case.)
func portTaken(err error) bool {
	text := err.Error()
	var se *startError
	if errors.As(err, &se) {
		text += "\n" + se.log
	}
	return strings.Contains(strings.ToLower(text), "address already in use")
}

// initData runs mariadb-install-db or initdb, creating workDir/data.
func (s *Server) initData(ctx context.Context, workDir string) error {
	ctx, cancel := context.WithTimeout(ctx, initTimeout)
	defer cancel()
	logPath := filepath.Join(workDir, initLogFile)
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	defer f.Close()
	dataDir := filepath.Join(workDir, "data")
	cmd := exec.CommandContext(ctx, s.bins.init, s.initArgs(dataDir, workDir)...)
	cmd.Dir = workDir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr(s.cred)
	// mariadb-install-db is a shell script running a bootstrap server: on
	// timeout or cancellation the whole group must go.
	cmd.Cancel = func() error { return killTree(cmd.Process.Pid) }
	if err := startCmd(cmd); err != nil {
		return fmt.Errorf("localdb: start %s: %w", s.bins.init, err)
	}
	if err := cmd.Wait(); err != nil {
		if ctx.Err() != nil {
			err = fmt.Errorf("%w (%v)", err, context.Cause(ctx))
		}
		return &startError{
			err: fmt.Errorf("localdb: %s %s failed: %w", filepath.Base(s.bins.init), dataDir, err),
			log: logTail(logPath, logTailLines), logPath: logPath,
		}
	}
	return nil
}

// launch starts the server process on s.port and waits until it answers.
func (s *Server) launch(ctx context.Context) error {
	logPath := filepath.Join(s.dir, serverLogFile)
	f, err := os.OpenFile(logPath, os.O_CREATE|os.O_WRONLY|os.O_APPEND, 0o644)
	if err != nil {
		return fmt.Errorf("localdb: %w", err)
	}
	defer f.Close() // the child has its own copy
	if s.cred != nil {
		// mariadbd reopens its --log-error file itself; keep both kinds alike.
		_ = f.Chown(int(s.cred.Uid), int(s.cred.Gid))
	}
	cmd := exec.Command(s.bins.server, s.serverArgs()...)
	cmd.Dir = s.dir
	cmd.Env = childEnv()
	cmd.Stdout, cmd.Stderr = f, f
	cmd.SysProcAttr = sysProcAttr(s.cred)
	if err := startCmd(cmd); err != nil {
		return fmt.Errorf("localdb: start %s: %w", s.bins.server, err)
	}
	p := &process{cmd: cmd, exited: make(chan struct{})}
	go func() {
		p.waitErr = cmd.Wait()
		close(p.exited)
	}()
	s.proc = p
	id := procIdentity{pid: cmd.Process.Pid}
	id.start, _ = procStartTime(id.pid)
	_ = os.WriteFile(filepath.Join(s.dir, serverPIDFile), []byte(id.String()+"\n"), 0o644)

	if err := s.waitReady(ctx); err != nil {
		return &startError{err: err, log: logTail(logPath, logTailLines), logPath: logPath}
	}
	if s.kind == TiDB {
		return s.tidbAfterReady(ctx)
	}
	return nil
}

// waitReady polls with a real connection and SELECT 1 until it works, the
// server exits, ctx ends or readyTimeout passes.
func (s *Server) waitReady(ctx context.Context) error {
	deadline := time.NewTimer(readyTimeout)
	defer deadline.Stop()
	for {
		actx, cancel := context.WithTimeout(ctx, 2*time.Second)
		err := s.probe(actx)
		cancel()
		if err == nil {
			return nil
		}
		select {
		case <-s.proc.exited:
			return fmt.Errorf("localdb: %s exited during start-up (%v)", s.kind, s.proc.waitErr)
		case <-ctx.Done():
			return fmt.Errorf("localdb: %s start-up interrupted: %w (last probe error: %v)", s.kind, context.Cause(ctx), err)
		case <-deadline.C:
			return fmt.Errorf("localdb: %s not ready after %v: %v", s.kind, readyTimeout, err)
		case <-time.After(50 * time.Millisecond):
		}
	}
}

// probe opens one connection and runs SELECT 1.
func (s *Server) probe(ctx context.Context) error {
	var one int
	if s.kind == Postgres {
		conn, err := pgx.Connect(ctx, s.DriverDSN())
		if err != nil {
			return err
		}
		defer conn.Close(context.Background())
		return conn.QueryRow(ctx, "SELECT 1").Scan(&one)
	}
	db, err := sql.Open("mysql", s.DriverDSN())
	if err != nil {
		return err
	}
	defer db.Close()
	return db.QueryRowContext(ctx, "SELECT 1").Scan(&one)
}

// Stop shuts the server down (SIGTERM for MariaDB, SIGINT - PostgreSQL's
// "fast" shutdown, which does not wait for clients - for PostgreSQL), waits for
// it (SIGKILL after 30 s) and deletes its directory. It is idempotent and safe
// to call from several goroutines; all callers get the same result. It reports
// an error if the server had already died on its own.
func (s *Server) Stop() error {
	s.stopOnce.Do(func() { s.stopErr = s.stop() })
	return s.stopErr
}

func (s *Server) stop() error {
	var errs []error
	if p := s.proc; p != nil {
		select {
		case <-p.exited:
			// It died before we asked: that is worth knowing (a crash).
			errs = append(errs, &startError{
				err: fmt.Errorf("localdb: %s had exited before Stop: %v", s.kind, p.waitErr),
				log: logTail(filepath.Join(s.dir, serverLogFile), logTailLines),
			})
		default:
			sig := shutdownSignal(s.kind)
			if err := p.cmd.Process.Signal(sig); err != nil {
				s.logf("signal %v: %v", sig, err)
			}
			// A server stopped by SIGSTOP (a debugger, a test freezing it)
			// acts on the signal only once continued.
			resume(p.cmd.Process.Pid)
			t := time.NewTimer(stopTimeout)
			select {
			case <-p.exited:
				t.Stop()
			case <-t.C:
				s.logf("%s did not stop within %v, killing it", s.kind, stopTimeout)
				// os.Process.Kill, not a group kill: it cannot hit a recycled
				// pid, and PostgreSQL's backends exit when the postmaster dies.
				_ = p.cmd.Process.Kill()
				<-p.exited
			}
		}
	}
	if err := removeAll(s.dir); err != nil {
		errs = append(errs, fmt.Errorf("localdb: remove %s: %w", s.dir, err))
	} else {
		s.logf("%s on port %d stopped, %s removed", s.kind, s.port, s.dir)
	}
	return errors.Join(errs...)
}

// kill ends the current process, if any, without ceremony (failed start).
func (s *Server) kill() {
	if p := s.proc; p != nil {
		select {
		case <-p.exited:
		default:
			_ = p.cmd.Process.Kill()
			<-p.exited
		}
	}
}

// abandon cleans up after a failed Start.
func (s *Server) abandon() {
	s.kill()
	if err := removeAll(s.dir); err != nil {
		s.logf("remove %s: %v", s.dir, err)
	}
	s.stopOnce.Do(func() {}) // Stop on a failed server is a no-op
}

// DSN is the URL for txlab's --db flag:
// "mariadb://root@127.0.0.1:PORT/" or
// "postgres://txlab@127.0.0.1:PORT/postgres?sslmode=disable".
func (s *Server) DSN() string {
	switch s.kind {
	case MariaDB:
		return fmt.Sprintf("mariadb://root@127.0.0.1:%d/", s.port)
	case TiDB:
		return fmt.Sprintf("tidb://root@127.0.0.1:%d/", s.port)
	default:
		return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable", pgSuperuser, s.port)
	}
}

// DriverDSN is the data source name in the form the Go drivers take:
// "root@tcp(127.0.0.1:PORT)/" for github.com/go-sql-driver/mysql, a
// connection URL for github.com/jackc/pgx/v5 (pgx.Connect, or "pgx" with
// pgx/v5/stdlib).
func (s *Server) DriverDSN() string {
	switch s.kind {
	case MariaDB, TiDB:
		return fmt.Sprintf("root@tcp(127.0.0.1:%d)/?timeout=5s", s.port)
	default:
		return fmt.Sprintf("postgres://%s@127.0.0.1:%d/postgres?sslmode=disable&connect_timeout=5", pgSuperuser, s.port)
	}
}

// Kind is the server's DBMS.
func (s *Server) Kind() Kind { return s.kind }

// Port is the loopback TCP port the server listens on.
func (s *Server) Port() int { return s.port }

// Dir is the server's temporary directory (data, socket, logs); gone after Stop.
func (s *Server) Dir() string { return s.dir }

// PID is the server process id (the postmaster for PostgreSQL).
func (s *Server) PID() int {
	if s.proc == nil {
		return 0
	}
	return s.proc.cmd.Process.Pid
}

// Done is closed when the server process has exited, whether by Stop or not;
// `txlab server` can select on it to notice a crash.
func (s *Server) Done() <-chan struct{} { return s.proc.exited }

// LogPath is the server's log file (inside Dir).
func (s *Server) LogPath() string { return filepath.Join(s.dir, serverLogFile) }

func (s *Server) logf(format string, args ...any) {
	fmt.Fprintf(s.log, "localdb: "+format+"\n", args...)
}

// Unavailable reports why kind's binaries cannot be used (nil when they can)
// and whether a test that needs them must fail rather than skip: it must
// under CI=true, where a missing server is a setup bug. This is the one place
// that rule lives; localdbtest applies it.
func Unavailable(kind Kind) (reason error, fail bool) {
	err := Available(kind)
	if kind == TiDB && err == nil {
		_, err = tidbBuilt() // a test never waits for TiDB's build
	}
	if err != nil {
		return err, os.Getenv("CI") == "true"
	}
	return nil, false
}

// startError carries the tail of a server or init log with the failure.
type startError struct {
	err     error
	log     string
	logPath string
}

func (e *startError) Error() string {
	if e.log == "" {
		return e.err.Error() + " (log is empty)"
	}
	// The cause first, in one short line, when the log names it (a bad
	// --set): the rest of the log is start-up chatter.
	if cause := logCause(e.log); cause != "" {
		return cause + " (" + e.err.Error() + ")"
	}
	return e.err.Error() + "\n--- last lines of the server log ---\n" + e.log
}

// logCause is the server's own words for why it stopped: the messages of
// the log's fatal lines (TiDB's [FATAL], PostgreSQL's FATAL/PANIC) and then
// of its error lines (MariaDB's [ERROR], PostgreSQL's ERROR, TiDB's
// [ERROR]), without timestamps, TiDB's source position and MariaDB's final
// "Aborting", at most about 200 characters; "" when there are none. Fatal
// lines come first because a server may log harmless errors before the one
// that stops it (TiDB on a machine without cgroup v2 CPU limits).
func logCause(log string) string {
	var fatal, errs []string
	for _, line := range strings.Split(log, "\n") {
		for _, mark := range []string{"[FATAL] ", "FATAL:  ", "PANIC:  ", "[ERROR] ", "ERROR:  "} {
			_, msg, ok := strings.Cut(line, mark)
			msg = strings.TrimSpace(tidbSource.ReplaceAllString(msg, ""))
			if !ok || msg == "" || msg == "Aborting" {
				continue
			}
			to := &errs
			if !strings.Contains(mark, "ERROR") {
				to = &fatal
			}
			if !slices.Contains(*to, msg) {
				*to = append(*to, msg)
			}
			break
		}
	}
	cause := strings.Join(append(fatal, errs...), "; ")
	if len(cause) > 200 {
		cause = cause[:197] + "..."
	}
	return cause
}

// tidbSource is the source position TiDB's log puts before a message.
var tidbSource = regexp.MustCompile(`^\[[A-Za-z0-9_]+\.go:[0-9]+\] `)

func (e *startError) Unwrap() error { return e.err }

// freePort asks the kernel for a free loopback port. The port is free only
// until someone else takes it; Start retries on "address already in use".
func freePort() (int, error) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return 0, fmt.Errorf("localdb: find a free port: %w", err)
	}
	defer l.Close()
	return l.Addr().(*net.TCPAddr).Port, nil
}

// childEnv is the environment for server programs: the caller's, with the C
// locale so log messages are in English (Start matches on them) and libpq
// variables removed so they cannot redirect initdb or the server.
func childEnv() []string {
	var env []string
	for _, kv := range os.Environ() {
		k, _, _ := strings.Cut(kv, "=")
		if strings.HasPrefix(k, "PG") || strings.HasPrefix(k, "MYSQL") || strings.HasPrefix(k, "MARIADB") || strings.HasPrefix(k, "LC_") || k == "LANG" || k == "LANGUAGE" {
			continue
		}
		env = append(env, kv)
	}
	return append(env, "LC_ALL=C", "LANG=C")
}

// logTail returns the last n lines of a log file (at most 8 KiB).
func logTail(path string, n int) string {
	f, err := os.Open(path)
	if err != nil {
		return ""
	}
	defer f.Close()
	const maxBytes = 8 << 10
	var off int64
	if fi, err := f.Stat(); err == nil && fi.Size() > maxBytes {
		off = fi.Size() - maxBytes
	}
	b, _ := io.ReadAll(io.NewSectionReader(f, off, maxBytes))
	lines := strings.Split(strings.TrimRight(string(b), "\n"), "\n")
	if off > 0 && len(lines) > 1 {
		lines = lines[1:] // first line is probably cut
	}
	if len(lines) > n {
		lines = lines[len(lines)-n:]
	}
	return strings.Join(lines, "\n")
}

// removeAll retries briefly: PostgreSQL children may still be writing for a
// moment after the postmaster exits.
func removeAll(dir string) error {
	var err error
	for i := 0; i < 20; i++ {
		if err = os.RemoveAll(dir); err == nil {
			return nil
		}
		time.Sleep(50 * time.Millisecond)
	}
	return err
}

// tempBases are the directories server dirs may live in: os.TempDir() and
// /tmp as the fallback (when TMPDIR is too long for a unix socket path or
// not traversable by the PostgreSQL user).
func tempBases() []string {
	bases := []string{os.TempDir()}
	if bases[0] != "/tmp" {
		bases = append(bases, "/tmp")
	}
	return bases
}

// maxSocketPath is the usable length of sun_path on Linux.
const maxSocketPath = 107

// pickBase chooses the first base where the socket path fits and, when the
// server runs as another user, every ancestor is traversable by others.
func pickBase(bases []string, cred *credential) (string, error) {
	// Longest socket path: BASE/txlab-localdb-NNNNNNNNNN/.s.PGSQL.NNNNN
	const suffix = "/" + dirPrefix + "0123456789/.s.PGSQL.65535"
	var reasons []string
	for _, b := range bases {
		abs, err := filepath.Abs(b)
		if err != nil {
			reasons = append(reasons, err.Error())
			continue
		}
		if fi, err := os.Stat(abs); err != nil || !fi.IsDir() {
			reasons = append(reasons, abs+": not a directory")
			continue
		}
		if len(abs)+len(suffix) > maxSocketPath {
			reasons = append(reasons, abs+": too long for a unix socket path")
			continue
		}
		if cred != nil {
			if d := untraversable(abs); d != "" {
				reasons = append(reasons, fmt.Sprintf("%s: not traversable by uid %d (%s lacks o+x)", abs, cred.Uid, d))
				continue
			}
		}
		return abs, nil
	}
	return "", fmt.Errorf("localdb: no usable temp directory: %s", strings.Join(reasons, "; "))
}

// untraversable returns the first directory on the way to dir that others
// cannot search, or "".
func untraversable(dir string) string {
	for d := dir; ; d = filepath.Dir(d) {
		fi, err := os.Stat(d)
		if err != nil || fi.Mode().Perm()&0o001 == 0 {
			return d
		}
		if d == filepath.Dir(d) {
			return ""
		}
	}
}

// dataDir is where the DBMS keeps its files.
func (s *Server) dataDir() string { return filepath.Join(s.dir, "data") }
