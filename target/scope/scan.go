package scope

import (
	"strings"

	"github.com/txlab/txlab/sqlast"
)

// frame is one level of parentheses.
type frame struct {
	// list says a ',' here starts another table reference (a FROM list, a
	// multi-table UPDATE or DELETE, DROP TABLE a, b).
	list bool
	fn   string // the word before '(' in upper case: a function's name
}

type checker struct {
	r    Rules
	toks []token
	i    int

	frames []frame
	// declared holds every name the statement introduces or uses bare (tables,
	// aliases, CTEs, columns): a.b in an expression is a column of a when a is
	// among them.
	declared map[string]bool
	// writes says the statement changes or locks something; systemRefs and
	// catalogRefs are the catalog tables it names, which only a read may.
	writes      bool
	systemRefs  []string
	catalogRefs []string

	first       string // the statement's first word
	createTable bool
	indexStmt   bool // CREATE INDEX, DROP INDEX: ON names a table
	nameEnd     int  // the token after CREATE TABLE's name
}

func (c *checker) at(i int) token {
	if i >= 0 && i < len(c.toks) {
		return c.toks[i]
	}
	return token{kind: tPunct, text: "", pos: -1}
}

func (c *checker) cur() token  { return c.at(c.i) }
func (c *checker) prev() token { return c.at(c.i - 1) }
func (c *checker) top() *frame { return &c.frames[len(c.frames)-1] }
func (c *checker) end() bool   { return c.i >= len(c.toks) }

// skip consumes the current token while it is one of words.
func (c *checker) skip(words ...string) {
	for c.cur().is(words...) {
		c.i++
	}
}

// declare collects the names used bare, and the table of every name
// qualified by txlab's own schema.
func (c *checker) declare() {
	for i, t := range c.toks {
		if !t.identLike() {
			continue
		}
		dotBefore, dotAfter := c.at(i-1).punct("."), c.at(i+1).punct(".")
		if !dotBefore && !dotAfter && t.kind != tString {
			c.declared[strings.ToLower(t.text)] = true
		}
		if dotBefore && c.r.own(part{c.at(i - 2).text, c.at(i-2).kind != tWord}) && !c.at(i-3).punct(".") {
			c.declared[strings.ToLower(t.text)] = true
		}
	}
}

// statement classifies the statement by its first words and checks it.
func (c *checker) statement() error {
	c.declare()
	c.frames = []frame{{}}
	t := c.toks[0]
	if t.punct("(") {
		c.first = "SELECT"
		return c.walkAll()
	}
	if t.kind != tWord {
		return unknown("a statement starting with " + t.text)
	}
	c.first = t.up
	my, pg, lite := c.r.Dialect == sqlast.MySQL, c.r.Dialect == sqlast.Postgres, c.r.Dialect == sqlast.SQLite
	next := c.at(1)
	switch t.up {
	case "SELECT", "WITH", "VALUES", "TABLE", "SHOW":
		if t.up == "SHOW" && lite {
			return unknown("SHOW")
		}
		if t.up == "SHOW" && my && (next.is("GRANTS") || next.is("CREATE") && c.at(2).is("USER")) {
			// MariaDB prints an account's password hash in both, the case
			// account's own too (red team 3).
			what := "GRANTS"
			if next.is("CREATE") {
				what = "CREATE USER"
			}
			return refuse("SHOW %s shows an account's password hash, which txlab keeps out of its output", what)
		}
		return c.walkAll()
	case "INSERT", "REPLACE", "UPDATE", "DELETE":
		c.writes = true
		return c.walkAll()
	case "MERGE":
		// PostgreSQL's MERGE INTO target USING source ON … WHEN …: the
		// walk reads the target (INTO), the source (USING: a table or a
		// subquery, at any depth) and the WHEN clauses' expressions; its
		// actions name no table.
		if pg {
			c.writes = true
			return c.walkAll()
		}
	case "CREATE":
		return c.create()
	case "ALTER":
		c.writes = true
		c.i = 1
		c.skip("ONLINE", "IGNORE")
		switch w := c.cur(); {
		case w.is("TABLE"):
			return c.walkAll()
		case w.is(adminObjects...):
			return refuse("ALTER %s is server administration, which txlab refuses", w.up)
		}
		return unknown("ALTER " + c.cur().text)
	case "DROP":
		c.writes = true
		c.i = 1
		c.skip("TEMPORARY")
		switch w := c.cur(); {
		case w.is("TABLE", "TABLES", "VIEW", "SEQUENCE"):
			return c.walkAll()
		case w.is("INDEX"):
			c.indexStmt = true
			return c.walkAll()
		case w.is("MATERIALIZED") && c.at(c.i+1).is("VIEW"):
			return c.walkAll()
		case w.is(adminObjects...):
			return refuse("DROP %s is server administration, which txlab refuses", w.up)
		}
		return unknown("DROP " + c.cur().text)
	case "TRUNCATE":
		c.writes = true
		if next.is("TABLE") {
			return c.walkAll()
		}
		return c.listFrom(1)
	case "RENAME":
		c.writes = true
		if next.is("TABLE", "TABLES") {
			return c.walkAll()
		}
		if next.is("USER") {
			return refuse("RENAME USER is server administration, which txlab refuses")
		}
		return unknown("RENAME " + next.text)
	case "LOCK":
		c.writes = true
		switch {
		case next.is("TABLE", "TABLES") && !lite:
			return c.walkAll()
		case next.is("INSTANCE"):
			return refuse("LOCK INSTANCE is server administration, which txlab refuses")
		case pg:
			return c.listFrom(1)
		}
		return unknown("LOCK")
	case "UNLOCK":
		if my && next.is("TABLE", "TABLES") && len(c.toks) == 2 {
			return nil
		}
		return refuse("UNLOCK %s is server administration, which txlab refuses", next.text)
	case "XA":
		// A prepared XA transaction outlives its session, the account that
		// made it and a restart, holding its locks: every later run waits on
		// them with no cause named. XA COMMIT and XA ROLLBACK may end another
		// application's, and XA RECOVER lists them.
		return refuse("%s is refused: a prepared XA transaction outlives the session and the run, holding its locks, and XA ends or lists other applications' too", strings.TrimSpace("XA "+next.up))
	case "BEGIN", "START", "COMMIT", "ROLLBACK", "END", "SAVEPOINT", "RELEASE", "ABORT":
		return c.control()
	case "SET":
		switch {
		case my:
			if err := c.setMySQL(); err != nil {
				return err
			}
		case pg:
			if err := c.setPostgres(); err != nil {
				return err
			}
		default:
			return unknown("SET")
		}
		return c.walkAll()
	case "EXPLAIN", "DESCRIBE", "DESC":
		return c.explain()
	case "ANALYZE", "ANALYSE":
		c.writes = true
		c.i = 1
		c.skip("VERBOSE", "SKIP_LOCKED", "NO_WRITE_TO_BINLOG", "LOCAL")
		if c.cur().punct("(") && pg {
			for !c.end() && !c.cur().punct(")") {
				c.i++
			}
			c.i++
		}
		if c.end() || c.cur().is("TABLE") {
			return c.walk()
		}
		return c.listFrom(c.i)
	case "CHECK":
		if my && next.is("TABLE") {
			return c.walkAll()
		}
		return unknown("CHECK")
	case "PRAGMA":
		if lite {
			return c.pragma()
		}
	case "DO":
		if my {
			return c.walkAll() // MySQL's DO evaluates expressions, like a SELECT without rows
		}
	case "REINDEX":
		if next.is("SCHEMA", "DATABASE", "SYSTEM") {
			return refuse("REINDEX %s rebuilds objects outside txlab's tables, which txlab refuses", next.up)
		}
	case "PREPARE":
		if pg && next.is("TRANSACTION") {
			return refuse("PREPARE TRANSACTION leaves a prepared transaction on the server after the session and the run, holding its locks, which txlab refuses")
		}
	case "COMMENT":
		if !next.is("ON") || !c.at(2).is("TABLE", "COLUMN", "VIEW", "INDEX", "SEQUENCE", "CONSTRAINT") {
			return refuse("COMMENT on anything but txlab's tables is refused")
		}
	}
	if desc, ok := forbiddenFirst[t.up]; ok {
		return refuse("%s %s, which txlab refuses", t.up, desc)
	}
	return unknownFirst(t.up)
}

// adminObjects are the objects of CREATE, ALTER and DROP that are server
// administration, code, or other databases.
var adminObjects = []string{"DATABASE", "SCHEMA", "USER", "ROLE", "GROUP", "OWNED", "FUNCTION", "PROCEDURE",
	"EVENT", "SERVER", "EXTENSION", "TRIGGER", "RULE", "LANGUAGE", "TABLESPACE", "PUBLICATION", "SUBSCRIPTION",
	"FOREIGN", "AGGREGATE", "CAST", "OPERATOR", "CONVERSION", "TRANSFORM", "ACCESS", "POLICY", "DEFAULT",
	"LOGFILE", "PACKAGE", "TRUSTED", "PROCEDURAL", "SYSTEM", "INSTANCE", "RESOURCE", "LARGE", "DEFINER",
	"SPATIAL_REFERENCE_SYSTEM", "REFERENCE", "ROUTINE", "EVENT_TRIGGER", "RANGE", "ZONE", "CHANGEFEED"}

var forbiddenFirst = map[string]string{
	"USE":        "switches to another database",
	"PREPARE":    "is dynamic SQL",
	"EXECUTE":    "is dynamic SQL",
	"DEALLOCATE": "is dynamic SQL",
	"DO":         "runs code",
	"CALL":       "runs a routine",
	"SHUTDOWN":   "is server administration",
	"RESTART":    "is server administration",
	"KILL":       "is server administration",
	"GRANT":      "is server administration",
	"REVOKE":     "is server administration",
	"FLUSH":      "is server administration",
	"RESET":      "is server administration",
	"PURGE":      "is server administration",
	"CHANGE":     "is server administration",
	"STOP":       "is server administration",
	"INSTALL":    "is server administration",
	"UNINSTALL":  "is server administration",
	"BINLOG":     "is server administration",
	"CLONE":      "is server administration",
	"BACKUP":     "is server administration",
	"CHECKPOINT": "is server administration",
	"REASSIGN":   "is server administration",
	"SECURITY":   "is server administration",
	"DISCARD":    "resets the session (its search_path too)",
	"NOTIFY":     "sends a notification to other applications' sessions",
	"LISTEN":     "receives other applications' notifications",
	"UNLISTEN":   "ends a LISTEN",
	"CLUSTER":    "is server administration",
	"VACUUM":     "rewrites the database or writes a file",
	"LOAD":       "reads a file",
	"COPY":       "reads or writes files or runs a program",
	"IMPORT":     "reads another database",
	"ATTACH":     "opens another database",
	"DETACH":     "detaches a database",
	// TiDB and CockroachDB.
	"ADMIN":     "is server administration",
	"FLASHBACK": "is server administration",
	"RESTORE":   "is server administration",
	"CANCEL":    "is server administration",
	"PAUSE":     "is server administration",
	"RESUME":    "is server administration",
	"EXPORT":    "writes files",
}

// walkAll checks the whole statement from its start.
func (c *checker) walkAll() error {
	c.i = 0
	return c.walk()
}

// listFrom checks a statement whose table list starts at token i.
func (c *checker) listFrom(i int) error {
	c.i = i
	c.top().list = true
	if err := c.factor(true); err != nil {
		return err
	}
	return c.walk()
}

// create checks CREATE: tables, indexes, views and sequences of its own.
func (c *checker) create() error {
	c.writes = true
	c.i = 1
	for {
		switch w := c.cur(); {
		case w.is("OR", "REPLACE", "TEMPORARY", "TEMP", "UNLOGGED", "GLOBAL", "LOCAL", "RECURSIVE",
			"UNIQUE", "FULLTEXT", "SPATIAL", "MATERIALIZED", "ONLINE", "OFFLINE"):
			c.i++
			continue
		case w.is("ALGORITHM") && c.at(c.i+1).punct("="):
			c.i += 3
			continue
		case w.is("SQL") && c.at(c.i+1).is("SECURITY"):
			c.i += 3
			continue
		case w.is("DEFINER"):
			return refuse("DEFINER runs the object as another account, which txlab refuses")
		case w.is("TABLE"):
			c.createTable = true
			return c.walkAll()
		case w.is("INDEX"):
			c.indexStmt = true
			return c.walkAll()
		case w.is("VIEW", "SEQUENCE"):
			return c.walkAll()
		case w.is("VIRTUAL") && c.r.Dialect == sqlast.SQLite:
			for j := c.i; j < len(c.toks)-1; j++ {
				if c.toks[j].is("USING") {
					if c.toks[j+1].is("FTS3", "FTS4", "FTS5", "RTREE", "RTREE_I32") {
						return unknown("CREATE VIRTUAL TABLE")
					}
					return refuse("CREATE VIRTUAL TABLE … USING %s may read or write files, which txlab refuses", c.toks[j+1].text)
				}
			}
			return unknown("CREATE VIRTUAL TABLE")
		case w.is(adminObjects...):
			return refuse("CREATE %s is server administration or code, which txlab refuses", w.up)
		}
		return unknown("CREATE " + c.cur().text)
	}
}

// control checks transaction control: words, names, strings and numbers
// only (BEGIN NOT ATOMIC would start a compound statement).
func (c *checker) control() error {
	first := c.toks[0]
	if first.is("START") && !c.at(1).is("TRANSACTION") {
		return refuse("START %s is server administration, which txlab refuses", c.at(1).text)
	}
	for _, t := range c.toks[1:] {
		switch {
		case t.is("ATOMIC"):
			return refuse("BEGIN NOT ATOMIC starts a compound statement, which txlab refuses")
		case t.is("PREPARED"):
			return refuse("%s PREPARED ends a prepared transaction, perhaps another application's, which txlab refuses (and PREPARE TRANSACTION, which makes one)", first.up)
		case t.kind == tWord, t.kind == tQuoted, t.kind == tString, t.kind == tNumber, t.punct(","):
		default:
			return unknown(first.up + " with " + t.text)
		}
	}
	return nil
}

// explain checks EXPLAIN and DESCRIBE: the statement they explain (EXPLAIN
// ANALYZE runs it) or the table they describe.
func (c *checker) explain() error {
	c.i = 1
	for !c.end() {
		t := c.cur()
		switch {
		case t.is("ANALYZE", "ANALYSE", "VERBOSE", "EXTENDED", "PARTITIONS", "QUERY", "PLAN", "FORMAT",
			"JSON", "TRADITIONAL", "TREE", "TEXT", "XML", "YAML", "COSTS", "BUFFERS", "TIMING", "SUMMARY",
			"SETTINGS", "WAL", "GENERIC_PLAN", "MEMORY", "SERIALIZE", "TRUE", "FALSE", "ON", "OFF"), t.punct("="):
			c.i++
		case t.punct("(") && c.r.Dialect == sqlast.Postgres && c.i == 1:
			for !c.end() && !c.cur().punct(")") {
				c.i++
			}
			c.i++
		case t.is("SELECT", "WITH", "INSERT", "UPDATE", "DELETE", "REPLACE", "VALUES", "TABLE", "CREATE",
			"EXECUTE", "DECLARE", "MERGE"), t.punct("("):
			sub := Rules{Dialect: c.r.Dialect, Schema: c.r.Schema, Trust: c.r.Trust}
			return sub.check(c.toks[c.i:])
		default:
			// DESCRIBE t, EXPLAIN t [column], EXPLAIN FOR CONNECTION n.
			return c.walk()
		}
	}
	return nil
}

// pragma checks SQLite's PRAGMA: reading pragmas only.
func (c *checker) pragma() error {
	c.i = 1
	ps := c.chain()
	if len(ps) == 0 || len(ps) > 2 || len(ps) == 2 && !c.r.own(ps[0]) {
		return refuse("PRAGMA %s names another database, which txlab refuses", join(ps))
	}
	name := strings.ToLower(ps[len(ps)-1].text)
	switch {
	case c.cur().punct("="):
		return refuse("PRAGMA %s = … changes the database or the connection, which txlab refuses", name)
	case c.cur().punct("("):
		if !tablePragmas[name] {
			return refuse("PRAGMA %s(…) changes the database or the connection, which txlab refuses", name)
		}
	case !c.end():
		return unknown("PRAGMA " + name + " " + c.cur().text)
	}
	if !readPragmas[name] && !tablePragmas[name] {
		return unknown("PRAGMA " + name)
	}
	return c.walk()
}

var readPragmas = set("application_id", "busy_timeout", "cache_size", "collation_list", "compile_options",
	"data_version", "database_list", "encoding", "foreign_key_check", "foreign_keys", "freelist_count",
	"function_list", "journal_mode", "module_list", "page_count", "page_size", "pragma_list",
	"quick_check", "integrity_check", "read_uncommitted", "schema_version", "synchronous", "table_list",
	"user_version", "wal_checkpoint_never", "auto_vacuum", "locking_mode", "temp_store", "recursive_triggers")

var tablePragmas = set("table_info", "table_xinfo", "index_list", "index_info", "index_xinfo",
	"foreign_key_list", "foreign_key_check", "integrity_check", "quick_check", "table_list")

func set(words ...string) map[string]bool {
	m := make(map[string]bool, len(words))
	for _, w := range words {
		m[w] = true
	}
	return m
}
