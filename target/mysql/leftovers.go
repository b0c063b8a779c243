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
