package sqlite

import (
	"database/sql"
	"fmt"
	"strings"

	msqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"
)

// An embedded database has no accounts: what a connection may reach is
// what SQLite lets it open. A case's session connection is therefore
// confined with SQLite's own means before it runs anything — an authorizer
// that refuses ATTACH, DETACH, setting pragmas and the functions that read
// or write files or load code, and SQLITE_LIMIT_ATTACHED at 0, which also
// stops VACUUM INTO (it attaches the file it writes). The administrative
// connection never runs case SQL, but it reads the case's views and
// empties its tables, which runs their code: it is confined the same way.

// settablePragmas may be set by a case: they change only the connection's
// own behaviour. Everything else (writable_schema, journal_mode,
// temp_store_directory, busy_timeout, …) could reach past the case or
// change how txlab reads the session.
var settablePragmas = map[string]bool{
	"foreign_keys":              true,
	"defer_foreign_keys":        true,
	"recursive_triggers":        true,
	"read_uncommitted":          true,
	"case_sensitive_like":       true,
	"reverse_unordered_selects": true,
}

// readPragmas take an argument but only read.
var readPragmas = map[string]bool{
	"table_info": true, "table_xinfo": true, "table_list": true, "index_info": true, "index_xinfo": true,
	"index_list": true, "foreign_key_list": true, "foreign_key_check": true, "integrity_check": true, "quick_check": true,
}

// deniedFunctions read or write files, load code or hand SQLite pointers.
var deniedFunctions = map[string]bool{
	"load_extension": true,
	"readfile":       true,
	"writefile":      true,
	"edit":           true,
	"fts3_tokenizer": true,
	"lsdir":          true,
}

// authorize is the session connections' authorizer.
func authorize(action msqlite.AuthorizerActionCode, arg1, arg2, db, _ string) msqlite.AuthorizerReturnCode {
	switch action {
	case msqlite.AuthAttach, msqlite.AuthDetach:
		return msqlite.AuthorizerDeny
	case msqlite.AuthPragma:
		if p := strings.ToLower(arg1); arg2 != "" && !settablePragmas[p] && !readPragmas[p] {
			return msqlite.AuthorizerDeny
		}
	case msqlite.AuthFunction:
		if deniedFunctions[strings.ToLower(arg2)] {
			return msqlite.AuthorizerDeny
		}
	}
	if db != "" && db != "main" && db != "temp" {
		return msqlite.AuthorizerDeny
	}
	return msqlite.AuthorizerOK
}

// confine installs the authorizer fn (authorize or one that calls it) and
// the limits on a session's connection.
func confine(c *sql.Conn, fn msqlite.AuthorizerFn) error {
	if _, err := msqlite.Limit(c, sqlite3.SQLITE_LIMIT_ATTACHED, 0); err != nil {
		return fmt.Errorf("sqlite: limit attached databases: %w", err)
	}
	return c.Raw(func(dc any) error {
		r, ok := dc.(msqlite.AuthorizerRegisterer)
		if !ok {
			return fmt.Errorf("sqlite: the driver's connection (%T) has no authorizer", dc)
		}
		return r.RegisterAuthorizer(fn)
	})
}
