// Package connect turns a --db spec into a target.Target: an embedded SQLite
// or DuckDB file, a throwaway MariaDB, PostgreSQL or TiDB server started through
// localdb (Debian's binaries, a PostgreSQL release installed by pgrelease, or
// the user's own build: KIND@VERSION, KIND@/path), or a URL naming an
// existing server. It is the only place that knows every
// adapter, so the CLI and the campaign loop stay DBMS-agnostic.
package connect

import (
	"context"
	"errors"
	"fmt"
	"github.com/txlab/txlab/internal/editdist"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/localdb/pgrelease"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/target/duckdb"
	"github.com/txlab/txlab/target/mysql"
	"github.com/txlab/txlab/target/postgres"
	"github.com/txlab/txlab/target/sqlite"
)

// Options tune Open.
type Options struct {
	// Schema is txlab's own database (MySQL family) or schema (PostgreSQL
	// family); default "txlab". SQLite always works in the file's main schema.
	Schema string
	// Settings are server settings ("key=value") for throwaway servers,
	// passed to localdb.
	Settings []string
	// Log receives diagnostics (server start and stop); nil discards them.
	Log io.Writer
	// Progress receives what a user waits for: a PostgreSQL release being
	// downloaded, TiDB being built. nil discards it.
	Progress io.Writer
	// ConnectTimeout bounds connecting to a server named by a URL, the
	// handshake included (a port that accepts TCP but never answers);
	// default DefaultConnectTimeout.
	ConnectTimeout time.Duration
}

// DefaultConnectTimeout is Options.ConnectTimeout's default.
const DefaultConnectTimeout = 10 * time.Second

// DefaultSchema is where txlab works unless told otherwise.
const DefaultSchema = "txlab"

// Usage describes the accepted specs, for flag help.
const Usage = `"sqlite" (default: a temporary file), "sqlite:PATH"; "duckdb" (a temporary file), "duckdb:PATH" (DuckDB 1.5.6, its program built once); a throwaway local server: ` +
	`"mariadb" or "postgres" (Debian's binaries), "postgres@VERSION" (a release txlab installs: postgres@18, postgres@12.22), ` +
	`"tidb" (TiDB v8.5.6, built once), or KIND@/path/to/bin (your own build of mariadb, postgres or tidb); ` +
	`or a URL: mysql://, mariadb://, tidb://, postgres://, postgresql://, cockroach:// ` +
	`(user:pass@host:port/db; txlab then works in its own schema)`

// kind is what a spec asks for.
type kind int

const (
	kindSQLite kind = iota + 1
	kindDuckDB
	kindLocalMariaDB
	kindLocalPostgres
	kindLocalTiDB
	kindMySQLURL
	kindPostgresURL
	kindCockroachURL
)

// spec is a parsed --db value.
type spec struct {
	kind kind
	// arg is the SQLite path ("" for a temporary file) or the URL to hand
	// to the adapter.
	arg string
	// version is a throwaway server's release (postgres@18); bin its
	// binaries (postgres@/opt/pg/bin). At most one is set.
	version, bin string
}

// local reports whether the spec names a throwaway server.
func (s spec) local() bool {
	return s.kind == kindLocalMariaDB || s.kind == kindLocalPostgres || s.kind == kindLocalTiDB
}

// localKinds maps the names of throwaway servers to their kinds.
var localKinds = map[string]kind{
	"mariadb":    kindLocalMariaDB,
	"postgres":   kindLocalPostgres,
	"postgresql": kindLocalPostgres,
	"tidb":       kindLocalTiDB,
}

// parseSpec classifies a --db value.
func parseSpec(raw string) (spec, error) {
	s := strings.TrimSpace(raw)
	switch {
	case s == "" || s == "sqlite":
		return spec{kind: kindSQLite}, nil
	case strings.HasPrefix(s, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(s, "sqlite:"), "//")
		if path == "" {
			return spec{}, fmt.Errorf("--db %q: sqlite:PATH needs a path", raw)
		}
		return spec{kind: kindSQLite, arg: path}, nil
	case strings.EqualFold(s, "duckdb"):
		return spec{kind: kindDuckDB}, nil
	case strings.HasPrefix(s, "duckdb:"):
		path := strings.TrimPrefix(strings.TrimPrefix(s, "duckdb:"), "//")
		if path == "" {
			return spec{}, fmt.Errorf("--db %q: duckdb:PATH needs a path", raw)
		}
		return spec{kind: kindDuckDB, arg: path}, nil
	case len(s) > 7 && strings.EqualFold(s[:7], "duckdb@"):
		return spec{}, fmt.Errorf("--db %q: txlab runs the DuckDB it builds (%s): want duckdb or duckdb:PATH", raw, localdb.DuckDBVersion)
	}
	if !strings.Contains(s, "://") {
		name, at, hasAt := strings.Cut(s, "@")
		k, ok := localKinds[strings.ToLower(name)]
		if ok && !hasAt {
			return spec{kind: k}, nil
		}
		if ok {
			return parseRelease(raw, k, at)
		}
	}
	if !strings.Contains(s, "://") {
		return spec{}, unknownSpec(raw, s)
	}
	u, err := url.Parse(raw)
	if err != nil || u.Host == "" && u.Query().Get("socket") == "" && u.Query().Get("host") == "" {
		return spec{}, fmt.Errorf("--db %q: want a URL with a host, such as %s://USER:PASSWORD@HOST:PORT/DB (txlab --help lists the targets)", raw, schemeOf(s))
	}
	switch u.Scheme {
	case "mysql", "mariadb", "tidb":
		return spec{kind: kindMySQLURL, arg: raw}, nil
	case "postgres", "postgresql":
		return spec{kind: kindPostgresURL, arg: raw}, nil
	case "cockroach", "cockroachdb":
		// CockroachDB speaks the PostgreSQL protocol; pgconn wants that scheme.
		u.Scheme = "postgresql"
		if u.Port() == "" && u.Host != "" {
			u.Host += ":26257"
		}
		return spec{kind: kindCockroachURL, arg: u.String()}, nil
	}
	return spec{}, fmt.Errorf("--db %q: unknown scheme %q; want mysql://, mariadb://, tidb://, postgres://, postgresql:// or cockroach://", raw, u.Scheme)
}

// specNames are what a --db value that is no URL may start with.
var specNames = []string{"sqlite", "duckdb", "mariadb", "postgres", "postgresql", "tidb"}

// urlSchemes are the schemes of the servers txlab connects to by URL.
var urlSchemes = []string{"mysql", "mariadb", "tidb", "postgres", "postgresql", "cockroach", "cockroachdb"}

// unknownSpec is the error for a --db value s (raw as given) that names no
// target: one short line, with the name it most likely misspells, or the
// URL form when it names a server txlab reaches only by URL (mysql). The
// whole list is txlab --help's: a line of 600 characters hid the typo.
func unknownSpec(raw, s string) error {
	name, rest, hasAt := strings.Cut(s, "@")
	lname := strings.ToLower(name)
	if slices.Contains(urlSchemes, lname) {
		return fmt.Errorf("--db %q: txlab reaches %s by a URL: want %s://USER:PASSWORD@HOST:PORT/DB", raw, name, lname)
	}
	if best := nearestName(lname, specNames); best != "" {
		if hasAt {
			best += "@" + rest
		}
		return fmt.Errorf("--db %q: no such target; did you mean %q? (txlab --help lists the targets)", raw, best)
	}
	return fmt.Errorf("--db %q: no such target; want sqlite, duckdb, mariadb, postgres, postgres@VERSION, tidb, KIND@/path/to/bin or a URL (txlab --help lists them)", raw)
}

// schemeOf is the scheme of a URL-shaped spec, "mysql" when it has none.
func schemeOf(s string) string {
	if scheme, _, ok := strings.Cut(s, "://"); ok && scheme != "" {
		return strings.ToLower(scheme)
	}
	return "mysql"
}

// nearestName returns the name in names that s most likely misspells: the
// one at the smallest edit distance, if that is at most a third of its
// length (postgress, mariadb10, sqlte), or "" when none is that near.
func nearestName(s string, names []string) string {
	best, bestD := "", -1
	for _, n := range names {
		d := editdist.Levenshtein(s, n)
		if d*3 <= len(n) && (bestD < 0 || d < bestD) {
			best, bestD = n, d
		}
	}
	return best
}

// parseRelease reads what follows KIND@: a path to binaries (it starts with
// /, ./, ../ or ~/) or a release.
func parseRelease(raw string, k kind, at string) (spec, error) {
	if at == "" {
		return spec{}, fmt.Errorf("--db %q: want KIND@VERSION (postgres@18) or KIND@/path/to/bin", raw)
	}
	if at[0] == '/' || at[0] == '.' || at[0] == '~' {
		path := at
		if rest, ok := strings.CutPrefix(at, "~/"); ok {
			home, err := os.UserHomeDir()
			if err != nil {
				return spec{}, fmt.Errorf("--db %q: %w", raw, err)
			}
			path = filepath.Join(home, rest)
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return spec{}, fmt.Errorf("--db %q: %w", raw, err)
		}
		return spec{kind: k, bin: abs}, nil
	}
	if strings.Trim(at, "0123456789.") != "" && k != kindLocalPostgres {
		return spec{}, fmt.Errorf("--db %q: want a version such as 8.5.6, or a path to binaries", raw)
	}
	switch k {
	case kindLocalMariaDB:
		return spec{}, fmt.Errorf("--db %q: txlab installs no MariaDB releases; use mariadb (Debian's mariadb-server) or mariadb@/path/to/your/build", raw)
	}
	return spec{kind: k, version: at}, nil
}

var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// DBMS is the DBMS a --db value names by itself: sqlite, duckdb, or a throwaway
// mariadb, postgres or tidb server of any release or build; "" for a URL,
// whose server says what it is only once connected, and for a value that
// names no target.
func DBMS(raw string) string {
	s, err := parseSpec(raw)
	if err != nil {
		return ""
	}
	return map[kind]string{kindSQLite: "sqlite", kindDuckDB: duckdb.DBMS, kindLocalMariaDB: "mariadb", kindLocalPostgres: "postgres", kindLocalTiDB: "tidb"}[s.kind]
}

// Split splits a --db value into its targets: bugs test takes several,
// comma-separated (postgres@10,postgres@18,tidb). A URL holds no comma in
// practice, so a single URL stays one target.
func Split(db string) []string {
	var out []string
	for _, s := range strings.Split(db, ",") {
		if s = strings.TrimSpace(s); s != "" {
			out = append(out, s)
		}
	}
	return out
}

// Open connects to the target that spec names.
func Open(ctx context.Context, raw string, opt Options) (target.Target, error) {
	sp, err := parseSpec(raw)
	if err != nil {
		return nil, err
	}
	schema := opt.Schema
	if schema == "" {
		schema = DefaultSchema
	}
	if !schemaName.MatchString(schema) {
		return nil, fmt.Errorf("--schema %q: want a plain identifier (letters, digits, _)", schema)
	}
	if len(opt.Settings) > 0 && !sp.local() {
		return nil, fmt.Errorf("server settings %v apply only to throwaway servers (--db mariadb, postgres, postgres@VERSION, tidb)", opt.Settings)
	}
	timeout := opt.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	switch sp.kind {
	case kindSQLite:
		return sqlite.Open(ctx, sp.arg)
	case kindDuckDB:
		return duckdb.Open(ctx, sp.arg, duckdb.Options{Progress: opt.Progress})
	case kindMySQLURL:
		return sweepLeftovers(ctx, opt.Progress)(bounded(ctx, timeout, func(ctx context.Context) (target.Target, error) { return mysql.OpenURL(ctx, sp.arg, schema) }))
	case kindPostgresURL:
		return sweepLeftovers(ctx, opt.Progress)(bounded(ctx, timeout, func(ctx context.Context) (target.Target, error) { return postgres.Open(ctx, sp.arg, "", schema) }))
	case kindCockroachURL:
		return sweepLeftovers(ctx, opt.Progress)(bounded(ctx, timeout, func(ctx context.Context) (target.Target, error) {
			return postgres.Open(ctx, sp.arg, postgres.Cockroach, schema)
		}))
	}
	srv, err := startServer(ctx, raw, sp, opt)
	if err != nil {
		return nil, err
	}
	var tg target.Target
	if sp.kind == kindLocalPostgres {
		tg, err = postgres.Open(ctx, srv.DSN(), "", schema)
	} else {
		tg, err = mysql.OpenURL(ctx, srv.DSN(), schema)
	}
	if err != nil {
		return nil, errors.Join(err, srv.Stop())
	}
	return &serverTarget{Target: tg, srv: srv}, nil
}

// StartServer starts the throwaway server a spec names (mariadb, postgres,
// postgres@18, tidb, KIND@/path), for `txlab server`; other specs are an
// error.
func StartServer(ctx context.Context, raw string, opt Options) (*localdb.Server, error) {
	sp, err := parseSpec(raw)
	if err != nil || !sp.local() {
		return nil, fmt.Errorf("%q is not a throwaway server: want mariadb, postgres, postgres@VERSION, tidb or KIND@/path/to/bin", raw)
	}
	return startServer(ctx, raw, sp, opt)
}

// startServer resolves a release (installing it when needed) and starts it.
func startServer(ctx context.Context, raw string, sp spec, opt Options) (*localdb.Server, error) {
	lo := localdb.Options{Settings: opt.Settings, Log: opt.Log, Bin: sp.bin, Version: sp.version}
	var k localdb.Kind
	switch sp.kind {
	case kindLocalMariaDB:
		k = localdb.MariaDB
	case kindLocalPostgres:
		k = localdb.Postgres
		if sp.version != "" {
			rel, err := pgrelease.Find(ctx, sp.version, pgrelease.Options{Log: opt.Progress})
			if err != nil {
				return nil, fmt.Errorf("--db %s: %w", raw, err)
			}
			lo.Bin, lo.Version = rel.Bin(), ""
		}
	case kindLocalTiDB:
		k = localdb.TiDB
		lo.Progress = opt.Progress
	default:
		return nil, fmt.Errorf("--db %q: unsupported", raw)
	}
	srv, err := localdb.Start(ctx, k, lo)
	if err != nil {
		return nil, fmt.Errorf("--db %s: %w", raw, err)
	}
	return srv, nil
}

// bounded connects with open within timeout, and says so plainly when the
// server did not answer in time.
func bounded(ctx context.Context, timeout time.Duration, open func(context.Context) (target.Target, error)) (target.Target, error) {
	cctx, cancel := context.WithTimeout(ctx, timeout)
	defer cancel()
	tg, err := open(cctx)
	if err != nil && ctx.Err() == nil && cctx.Err() != nil {
		return nil, fmt.Errorf("the server did not answer within %v (--connect-timeout): %w", timeout, err)
	}
	return tg, err
}

// sweepLeftovers returns what cleans, once a target on a server txlab did
// not start is open, the sibling schemas a killed run left with their case
// accounts (target.LeftoverSweeper), and says which on log. A leftover it
// cannot clean fails the open, naming it: a run does not start beside
// what it cannot account for. A throwaway server starts empty.
func sweepLeftovers(ctx context.Context, log io.Writer) func(target.Target, error) (target.Target, error) {
	return func(tg target.Target, err error) (target.Target, error) {
		if err != nil {
			return tg, err
		}
		s, ok := target.As[target.LeftoverSweeper](tg)
		if !ok {
			return tg, nil
		}
		swept, err := s.SweepLeftovers(ctx)
		if len(swept) > 0 && log != nil {
			fmt.Fprintf(log, "txlab: removed the case accounts a killed run left for %s\n", strings.Join(swept, ", "))
		}
		if err != nil {
			tg.Close()
			return nil, err
		}
		return tg, nil
	}
}

// serverTarget is a Target on a server txlab started: closing it stops the
// server.
type serverTarget struct {
	target.Target
	srv *localdb.Server
}

// Close closes the connections, then stops the server.
func (t *serverTarget) Close() error {
	return errors.Join(t.Target.Close(), t.srv.Stop())
}

// Unwrap implements target.Wrapper: the adapter's optional interfaces
// (table reuse, sibling schemas, settings) are found through the wrapper.
func (t *serverTarget) Unwrap() target.Target { return t.Target }

// Server returns the throwaway server behind tg, or nil when tg does not
// run on one (for `txlab server`-style reporting of ports and logs).
func Server(tg target.Target) *localdb.Server {
	if st, ok := target.As[*serverTarget](tg); ok {
		return st.srv
	}
	return nil
}
