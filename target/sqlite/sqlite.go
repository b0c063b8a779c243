// Package sqlite is txlab's target adapter for SQLite, embedded through
// modernc.org/sqlite. The database is one file in WAL mode; each session is
// its own connection, and busy_timeout=0 turns every lock wait into an
// immediate SQLITE_BUSY, so a SQLite session never blocks.
package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"time"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// levels: SQLite transactions are always serializable (one writer at a time,
// readers on a snapshot); PRAGMA read_uncommitted only matters in shared-cache
// mode, which txlab does not use.
var levels = []target.Level{target.Serializable}

// Target is a SQLite database file.
type Target struct {
	db      *sql.DB
	admin   *sql.Conn // Reset, Adopt and Dump; sessions have their own
	path    string
	tempDir string // removed on Close when the file was a temporary one
	version string
	nextID  atomic.Int64
	target.Owned
}

var _ target.Target = (*Target)(nil)

// ScratchPrefix names the temporary directories of fresh databases; those
// of a txlab process that died are removed by the next Open.
const ScratchPrefix = "txlab-sqlite-"

// Open opens (creating if needed) the database file at path. An empty path
// means a fresh database in a new temporary directory, removed on Close.
func Open(ctx context.Context, path string) (*Target, error) {
	t := &Target{path: path}
	if path == "" {
		dir, err := localdb.ScratchDir(ScratchPrefix)
		if err != nil {
			return nil, fmt.Errorf("sqlite: temp dir: %w", err)
		}
		t.tempDir = dir
		t.path = filepath.Join(dir, "txlab.db")
	} else if err := checkExisting(ctx, path); err != nil {
		return nil, err
	}
	db, err := sql.Open("sqlite", dsn(t.path))
	if err != nil {
		t.removeTemp()
		return nil, fmt.Errorf("sqlite: open %s: %w", t.path, err)
	}
	// A session's connection must not outlive it: one handed back to the
	// pool could carry a read snapshot from an earlier case into the next.
	db.SetMaxIdleConns(0)
	t.db = db
	admin, err := db.Conn(ctx)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", t.path, err)
	}
	t.admin = admin
	t.Owned = owned(admin, t.path)
	if err := admin.QueryRowContext(ctx, "SELECT sqlite_version()").Scan(&t.version); err != nil {
		t.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", t.path, err)
	}
	return t, nil
}

// checkExisting refuses a user's existing file that holds tables txlab did
// not create before anything changes it: opening it for txlab would switch
// it to WAL mode for good.
func checkExisting(ctx context.Context, path string) error {
	if _, err := os.Stat(path); err != nil {
		return nil // a new file: txlab's own
	}
	db, err := sql.Open("sqlite", "file:"+path+"?mode=ro")
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	defer db.Close()
	conn, err := db.Conn(ctx)
	if err != nil {
		return fmt.Errorf("sqlite: open %s: %w", path, err)
	}
	defer conn.Close()
	return owned(conn, path).Check(ctx)
}

// owned is the ownership policy over one connection to the file at path.
func owned(conn *sql.Conn, path string) target.Owned {
	return target.Owned{Cat: catalog{conn}, Where: fmt.Sprintf("SQLite file %s", path),
		Elsewhere: "use a file of txlab's own with --db sqlite:PATH"}
}

// dsn sets the pragmas on every connection: WAL so readers and one writer
// proceed concurrently, busy_timeout(0) so a lock conflict is reported at
// once instead of waited out, foreign keys enforced, BEGIN deferred.
func dsn(path string) string {
	q := url.Values{}
	q.Add("_pragma", "journal_mode(WAL)")
	q.Add("_pragma", "busy_timeout(0)")
	q.Add("_pragma", "foreign_keys(on)")
	// No fsync: txlab's tables are scratch data, and durability after a
	// crash has no part in isolation (the throwaway servers run without
	// fsync too). Commit syscalls took a third of a campaign's CPU.
	q.Add("_pragma", "synchronous(OFF)")
	q.Set("_txlock", "deferred")
	return "file:" + path + "?" + q.Encode()
}

func (t *Target) removeTemp() {
	if t.tempDir != "" {
		os.RemoveAll(t.tempDir)
	}
}

// Path is the database file.
func (t *Target) Path() string { return t.path }

// Info implements target.Target.
func (t *Target) Info() target.Info {
	return target.Info{DBMS: "sqlite", Version: t.version, Dialect: sqlast.SQLite, Schema: "main", Returning: true}
}

// Levels implements target.Target.
func (t *Target) Levels() []target.Level { return levels }

// DefaultLevel implements target.Target.
func (t *Target) DefaultLevel() target.Level { return target.Serializable }

// Open implements target.Target.
func (t *Target) Open(ctx context.Context) (target.Session, error) {
	// A new connection sets its journal mode, which takes a lock; with
	// busy_timeout(0) that fails while another session writes. Opening a
	// session is not part of any case, so it waits its turn.
	var c *sql.Conn
	var err error
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		c, err = t.db.Conn(ctx)
		var se *msqlite.Error
		if err == nil || !errors.As(err, &se) || se.Code()&0xff != sqlite3.SQLITE_BUSY {
			break
		}
		select {
		case <-ctx.Done():
			return nil, fmt.Errorf("sqlite: new session: %w", err)
		case <-time.After(wait):
		}
	}
	if err != nil {
		return nil, fmt.Errorf("sqlite: new session: %w", err)
	}
	if err := confine(c); err != nil {
		c.Close()
		return nil, err
	}
	return &Session{conn: c, id: strconv.FormatInt(t.nextID.Add(1), 10)}, nil
}

// Waiting implements target.Target: a SQLite session never waits, since
// busy_timeout=0 turns every wait into SQLITE_BUSY.
func (t *Target) Waiting(ctx context.Context, ids []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

// Close implements target.Target.
func (t *Target) Close() error {
	if t.admin != nil {
		t.admin.Close()
	}
	err := t.db.Close()
	t.removeTemp()
	return err
}

// Session is one SQLite connection.
type Session struct {
	conn *sql.Conn
	id   string
}

// ID implements target.Session.
func (s *Session) ID() string { return s.id }

// SetIsolation implements target.Session.
func (s *Session) SetIsolation(ctx context.Context, l target.Level) error {
	return target.CheckLevel("sqlite", l, levels)
}

// Exec implements target.Session.
func (s *Session) Exec(ctx context.Context, q string) (*target.Result, error) {
	if target.ReturnsRows(q) {
		rows, err := s.conn.QueryContext(ctx, q)
		if err != nil {
			return nil, classify(ctx, err)
		}
		res, err := target.ReadRows(rows)
		if err != nil {
			return nil, classify(ctx, err)
		}
		return res, nil
	}
	r, err := s.conn.ExecContext(ctx, q)
	if err != nil {
		return nil, classify(ctx, err)
	}
	n, err := r.RowsAffected()
	if err != nil || !target.ChangesRows(q) {
		n = -1
	}
	return &target.Result{Affected: n}, nil
}

// Close implements target.Session. The connection goes back to the pool, so
// an open transaction is rolled back first.
func (s *Session) Close() error {
	s.conn.ExecContext(context.Background(), "ROLLBACK")
	return s.conn.Close()
}

// classify turns a driver error into a *target.Error; a cancelled context is
// reported as such, not as a DBMS error.
func classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("sqlite: %w", ctx.Err())
	}
	var se *msqlite.Error
	if !errors.As(err, &se) {
		return &target.Error{Class: target.ClassConnection, Message: err.Error()}
	}
	code := se.Code()
	e := &target.Error{Code: strconv.Itoa(code), Message: se.Error()}
	e.Class, e.RolledBack = classOf(code, se.Error())
	return e
}

// classOf maps an extended result code (and, for the catch-all SQLITE_ERROR,
// the message) to an error class.
func classOf(code int, msg string) (target.ErrorClass, bool) {
	switch code {
	case sqlite3.SQLITE_BUSY_SNAPSHOT:
		// The snapshot the transaction read is stale: it can never write, so
		// only ROLLBACK makes progress.
		return target.ClassSerialization, true
	case sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY, sqlite3.SQLITE_CONSTRAINT_UNIQUE:
		return target.ClassDuplicateKey, false
	}
	switch code & 0xff {
	case sqlite3.SQLITE_BUSY, sqlite3.SQLITE_LOCKED:
		return target.ClassBusy, false
	case sqlite3.SQLITE_CONSTRAINT:
		return target.ClassConstraint, false
	case sqlite3.SQLITE_MISMATCH, sqlite3.SQLITE_TOOBIG, sqlite3.SQLITE_RANGE:
		return target.ClassData, false
	case sqlite3.SQLITE_ERROR:
		m := strings.ToLower(msg)
		switch {
		case strings.Contains(m, "overflow"):
			return target.ClassData, false
		case strings.Contains(m, "no such table"):
			return target.ClassNoSuchTable, false
		case strings.Contains(m, "already exists"):
			return target.ClassExists, false
		case strings.Contains(m, "within a transaction"), strings.Contains(m, "no transaction is active"):
			// BEGIN inside a transaction, COMMIT outside one: valid
			// statements in the wrong state, not invalid statements.
			return target.ClassOther, false
		}
		return target.ClassSyntax, false
	}
	return target.ClassOther, false
}

// catalog implements target.Catalog over the target's administrative
// connection, kept open for the target's lifetime.
type catalog struct{ db *sql.Conn }

func (c catalog) Tables(ctx context.Context) ([]string, error) {
	return c.QueryColumn(ctx, "SELECT name FROM sqlite_schema WHERE type IN ('table','view') AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\'")
}

func (c catalog) DropTables(ctx context.Context, names []string) error {
	conn := c.db
	// Foreign keys between txlab's tables must not make the order matter;
	// the pragma is per connection and a no-op inside a transaction, so it
	// is set here, on a connection in autocommit, and restored after.
	if _, err := conn.ExecContext(ctx, "PRAGMA foreign_keys = OFF"); err != nil {
		return err
	}
	defer conn.ExecContext(context.Background(), "PRAGMA foreign_keys = ON")
	for _, n := range names {
		var typ string
		err := conn.QueryRowContext(ctx, "SELECT type FROM sqlite_schema WHERE name = ?", n).Scan(&typ)
		if errors.Is(err, sql.ErrNoRows) {
			continue
		}
		if err != nil {
			return err
		}
		kind := "TABLE"
		if typ == "view" {
			kind = "VIEW"
		}
		if _, err := conn.ExecContext(ctx, "DROP "+kind+" IF EXISTS "+quoteIdent(n)); err != nil {
			return classify(ctx, err)
		}
	}
	return nil
}

func (c catalog) ExecAdmin(ctx context.Context, q string) error {
	if _, err := c.db.ExecContext(ctx, q); err != nil {
		return classify(ctx, err)
	}
	return nil
}

func (c catalog) QueryColumn(ctx context.Context, q string) ([]string, error) {
	rows, err := c.db.QueryContext(ctx, q)
	if err != nil {
		return nil, classify(ctx, err)
	}
	res, err := target.ReadRows(rows)
	if err != nil {
		return nil, classify(ctx, err)
	}
	out := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r[0].S
	}
	return out, nil
}

func (c catalog) TableRows(ctx context.Context, table string) ([]target.Row, error) {
	rows, err := c.db.QueryContext(ctx, "SELECT * FROM "+quoteIdent(table))
	if err != nil {
		return nil, classify(ctx, err)
	}
	res, err := target.ReadRows(rows)
	if err != nil {
		return nil, classify(ctx, err)
	}
	return res.Rows, nil
}

func quoteIdent(s string) string { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }

// DropTemporary implements target.TempTables: names are qualified with the
// connection's temp schema, so a permanent table is never reached.
func (s *Session) DropTemporary(ctx context.Context, names []string) error {
	for _, n := range names {
		if _, err := s.Exec(ctx, "DROP TABLE IF EXISTS temp."+quoteIdent(n)); err != nil {
			return err
		}
	}
	return nil
}
