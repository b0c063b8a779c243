package mysql

import (
	"context"
	"database/sql"
	"encoding/hex"
	"errors"
	"fmt"
	"slices"
	"strings"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/target"
)

// Encoding: txlab's connections talk utf8mb4 and nothing else. The scope
// check reads a case's statements as UTF-8 and refuses any that changes
// the character set (SET NAMES, CHARACTER SET, character_set_*,
// collation_*): in SJIS, CP932, BIG5 or GBK a lead byte followed by 0x5c
// is one character, so a string the check reads as holding an escaped
// quote ends there for the server, and the rest runs as SQL.
const (
	charset   = "utf8mb4"
	collation = "utf8mb4_general_ci" // what the driver's handshake has always asked for
)

// pinCharset makes every connection of cfg run SET NAMES utf8mb4 once it
// is up: after the server's init_connect, and whether or not the server
// honours the handshake's character set (character-set-client-handshake
// off does not). A URL parameter that would set the character set after
// it is refused rather than quietly overridden.
func pinCharset(cfg *drv.Config) error {
	for k := range cfg.Params {
		if n := strings.ToLower(k); n == "charset" || n == "names" || strings.HasPrefix(n, "character_set_") || strings.HasPrefix(n, "collation_") {
			return fmt.Errorf("txlab keeps the connection's character set at %s (its check reads statements as UTF-8): drop %s from the URL", charset, k)
		}
	}
	return cfg.Apply(drv.Charset(charset, collation))
}

// checkCharset fails unless a connection of db talks utf8mb4 both ways.
func checkCharset(ctx context.Context, db *sql.DB) error {
	var client, conn, results sql.NullString
	err := db.QueryRowContext(ctx, "SELECT @@character_set_client, @@character_set_connection, @@character_set_results").Scan(&client, &conn, &results)
	if err != nil {
		return fmt.Errorf("read the connection's character set: %w", err)
	}
	for _, v := range []sql.NullString{client, conn, results} {
		if v.String != charset {
			return fmt.Errorf("the server set the connection's character set to %s/%s/%s (client/connection/results), not %s: txlab talks UTF-8 only (see the server's init_connect)",
				client.String, conn.String, results.String, charset)
		}
	}
	return nil
}

// preparedXA refuses to start while the server holds prepared XA
// transactions. One outlives its connection, its account and a restart,
// and keeps its locks until someone ends it: a run would wait on them
// with no cause named. Cases may not use XA (the scope check refuses it),
// so one found here was left by an earlier txlab, or is another
// application's; the error names each xid and the statement that ends it,
// and txlab ends none itself. An account that may not list them (MySQL 8
// without XA_RECOVER_ADMIN) is not stopped: it could not end them either.
func (t *Target) preparedXA(ctx context.Context) error {
	rows, err := t.admin.QueryContext(ctx, "XA RECOVER")
	var me *drv.MySQLError
	if errors.As(err, &me) && accessCodes[me.Number] {
		return nil
	}
	if err != nil {
		return fmt.Errorf("%s: look for prepared XA transactions: %w", t.base.Addr, err)
	}
	defer rows.Close()
	var xids, fix []string
	for rows.Next() {
		var format, glen, blen int64
		var data []byte
		if err := rows.Scan(&format, &glen, &blen, &data); err != nil {
			return fmt.Errorf("%s: XA RECOVER: %w", t.base.Addr, err)
		}
		if glen < 0 || blen < 0 || glen+blen > int64(len(data)) {
			return fmt.Errorf("%s: XA RECOVER: xid lengths %d+%d over %d bytes", t.base.Addr, glen, blen, len(data))
		}
		xid := xidLiteral(format, data[:glen], data[glen:glen+blen])
		xids = append(xids, xid)
		fix = append(fix, "XA ROLLBACK "+xid+";")
	}
	if err := rows.Err(); err != nil {
		return fmt.Errorf("%s: XA RECOVER: %w", t.base.Addr, err)
	}
	if len(xids) == 0 {
		return nil
	}
	slices.Sort(xids) // XA RECOVER's order is the server's
	slices.Sort(fix)
	s := "s"
	if len(xids) == 1 {
		s = ""
	}
	return fmt.Errorf("%s holds %d prepared XA transaction%s, which keep their locks until ended and would make this run wait: %s; "+
		"unless another application still needs them, end them: %s",
		t.base.Addr, len(xids), s, strings.Join(xids, ", "), strings.Join(fix, " "))
}

// xidLiteral writes an xid as XA ROLLBACK takes it: 'gtrid' when that is
// all it is (format 1, no bqual, plain characters), else in hex with its
// branch qualifier and format ID.
func xidLiteral(format int64, gtrid, bqual []byte) string {
	plain := format == 1 && len(bqual) == 0 && len(gtrid) > 0
	for _, c := range gtrid {
		plain = plain && c >= ' ' && c < 0x7f && c != '\'' && c != '\\'
	}
	if plain {
		return "'" + string(gtrid) + "'"
	}
	return fmt.Sprintf("X'%s',X'%s',%d", hex.EncodeToString(gtrid), hex.EncodeToString(bqual), format)
}

// SweepLeftovers implements target.LeftoverSweeper. A sibling database
// (SCHEMA_…) is a killed run's when the account txlab names after it
// exists and reaches that database alone; an account of that name that
// can do more is not txlab's and is left as it is. A sibling a live run
// holds is skipped: its account is in use.
func (t *Target) SweepLeftovers(ctx context.Context) ([]string, error) {
	if !t.account.created {
		return nil, nil // the --db account serves the cases: txlab creates no accounts here
	}
	var user string
	if err := t.admin.QueryRowContext(ctx, "SELECT USER()").Scan(&user); err != nil {
		return nil, fmt.Errorf("%s: who am I: %w", t.base.Addr, err)
	}
	pattern := strings.NewReplacer(`\`, `\\`, "_", `\_`, "%", `\%`).Replace(t.schema) + `\_%`
	rows, err := t.admin.QueryContext(ctx, "SELECT SCHEMA_NAME FROM information_schema.SCHEMATA WHERE SCHEMA_NAME LIKE "+quoteString(pattern)+" ORDER BY SCHEMA_NAME")
	if err != nil {
		return nil, fmt.Errorf("%s: list txlab's sibling databases: %w", t.base.Addr, err)
	}
	var siblings []string
	for rows.Next() {
		var s string
		if err := rows.Scan(&s); err != nil {
			rows.Close()
			return nil, err
		}
		siblings = append(siblings, s)
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	var swept []string
	for _, sib := range siblings {
		acct := caseAccount{user: caseAccountName(sib), host: hostOf(user)}
		grants, err := t.grantsOf(ctx, acct.String())
		var me *drv.MySQLError
		switch {
		case errors.As(err, &me) && me.Number == 1141: // no such account: nothing left
			continue
		case err != nil:
			return swept, err
		}
		if len(beyondSchema(grants, sib)) > 0 {
			continue // not txlab's account
		}
		s, err := Open(ctx, t.base, t.flavor, sib)
		if errors.Is(err, target.ErrSchemaInUse) {
			continue
		}
		if err == nil {
			err = s.Close()
		}
		if err != nil {
			return swept, fmt.Errorf("database %q and account %s, left by a txlab run that was killed: %w", sib, acct, err)
		}
		swept = append(swept, sib)
	}
	return swept, nil
}
