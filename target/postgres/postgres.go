// Package postgres is txlab's target adapter for PostgreSQL and CockroachDB,
// through pgconn (pgx's low-level layer), with every value in the server's
// own text. A case's statements go through the extended protocol, one
// statement a message (see Session.Exec); txlab's own through the simple
// protocol. txlab works in its own schema (default "txlab"), set as each
// case session's search_path, and every connection talks UTF-8.
//
// Two roles connect. The --db role's administrative connection creates and
// drops the case role and txlab's schema, keeps txlab's registry and reads
// the catalogs; its search_path is pg_catalog and its own pg_temp, so no
// name in txlab's statements can resolve to a function, operator or type a
// case made. Everything that reads, empties or drops what a case made — the
// final state, TRUNCATE, DROP, the sweep, DROP OWNED at Close — runs on a
// connection of the case role, with no more rights than the case had.
package postgres

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgconn/ctxwatch"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// Flavors, as reported in target.Info.DBMS.
const (
	Postgres  = "postgres"
	Cockroach = "cockroach"
)

var (
	pgLevels = []target.Level{target.ReadUncommitted, target.ReadCommitted, target.RepeatableRead, target.Serializable}
	// CockroachDB runs RC and RR only when cluster settings allow them
	// (otherwise it silently upgrades to SERIALIZABLE); SetIsolation checks.
	crdbLevels = []target.Level{target.ReadCommitted, target.RepeatableRead, target.Serializable}
)

// Target is one PostgreSQL or CockroachDB server, working in one schema.
type Target struct {
	cfg     *pgconn.Config // the --db role's, search_path adminSearchPath: the admin connection
	sessCfg *pgconn.Config // sessions connect with this: the case role's, search_path the schema
	role    caseRole
	locked  bool // the advisory lock on schema is held (lockSchema)
	// codeCheck spaces out the look for code that names txlab's schema.
	codeCheck target.Throttle
	url       string // what Open was given, for Sibling
	flavor    string
	version   string
	// versionNum is PostgreSQL's server_version_num (180004); catalogs and
	// grants differ by release. 0 on CockroachDB.
	versionNum int
	schema     string
	levels     []target.Level

	mu    sync.Mutex // guards admin, which is one connection
	admin *pgconn.PgConn

	// caseMu guards caseConn, the case role's connection for txlab's own
	// statements on what cases made (see the package comment).
	caseMu   sync.Mutex
	caseConn *pgconn.PgConn

	nextID int64 // CockroachDB session numbering, under mu
	target.Owned

	// idle are backends a closed Session left, reset, for the next Open: a
	// new PostgreSQL connection costs about 20 ms (a backend process), and
	// a case opens about twenty.
	poolMu     sync.Mutex
	idle       []*pgconn.PgConn
	poolClosed bool // Close ran: a session closed later is not kept
}

// maxIdle bounds the backends kept for reuse.
const maxIdle = 16

var _ target.Target = (*Target)(nil)

// Open connects to the server at connURL (postgres:// or postgresql://; its
// database is where txlab connects), creates schema if needed and works
// there. flavor may be "" (decided from version()), Postgres or Cockroach.
func Open(ctx context.Context, connURL, flavor, schema string) (*Target, error) {
	if schema == "" {
		schema = "txlab"
	}
	cfg, err := pgconn.ParseConfig(connURL)
	if err != nil {
		return nil, fmt.Errorf("bad PostgreSQL URL: %w", err)
	}
	if cfg.ConnectTimeout == 0 {
		cfg.ConnectTimeout = 10 * time.Second
	}
	cfg.RuntimeParams["search_path"] = adminSearchPath
	pinEncoding(cfg)
	boundMessages(cfg)
	// On cancellation, first ask the server to cancel the statement (the
	// session survives, with an error like any other); close the socket only
	// if that does not work.
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.CancelRequestContextWatcherHandler{Conn: c, DeadlineDelay: 5 * time.Second}
	}
	t := &Target{cfg: cfg, url: connURL, schema: schema}
	if t.admin, err = pgconn.ConnectConfig(ctx, cfg); err != nil {
		return nil, fmt.Errorf("connect %s: %w", redact(connURL), err)
	}
	if _, err := t.adminQuery(ctx, "CREATE SCHEMA IF NOT EXISTS "+quoteIdent(schema)); err != nil {
		t.Close()
		return nil, fmt.Errorf("create schema %s: %w", schema, err)
	}
	rows, err := t.adminQuery(ctx, "SELECT version()")
	if err == nil && len(rows) != 1 {
		err = fmt.Errorf("SELECT version() returned %d rows", len(rows))
	}
	if err != nil {
		t.Close()
		return nil, err
	}
	t.version = rows[0][0].S
	t.flavor, t.levels = Postgres, pgLevels
	if strings.Contains(t.version, "CockroachDB") || flavor == Cockroach {
		t.flavor, t.levels = Cockroach, crdbLevels
	} else if v, err := t.adminQuery(ctx, "SHOW server_version"); err == nil && len(v) == 1 {
		// version() adds the compiler and platform: too long for a summary line.
		t.version = v[0][0].S
		if n, err := t.adminQuery(ctx, "SHOW server_version_num"); err == nil && len(n) == 1 {
			t.versionNum, _ = strconv.Atoi(n[0][0].S)
		}
	}
	sess := cfg
	if t.flavor == Postgres {
		if err := t.prepared(ctx); err != nil {
			t.Close()
			return nil, err
		}
		if err := t.lockSchema(ctx); err != nil {
			t.Close()
			return nil, err
		}
		if sess, err = t.setupCaseRole(ctx); err != nil {
			t.Close()
			return nil, err
		}
	}
	t.sessCfg = sess.Copy()
	t.sessCfg.RuntimeParams["search_path"] = quoteIdent(schema)
	t.Owned = target.Owned{Cat: catalog{t}, Where: fmt.Sprintf("schema %q of %s", schema, redact(connURL)),
		Registry: quoteIdent(schema) + "." + quoteIdent(target.RegistryTable)}
	return t, nil
}

// boundMessages makes connections made with cfg (and its copies) refuse a
// message from the server larger than txlab keeps of a whole result: pgconn
// reads a message whole before txlab sees a row of it, so a single value of
// 900 MB (SELECT repeat('x', 900000000)) or an error text of 500 MB took
// gigabytes before any bound on rows could count it. The statement fails
// and its connection closes; the case is not judged.
func boundMessages(cfg *pgconn.Config) {
	cfg.BuildFrontend = func(r io.Reader, w io.Writer) *pgproto3.Frontend {
		f := pgproto3.NewFrontend(r, w)
		f.SetMaxBodyLen(maxMessage())
		return f
	}
}

// maxMessage is the largest message body accepted: a row (or an error)
// larger than what txlab keeps of a result cannot be kept anyway. It is
// at least 1 MiB, so that the catalogs' and the final state's messages are
// never refused under a tiny --max-result-bytes.
func maxMessage() int {
	return int(max(target.CurrentLimits().Bytes, 1<<20))
}

// adminSearchPath is the administrative connection's search_path: the
// system catalog and its own temporary schema, which no other role can
// write. With txlab's schema on it, a case's txlab.cardinality(integer[])
// beat pg_catalog.cardinality(anyarray) in the lock-wait query and ran as
// the administrator at every poll.
const adminSearchPath = "pg_catalog, pg_temp"

// clientEncoding is the one encoding txlab's connections talk. The scope
// check reads a case's statements as UTF-8 and refuses any that changes
// the encoding: in SJIS, BIG5, GBK or GB18030 a lead byte followed by 0x5c
// is one character, so a string the check reads as holding an escaped
// quote ends there for the server, and the rest runs as SQL.
const clientEncoding = "UTF8"

// pinEncoding makes every connection made with cfg (and its copies: the
// case role's, Ping's) ask for UTF-8 and refuse to go on with anything
// else. The startup packet's client_encoding outranks PGCLIENTENCODING
// (which ParseConfig reads into it, and is overwritten here), the URL's
// options=-c client_encoding=…, and ALTER ROLE or DATABASE … SET
// client_encoding; the check after login catches whatever is left.
func pinEncoding(cfg *pgconn.Config) {
	cfg.RuntimeParams["client_encoding"] = clientEncoding
	prev := cfg.ValidateConnect
	cfg.ValidateConnect = func(ctx context.Context, c *pgconn.PgConn) error {
		if prev != nil {
			if err := prev(ctx, c); err != nil {
				return err
			}
		}
		return checkEncoding(c)
	}
}

// checkEncoding fails when the server says the connection's encoding is
// not UTF-8: it reports every change in a ParameterStatus message, which
// pgconn keeps.
func checkEncoding(c *pgconn.PgConn) error {
	if enc := c.ParameterStatus("client_encoding"); !strings.EqualFold(enc, clientEncoding) {
		return fmt.Errorf("the server set client_encoding %q, not %s: txlab talks UTF-8 only", enc, clientEncoding)
	}
	return nil
}

// redact drops the password from a URL for messages.
func redact(raw string) string {
	u, err := url.Parse(raw)
	if err != nil {
		return "(unparsable URL)"
	}
	return u.Redacted()
}

// Sibling implements target.Sibler.
func (t *Target) Sibling(ctx context.Context, suffix string) (target.Target, error) {
	return Open(ctx, t.url, t.flavor, t.schema+"_"+suffix)
}

// Info implements target.Target.
func (t *Target) Info() target.Info {
	return target.Info{DBMS: t.flavor, Version: t.version, Dialect: sqlast.Postgres, Schema: t.schema, Returning: true, Features: t.features()}
}

// Levels implements target.Target.
func (t *Target) Levels() []target.Level { return t.levels }

// DefaultLevel implements target.Target.
func (t *Target) DefaultLevel() target.Level {
	if t.flavor == Cockroach {
		return target.Serializable
	}
	return target.ReadCommitted
}

// Open implements target.Target.
func (t *Target) Open(ctx context.Context) (target.Session, error) {
	c := t.takeIdle()
	if c == nil {
		var err error
		if c, err = pgconn.ConnectConfig(ctx, t.sessCfg); err != nil {
			return nil, fmt.Errorf("%s: new session: %w", t.flavor, err)
		}
	}
	s := &Session{t: t, conn: c, id: strconv.FormatUint(uint64(c.PID()), 10)}
	if t.flavor == Cockroach {
		// CockroachDB has no backend processes; Waiting cannot use the id
		// anyway, so a counter keeps ids unique and readable.
		t.mu.Lock()
		t.nextID++
		s.id = strconv.FormatInt(t.nextID, 10)
		t.mu.Unlock()
	}
	return s, nil
}

// Waiting implements target.Target: a backend waits on a lock exactly when
// pg_blocking_pids names a blocker, which (unlike pg_stat_activity's
// wait_event) is no longer true once the lock is granted.
func (t *Target) Waiting(ctx context.Context, ids []string) (map[string]bool, error) {
	if t.flavor == Cockroach {
		return nil, target.ErrNoIntrospection
	}
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	for _, id := range ids {
		if _, err := strconv.ParseUint(id, 10, 32); err != nil {
			return nil, fmt.Errorf("bad session id %q", id)
		}
	}
	rows, err := t.adminQuery(ctx, "SELECT pid FROM pg_catalog.unnest('{"+strings.Join(ids, ",")+"}'::pg_catalog.int4[]) AS pid WHERE pg_catalog.cardinality(pg_catalog.pg_blocking_pids(pid)) > 0")
	if err != nil {
		return nil, fmt.Errorf("postgres: lock waits: %w", err)
	}
	for _, r := range rows {
		out[r[0].S] = true
	}
	return out, nil
}

// Ping implements target.Pinger on a connection of its own: the admin
// connection may be held by a query that waits for the frozen server. Its
// context's end closes the socket at once (no cancel request, which a
// frozen server would not answer either).
func (t *Target) Ping(ctx context.Context) error {
	cfg := t.cfg.Copy()
	cfg.BuildContextWatcherHandler = func(c *pgconn.PgConn) ctxwatch.Handler {
		return &pgconn.DeadlineContextWatcherHandler{Conn: c.Conn()}
	}
	c, err := pgconn.ConnectConfig(ctx, cfg)
	if err != nil {
		return err
	}
	defer c.Close(ctx)
	_, err = run(ctx, c, "SELECT 1")
	return err
}

// Addr implements target.Pinger.
func (t *Target) Addr() string {
	return fmt.Sprintf("%s:%d", t.cfg.Host, t.cfg.Port)
}

// Close implements target.Target.
func (t *Target) Close() error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t.poolMu.Lock()
	for _, c := range t.idle {
		c.Close(ctx)
	}
	t.idle, t.poolClosed = nil, true
	t.poolMu.Unlock()
	// The case role goes before the admin connection, whose end releases
	// the schema's lock: the next run finds neither.
	err := t.dropCaseRole(ctx)
	t.caseMu.Lock()
	if t.caseConn != nil {
		t.caseConn.Close(ctx)
		t.caseConn = nil
	}
	t.caseMu.Unlock()
	err = errors.Join(err, t.unlockSchema(ctx))
	t.mu.Lock()
	defer t.mu.Unlock()
	return errors.Join(err, t.admin.Close(ctx))
}

// takeIdle returns a backend from the pool, or nil.
func (t *Target) takeIdle() *pgconn.PgConn {
	t.poolMu.Lock()
	defer t.poolMu.Unlock()
	for len(t.idle) > 0 {
		c := t.idle[len(t.idle)-1]
		t.idle = t.idle[:len(t.idle)-1]
		if !c.IsClosed() {
			return c
		}
	}
	return nil
}

// release resets a session's backend for reuse and keeps it, or closes it
// when it cannot be reset: a transaction is rolled back and DISCARD ALL
// drops every setting (isolation, deadlock_timeout), temporary table, lock
// and prepared statement the session had, back to the connection's startup
// parameters (the search_path of the schema).
func (t *Target) release(c *pgconn.PgConn) error {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	reset := func() error {
		if c.IsClosed() || c.IsBusy() || t.flavor != Postgres {
			return errors.New("not reusable")
		}
		if c.TxStatus() != 'I' {
			if _, err := run(ctx, c, "ROLLBACK"); err != nil {
				return err
			}
		}
		_, err := run(ctx, c, "DISCARD ALL")
		return err
	}
	if err := reset(); err != nil {
		return c.Close(ctx)
	}
	t.poolMu.Lock()
	defer t.poolMu.Unlock()
	if len(t.idle) >= maxIdle || t.poolClosed {
		return c.Close(ctx)
	}
	t.idle = append(t.idle, c)
	return nil
}

// adminQuery runs one statement on the admin connection and returns its
// rows. A query whose context ended may have cost the connection (see
// run): the next one connects again.
func (t *Target) adminQuery(ctx context.Context, q string) ([]target.Row, error) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if t.admin.IsClosed() {
		c, err := pgconn.ConnectConfig(ctx, t.cfg)
		if err != nil {
			return nil, fmt.Errorf("%s: reconnecting the admin connection: %w", t.flavor, err)
		}
		t.admin = c
	}
	res, err := run(ctx, t.admin, q)
	if err != nil {
		return nil, t.classify(ctx, t.admin, err)
	}
	// A catalog query or a table of the final state is used whole, or not at all.
	return res.Rows, res.Whole()
}

// caseQuery runs one of txlab's own statements on what cases made (a
// table's rows, TRUNCATE, DROP) as the case role, on a connection of its
// own that no case runs on; like adminQuery it connects again after a
// query that cost the connection.
func (t *Target) caseQuery(ctx context.Context, q string) ([]target.Row, error) {
	t.caseMu.Lock()
	defer t.caseMu.Unlock()
	if t.caseConn == nil || t.caseConn.IsClosed() {
		c, err := pgconn.ConnectConfig(ctx, t.sessCfg)
		if err != nil {
			return nil, fmt.Errorf("%s: connecting as the case role: %w", t.flavor, err)
		}
		t.caseConn = c
	}
	res, err := run(ctx, t.caseConn, q)
	if err != nil {
		return nil, t.classify(ctx, t.caseConn, err)
	}
	// A table of the final state is used whole, or not at all.
	return res.Rows, res.Whole()
}

// Session is one server connection (one backend).
type Session struct {
	t    *Target
	conn *pgconn.PgConn
	id   string
	// running is set while Exec runs, for a Close that comes from another
	// goroutine (the executor's, after a hang).
	running atomic.Bool
}

// ID implements target.Session: the backend pid.
func (s *Session) ID() string { return s.id }

// SetIsolation implements target.Session.
func (s *Session) SetIsolation(ctx context.Context, l target.Level) error {
	if err := target.CheckLevel(s.t.flavor, l, s.t.levels); err != nil {
		return err
	}
	name := strings.ReplaceAll(string(l), "-", " ")
	if s.t.flavor == Cockroach {
		return s.setCockroachIsolation(ctx, name)
	}
	if _, err := run(ctx, s.conn, "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL "+strings.ToUpper(name)); err != nil {
		return s.t.classify(ctx, s.conn, err)
	}
	return nil
}

// setCockroachIsolation sets the level and checks that a transaction really
// gets it: CockroachDB upgrades RC and RR to SERIALIZABLE, without an error,
// when sql.txn.read_committed_isolation.enabled or
// sql.txn.repeatable_read_isolation.enabled is off.
func (s *Session) setCockroachIsolation(ctx context.Context, name string) error {
	if _, err := run(ctx, s.conn, "SET default_transaction_isolation = '"+name+"'"); err != nil {
		return s.t.classify(ctx, s.conn, err)
	}
	if s.conn.TxStatus() != 'I' {
		return nil // inside a transaction: nothing to probe with
	}
	if _, err := run(ctx, s.conn, "BEGIN"); err != nil {
		return s.t.classify(ctx, s.conn, err)
	}
	res, err := run(ctx, s.conn, "SHOW transaction_isolation")
	if _, rerr := run(ctx, s.conn, "ROLLBACK"); err == nil {
		err = rerr
	}
	if err != nil {
		return s.t.classify(ctx, s.conn, err)
	}
	if got := strings.ToLower(res.Rows[0][0].S); got != name {
		return fmt.Errorf("cockroach runs %s transactions as %s: enable the cluster setting sql.txn.%s_isolation.enabled",
			name, got, strings.ReplaceAll(name, " ", "_"))
	}
	return nil
}

// Exec implements target.Session. The statement goes through the extended
// protocol (Parse, Bind, Describe, Execute, Sync: one round trip, results
// in text as the simple protocol sends them), where the server parses one
// statement a message and refuses more ("cannot insert multiple commands
// into a prepared statement"): what the scope check read as one statement
// cannot run as several, whatever the server makes of its bytes. A
// session the server reports in another encoding than UTF-8 (a change the
// check should have refused) is closed before its next statement.
func (s *Session) Exec(ctx context.Context, q string) (*target.Result, error) {
	s.running.Store(true)
	defer s.running.Store(false)
	inTxn := s.conn.TxStatus() != 'I'
	res, err := runOne(ctx, s.conn, q)
	if encErr := checkEncoding(s.conn); encErr != nil {
		cctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		s.conn.Close(cctx)
		return nil, fmt.Errorf("%s: session closed: %w", s.t.flavor, encErr)
	}
	if err != nil {
		err = s.t.classify(ctx, s.conn, err)
		if te := target.AsError(err); te != nil && inTxn && s.conn.TxStatus() == 'I' {
			// The statement that failed ended its transaction: a COMMIT
			// whose deferred checks or serializable validation failed
			// rolls the transaction back (the error says so, and
			// PostgreSQL's COMMIT docs), and the executor then has
			// nothing to roll back.
			te.RolledBack = true
		}
		return nil, err
	}
	return res, nil
}

// QuickDeadlocks implements target.QuickDeadlocks: PostgreSQL checks a lock
// wait for a deadlock once, after deadlock_timeout; 10 ms keeps a deadlock
// from stalling a free-running workload for the default second. The setting
// needs superuser or a SET grant; without it the server's value stays.
func (s *Session) QuickDeadlocks(ctx context.Context) error {
	if s.t.flavor == Cockroach {
		return nil // no deadlock_timeout: it detects deadlocks by push
	}
	_, err := run(ctx, s.conn, "SET deadlock_timeout = '10ms'")
	if pe := (*pgconn.PgError)(nil); errors.As(err, &pe) && pe.Code == "42501" {
		return nil // insufficient_privilege
	}
	if err != nil {
		return s.t.classify(ctx, s.conn, err)
	}
	return nil
}

// Close implements target.Session: an open transaction is rolled back and
// the backend, reset, waits for the next Open (see release). A session
// whose statement still runs is closed instead.
func (s *Session) Close() error {
	if s.running.Load() {
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		return s.conn.Close(ctx)
	}
	return s.t.release(s.conn)
}

// run executes one statement with the simple protocol. Values are the
// server's text; a nil value is NULL. (pgconn's ReadAll drops the columns of
// an empty result set, hence the explicit loop.)
//
// When ctx ends, pgconn asks the server to cancel the query and gives it
// 5 s; a frozen server answers neither, so after cancelGrace the socket's
// deadline ends the wait (and the connection): every deadline a caller
// sets holds within cancelGrace.
func run(ctx context.Context, c *pgconn.PgConn, q string) (*target.Result, error) {
	return guarded(ctx, c, func() (*target.Result, error) {
		mrr := c.Exec(ctx, q)
		out := &target.Result{Affected: 0} // an empty statement
		for mrr.NextResult() {
			out = readResult(ctx, mrr.ResultReader())
		}
		if err := mrr.Close(); err != nil {
			return nil, err
		}
		return out, nil
	})
}

// runOne executes one statement with the extended protocol, unnamed and
// without parameters, results in text: what run returns for the same
// statement, and an error for a string that holds several.
func runOne(ctx context.Context, c *pgconn.PgConn, q string) (*target.Result, error) {
	return guarded(ctx, c, func() (*target.Result, error) {
		rr := c.ExecParams(ctx, q, nil, nil, nil, nil)
		out := readResult(ctx, rr)
		if _, err := rr.Close(); err != nil { // readResult closed it: the same error again
			return nil, err
		}
		return out, nil
	})
}

// guarded runs exec, a statement on c, with ctx's end bounded as run says.
func guarded(ctx context.Context, c *pgconn.PgConn, exec func() (*target.Result, error)) (_ *target.Result, err error) {
	var mu sync.Mutex
	returned, fired := false, false
	stop := context.AfterFunc(ctx, func() {
		time.AfterFunc(cancelGrace, func() {
			mu.Lock()
			defer mu.Unlock()
			if !returned {
				fired = true
				_ = c.Conn().SetDeadline(time.Now())
			}
		})
	})
	defer func() {
		stop()
		mu.Lock()
		defer mu.Unlock()
		returned = true
		if fired && err == nil {
			// The query had finished after all: the connection is fine.
			_ = c.Conn().SetDeadline(time.Time{})
		}
	}()
	return exec()
}

// cancelGrace is how long a server may take to act on a cancel request.
const cancelGrace = time.Second

// readResult drains one statement's result, keeping what target.KeeperFor
// allows under ctx.
func readResult(ctx context.Context, rr *pgconn.ResultReader) *target.Result {
	out := &target.Result{Affected: -1}
	fds := rr.FieldDescriptions()
	if len(fds) > 0 {
		out.Columns = make([]string, len(fds))
		for i, f := range fds {
			out.Columns[i] = f.Name
		}
		out.Rows = []target.Row{}
	}
	// What target.CurrentLimits allow is kept; the rest is read to the
	// end (the statement completes, as for any client) and counted.
	keep := target.KeeperFor(ctx)
	defer keep.Done()
	for rr.NextRow() {
		if keep.Full() {
			keep.Keep(0)
			continue
		}
		vals := rr.Values()
		row := make(target.Row, len(vals))
		for j, v := range vals {
			if v == nil {
				row[j] = target.NullValue
			} else {
				row[j] = target.Str(string(v))
			}
		}
		if keep.Keep(target.RowSize(row)) {
			out.Rows = append(out.Rows, row)
		}
	}
	out.Truncated = keep.Dropped
	tag, err := rr.Close()
	if err != nil || out.Rows != nil {
		return out // the error is reported again by MultiResultReader.Close
	}
	// No result set. The command tag's count is meaningful for DML only.
	switch {
	case tag.Insert(), tag.Update(), tag.Delete(), strings.HasPrefix(tag.String(), "MERGE"):
		out.Affected = tag.RowsAffected()
	default:
		out.Affected = 0
	}
	return out
}

// catalog implements target.Catalog: catalog reads and the registry on
// the admin connection, the rows, emptying and drops of what cases made
// as the case role (caseQuery).
type catalog struct{ t *Target }

// relkinds lists what Reset must know about: tables (plain, partitioned,
// foreign), views and materialized views.
const relkinds = "('r','p','f','v','m')"

// Tables also makes sure the registry is the administrator's own plain
// table: the administrator writes it, so a table of that name a case
// made first (where CREATE TABLE IF NOT EXISTS then does nothing) would
// run the case's triggers with the administrator's rights.
func (c catalog) Tables(ctx context.Context) ([]string, error) {
	rows, err := c.t.adminQuery(ctx, "SELECT c.relname, c.relkind = 'r' AND c.relowner = (SELECT r.oid FROM pg_catalog.pg_roles r WHERE r.rolname = current_user) "+
		"FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "+
		"WHERE n.nspname = "+quoteString(c.t.schema)+" AND c.relkind IN "+relkinds)
	if err != nil {
		return nil, err
	}
	for _, r := range rows {
		if r[0].S == target.RegistryTable && r[1].S != "t" {
			return nil, fmt.Errorf("%s.%s is not a table of the --db role: txlab keeps its record of its tables there and will not write one someone else made; drop it yourself (DROP TABLE %s.%s) and run again",
				c.t.schema, target.RegistryTable, quoteIdent(c.t.schema), quoteIdent(target.RegistryTable))
		}
	}
	return column(rows), nil
}

// TruncateTables implements target.Truncater: all the tables in one
// statement, so that foreign keys among them do not stop it, while
// PostgreSQL refuses (without CASCADE, which txlab never uses) a table
// that a foreign key of any table not in the list references, inside
// txlab's schema or outside it ("TRUNCATE cannot be used on a table that
// has foreign-key references from other tables, unless all such tables
// are also truncated in the same command", docs 15, TRUNCATE); RESTART
// IDENTITY restarts the tables' own serial and identity columns.
func (c catalog) TruncateTables(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(c.t.schema) + "." + quoteIdent(n)
	}
	_, err := c.t.caseQuery(ctx, "TRUNCATE TABLE "+strings.Join(q, ", ")+" RESTART IDENTITY")
	return err
}

// DropTables drops as the case role what the case role owns. A table
// another role owns (one an earlier txlab, which passed the case role's
// tables to the --db role at Close, left behind) is dropped by the admin
// connection: DROP runs none of the table's code.
func (c catalog) DropTables(ctx context.Context, names []string) error {
	rows, err := c.t.adminQuery(ctx, "SELECT c.relname, c.relkind, pg_catalog.pg_get_userbyid(c.relowner) = "+quoteString(c.t.sessCfg.User)+
		" FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace "+
		"WHERE n.nspname = "+quoteString(c.t.schema)+" AND c.relkind IN "+relkinds)
	if err != nil {
		return err
	}
	kind := map[string]string{}
	var legacy []string
	for _, r := range rows {
		kind[r[0].S] = r[1].S
		if r[2].S != "t" && slices.Contains(names, r[0].S) {
			legacy = append(legacy, r[0].S)
		}
	}
	if err := c.dropAs(ctx, c.t.adminQuery, legacy, kind); err != nil {
		return err
	}
	for _, n := range legacy {
		delete(kind, n)
	}
	return c.dropAs(ctx, c.t.caseQuery, names, kind)
}

// dropAs drops the named relations of the given kinds (relkind by name;
// a name without one is gone already) through query.
func (c catalog) dropAs(ctx context.Context, query func(context.Context, string) ([]target.Row, error), names []string, kind map[string]string) error {
	byStmt := map[string][]string{}
	for _, n := range names {
		stmt := "DROP TABLE IF EXISTS"
		switch kind[n] {
		case "":
			continue // already gone
		case "v":
			stmt = "DROP VIEW IF EXISTS"
		case "m":
			stmt = "DROP MATERIALIZED VIEW IF EXISTS"
		case "f":
			stmt = "DROP FOREIGN TABLE IF EXISTS"
		}
		byStmt[stmt] = append(byStmt[stmt], quoteIdent(c.t.schema)+"."+quoteIdent(n))
	}
	// What depends on others first, each kind in one statement and
	// without CASCADE (txlab never cascades into anything): the objects
	// one statement names may depend on each other (a foreign key between
	// two of txlab's tables), and PostgreSQL refuses an object that
	// something not named depends on (Dependents found none outside the
	// schema).
	// A view over a materialized view is dropped before it in a later
	// pass: each pass drops the kinds nothing left depends on.
	kinds := []string{"DROP MATERIALIZED VIEW IF EXISTS", "DROP VIEW IF EXISTS", "DROP FOREIGN TABLE IF EXISTS", "DROP TABLE IF EXISTS"}
	for {
		var left []string
		var lastErr error
		for _, stmt := range kinds {
			if len(byStmt[stmt]) == 0 {
				continue
			}
			if _, err := query(ctx, stmt+" "+strings.Join(byStmt[stmt], ", ")); err != nil {
				left, lastErr = append(left, stmt), err
			}
		}
		if lastErr == nil {
			return nil
		}
		if len(left) == len(kinds) || len(left) == countKinds(byStmt) {
			return lastErr // no progress
		}
		for _, stmt := range kinds {
			if !slices.Contains(left, stmt) {
				delete(byStmt, stmt)
			}
		}
	}
}

// countKinds is how many kinds of object byStmt still has to drop.
func countKinds(byStmt map[string][]string) int {
	n := 0
	for _, v := range byStmt {
		if len(v) > 0 {
			n++
		}
	}
	return n
}

// Dependents implements target.DependentsLister: every object outside the
// schema that pg_depend records as depending on one of its relations or on a
// relation's row type — a view (through its rewrite rule), a foreign key, a
// function taking the row type. These are exactly what DROP … CASCADE
// would take along, so Reset refuses while any exists. Parts of a relation
// that pg_identify_object gives no schema (a column default, a trigger, a
// policy, a view's rule) belong to the schema of their relation.
func (c catalog) Dependents(ctx context.Context) ([]string, error) {
	s := quoteString(c.t.schema)
	rows, err := c.t.adminQuery(ctx, `SELECT DISTINCT
  CASE WHEN d.classid = 'pg_rewrite'::regclass
    THEN (SELECT pg_describe_object('pg_class'::regclass, r.ev_class, 0) FROM pg_rewrite r WHERE r.oid = d.objid)
    ELSE pg_describe_object(d.classid, d.objid, d.objsubid) END
FROM pg_depend d
JOIN pg_class t ON (d.refclassid = 'pg_class'::regclass AND d.refobjid = t.oid)
  OR (d.refclassid = 'pg_type'::regclass AND d.refobjid = t.reltype)
JOIN pg_namespace tn ON tn.oid = t.relnamespace
CROSS JOIN LATERAL (SELECT COALESCE(
  (pg_identify_object(d.classid, d.objid, d.objsubid)).schema,
  (SELECT v.relnamespace::regnamespace::text FROM pg_class v WHERE v.oid = CASE d.classid
     WHEN 'pg_rewrite'::regclass THEN (SELECT r.ev_class FROM pg_rewrite r WHERE r.oid = d.objid)
     WHEN 'pg_attrdef'::regclass THEN (SELECT a.adrelid FROM pg_attrdef a WHERE a.oid = d.objid)
     WHEN 'pg_trigger'::regclass THEN (SELECT g.tgrelid FROM pg_trigger g WHERE g.oid = d.objid)
     WHEN 'pg_policy'::regclass THEN (SELECT p.polrelid FROM pg_policy p WHERE p.oid = d.objid)
   END)) AS schema) o
WHERE tn.nspname = `+s+` AND d.deptype IN ('n', 'a') AND o.schema IS DISTINCT FROM `+s+`
ORDER BY 1`)
	if err != nil {
		return nil, err
	}
	var code []target.Row
	if c.t.codeCheck.Due() {
		if code, err = c.t.adminQuery(ctx, codeDependents(c.t.schema)); err != nil {
			return nil, err
		}
		c.t.codeCheck.Done(len(code) == 0)
	}
	return append(column(rows), column(code)...), nil
}

// codeDependents finds the functions and procedures outside txlab's
// schema whose source names it (a trigger's function that writes into
// txlab.t): pg_depend knows nothing of a PL/pgSQL body, and dropping
// txlab's tables would break them. Source is text, so a mention counts,
// even in a comment: the refusal is on the safe side.
func codeDependents(schema string) string {
	plain := strings.ToLower(schema)
	return `SELECT DISTINCT 'function ' || p.oid::regprocedure::text FROM pg_catalog.pg_proc p
JOIN pg_catalog.pg_namespace n ON n.oid = p.pronamespace JOIN pg_catalog.pg_language l ON l.oid = p.prolang
WHERE n.nspname NOT IN (` + quoteString(schema) + `, 'pg_catalog', 'information_schema') AND l.lanname NOT IN ('internal', 'c')
  AND (position(` + quoteString(quoteIdent(schema)+".") + ` IN p.prosrc) > 0
    OR lower(p.prosrc) ~ ` + quoteString(`(^|[^a-z0-9_$"])`+regexpQuote(plain)+`\s*\.`) + `)
ORDER BY 1`
}

// regexpQuote escapes s for a PostgreSQL regular expression.
func regexpQuote(s string) string {
	var b strings.Builder
	for _, r := range s {
		if strings.ContainsRune(`\.^$|?*+()[]{}`, r) {
			b.WriteByte('\\')
		}
		b.WriteRune(r)
	}
	return b.String()
}

func (c catalog) ExecAdmin(ctx context.Context, q string) error {
	_, err := c.t.adminQuery(ctx, q)
	return err
}

func (c catalog) QueryColumn(ctx context.Context, q string) ([]string, error) {
	rows, err := c.t.adminQuery(ctx, q)
	return column(rows), err
}

// TableRows reads as the case role: a view's functions run as whoever
// reads it (ts_stat, a function of the user's, pg_read_file).
func (c catalog) TableRows(ctx context.Context, table string) ([]target.Row, error) {
	return c.t.caseQuery(ctx, "SELECT * FROM "+quoteIdent(c.t.schema)+"."+quoteIdent(table))
}

func column(rows []target.Row) []string {
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0].S
	}
	return out
}

func quoteIdent(s string) string  { return `"` + strings.ReplaceAll(s, `"`, `""`) + `"` }
func quoteString(s string) string { return "'" + strings.ReplaceAll(s, "'", "''") + "'" }

// Settings implements target.SettingsReader with current_setting(name, true),
// which is NULL for a setting the server does not know.
func (t *Target) Settings(ctx context.Context, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, name := range names {
		rows, err := t.adminQuery(ctx, "SELECT current_setting('"+strings.ReplaceAll(name, "'", "''")+"', true)")
		if err != nil {
			return nil, fmt.Errorf("reading setting %s: %w", name, err)
		}
		if len(rows) == 1 && len(rows[0]) == 1 && !rows[0][0].Null {
			out[name] = rows[0][0].S
		}
	}
	return out, nil
}

// DropTemporary implements target.TempTables: DISCARD TEMP drops the
// session's temporary tables and nothing else.
func (s *Session) DropTemporary(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	_, err := s.Exec(ctx, "DISCARD TEMP")
	return err
}
