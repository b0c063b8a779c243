package mysql

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"regexp"
	"strings"
	"time"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/target"
)

// A case's statements are the user's SQL, and the check txlab makes on them
// is only a first line. The boundary is the server's own: every case session
// logs in as an account whose privileges reach txlab's database alone, so a
// statement that names anything else fails with the server's access error.
// The account the user gave (--db) stays for the administrative connection,
// which never runs case SQL.

// casePrivileges are what a case needs in txlab's database: rows, tables,
// indexes, views, temporary tables, foreign keys and table locks. Not
// TRIGGER, EVENT, CREATE ROUTINE, ALTER ROUTINE, EXECUTE or GRANT OPTION:
// those create code that runs later, elsewhere, or as someone else.
const casePrivileges = "SELECT, INSERT, UPDATE, DELETE, CREATE, DROP, INDEX, ALTER, " +
	"CREATE TEMPORARY TABLES, CREATE VIEW, SHOW VIEW, LOCK TABLES, REFERENCES"

// caseAccount is the account case sessions log in as.
type caseAccount struct {
	user, host string
	// created says txlab created the account for this run (and drops it on
	// Close); false when the --db account is itself least-privileged and
	// serves the sessions too.
	created bool
}

func (a caseAccount) String() string { return quoteString(a.user) + "@" + quoteString(a.host) }

// caseAccountName is the account for txlab's database schema: readable
// while it fits MySQL's 32 characters, a digest of schema otherwise.
func caseAccountName(schema string) string {
	name := "txlab_case_" + schema
	if len(name) <= 32 {
		return name
	}
	sum := sha256.Sum256([]byte(schema))
	return "txlab_case_" + hex.EncodeToString(sum[:])[:16]
}

// setupCaseAccount decides which account case sessions use and returns the
// configuration they connect with. When the --db account can reach nothing
// but txlab's databases it is used as it is. Otherwise txlab creates (or
// re-keys) a dedicated account with casePrivileges on schema alone; when the
// --db account may not do that, it fails with the statements that would.
func (t *Target) setupCaseAccount(ctx context.Context, work *drv.Config) (*drv.Config, error) {
	var user, current string
	if err := t.admin.QueryRowContext(ctx, "SELECT USER(), CURRENT_USER()").Scan(&user, &current); err != nil {
		return nil, fmt.Errorf("%s: who am I: %w", t.base.Addr, err)
	}
	grants, err := t.grantsOf(ctx, "CURRENT_USER()")
	if err != nil {
		return nil, err
	}
	if extra := beyondSchema(grants, t.schema); len(extra) == 0 {
		t.account = caseAccount{user: work.User, host: hostOf(current)}
		return work, nil
	}
	acct := caseAccount{user: caseAccountName(t.schema), host: hostOf(user), created: true}
	pw, err := target.NewPassword()
	if err != nil {
		return nil, err
	}
	// An account of that name that can do more is not txlab's to use, to
	// re-key or to drop: a user's, or tampered with. It is looked at before
	// anything changes it.
	existing, err := t.grantsOf(ctx, acct.String())
	var me *drv.MySQLError
	switch {
	case errors.As(err, &me) && me.Number == 1141: // no such account
	case errors.As(err, &me) && accessCodes[me.Number]:
		// An account that may not read others' grants may not create one.
		return nil, t.askForAccount(current, acct, err)
	case err != nil:
		return nil, err
	default:
		if extra := beyondSchema(existing, t.schema); len(extra) > 0 {
			return nil, fmt.Errorf("%s: account %s exists with privileges beyond database %q (%s); txlab runs cases only as an account that reaches txlab's database alone: drop it, or choose another --schema",
				t.base.Addr, acct, t.schema, strings.Join(extra, "; "))
		}
	}
	stmts := []string{
		"CREATE USER IF NOT EXISTS " + acct.String() + " IDENTIFIED BY " + quoteString(pw),
		"ALTER USER " + acct.String() + " IDENTIFIED BY " + quoteString(pw),
	}
	for i, q := range stmts {
		if _, err := t.admin.ExecContext(ctx, q); err != nil {
			if i == 0 {
				return nil, t.askForAccount(current, acct, err)
			}
			return nil, fmt.Errorf("%s: set the password of txlab's case account %s: %w", t.base.Addr, acct, err)
		}
	}
	if _, err := t.admin.ExecContext(ctx, "GRANT "+casePrivileges+" ON "+grantName(t.schema)+".* TO "+acct.String()); err != nil {
		return nil, t.askForAccount(current, acct, err)
	}
	t.account = acct
	cfg := work.Clone()
	cfg.User, cfg.Passwd = acct.user, pw
	// Dedicated accounts use the server's default authentication plugin;
	// the --db account's own options (allowNativePasswords, TLS) carry over.
	cfg.AllowNativePasswords = true
	return cfg, nil
}

// askForAccount explains, with the statements to run, what the user must
// create when the --db account may neither create the case account nor be
// used for cases itself.
func (t *Target) askForAccount(current string, acct caseAccount, cause error) error {
	return fmt.Errorf("%s: the --db account %s can reach more than txlab's database %q, and could not create an account for the cases (%v); "+
		"txlab runs a case's statements only as an account limited to its own databases. Create one, then give it in --db:\n"+
		"  CREATE USER 'txlab'@'%%' IDENTIFIED BY '<password>';\n"+
		"  GRANT %s ON %s.* TO 'txlab'@'%%';\n"+
		"  GRANT %s ON `%s\\_%%`.* TO 'txlab'@'%%';  -- txlab's per-worker and per-oracle databases\n"+
		"  GRANT PROCESS ON *.* TO 'txlab'@'%%';  -- optional, read-only: lets txlab see lock waits as they happen",
		t.base.Addr, current, t.schema, cause, casePrivileges, grantName(t.schema), casePrivileges, strings.ReplaceAll(t.schema, "_", `\_`))
}

// grantsOf returns SHOW GRANTS FOR who.
func (t *Target) grantsOf(ctx context.Context, who string) ([]string, error) {
	rows, err := t.admin.QueryContext(ctx, "SHOW GRANTS FOR "+who)
	if err != nil {
		return nil, fmt.Errorf("%s: read the grants of %s: %w", t.base.Addr, who, err)
	}
	defer rows.Close()
	var out []string
	for rows.Next() {
		var g string
		if err := rows.Scan(&g); err != nil {
			return nil, err
		}
		out = append(out, g)
	}
	return out, rows.Err()
}

var (
	grantOnRE = regexp.MustCompile("(?is)^GRANT\\s+(.*?)\\s+ON\\s+(?:(?:TABLE|FUNCTION|PROCEDURE|PACKAGE(?: BODY)?)\\s+)?(`(?:[^`]|``)*`|\\*|[A-Za-z0-9_$]+)\\.(\\S+)\\s+TO\\s")
	usageRE   = regexp.MustCompile(`(?is)^GRANT\s+USAGE\s+ON\s+\*\.\*\s+TO\s`)
)

// beyondSchema returns the grants that reach further than schema and its
// siblings (schema_…): global privileges, other databases, roles, proxies.
// A grant on a database name pattern counts as beyond unless every database
// it can match begins with schema.
func beyondSchema(grants []string, schema string) []string {
	var extra []string
	for _, g := range grants {
		if usageRE.MatchString(g) {
			continue
		}
		m := grantOnRE.FindStringSubmatch(g)
		if m == nil || strings.HasPrefix(strings.ToUpper(strings.TrimSpace(m[1])), "PROXY") {
			extra = append(extra, g) // a role, a proxy: more than txlab's database
			continue
		}
		if m[2] == "*" && readOnlyGlobal(m[1]) {
			continue
		}
		db := m[2]
		if strings.HasPrefix(db, "`") {
			db = strings.ReplaceAll(db[1:len(db)-1], "``", "`")
		}
		if !ownDatabasePattern(db, schema) {
			extra = append(extra, g)
		}
	}
	return extra
}

// readOnlyGlobal reports whether a global grant's privileges only let the
// account look: PROCESS shows the server's sessions and InnoDB's status,
// which is how txlab sees lock waits, and changes nothing.
func readOnlyGlobal(privs string) bool {
	for _, p := range strings.Split(privs, ",") {
		if p := strings.ToUpper(strings.TrimSpace(p)); p != "PROCESS" && p != "USAGE" {
			return false
		}
	}
	return true
}

// ownDatabasePattern reports whether the database name in a grant, a LIKE
// pattern where _ and % are wildcards unless escaped with \, can match only
// schema or a sibling of it (schema_…).
func ownDatabasePattern(db, schema string) bool {
	var prefix strings.Builder
	wild := false
	for i := 0; i < len(db) && !wild; i++ {
		switch c := db[i]; {
		case c == '\\' && i+1 < len(db):
			i++
			prefix.WriteByte(db[i])
		case c == '_' || c == '%':
			wild = true
		default:
			prefix.WriteByte(c)
		}
	}
	p, own := strings.ToLower(prefix.String()), strings.ToLower(schema)
	if !wild && p == own {
		return true
	}
	return strings.HasPrefix(p, own+"_")
}

// grantName is schema as a grant's database name: its wildcards escaped, so
// that the grant reaches that database alone.
func grantName(schema string) string {
	return quoteIdent(strings.NewReplacer("_", `\_`, "%", `\%`).Replace(schema))
}

// hostOf returns the host part of user@host (USER(), CURRENT_USER()).
func hostOf(account string) string {
	if i := strings.LastIndexByte(account, '@'); i >= 0 {
		return account[i+1:]
	}
	return "%"
}

// dropCaseAccount removes the account txlab created for this run.
func (t *Target) dropCaseAccount(ctx context.Context) error {
	if !t.account.created {
		return nil
	}
	_, err := t.admin.ExecContext(ctx, "DROP USER IF EXISTS "+t.account.String())
	return err
}

// lockSchema takes a server-wide named lock on txlab's database for this
// Target's lifetime, so that a second txlab run in the same database fails
// at once with a clear message rather than dropping the first one's tables
// and re-keying its account. The lock lives on a connection of its own.
func (t *Target) lockSchema(ctx context.Context) error {
	name := "txlab:" + t.schema
	if len(name) > 64 {
		sum := sha256.Sum256([]byte(t.schema))
		name = "txlab:" + hex.EncodeToString(sum[:])[:32]
	}
	c, err := t.admin.Conn(ctx)
	if err != nil {
		return fmt.Errorf("%s: %w", t.base.Addr, err)
	}
	var got sql.NullInt64
	if err := c.QueryRowContext(ctx, "SELECT GET_LOCK("+quoteString(name)+", 0)").Scan(&got); err != nil {
		c.Close()
		return fmt.Errorf("%s: lock database %q for this run: %w", t.base.Addr, t.schema, err)
	}
	if !got.Valid || got.Int64 != 1 {
		var holder sql.NullInt64
		c.QueryRowContext(ctx, "SELECT IS_USED_LOCK("+quoteString(name)+")").Scan(&holder)
		c.Close()
		return fmt.Errorf("%s: database %q is %w (server connection %d); choose another --schema, or wait for it to end",
			t.base.Addr, t.schema, target.ErrSchemaInUse, holder.Int64)
	}
	t.lock, t.lockName = c, name
	return nil
}

// unlockSchema releases the lock now, before its connection goes: the
// server notices a closed connection only some time later, and the next
// run must find the database free.
func (t *Target) unlockSchema() error {
	if t.lock == nil {
		return nil
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
	defer cancel()
	t.lock.ExecContext(ctx, "DO RELEASE_LOCK("+quoteString(t.lockName)+")")
	err := t.lock.Close()
	if errors.Is(err, sql.ErrConnDone) {
		err = nil
	}
	t.lock = nil
	return err
}

func quoteString(s string) string {
	return "'" + strings.NewReplacer(`\`, `\\`, "'", "''").Replace(s) + "'"
}
