package postgres

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"fmt"
	"strings"
	"time"

	"github.com/jackc/pgx/v5/pgconn"

	"github.com/txlab/txlab/target"
)

// A case's statements are the user's SQL, and the check txlab makes on them
// is only a first line. The boundary is the server's own: every case session
// logs in as a role that can create and use objects in txlab's schema and
// nothing more — no superuser, no role membership (so no SET ROLE back), no
// privilege on any other schema's objects — so a statement that reaches
// elsewhere fails with the server's 42501. The role the user gave (--db)
// keeps the administrative connection, which never runs case SQL.

// caseRole is the role case sessions log in as.
type caseRole struct {
	name string
	// created says txlab created (or re-keyed) the role for this run, and
	// removes it on Close; false when the --db role is itself
	// least-privileged and serves the sessions too.
	created bool
}

// caseRoleName is the role for schema in database db. Roles are the
// cluster's, schemas a database's: the database is part of the name, so
// that runs in two databases do not share (and re-key) one role.
func caseRoleName(db, schema string) string {
	sum := sha256.Sum256([]byte(db))
	name := "txlab_case_" + schema + "_" + hex.EncodeToString(sum[:])[:8]
	if len(name) <= 63 {
		return name
	}
	sum = sha256.Sum256([]byte(db + "/" + schema))
	return "txlab_case_" + hex.EncodeToString(sum[:])[:24]
}

// setupCaseRole decides which role case sessions use and returns the
// configuration they connect with.
func (t *Target) setupCaseRole(ctx context.Context) (*pgconn.Config, error) {
	rows, err := t.adminQuery(ctx, "SELECT current_user, current_database(), rolsuper FROM pg_catalog.pg_roles WHERE rolname = current_user")
	if err != nil || len(rows) != 1 {
		return nil, fmt.Errorf("who am I: %v (%d rows)", err, len(rows))
	}
	me, db, super := rows[0][0].S, rows[0][1].S, rows[0][2].S == "t"
	if !super {
		wider, err := t.reachBeyond(ctx, me)
		if err != nil {
			return nil, err
		}
		if len(wider) == 0 {
			t.role = caseRole{name: me}
			return t.cfg, nil
		}
		return nil, t.askForRole(me, db, strings.Join(wider, "; "))
	}
	role := caseRole{name: caseRoleName(db, t.schema), created: true}
	pw, err := target.NewPassword()
	if err != nil {
		return nil, err
	}
	r := quoteIdent(role.name)
	existing, err := t.adminQuery(ctx, "SELECT oid FROM pg_catalog.pg_roles WHERE rolname = "+quoteString(role.name))
	if err != nil {
		return nil, err
	}
	if len(existing) > 0 {
		// A role of that name that can do more is not txlab's to use (nor to
		// drop): a user's, or tampered with.
		if wider, err := t.reachBeyond(ctx, role.name); err != nil {
			return nil, err
		} else if len(wider) > 0 {
			return nil, fmt.Errorf("role %s exists and reaches beyond schema %q (%s); txlab runs cases only as a role limited to its own schemas: drop it, or choose another --schema",
				role.name, t.schema, strings.Join(wider, "; "))
		}
	}
	verb := "CREATE"
	if len(existing) > 0 {
		verb = "ALTER"
		if err := t.endOrphans(ctx, role.name); err != nil {
			return nil, err
		}
	}
	stmts := []string{
		verb + " ROLE " + r + " LOGIN PASSWORD " + quoteString(pw) +
			" NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT NOREPLICATION NOBYPASSRLS",
		"GRANT USAGE, CREATE ON SCHEMA " + quoteIdent(t.schema) + " TO " + r,
	}
	for _, q := range stmts {
		if _, err := t.adminQuery(ctx, q); err != nil {
			return nil, fmt.Errorf("set up txlab's case role %s: %w", role.name, err)
		}
	}
	// A database's default privileges give PUBLIC CONNECT and TEMPORARY:
	// granting them anyway wrote an explicit ACL into the user's database
	// (NULL became {=Tc/admin,admin=CTc/admin}), which DROP OWNED at Close
	// does not take back. Grant only what the role lacks.
	for _, priv := range []string{"CONNECT", "TEMPORARY"} {
		has, err := t.adminQuery(ctx, "SELECT pg_catalog.has_database_privilege("+quoteString(role.name)+", "+quoteString(db)+", "+quoteString(priv)+")")
		if err != nil {
			return nil, fmt.Errorf("set up txlab's case role %s: %w", role.name, err)
		}
		if len(has) == 1 && has[0][0].S == "t" {
			continue
		}
		if _, err := t.adminQuery(ctx, "GRANT "+priv+" ON DATABASE "+quoteIdent(db)+" TO "+r); err != nil {
			return nil, fmt.Errorf("set up txlab's case role %s: %w", role.name, err)
		}
	}
	// Free-running workloads shorten deadlock_timeout for their sessions
	// (QuickDeadlocks), a superuser's setting; PostgreSQL 15 can grant it.
	if t.versionNum >= 150000 {
		t.adminQuery(ctx, "GRANT SET ON PARAMETER deadlock_timeout TO "+r)
	}
	t.role = role
	cfg := t.cfg.Copy()
	cfg.User, cfg.Password = role.name, pw
	return cfg, nil
}

// reachBeyond describes what role can do outside txlab's schemas that a
// case must not: attributes beyond a plain login, role memberships (each a
// SET ROLE away), schemas it owns, and objects elsewhere it may write.
// Reads are not counted: a case that reads another schema changes nothing.
func (t *Target) reachBeyond(ctx context.Context, role string) ([]string, error) {
	own := fmt.Sprintf("(n.nspname = %s OR left(n.nspname, %d) = %s)", quoteString(t.schema), len(t.schema)+1, quoteString(t.schema+"_"))
	system := "(n.nspname IN ('pg_catalog', 'information_schema', 'pg_toast') OR n.nspname LIKE 'pg\\_temp\\_%' OR n.nspname LIKE 'pg\\_toast\\_temp\\_%')"
	r := quoteString(role)
	q := `SELECT what FROM (
  SELECT 'attribute ' || a AS what FROM pg_catalog.pg_roles, LATERAL (VALUES
    (CASE WHEN rolsuper THEN 'SUPERUSER' END), (CASE WHEN rolcreaterole THEN 'CREATEROLE' END),
    (CASE WHEN rolreplication THEN 'REPLICATION' END), (CASE WHEN rolbypassrls THEN 'BYPASSRLS' END)) v(a)
  WHERE rolname = ` + r + ` AND a IS NOT NULL
  UNION ALL
  SELECT 'member of ' || g.rolname FROM pg_catalog.pg_auth_members m
    JOIN pg_catalog.pg_roles g ON g.oid = m.roleid JOIN pg_catalog.pg_roles u ON u.oid = m.member
  WHERE u.rolname = ` + r + `
  UNION ALL
  SELECT 'owner of schema ' || n.nspname FROM pg_catalog.pg_namespace n
  WHERE pg_catalog.pg_get_userbyid(n.nspowner) = ` + r + ` AND NOT ` + own + ` AND NOT ` + system + `
  UNION ALL
  SELECT 'may write ' || n.nspname || '.' || c.relname FROM pg_catalog.pg_class c JOIN pg_catalog.pg_namespace n ON n.oid = c.relnamespace
  WHERE c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S') AND NOT ` + own + ` AND NOT ` + system + `
    AND (pg_catalog.has_table_privilege(` + r + `, c.oid, 'INSERT, UPDATE, DELETE, TRUNCATE, TRIGGER, REFERENCES')
      OR pg_catalog.pg_get_userbyid(c.relowner) = ` + r + `)
) x ORDER BY 1 LIMIT 5`
	rows, err := t.adminQuery(ctx, q)
	if err != nil {
		return nil, fmt.Errorf("read what role %s may do: %w", role, err)
	}
	return column(rows), nil
}

// askForRole explains, with the statements to run, what the user must
// create when the --db role may neither create a case role (it is not a
// superuser) nor be used for cases itself.
func (t *Target) askForRole(me, db, wider string) error {
	return fmt.Errorf("the --db role %s reaches beyond txlab's schema %q (%s) and, not being a superuser, cannot create a role for the cases; "+
		"txlab runs a case's statements only as a role limited to its own schemas. Create one (as a superuser), then give it in --db:\n"+
		"  CREATE ROLE txlab LOGIN PASSWORD '<password>' NOSUPERUSER NOCREATEDB NOCREATEROLE NOINHERIT;\n"+
		"  GRANT CREATE ON DATABASE %s TO txlab;  -- for txlab's schemas: %s and %s_…",
		me, t.schema, wider, quoteIdent(db), t.schema, t.schema)
}

// dropCaseRole removes the role txlab created, and everything it owns
// with it: the case role itself drops what it owns (tables, views,
// routines, types, sequences, large objects), without CASCADE, so a
// user's object that depends on one of them stops it with the server's
// own message; then the --db role revokes what was granted to it and
// drops it. Nothing a case made passes to the --db role: a SECURITY
// DEFINER function left by one run would run with the administrator's
// rights in the next.
func (t *Target) dropCaseRole(ctx context.Context) error {
	if !t.role.created {
		return nil
	}
	if _, err := t.caseQuery(ctx, "DROP OWNED BY CURRENT_USER"); err != nil {
		return fmt.Errorf("drop what txlab's case role %s made: %w", t.role.name, err)
	}
	r := quoteIdent(t.role.name)
	// After the case role's own DROP OWNED, the --db role's finds nothing
	// of the role's left to drop but its privileges (and what a session
	// still open made since).
	for _, q := range []string{"DROP OWNED BY " + r, "DROP ROLE " + r} {
		if _, err := t.adminQuery(ctx, q); err != nil {
			return fmt.Errorf("remove txlab's case role %s: %w", t.role.name, err)
		}
	}
	return nil
}

// lockSchema takes a session advisory lock on txlab's schema on the admin
// connection, for the Target's lifetime: a second txlab run in the same
// schema fails at once with a clear message rather than dropping the first
// one's tables and re-keying its role.
func (t *Target) lockSchema(ctx context.Context) error {
	key := lockKey(t.schema)
	rows, err := t.adminQuery(ctx, "SELECT pg_try_advisory_lock(20261126, "+key+")")
	if err != nil {
		return fmt.Errorf("lock schema %q for this run: %w", t.schema, err)
	}
	if len(rows) == 1 && rows[0][0].S == "t" {
		t.locked = true
		return nil
	}
	holder, _ := t.adminQuery(ctx, "SELECT string_agg(pid::text, ', ') FROM pg_locks WHERE locktype = 'advisory' AND classid = 20261126 AND objid::int = "+key+" AND database = (SELECT oid FROM pg_database WHERE datname = current_database())")
	who := "?"
	if len(holder) == 1 && !holder[0][0].Null {
		who = holder[0][0].S
	}
	return fmt.Errorf("schema %q is %w (server process %s); choose another --schema, or wait for it to end", t.schema, target.ErrSchemaInUse, who)
}

func lockKey(schema string) string { return "hashtext(" + quoteString("txlab:"+schema) + ")" }

// unlockSchema releases the lock now: a backend's end, which would release
// it too, reaches the server some time after the connection closes, and
// the next run must find the schema free.
func (t *Target) unlockSchema(ctx context.Context) error {
	if !t.locked {
		return nil
	}
	t.locked = false
	_, err := t.adminQuery(ctx, "SELECT pg_advisory_unlock(20261126, "+lockKey(t.schema)+")")
	return err
}

// Sweep implements target.Sweeper: the routines, free-standing sequences
// and types that the case role owns in txlab's schema are what cases
// created there (the role owns nothing else, and exists only for them);
// each is dropped without CASCADE, so nothing of anyone else's goes along.
func (c catalog) Sweep(ctx context.Context) error {
	if !c.t.role.created {
		return nil // the --db role's own objects: only what the registry lists is txlab's
	}
	ns := quoteString(quoteIdent(c.t.schema)) + "::regnamespace"
	// pg_proc.prokind arrived with procedures in PostgreSQL 11.
	routineKind := `CASE p.prokind WHEN 'p' THEN 'PROCEDURE' WHEN 'a' THEN 'AGGREGATE' ELSE 'FUNCTION' END`
	if c.t.versionNum < 110000 {
		routineKind = `CASE WHEN p.proisagg THEN 'AGGREGATE' ELSE 'FUNCTION' END`
	}
	// pg_shdepend lists what the role owns through an index on the owner:
	// a scan of every routine and type took 3.7 ms, a tenth of a short
	// case on PostgreSQL.
	rows, err := c.t.adminQuery(ctx, `WITH owned AS (
  SELECT classid, objid FROM pg_catalog.pg_shdepend
  WHERE refclassid = 'pg_catalog.pg_authid'::regclass AND refobjid = `+quoteString(quoteIdent(c.t.role.name))+`::regrole AND deptype = 'o'
    AND dbid = (SELECT oid FROM pg_catalog.pg_database WHERE datname = current_database()))
SELECT 'DROP ' || `+routineKind+` || ' IF EXISTS ' || p.oid::regprocedure::text
FROM owned o JOIN pg_catalog.pg_proc p ON o.classid = 'pg_catalog.pg_proc'::regclass AND p.oid = o.objid
WHERE p.pronamespace = `+ns+`
UNION ALL
SELECT 'DROP SEQUENCE IF EXISTS ' || c.oid::regclass::text
FROM owned o JOIN pg_catalog.pg_class c ON o.classid = 'pg_catalog.pg_class'::regclass AND c.oid = o.objid
WHERE c.relnamespace = `+ns+` AND c.relkind = 'S'
  AND NOT EXISTS (SELECT FROM pg_catalog.pg_depend d WHERE d.classid = 'pg_catalog.pg_class'::regclass AND d.objid = c.oid AND d.deptype IN ('a', 'i'))
UNION ALL
SELECT 'DROP TYPE IF EXISTS ' || t.oid::regtype::text
FROM owned o JOIN pg_catalog.pg_type t ON o.classid = 'pg_catalog.pg_type'::regclass AND t.oid = o.objid
WHERE t.typnamespace = `+ns+` AND t.typelem = 0
  AND (t.typtype IN ('e', 'd', 'r', 'm') OR t.typtype = 'c' AND (SELECT relkind FROM pg_catalog.pg_class WHERE oid = t.typrelid) = 'c')`)
	if err != nil {
		return err
	}
	// The drops run as the case role, which owns every object listed.
	for _, r := range rows {
		if _, err := c.t.caseQuery(ctx, r[0].S); err != nil {
			return err
		}
	}
	return nil
}

// endOrphans ends the sessions of txlab's case role left by a run that
// died (kill -9): this run holds the schema's lock, so no live run uses the
// role. Such a session runs on until its statement ends (a pg_sleep, a
// lock wait) and keeps the locks it took: the next run's setup waited on
// them until its hang bound.
func (t *Target) endOrphans(ctx context.Context, role string) error {
	q := "SELECT pid FROM pg_catalog.pg_stat_activity WHERE usename = " + quoteString(role) + " AND pid <> pg_catalog.pg_backend_pid()"
	for try := 0; ; try++ {
		rows, err := t.adminQuery(ctx, q)
		if err != nil {
			return fmt.Errorf("look for sessions left by an earlier run: %w", err)
		}
		if len(rows) == 0 {
			return nil
		}
		var pids []string
		for _, r := range rows {
			pids = append(pids, r[0].S)
		}
		if try == 50 {
			return fmt.Errorf("sessions of txlab's case role %s left by an earlier run (server processes %s) do not end; end them with SELECT pg_terminate_backend(pid), or wait until they do", role, strings.Join(pids, ", "))
		}
		if try == 0 {
			for _, pid := range pids {
				if _, err := t.adminQuery(ctx, "SELECT pg_catalog.pg_terminate_backend("+pid+")"); err != nil {
					return fmt.Errorf("sessions of txlab's case role %s left by an earlier run (server processes %s) hold their locks, and this role may not end them (%v): run SELECT pg_terminate_backend(pid) as a superuser", role, strings.Join(pids, ", "), err)
				}
			}
		}
		select {
		case <-ctx.Done():
			return ctx.Err()
		case <-time.After(100 * time.Millisecond):
		}
	}
}
