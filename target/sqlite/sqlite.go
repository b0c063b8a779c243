// Package sqlite is txlab's target adapter for SQLite, embedded through
// modernc.org/sqlite. The database is one file in WAL mode; each session is
// its own connection, and busy_timeout=0 turns every lock wait into an
// immediate SQLITE_BUSY, so a SQLite session never blocks. The connection
// of a closed session serves the next one when the session left nothing on
// it (see conn).
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
	"sync"
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

	mu     sync.Mutex
	idle   []*conn // connections of closed sessions, for the next ones
	closed bool
	// counters is set once a session reads a connection's counters
	// (changes(), total_changes(), last_insert_rowid(), PRAGMA
	// data_version): from then on
	// every session has a connection of its own, as they all did before
	// connections were kept.
	counters atomic.Bool
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
	// database/sql keeps no connection: Target keeps those it can hand
	// on (see conn), the rest are closed with their session.
	db.SetMaxIdleConns(0)
	t.db = db
	admin, err := db.Conn(ctx)
	if err != nil {
		t.Close()
		return nil, fmt.Errorf("sqlite: open %s: %w", t.path, err)
	}
	t.admin = admin
	if err := setHeapLimit(ctx, admin); err != nil {
		t.Close()
		return nil, err
	}
	// The administrative connection reads and empties what cases made
	// (a view's functions run when the final state is read, a DELETE
	// fires a trigger): once set up, it is confined like a session.
	if err := confine(admin, authorize); err != nil {
		t.Close()
		return nil, err
	}
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
	return target.Info{DBMS: "sqlite", Version: t.version, Dialect: sqlast.SQLite, Schema: "main", Returning: true, Features: features}
}

// Levels implements target.Target.
func (t *Target) Levels() []target.Level { return levels }

// DefaultLevel implements target.Target.
func (t *Target) DefaultLevel() target.Level { return target.Serializable }

// Open implements target.Target: the connection of a closed session that
// left nothing behind, or a new one.
func (t *Target) Open(ctx context.Context) (target.Session, error) {
	c, err := t.conn(ctx)
	if err != nil {
		return nil, err
	}
	return &Session{c: c, t: t, id: strconv.FormatInt(t.nextID.Add(1), 10)}, nil
}

// maxIdle bounds the connections kept: a case has at most a few sessions
// open at a time.
const maxIdle = 8

// conn is one session connection. Its authorizer notes, as the session's
// statements are prepared, whether they may leave anything on the
// connection that a new one would not have: a pragma set, a temporary
// object, a read of the connection's counters (which count since the
// connection was opened). Such a connection is closed with its session;
// any other is rolled back and kept for the next session. What a session
// finds is then what a new connection gives, but for the schema SQLite
// has already read (it reads it again when another connection changed
// it) and the memory it holds.
type conn struct {
	sql *sql.Conn
	// used: the connection served an earlier session.
	used atomic.Bool
	// dirty: a statement may have left state on the connection.
	dirty atomic.Bool
	// counted: a statement read the counters while the connection was used.
	counted atomic.Bool
	// counters is the target's flag of the same name.
	counters *atomic.Bool
}

// counterFunctions return what earlier statements on the connection did
// (as does PRAGMA data_version, which counts other connections' commits).
var counterFunctions = map[string]bool{"changes": true, "total_changes": true, "last_insert_rowid": true}

// authorize is authorize for c, noting what the statement leaves on it.
func (c *conn) authorize(action msqlite.AuthorizerActionCode, arg1, arg2, db, trigger string) msqlite.AuthorizerReturnCode {
	code := authorize(action, arg1, arg2, db, trigger)
	if code != msqlite.AuthorizerOK {
		return code
	}
	if db == "temp" {
		c.dirty.Store(true) // CREATE TABLE temp.x, and anything using one
	}
	switch action {
	case msqlite.AuthPragma:
		p := strings.ToLower(arg1)
		if p == "data_version" {
			return c.counter()
		}
		if arg2 != "" && settablePragmas[p] {
			c.dirty.Store(true)
		}
	case msqlite.AuthCreateTempTable, msqlite.AuthCreateTempIndex, msqlite.AuthCreateTempTrigger, msqlite.AuthCreateTempView:
		c.dirty.Store(true)
	case msqlite.AuthFunction:
		if counterFunctions[strings.ToLower(arg2)] {
			return c.counter()
		}
	}
	return code
}

// counter is the authorizer's answer to a read of the connection's
// counters: refused on a used connection (Session.Exec runs the statement
// again); the connection is not kept after its session, and the target
// keeps none from now on.
func (c *conn) counter() msqlite.AuthorizerReturnCode {
	c.dirty.Store(true)
	c.counters.Store(true)
	if c.used.Load() {
		c.counted.Store(true)
		return msqlite.AuthorizerDeny
	}
	return msqlite.AuthorizerOK
}

// conn returns a kept connection or a new one.
func (t *Target) conn(ctx context.Context) (*conn, error) {
	for !t.counters.Load() {
		t.mu.Lock()
		n := len(t.idle)
		if n == 0 {
			t.mu.Unlock()
			break
		}
		c := t.idle[n-1]
		t.idle = t.idle[:n-1]
		t.mu.Unlock()
		// SQLite checks a connection's copy of the schema when a
		// statement runs, not when one is prepared: a statement prepared
		// against a stale copy can fail to compile (a table with other
		// columns) where a new connection's would not. A read of the
		// schema table notices the change and reads the schema again,
		// as a new connection does.
		if _, err := c.sql.ExecContext(ctx, "SELECT 1 FROM sqlite_schema LIMIT 1"); err == nil {
			return c, nil
		}
		c.sql.Close()
	}
	// A new connection sets its journal mode, which takes a lock; with
	// busy_timeout(0) that fails while another session writes. Opening a
	// session is not part of any case, so it waits its turn.
	var sc *sql.Conn
	var err error
	for wait := time.Millisecond; ; wait = min(2*wait, 50*time.Millisecond) {
		sc, err = t.db.Conn(ctx)
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
	c := &conn{sql: sc, counters: &t.counters}
	if err := confine(sc, c.authorize); err != nil {
		sc.Close()
		return nil, err
	}
	return c, nil
}

// release keeps c for the next session, unless the target is closed or
// keeps enough; it reports whether it did.
func (t *Target) release(c *conn) bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.closed || len(t.idle) >= maxIdle || t.counters.Load() {
		return false
	}
	c.used.Store(true)
	t.idle = append(t.idle, c)
	return true
}

// Waiting implements target.Target: a SQLite session never waits, since
// busy_timeout=0 turns every wait into SQLITE_BUSY.
func (t *Target) Waiting(ctx context.Context, ids []string) (map[string]bool, error) {
	return map[string]bool{}, nil
}

// Close implements target.Target.
func (t *Target) Close() error {
	t.mu.Lock()
	t.closed = true
	idle := t.idle
	t.idle = nil
	t.mu.Unlock()
	for _, c := range idle {
		c.sql.Close()
	}
	if t.admin != nil {
		t.admin.Close()
	}
	err := t.db.Close()
	t.removeTemp()
	return err
}

// Session is one SQLite connection.
type Session struct {
	c  *conn
	t  *Target
	id string
	// ran: a statement ran on the connection in this session.
	ran bool
}

// ID implements target.Session.
func (s *Session) ID() string { return s.id }

// SetIsolation implements target.Session.
func (s *Session) SetIsolation(ctx context.Context, l target.Level) error {
	return target.CheckLevel("sqlite", l, levels)
}

// Exec implements target.Session.
func (s *Session) Exec(ctx context.Context, q string) (*target.Result, error) {
	res, err := s.exec(ctx, q)
	if err != nil && s.c.counted.Load() {
		// The statement reads the counters of a connection that served
		// other sessions: they must count this session's statements
		// only, as on a new connection. No session is handed a used
		// connection from now on; this one gets a new connection when
		// nothing ran on the old one yet (else the statement runs there,
		// its counters counting the earlier sessions' statements too:
		// the one case where a kept connection shows through).
		s.c.counted.Store(false)
		s.c.used.Store(false)
		if !s.ran {
			c, cerr := s.t.conn(ctx)
			if cerr != nil {
				return nil, cerr
			}
			s.c.sql.Close()
			s.c = c
		}
		res, err = s.exec(ctx, q)
	}
	s.ran = true
	return res, err
}

func (s *Session) exec(ctx context.Context, q string) (*target.Result, error) {
	conn := s.c.sql
	if target.ReturnsRows(q) {
		rows, err := conn.QueryContext(ctx, q)
		if err != nil {
			return nil, s.classify(ctx, err)
		}
		res, err := target.ReadRowsContext(ctx, rows)
		if err != nil {
			return nil, s.classify(ctx, err)
		}
		return res, nil
	}
	r, err := conn.ExecContext(ctx, q)
	if err != nil {
		return nil, s.classify(ctx, err)
	}
	n, err := r.RowsAffected()
	if err != nil || !target.ChangesRows(q) {
		n = -1
	}
	return &target.Result{Affected: n}, nil
}

// classify is classify, also noting that a statement cut off by ctx leaves
// the connection in a state nobody checked.
func (s *Session) classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		s.c.dirty.Store(true)
	}
	return classify(ctx, err)
}

// Close implements target.Session. An open transaction is rolled back; the
// connection is kept for the next session when nothing was left on it.
func (s *Session) Close() error {
	_, err := s.c.sql.ExecContext(context.Background(), "ROLLBACK")
	if (err == nil || noTransaction(err)) && !s.c.dirty.Load() && s.t.release(s.c) {
		return nil
	}
	return s.c.sql.Close()
}

// noTransaction reports whether err is ROLLBACK's in autocommit mode.
func noTransaction(err error) bool {
	var se *msqlite.Error
	return errors.As(err, &se) && strings.Contains(se.Error(), "no transaction is active")
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
	case sqlite3.SQLITE_NOMEM:
		// The heap limit (HeapLimit) stopped the statement. SQLite may
		// have rolled the transaction back ("the statement or the
		// transaction", sqlite.org/lang_transaction.html): a ROLLBACK
		// makes sure.
		return target.ClassOther, true
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

// TruncateTables implements target.Truncater: each table loses its rows
// and its AUTOINCREMENT counter, and its definition stays, so connections
// that read the schema need not read it again. It fails, emptying
// nothing, when a foreign key references one of the tables, and refuses a
// table with a trigger (a DELETE would fire it; TRUNCATE fires none).
func (c catalog) TruncateTables(ctx context.Context, names []string) error {
	refs, err := c.QueryColumn(ctx, "SELECT f.\"table\" FROM sqlite_schema m, pragma_foreign_key_list(m.name) f WHERE m.type = 'table' "+
		"UNION ALL SELECT tbl_name FROM sqlite_schema WHERE type = 'trigger'")
	if err != nil {
		return err
	}
	for _, r := range refs {
		for _, n := range names {
			if strings.EqualFold(r, n) {
				return fmt.Errorf("table %s has a trigger or is referenced by a foreign key", n)
			}
		}
	}
	for _, n := range names {
		if err := c.ExecAdmin(ctx, "DELETE FROM "+quoteIdent(n)); err != nil {
			return err
		}
	}
	var seq string
	err = c.db.QueryRowContext(ctx, "SELECT name FROM sqlite_schema WHERE name = 'sqlite_sequence'").Scan(&seq)
	if errors.Is(err, sql.ErrNoRows) {
		return nil
	}
	if err != nil {
		return classify(ctx, err)
	}
	for _, n := range names {
		if _, err := c.db.ExecContext(ctx, "DELETE FROM sqlite_sequence WHERE name = ?", n); err != nil {
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
	// A table of the final state is used whole, or not at all.
	return res.Rows, res.Whole()
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

// features are the SQL features SQLite supports beyond the base subset
// (package features' names). Foreign keys are enforced: every connection
// opens with foreign_keys on. UPDATE … FROM is SQLite 3.33's, generated
// columns 3.31's; SQLite has no row locks, sequences, MERGE or
// data-modifying CTEs.
var features = []string{
	"savepoint", "rollback-to-savepoint", "foreign-key", "on-delete-cascade", "multi-table-update",
	"auto-increment", "partial-index", "expression-index", "generated-column",
	"several-transactions-per-connection", "deferred-constraint",
}
