// Package connect turns a --db spec into a target.Target: an embedded SQLite
// file, a throwaway MariaDB or PostgreSQL server started through localdb, or
// a URL naming an existing server. It is the only place that knows every
// adapter, so the CLI and the campaign loop stay DBMS-agnostic.
package connect

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/url"
	"regexp"
	"strings"
	"time"

	"github.com/txlab/txlab/localdb"
	"github.com/txlab/txlab/target"
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
const Usage = `"sqlite" (default: a temporary file), "sqlite:PATH", "mariadb" or "postgres" ` +
	`(a throwaway local server), or a URL: mysql://, mariadb://, tidb://, postgres://, postgresql://, cockroach:// ` +
	`(user:pass@host:port/db; txlab then works in its own schema)`

// kind is what a spec asks for.
type kind int

const (
	kindSQLite kind = iota + 1
	kindLocalMariaDB
	kindLocalPostgres
	kindMySQLURL
	kindPostgresURL
	kindCockroachURL
)

// parseSpec classifies a spec; for SQLite arg is the path ("" for a
// temporary file), for URLs the URL to hand to the adapter.
func parseSpec(spec string) (k kind, arg string, err error) {
	switch s := strings.TrimSpace(spec); {
	case s == "" || s == "sqlite":
		return kindSQLite, "", nil
	case strings.HasPrefix(s, "sqlite:"):
		path := strings.TrimPrefix(strings.TrimPrefix(s, "sqlite:"), "//")
		if path == "" {
			return 0, "", fmt.Errorf("--db %q: sqlite:PATH needs a path", spec)
		}
		return kindSQLite, path, nil
	case s == "mariadb":
		return kindLocalMariaDB, "", nil
	case s == "postgres" || s == "postgresql":
		return kindLocalPostgres, "", nil
	}
	u, err := url.Parse(spec)
	if err != nil || u.Host == "" && u.Query().Get("socket") == "" && u.Query().Get("host") == "" {
		return 0, "", fmt.Errorf("--db %q: want %s", spec, Usage)
	}
	switch u.Scheme {
	case "mysql", "mariadb", "tidb":
		return kindMySQLURL, spec, nil
	case "postgres", "postgresql":
		return kindPostgresURL, spec, nil
	case "cockroach", "cockroachdb":
		// CockroachDB speaks the PostgreSQL protocol; pgconn wants that scheme.
		u.Scheme = "postgresql"
		if u.Port() == "" && u.Host != "" {
			u.Host += ":26257"
		}
		return kindCockroachURL, u.String(), nil
	}
	return 0, "", fmt.Errorf("--db %q: unknown scheme %q; want %s", spec, u.Scheme, Usage)
}

var schemaName = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// Open connects to the target that spec names.
func Open(ctx context.Context, spec string, opt Options) (target.Target, error) {
	k, arg, err := parseSpec(spec)
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
	if len(opt.Settings) > 0 && k != kindLocalMariaDB && k != kindLocalPostgres {
		return nil, fmt.Errorf("server settings %v apply only to throwaway servers (--db mariadb or postgres)", opt.Settings)
	}
	timeout := opt.ConnectTimeout
	if timeout <= 0 {
		timeout = DefaultConnectTimeout
	}
	switch k {
	case kindSQLite:
		return sqlite.Open(ctx, arg)
	case kindMySQLURL:
		return bounded(ctx, timeout, func(ctx context.Context) (target.Target, error) { return mysql.OpenURL(ctx, arg, schema) })
	case kindPostgresURL:
		return bounded(ctx, timeout, func(ctx context.Context) (target.Target, error) { return postgres.Open(ctx, arg, "", schema) })
	case kindCockroachURL:
		return bounded(ctx, timeout, func(ctx context.Context) (target.Target, error) {
			return postgres.Open(ctx, arg, postgres.Cockroach, schema)
		})
	case kindLocalMariaDB:
		return startLocal(ctx, localdb.MariaDB, opt, func(dsn string) (target.Target, error) {
			return mysql.OpenURL(ctx, dsn, schema)
		})
	case kindLocalPostgres:
		return startLocal(ctx, localdb.Postgres, opt, func(dsn string) (target.Target, error) {
			return postgres.Open(ctx, dsn, "", schema)
		})
	}
	return nil, fmt.Errorf("--db %q: unsupported", spec)
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

// startLocal starts a throwaway server and connects to it; the returned
// Target stops the server on Close.
func startLocal(ctx context.Context, k localdb.Kind, opt Options, open func(dsn string) (target.Target, error)) (target.Target, error) {
	srv, err := localdb.Start(ctx, k, localdb.Options{Settings: opt.Settings, Log: opt.Log})
	if err != nil {
		return nil, err
	}
	tg, err := open(srv.DSN())
	if err != nil {
		return nil, errors.Join(err, srv.Stop())
	}
	return &serverTarget{Target: tg, srv: srv}, nil
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
	if st, ok := tg.(*serverTarget); ok {
		return st.srv
	}
	return nil
}
