// Package mysql is txlab's target adapter for the MySQL protocol family:
// MySQL, MariaDB and TiDB, through github.com/go-sql-driver/mysql. txlab works
// in its own database (default "txlab"); each session is a dedicated server
// connection, and lock waits are read from information_schema.
//
// The --db account's administrative pool creates and drops the case account
// and txlab's databases, keeps txlab's registry and reads the catalogs;
// what reads, empties or drops a case's tables and views (the final state,
// TRUNCATE, DROP) runs on a pool of the case account, so an SQL SECURITY
// INVOKER view runs with no more than the case's rights. The case account
// cannot create routines, so no admin query can call one: a case can
// shadow none of the built-in functions txlab's queries call.
package mysql

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"io"
	"log"
	"net/url"
	"slices"
	"strconv"
	"strings"
	"time"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/target"
)

// The driver logs connection resets on its own; txlab reports errors through
// Exec's classified errors, and killed sessions reset connections by design.
func init() {
	drv.SetLogger(log.New(io.Discard, "", 0))
}

// Flavors of the MySQL protocol family, as reported in target.Info.DBMS.
const (
	MySQL   = "mysql"
	MariaDB = "mariadb"
	TiDB    = "tidb"
)

var (
	allLevels  = []target.Level{target.ReadUncommitted, target.ReadCommitted, target.RepeatableRead, target.Serializable}
	tidbLevels = []target.Level{target.ReadCommitted, target.RepeatableRead}
)

// Target is one MySQL-protocol server, working in one database.
type Target struct {
	base     *drv.Config // the configuration Open was given, for Sibling
	admin    *sql.DB     // pooled: catalog queries, Waiting, KILL
	sessions *sql.DB     // one connection per Session, closed (never reused) after it
	// owner is the case account's pool for txlab's own statements on
	// what cases made (reads of the final state, TRUNCATE, DROP); no case
	// runs on it.
	owner   *sql.DB
	flavor  string
	version string
	// returning: MariaDB ≥ 10.5 has DELETE and INSERT … RETURNING.
	returning bool
	schema    string
	levels    []target.Level
	// rollbackOnTimeout mirrors innodb_rollback_on_timeout: whether a lock
	// wait timeout rolls back the whole transaction or only the statement.
	rollbackOnTimeout bool
	// account is what case sessions log in as (see setupCaseAccount).
	account caseAccount
	// lock holds the named lock that keeps a second run out of schema.
	lock     *sql.Conn
	lockName string
	// blind: the --db account may not see lock waits (no PROCESS).
	blind bool
	// noSharedLocks: the server refuses FOR SHARE (TiDB, see tidb.go).
	noSharedLocks bool
	// tidb is what a TiDB target needs to see lock waits (tidb.go).
	tidb *tidbState
	// codeCheck spaces out the look for code that names txlab's tables.
	codeCheck target.Throttle
	target.Owned
}

var _ target.Target = (*Target)(nil)

// ParseURL turns mysql://, mariadb:// or tidb:// URLs
// (user:pass@host:port/db?param=value) into a driver configuration and the
// flavor the scheme names ("" for mysql://, which is decided from VERSION()).
// The query parameter socket=PATH connects over a Unix socket; the other
// parameters are session variables set on every connection.
func ParseURL(raw string) (*drv.Config, string, error) {
	u, err := url.Parse(raw)
	if err != nil {
		return nil, "", fmt.Errorf("bad MySQL URL: %w", err)
	}
	var hint string
	switch u.Scheme {
	case "mysql":
	case "mariadb":
		hint = MariaDB
	case "tidb":
		hint = TiDB
	default:
		return nil, "", fmt.Errorf("bad MySQL URL %q: scheme must be mysql, mariadb or tidb", raw)
	}
	cfg := drv.NewConfig()
	cfg.Net = "tcp"
	port := u.Port()
	if port == "" {
		port = "3306"
		if hint == TiDB {
			port = "4000"
		}
	}
	host := u.Hostname()
	if host == "" {
		host = "127.0.0.1"
	}
	cfg.Addr = host + ":" + port
	if u.User != nil {
		cfg.User = u.User.Username()
		cfg.Passwd, _ = u.User.Password()
	}
	cfg.DBName = strings.Trim(u.Path, "/")
	for k, vs := range u.Query() {
		v := vs[len(vs)-1]
		if k == "socket" {
			cfg.Net, cfg.Addr = "unix", v
			continue
		}
		if cfg.Params == nil {
			cfg.Params = map[string]string{}
		}
		cfg.Params[k] = v
	}
	return cfg, hint, nil
}

// OpenURL is ParseURL followed by Open.
func OpenURL(ctx context.Context, raw, schema string) (*Target, error) {
	cfg, hint, err := ParseURL(raw)
	if err != nil {
		return nil, err
	}
	return Open(ctx, cfg, hint, schema)
}

// Open connects to the server described by cfg (its DBName is only where the
// first connection goes), creates database schema if needed and works there.
// flavor may be "" (decided from VERSION()), MySQL, MariaDB or TiDB.
func Open(ctx context.Context, cfg *drv.Config, flavor, schema string) (*Target, error) {
	if schema == "" {
		schema = "txlab"
	}
	base := cfg.Clone()
	// Text protocol only (no interpolation, no server-side prepare), raw
	// date/time text, one statement at a time, in utf8mb4.
	base.InterpolateParams = false
	base.ParseTime = false
	base.MultiStatements = false
	if base.Timeout == 0 {
		base.Timeout = 10 * time.Second
	}
	if err := pinCharset(base); err != nil {
		return nil, err
	}

	boot, err := openDB(base)
	if err != nil {
		return nil, err
	}
	_, err = boot.ExecContext(ctx, "CREATE DATABASE IF NOT EXISTS "+quoteIdent(schema))
	boot.Close()
	if err != nil {
		return nil, fmt.Errorf("%s: create database %s: %w", base.Addr, schema, err)
	}

	work := base.Clone()
	work.DBName = schema
	t := &Target{base: base, schema: schema}
	if t.admin, err = openDB(work); err != nil {
		return nil, err
	}
	if err := t.lockSchema(ctx); err != nil {
		t.admin.Close()
		return nil, err
	}
	caseCfg, err := t.setupCaseAccount(ctx, work)
	if err != nil {
		t.unlockSchema()
		t.admin.Close()
		return nil, err
	}
	if t.sessions, err = openDB(caseCfg); err != nil {
		t.Close()
		return nil, err
	}
	// A server session's state (isolation level, open transaction) must not
	// leak from one Session into the next, so session connections are closed
	// when released rather than kept idle.
	t.sessions.SetMaxIdleConns(0)
	t.admin.SetMaxIdleConns(4)
	if t.owner, err = openDB(caseCfg); err != nil {
		t.Close()
		return nil, err
	}
	t.owner.SetMaxIdleConns(2)

	if err := t.admin.QueryRowContext(ctx, "SELECT VERSION()").Scan(&t.version); err != nil {
		t.Close()
		return nil, fmt.Errorf("%s: %w", base.Addr, err)
	}
	switch {
	case strings.Contains(t.version, "MariaDB"):
		t.flavor = MariaDB
		var major, minor int
		fmt.Sscanf(t.version, "%d.%d", &major, &minor)
		t.returning = major > 10 || major == 10 && minor >= 5
	case strings.Contains(t.version, "TiDB") || flavor == TiDB:
		t.flavor = TiDB
	default:
		t.flavor = MySQL
	}
	t.levels = allLevels
	if t.flavor == TiDB {
		t.levels = tidbLevels
	}
	var rot sql.NullString
	if t.admin.QueryRowContext(ctx, "SELECT @@innodb_rollback_on_timeout").Scan(&rot) == nil {
		t.rollbackOnTimeout = rot.String == "1" || strings.EqualFold(rot.String, "ON")
	}
	for _, db := range []*sql.DB{t.admin, t.sessions} {
		if err := checkCharset(ctx, db); err != nil {
			t.Close()
			return nil, fmt.Errorf("%s: %w", base.Addr, err)
		}
	}
	if t.flavor != TiDB { // TiDB has no XA
		if err := t.preparedXA(ctx); err != nil {
			t.Close()
			return nil, err
		}
	}
	if t.flavor == TiDB {
		if err := t.openTiDB(ctx); err != nil {
			t.Close()
			return nil, err
		}
	} else {
		// An account without PROCESS sees no lock waits: better to know
		// now than when a session first waits.
		if _, err := t.rowLockWaits(ctx); errors.Is(err, target.ErrNoIntrospection) {
			t.blind = true
		}
	}
	t.Owned = target.Owned{Cat: catalog{t}, Where: fmt.Sprintf("database %q on %s", schema, base.Addr)}
	return t, nil
}

func openDB(cfg *drv.Config) (*sql.DB, error) {
	bound(cfg)
	conn, err := drv.NewConnector(cfg)
	if err != nil {
		return nil, fmt.Errorf("mysql config: %w", err)
	}
	return sql.OpenDB(conn), nil
}

// Sibling implements target.Sibler.
func (t *Target) Sibling(ctx context.Context, suffix string) (target.Target, error) {
	return Open(ctx, t.base, t.flavor, t.schema+"_"+suffix)
}

// Info implements target.Target.
func (t *Target) Info() target.Info {
	return target.Info{DBMS: t.flavor, Version: t.version, Dialect: sqlast.MySQL, Schema: t.schema, Returning: t.returning, NoSharedLocks: t.noSharedLocks, Features: t.features()}
}

// Levels implements target.Target.
func (t *Target) Levels() []target.Level { return t.levels }

// DefaultLevel implements target.Target: REPEATABLE READ across the family.
func (t *Target) DefaultLevel() target.Level { return target.RepeatableRead }

// Open implements target.Target.
func (t *Target) Open(ctx context.Context) (target.Session, error) {
	c, err := t.sessions.Conn(ctx)
	if err != nil {
		return nil, fmt.Errorf("%s: new session: %w", t.flavor, err)
	}
	var id int64
	if err := c.QueryRowContext(ctx, "SELECT CONNECTION_ID()").Scan(&id); err != nil {
		c.Close()
		return nil, fmt.Errorf("%s: new session: %w", t.flavor, err)
	}
	return &Session{t: t, conn: c, id: strconv.FormatInt(id, 10)}, nil
}

// idList renders session ids, which must be integers, as an SQL list.
func idList(ids []string) (string, error) {
	for _, id := range ids {
		if _, err := strconv.ParseUint(id, 10, 64); err != nil {
			return "", fmt.Errorf("bad session id %q", id)
		}
	}
	return strings.Join(ids, ","), nil
}

// kill ends a server session whose statement was cancelled (see fail).
func (t *Target) kill(id string) {
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if t.flavor == TiDB {
		t.killTiDB(ctx, id)
		return
	}
	t.admin.ExecContext(ctx, "KILL "+id)
}

// Close implements target.Target.
// The case account goes first, then the lock: the next run in the
// schema finds neither.
func (t *Target) Close() error {
	var errs []error
	if t.sessions != nil {
		errs = append(errs, t.sessions.Close())
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	if t.owner != nil {
		errs = append(errs, t.dropViews(ctx), t.owner.Close())
	}
	if err := t.dropCaseAccount(ctx); err != nil {
		errs = append(errs, fmt.Errorf("%s: drop txlab's case account %s: %w", t.base.Addr, t.account, err))
	}
	errs = append(errs, t.unlockSchema(), t.admin.Close())
	return errors.Join(errs...)
}

// dropViews drops the views a case made in txlab's schema, as the case
// account, before it goes. The tables stay for a person to read (and the
// next run drops them), but a view is code: an SQL SECURITY INVOKER view
// a later administrator reads runs with the administrator's rights, and
// MariaDB's accounts own nothing, so dropping the case account leaves it
// (red team 3). PostgreSQL's case role drops what it owns.
func (t *Target) dropViews(ctx context.Context) error {
	if t.admin == nil || t.Owned.Cat == nil {
		return nil // Open failed before the schema was txlab's
	}
	owned, err := t.Owned.Tables(ctx)
	if err != nil || len(owned) == 0 {
		return err
	}
	conn, err := t.owner.Conn(ctx)
	if err != nil {
		return err
	}
	rows, err := conn.QueryContext(ctx, "SELECT TABLE_NAME FROM information_schema.VIEWS WHERE TABLE_SCHEMA = DATABASE()")
	if err != nil {
		conn.Close()
		return t.classify(ctx, err)
	}
	res, err := target.ReadRows(rows)
	conn.Close()
	if err != nil {
		return t.classify(ctx, err)
	}
	var views []string
	for _, r := range res.Rows {
		if slices.Contains(owned, r[0].S) {
			views = append(views, r[0].S)
		}
	}
	if len(views) == 0 {
		return nil
	}
	if err := (catalog{t}).DropTables(ctx, views); err != nil {
		return fmt.Errorf("drop the views the cases made in %s: %w", t.Owned.Where, err)
	}
	return nil
}

// Session is one server connection.
type Session struct {
	t    *Target
	conn *sql.Conn
	id   string
}

// ID implements target.Session: the CONNECTION_ID().
func (s *Session) ID() string { return s.id }

// SetIsolation implements target.Session.
func (s *Session) SetIsolation(ctx context.Context, l target.Level) error {
	if err := target.CheckLevel(s.t.flavor, l, s.t.levels); err != nil {
		return err
	}
	name := strings.ToUpper(strings.ReplaceAll(string(l), "-", " "))
	if _, err := s.conn.ExecContext(ctx, "SET SESSION TRANSACTION ISOLATION LEVEL "+name); err != nil {
		return s.t.classify(ctx, err)
	}
	return nil
}

// Exec implements target.Session.
func (s *Session) Exec(ctx context.Context, q string) (*target.Result, error) {
	if target.ReturnsRows(q) {
		rows, err := s.conn.QueryContext(ctx, q)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		res, err := target.ReadRowsContext(ctx, rows)
		if err != nil {
			return nil, s.fail(ctx, err)
		}
		return res, nil
	}
	r, err := s.conn.ExecContext(ctx, q)
	if err != nil {
		return nil, s.fail(ctx, err)
	}
	n, err := r.RowsAffected()
	if err != nil {
		n = -1
	}
	return &target.Result{Affected: n}, nil
}

// fail classifies err. When the context ended the statement, the driver has
// already closed the socket, but the server notices only when the statement
// ends, which for a lock wait means holding its locks until
// innodb_lock_wait_timeout; KILL ends the server session now, before Exec
// returns, so the caller sees its locks gone.
func (s *Session) fail(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		s.t.kill(s.id)
	}
	return s.t.classify(ctx, err)
}

// Close implements target.Session; closing the connection makes the server
// roll back an open transaction.
func (s *Session) Close() error {
	return s.conn.Close()
}

// catalog implements target.Catalog: catalog reads and the registry on
// the admin pool, the rows, emptying and drops of txlab's tables on the
// case account's (owner).
type catalog struct{ t *Target }

func (c catalog) Tables(ctx context.Context) ([]string, error) {
	return c.QueryColumn(ctx, "SELECT TABLE_NAME FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()")
}

func (c catalog) DropTables(ctx context.Context, names []string) error {
	conn, err := c.t.owner.Conn(ctx)
	if err != nil {
		return err
	}
	defer conn.Close()
	rows, err := conn.QueryContext(ctx, "SELECT TABLE_NAME, TABLE_TYPE FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE()")
	if err != nil {
		return c.t.classify(ctx, err)
	}
	res, err := target.ReadRows(rows)
	if err != nil {
		return c.t.classify(ctx, err)
	}
	isView := map[string]bool{}
	for _, r := range res.Rows {
		isView[r[0].S] = r[1].S == "VIEW"
	}
	var tables, views []string
	for _, n := range names {
		if isView[n] {
			views = append(views, quoteIdent(n))
		} else {
			tables = append(tables, quoteIdent(n))
		}
	}
	// Foreign keys between txlab's tables must not make the order matter.
	// The setting is per connection, so it is restored before the
	// connection goes back to the pool.
	if _, err := conn.ExecContext(ctx, "SET FOREIGN_KEY_CHECKS = 0"); err != nil {
		return c.t.classify(ctx, err)
	}
	defer conn.ExecContext(context.Background(), "SET FOREIGN_KEY_CHECKS = 1")
	if len(views) > 0 {
		if _, err := conn.ExecContext(ctx, "DROP VIEW IF EXISTS "+strings.Join(views, ", ")); err != nil {
			return c.t.classify(ctx, err)
		}
	}
	if len(tables) > 0 {
		if _, err := conn.ExecContext(ctx, "DROP TABLE IF EXISTS "+strings.Join(tables, ", ")); err != nil {
			return c.t.classify(ctx, err)
		}
	}
	return nil
}

// TruncateTables implements target.Truncater. Foreign-key checks stay on,
// so InnoDB refuses to truncate a table that any foreign key references
// (error 1701), inside txlab's database or outside it.
func (c catalog) TruncateTables(ctx context.Context, names []string) error {
	for _, n := range names {
		if _, err := c.t.owner.ExecContext(ctx, "TRUNCATE TABLE "+quoteIdent(n)); err != nil {
			return c.t.classify(ctx, err)
		}
	}
	return nil
}

func (c catalog) ExecAdmin(ctx context.Context, q string) error {
	if _, err := c.t.admin.ExecContext(ctx, q); err != nil {
		return c.t.classify(ctx, err)
	}
	return nil
}

func (c catalog) QueryColumn(ctx context.Context, q string) ([]string, error) {
	rows, err := c.TableRowsQuery(ctx, q)
	if err != nil {
		return nil, err
	}
	out := make([]string, len(rows))
	for i, r := range rows {
		out[i] = r[0].S
	}
	return out, nil
}

// Dependents implements target.DependentsLister: foreign keys of tables in
// other databases that reference a table here (dropping it would fail, or
// with FOREIGN_KEY_CHECKS off leave them dangling), and views in other
// databases whose definition names this database (they would break).
func (c catalog) Dependents(ctx context.Context) ([]string, error) {
	// This runs before every reset, so it must be cheap. On InnoDB's own
	// dictionary of foreign keys it is (REFERENTIAL_CONSTRAINTS opens every
	// table of every database: 3 ms on an idle MariaDB, a quarter of a
	// case's server time). Names there are "db/table"; a database name
	// outside [A-Za-z0-9_] is encoded there, so such a name takes the slow
	// query.
	fkQuery := "SELECT DISTINCT CONCAT('foreign key ', CONSTRAINT_NAME, ' on table ', CONSTRAINT_SCHEMA, '.', TABLE_NAME) " +
		"FROM information_schema.REFERENTIAL_CONSTRAINTS WHERE UNIQUE_CONSTRAINT_SCHEMA = DATABASE() AND CONSTRAINT_SCHEMA <> DATABASE() ORDER BY 1"
	if dict := innodbForeignTable[c.t.flavor]; dict != "" && plainName(c.t.schema) {
		fkQuery = "SELECT CONCAT('foreign key ', SUBSTRING_INDEX(ID, '/', -1), ' on table ', REPLACE(FOR_NAME, '/', '.')) " +
			"FROM information_schema." + dict + " WHERE LEFT(REF_NAME, CHAR_LENGTH(DATABASE()) + 1) = CONCAT(DATABASE(), '/') " +
			"AND LEFT(FOR_NAME, CHAR_LENGTH(DATABASE()) + 1) <> CONCAT(DATABASE(), '/') ORDER BY 1"
	}
	fks, err := c.QueryColumn(ctx, fkQuery)
	if err != nil {
		return nil, err
	}
	// sys holds the server's own 100 views (reading their definitions is
	// what made this query cost 4 ms); performance_schema and
	// information_schema cannot hold views.
	views, err := c.QueryColumn(ctx, "SELECT CONCAT('view ', TABLE_SCHEMA, '.', TABLE_NAME) FROM information_schema.VIEWS "+
		"WHERE TABLE_SCHEMA NOT IN ('sys', 'performance_schema', 'information_schema', DATABASE()) "+
		"AND LOCATE(CONCAT('`', DATABASE(), '`.'), VIEW_DEFINITION) > 0 ORDER BY 1")
	if err != nil {
		return nil, err
	}
	var code []string
	if c.t.codeCheck.Due() {
		if code, err = c.QueryColumn(ctx, codeDependents); err != nil {
			return nil, err
		}
		c.t.codeCheck.Done(len(code) == 0)
	}
	return append(append(fks, views...), code...), nil
}

// codeDependents finds the triggers, routines and events outside txlab's
// database whose code names it: dropping txlab's tables would break them
// (a user's INSERT that fires a trigger writing into txlab.t fails with
// 1146). Code is text, so a mention counts — `txlab`.… or txlab.… — even
// in a comment: the refusal is on the safe side.
const codeDependents = "SELECT CONCAT('trigger ', TRIGGER_SCHEMA, '.', TRIGGER_NAME) FROM information_schema.TRIGGERS " +
	"WHERE TRIGGER_SCHEMA NOT IN ('sys', 'mysql', DATABASE()) " +
	"AND (LOCATE(CONCAT('`', DATABASE(), '`.'), ACTION_STATEMENT) > 0 OR ACTION_STATEMENT REGEXP CONCAT('(^|[^A-Za-z0-9_$])', DATABASE(), '[[:space:]]*[.]')) " +
	"UNION ALL SELECT CONCAT(LOWER(ROUTINE_TYPE), ' ', ROUTINE_SCHEMA, '.', ROUTINE_NAME) FROM information_schema.ROUTINES " +
	"WHERE ROUTINE_SCHEMA NOT IN ('sys', 'mysql', DATABASE()) " +
	"AND (LOCATE(CONCAT('`', DATABASE(), '`.'), ROUTINE_DEFINITION) > 0 OR ROUTINE_DEFINITION REGEXP CONCAT('(^|[^A-Za-z0-9_$])', DATABASE(), '[[:space:]]*[.]')) " +
	"UNION ALL SELECT CONCAT('event ', EVENT_SCHEMA, '.', EVENT_NAME) FROM information_schema.EVENTS " +
	"WHERE EVENT_SCHEMA <> DATABASE() " +
	"AND (LOCATE(CONCAT('`', DATABASE(), '`.'), EVENT_DEFINITION) > 0 OR EVENT_DEFINITION REGEXP CONCAT('(^|[^A-Za-z0-9_$])', DATABASE(), '[[:space:]]*[.]')) " +
	"ORDER BY 1"

// innodbForeignTable names, per flavor, the information_schema table that
// lists InnoDB's foreign keys straight from its dictionary.
var innodbForeignTable = map[string]string{MariaDB: "INNODB_SYS_FOREIGN", MySQL: "INNODB_FOREIGN"}

// plainName reports whether InnoDB's dictionary spells the database name s
// as it is: ASCII letters, digits and underscores.
func plainName(s string) bool {
	for _, r := range s {
		if !(r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r == '_') {
			return false
		}
	}
	return s != ""
}

// TableRows reads as the case account: an SQL SECURITY INVOKER view runs
// as whoever reads it (LOAD_FILE, information_schema.PROCESSLIST).
func (c catalog) TableRows(ctx context.Context, table string) ([]target.Row, error) {
	return c.query(ctx, c.t.owner, "SELECT * FROM "+quoteIdent(table))
}

// TableRowsQuery runs a query on the admin pool.
func (c catalog) TableRowsQuery(ctx context.Context, q string) ([]target.Row, error) {
	return c.query(ctx, c.t.admin, q)
}

func (c catalog) query(ctx context.Context, db *sql.DB, q string) ([]target.Row, error) {
	rows, err := db.QueryContext(ctx, q)
	if err != nil {
		return nil, c.t.classify(ctx, err)
	}
	res, err := target.ReadRows(rows)
	if err != nil {
		return nil, c.t.classify(ctx, err)
	}
	// A catalog query or a table of the final state is used whole, or not at all.
	return res.Rows, res.Whole()
}

func quoteIdent(s string) string { return "`" + strings.ReplaceAll(s, "`", "``") + "`" }

// Settings implements target.SettingsReader with SHOW VARIABLES, which
// displays booleans as ON/OFF like the documentation does.
func (t *Target) Settings(ctx context.Context, names []string) (map[string]string, error) {
	out := make(map[string]string, len(names))
	for _, name := range names {
		rows, err := catalog{t}.TableRowsQuery(ctx, "SHOW VARIABLES LIKE '"+strings.ReplaceAll(name, "'", "''")+"'")
		if err != nil {
			return nil, fmt.Errorf("reading setting %s: %w", name, err)
		}
		if len(rows) == 1 && len(rows[0]) == 2 {
			out[name] = rows[0][1].S
		}
	}
	return out, nil
}

// DropTemporary implements target.TempTables: DROP TEMPORARY TABLE never
// drops a permanent table.
func (s *Session) DropTemporary(ctx context.Context, names []string) error {
	if len(names) == 0 {
		return nil
	}
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = quoteIdent(n)
	}
	_, err := s.Exec(ctx, "DROP TEMPORARY TABLE IF EXISTS "+strings.Join(q, ", "))
	return err
}
