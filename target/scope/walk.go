package scope

import (
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// walk reads tokens from c.i to the end: every keyword that is followed by
// a table reference reads it (factor), every function call is checked
// against the functions a case may not call, and every other dotted name
// must be a column of a table the statement names.
func (c *checker) walk() error {
	for !c.end() {
		t := c.cur()
		switch {
		case t.punct("("):
			fn := ""
			if p := c.prev(); p.kind == tWord || p.kind == tQuoted {
				fn = strings.ToUpper(p.text)
			}
			c.frames = append(c.frames, frame{fn: fn})
			c.i++
		case t.punct(")"):
			if len(c.frames) == 1 {
				return refuse("unbalanced parentheses")
			}
			c.frames = c.frames[:len(c.frames)-1]
			c.i++
		case t.punct(","):
			c.i++
			if c.top().list {
				if err := c.factor(false); err != nil {
					return err
				}
			}
		case t.punct("."):
			// (row).field and (row).* in PostgreSQL; nothing else.
			if !c.prev().punct(")") || !(c.at(c.i+1).identLike() || c.at(c.i+1).punct("*")) {
				return refuse("cannot read the name before %q", c.at(c.i+1).text)
			}
			c.i += 2
		case t.kind == tWord && !c.at(c.i+1).punct("."):
			handled, err := c.keyword(t)
			if err != nil {
				return err
			}
			if !handled {
				if err := c.name(); err != nil {
					return err
				}
			}
		case t.identLike():
			if err := c.name(); err != nil {
				return err
			}
		default:
			c.i++
		}
	}
	if len(c.frames) != 1 {
		return refuse("unbalanced parentheses")
	}
	return nil
}

// chain reads a dotted name (a, a.b, a.b.c; a trailing .* is dropped).
func (c *checker) chain() []part {
	var ps []part
	for c.cur().identLike() {
		t := c.cur()
		ps = append(ps, part{t.text, t.kind != tWord})
		c.i++
		if c.cur().punct(".") && c.at(c.i+1).identLike() {
			c.i++
			continue
		}
		if c.cur().punct(".") && c.at(c.i+1).punct("*") {
			c.i += 2
		}
		break
	}
	return ps
}

// name checks a name in an expression: a function call, or a column.
func (c *checker) name() error {
	ps := c.chain()
	if c.cur().punct("(") {
		return c.function(ps)
	}
	if len(ps) < 2 {
		return nil
	}
	first := ps[0]
	switch {
	case c.r.own(first):
		if len(ps) > 3 {
			return refuse("names %s outside %s", join(ps), c.r.where())
		}
		return nil
	case c.r.system(first):
		return nil
	case len(ps) > 2:
		return refuse("names %s outside %s", join(ps), c.r.where())
	case c.declared[strings.ToLower(first.text)] || pseudoTables[strings.ToLower(first.text)]:
		return nil
	}
	return refuse("names %s outside %s", join(ps), c.r.where())
}

// pseudoTables are the rows an upsert or trigger refers to by name.
var pseudoTables = set("excluded", "new", "old")

// factor reads one table reference: a name, a table function, or a
// parenthesized subquery or join. must says one is required here.
func (c *checker) factor(must bool) error {
	c.skip("ONLY", "LATERAL")
	if c.cur().is("IF") {
		c.skip("IF", "NOT", "EXISTS")
	}
	t := c.cur()
	if t.kind == tWord && structural[t.up] {
		// A keyword is no table: reading FROM as one would hide the list
		// it starts (SELECT view FROM …, where view is a column).
		if must {
			return refuse("cannot read a table name at %q", t.text)
		}
		return nil
	}
	switch {
	case t.punct("("):
		c.frames = append(c.frames, frame{list: true})
		c.i++
		switch n := c.cur(); {
		case n.is("SELECT", "WITH", "VALUES", "TABLE"):
			return nil
		case n.punct("("):
			return c.factor(must)
		}
		return c.factor(false)
	case t.kind == tVar:
		c.i++
		return nil
	case t.kind == tString && c.r.DBMS == "duckdb":
		return refuse("reads the file %s: DuckDB takes a string in FROM for a file to scan, which txlab refuses", t.text)
	case t.identLike():
		ps := c.chain()
		if c.cur().punct("(") {
			// A table function (FROM generate_series(…)), or a table
			// followed by its columns (REFERENCES t (id), CREATE TABLE t (…)).
			name := strings.ToLower(ps[len(ps)-1].text)
			if why := deniedFunction(c.r.Dialect, name); why != "" {
				return refuse("calls %s, which %s; txlab refuses it", name, why)
			}
			if why := deniedDuckDB(c.r.DBMS, name); why != "" {
				return refuse("calls %s, which %s; txlab refuses it", name, why)
			}
		}
		if c.r.Dialect == sqlast.Postgres && c.cur().punct("*") {
			c.i++
		}
		return c.table(ps)
	}
	if must {
		return refuse("cannot read a table name at %q", t.text)
	}
	return nil
}

// structural are the keywords that start or join clauses and table
// references: never read as a table's name.
var structural = set("FROM", "JOIN", "STRAIGHT_JOIN", "INNER", "LEFT", "RIGHT", "FULL", "CROSS", "NATURAL",
	"OUTER", "WHERE", "SET", "USING", "ON", "INTO", "UPDATE", "DELETE", "INSERT", "REPLACE", "SELECT", "VALUES",
	"WITH", "UNION", "EXCEPT", "INTERSECT", "MINUS", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "FETCH",
	"WINDOW", "RETURNING", "AS", "TABLE", "TABLES", "VIEW", "SEQUENCE", "INDEX", "REFERENCES", "TO", "FOR",
	"PARTITION", "LIKE", "INHERITS", "INHERIT", "OF", "RENAME", "MERGE")

// table checks a name in a table position.
func (c *checker) table(ps []part) error {
	last := strings.ToLower(ps[len(ps)-1].text)
	if c.r.Dialect == sqlast.SQLite && last == "sqlite_dbpage" {
		return refuse("names sqlite_dbpage, the database file's raw pages, which txlab refuses")
	}
	switch {
	case len(ps) == 1:
		if c.r.Dialect == sqlast.Postgres && strings.HasPrefix(last, "pg_") {
			c.catalogRefs = append(c.catalogRefs, ps[0].text)
		}
		return nil
	case len(ps) == 2 && c.r.own(ps[0]):
		return nil
	case len(ps) == 2 && c.r.system(ps[0]):
		c.systemRefs = append(c.systemRefs, join(ps))
		return nil
	}
	return refuse("names %s outside %s", join(ps), c.r.where())
}

// into reads what follows INTO: a table, or MySQL's variables; never a file.
func (c *checker) into() error {
	t := c.cur()
	switch {
	case t.is("OUTFILE", "DUMPFILE"):
		return refuse("INTO %s writes a file, which txlab refuses", t.up)
	case t.kind == tVar:
		for c.cur().kind == tVar || c.cur().punct(",") {
			c.i++
		}
		return nil
	}
	c.writes = true
	c.skip("TEMPORARY", "TEMP", "UNLOGGED", "TABLE")
	return c.factor(true)
}

// keyword handles the words that are followed by a table reference or are
// refused anywhere. It reports whether it consumed the word.
func (c *checker) keyword(t token) (bool, error) {
	prev, next := c.prev(), c.at(c.i+1)
	f := c.top()
	switch t.up {
	case "FROM":
		c.i++
		if prev.is("DISTINCT") || fromInFunction[f.fn] {
			return true, nil
		}
		f.list = true
		return true, c.factor(false)
	case "JOIN", "STRAIGHT_JOIN":
		c.i++
		return true, c.factor(true)
	case "USING":
		c.i++
		if c.cur().punct("(") {
			return true, nil
		}
		f.list = true
		return true, c.factor(false)
	case "INTO":
		c.i++
		return true, c.into()
	case "UPDATE":
		c.i++
		if prev.is("FOR", "KEY") {
			c.writes = true // a locking read
			return true, nil
		}
		if prev.is("DO", "ON", "THEN") {
			return true, nil // ON DUPLICATE KEY UPDATE, ON CONFLICT DO UPDATE, MERGE's WHEN … THEN UPDATE
		}
		c.writes = true
		c.skip("LOW_PRIORITY", "IGNORE")
		if c.cur().is("OR") {
			c.i += 2 // SQLite's UPDATE OR REPLACE
		}
		f.list = true
		return true, c.factor(true)
	case "DELETE":
		c.i++
		if prev.is("ON", "THEN") {
			return true, nil
		}
		c.writes = true
		c.skip("LOW_PRIORITY", "QUICK", "IGNORE")
		if c.cur().is("FROM") {
			return true, nil
		}
		f.list = true
		return true, c.factor(true)
	case "INSERT", "REPLACE":
		if next.punct("(") {
			return false, nil // MySQL's INSERT() and REPLACE() functions
		}
		c.i++
		if prev.is("OR") {
			return true, nil // CREATE OR REPLACE, INSERT OR REPLACE
		}
		if prev.is("THEN") {
			return true, nil // MERGE's WHEN NOT MATCHED THEN INSERT: into its target
		}
		c.writes = true
		c.skip("LOW_PRIORITY", "DELAYED", "HIGH_PRIORITY", "IGNORE")
		if c.cur().is("OR") {
			c.i += 2
		}
		if c.cur().is("INTO") {
			return true, nil
		}
		return true, c.factor(true)
	case "MERGE":
		c.writes = true
		c.i++
		return true, nil
	case "TABLE", "TABLES":
		c.i++
		c.skip("IF", "NOT", "EXISTS")
		f.list = true
		err := c.factor(false)
		if c.createTable && c.nameEnd == 0 {
			c.nameEnd = c.i
		}
		return true, err
	case "VIEW", "SEQUENCE":
		if !c.ddl() {
			break // a column's name
		}
		c.i++
		f.list = true
		return true, c.factor(false)
	case "INDEX":
		if !c.ddl() {
			break
		}
		c.i++
		if prev.is("USE", "FORCE", "IGNORE") || next.punct("(") || next.is("FOR") {
			return true, nil
		}
		c.skip("CONCURRENTLY", "IF", "NOT", "EXISTS")
		if c.cur().is("ON", "USING") {
			return true, nil
		}
		return true, c.factor(false)
	case "ON":
		c.i++
		if c.indexStmt && len(c.frames) == 1 {
			return true, c.factor(true)
		}
		return true, nil
	case "REFERENCES":
		c.i++
		return true, c.factor(true)
	case "LIKE":
		if c.createTable && (c.i == c.nameEnd || prev.punct("(") && len(c.frames) == 2) {
			c.i++
			return true, c.factor(true)
		}
	case "INHERITS", "INHERIT":
		if !c.ddl() {
			break
		}
		c.i++
		if c.cur().punct("(") {
			c.frames = append(c.frames, frame{list: true})
			c.i++
		}
		return true, c.factor(true)
	case "PARTITION":
		if !c.ddl() {
			break
		}
		if next.is("OF") {
			c.i += 2
			return true, c.factor(true)
		}
		if prev.is("ATTACH", "DETACH") {
			c.i++
			return true, c.factor(true)
		}
	case "RENAME":
		c.i++
		if c.cur().is("COLUMN", "INDEX", "KEY", "CONSTRAINT", "TABLE", "TABLES", "USER") {
			return true, nil
		}
		c.skip("TO", "AS")
		return true, c.factor(false)
	case "TO":
		if c.first == "RENAME" {
			c.i++
			return true, c.factor(true)
		}
	case "FOR":
		c.i++
		if prev.is("VALUE") {
			return true, c.factor(true) // NEXT VALUE FOR seq
		}
		// A locking clause ends the table list; FOR in an index hint
		// (USE INDEX FOR JOIN) or FOR SYSTEM_TIME does not.
		if next.is("UPDATE", "SHARE", "NO", "KEY") {
			c.writes = true
			f.list = false
		}
		return true, nil
	case "LOCK":
		if next.is("IN") {
			c.writes = true
		}
		f.list = false
	case "EXECUTE":
		return true, refuse("EXECUTE is dynamic SQL, which txlab refuses")
	case "OUTFILE", "DUMPFILE":
		return true, refuse("%s writes a file, which txlab refuses", t.up)
	case "DEFINER":
		return true, refuse("DEFINER runs the object as another account, which txlab refuses")
	case "TABLESPACE", "DIRECTORY":
		return true, refuse("%s places data outside txlab's database, which txlab refuses", t.up)
	case "CASCADE":
		if !prev.is("DELETE", "UPDATE") {
			return true, refuse("CASCADE reaches objects outside txlab's tables, which txlab refuses")
		}
	case "SCHEMA":
		if prev.is("SET") {
			return true, refuse("SET SCHEMA moves the object out of %s, which txlab refuses", c.r.where())
		}
	case "OWNER":
		if next.is("TO") {
			return true, refuse("OWNER TO gives the object to another account, which txlab refuses")
		}
	case "ENGINE", "TYPE":
		if c.r.Dialect == sqlast.MySQL && (next.punct("=") || t.up == "ENGINE") {
			j := c.i + 1
			if c.at(j).punct("=") {
				j++
			}
			e := strings.ToLower(c.at(j).text)
			if forbiddenEngines[e] {
				return true, refuse("ENGINE=%s reaches files or other servers, which txlab refuses", c.at(j).text)
			}
			if t.up == "ENGINE" && !engines[e] && c.at(j).kind == tWord && c.first != "SHOW" && !c.r.Trust {
				return true, unknown("ENGINE=" + c.at(j).text)
			}
		}
	case "CONNECTION":
		if c.r.Dialect == sqlast.MySQL && (next.punct("=") || next.kind == tString) {
			return true, refuse("CONNECTION=… reaches another server, which txlab refuses")
		}
	case "WHERE", "SET", "GROUP", "HAVING", "ORDER", "LIMIT", "OFFSET", "FETCH", "WINDOW", "UNION",
		"INTERSECT", "EXCEPT", "MINUS", "RETURNING", "SELECT", "VALUES", "VALUE", "DUPLICATE", "CONFLICT":
		// A clause after the table list ends it, but not an index hint's
		// FOR ORDER BY or FOR GROUP BY. Reading too far is safe; stopping
		// early is not.
		if !prev.is("FOR") {
			f.list = false
		}
		c.i++
		return true, nil
	}
	return false, nil
}

// ddl says the statement creates, alters or drops: where VIEW, SEQUENCE,
// INDEX, INHERITS and PARTITION OF name objects rather than columns.
func (c *checker) ddl() bool {
	return c.first == "CREATE" || c.first == "ALTER" || c.first == "DROP"
}

// fromInFunction are the functions whose arguments take FROM.
var fromInFunction = set("EXTRACT", "SUBSTRING", "SUBSTR", "TRIM", "POSITION", "OVERLAY")

var engines = set("innodb", "myisam", "memory", "heap", "aria", "sequence", "rocksdb", "archive", "blackhole")

var forbiddenEngines = set("connect", "federated", "federatedx", "spider", "csv", "merge", "mrg_myisam", "s3", "oqgraph", "sphinx", "cassandra")

// function checks a call of ps: never a function that administers the
// server, reads or writes files or runs SQL from a string, and only txlab's
// own functions or the built-in ones.
func (c *checker) function(ps []part) error {
	name := strings.ToLower(ps[len(ps)-1].text)
	if why := deniedFunction(c.r.Dialect, name); why != "" {
		return refuse("calls %s, which %s; txlab refuses it", name, why)
	}
	if why := deniedDuckDB(c.r.DBMS, name); why != "" {
		return refuse("calls %s, which %s; txlab refuses it", name, why)
	}
	if len(ps) > 1 {
		q := strings.ToLower(ps[0].text)
		if len(ps) > 2 || !(c.r.own(ps[0]) || c.r.Dialect == sqlast.Postgres && q == "pg_catalog") {
			return refuse("calls %s outside %s", join(ps), c.r.where())
		}
	}
	switch {
	case c.r.Dialect == sqlast.Postgres && (name == "nextval" || name == "setval" || name == "currval"):
		arg := c.at(c.i + 1)
		if after := c.at(c.i + 2); arg.kind != tString || !after.punct(")") && !after.punct("::") && !after.punct(",") {
			return refuse("%s takes its sequence as a literal name in a case", name)
		}
		if ps := splitName(arg.text); len(ps) > 2 || len(ps) == 2 && !c.r.own(ps[0]) || strings.HasSuffix(arg.text, ".") {
			return refuse("%s names %s outside %s", name, arg.text, c.r.where())
		}
	case c.r.Dialect == sqlast.MySQL && (name == "nextval" || name == "setval" || name == "lastval"):
		c.frames = append(c.frames, frame{fn: strings.ToUpper(name)})
		c.i++
		return c.factor(true)
	}
	return nil
}

// splitName splits a PostgreSQL name written in a string ('s.seq',
// '"S".seq') into its parts.
func splitName(s string) []part {
	var ps []part
	for len(s) > 0 {
		if s[0] == '"' {
			end := strings.IndexByte(s[1:], '"')
			if end < 0 {
				return append(ps, part{s, true})
			}
			ps = append(ps, part{s[1 : end+1], true})
			s = strings.TrimPrefix(s[end+2:], ".")
			continue
		}
		p, rest, _ := strings.Cut(s, ".")
		ps = append(ps, part{strings.TrimSpace(p), false})
		s = rest
	}
	return ps
}

func deniedFunction(d sqlast.Dialect, name string) string {
	switch d {
	case sqlast.Postgres:
		if why, ok := pgDenied[name]; ok {
			return why
		}
		for _, p := range []string{"dblink", "lo_", "pg_ls_", "pg_read_", "pg_file_", "pg_stat_reset", "pg_replication_origin",
			"pg_create_", "pg_drop_", "pg_copy_", "pg_wal_replay", "pg_backup_", "query_to_xml", "cursor_to_xml",
			"table_to_xml", "schema_to_xml", "database_to_xml", "pg_logdir", "binary_upgrade", "pg_restore_",
			"pg_clear_", "pg_set_", "pg_replication_slot", "pg_signal_backend", "pg_stat_statements_reset",
			"brin_summarize", "brin_desummarize", "gin_clean_pending_list"} {
			if strings.HasPrefix(name, p) {
				return "reaches outside txlab's schema (files, other sessions, the server, SQL from a string)"
			}
		}
	case sqlast.MySQL:
		switch name {
		case "load_file":
			return "reads a file"
		case "sys_exec", "sys_eval":
			return "runs a program"
		}
	case sqlast.SQLite:
		switch name {
		case "load_extension":
			return "loads code"
		case "readfile", "writefile", "edit", "fts3_tokenizer", "zipfile", "sqlar_uncompress":
			return "reads or writes files"
		}
	}
	return ""
}

// deniedDuckDB is why DuckDB's function name reaches outside the
// database file or runs SQL from a string, or "". DuckDB itself refuses
// the file access (txlab-duckdb turns enable_external_access off); the
// check says so before anything runs.
func deniedDuckDB(dbms, name string) string {
	if dbms != "duckdb" {
		return ""
	}
	switch name {
	case "query", "query_table":
		return "runs SQL from a string"
	case "glob", "sniff_csv", "getenv", "load_aws_credentials", "which_secret", "duckdb_secrets", "checkpoint", "force_checkpoint":
		return "reaches outside the database (files, the environment, secrets)"
	}
	for _, p := range []string{"read_", "parquet_", "iceberg_", "delta_", "sqlite_", "postgres_", "mysql_", "http", "csv_", "json_execute"} {
		if strings.HasPrefix(name, p) {
			return "reaches outside the database (files, other databases, the network)"
		}
	}
	return ""
}

var pgDenied = map[string]string{
	"pg_terminate_backend":           "ends another session",
	"pg_cancel_backend":              "cancels another session's query",
	"set_config":                     "changes a setting (search_path, role) behind the check",
	"pg_notify":                      "sends a notification to other applications' sessions, as NOTIFY does",
	"pg_reload_conf":                 "reloads the server's configuration",
	"pg_rotate_logfile":              "is server administration",
	"pg_switch_wal":                  "is server administration",
	"pg_promote":                     "is server administration",
	"pg_start_backup":                "is server administration",
	"pg_stop_backup":                 "is server administration",
	"pg_logical_emit_message":        "writes to the WAL",
	"pg_log_backend_memory_contexts": "is server administration",
	"pg_import_system_collations":    "changes the catalog",
	"pg_stat_file":                   "reads a file",
	"ts_stat":                        "runs SQL from a string",
	"ts_rewrite":                     "runs SQL from a string (its two-argument form)",
	"loread":                         "reads a large object",
	"lowrite":                        "writes a large object",
}
