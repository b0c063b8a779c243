package mysql

import (
	"context"
	"database/sql/driver"
	"errors"
	"fmt"
	"io"
	"net"
	"strconv"
	"strings"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/target"
)

// Error numbers by class. Where a number is missing, the SQLSTATE decides
// (classOf).
var (
	serializationCodes = map[uint16]bool{
		1020: true, // MariaDB ER_CHECKREAD: innodb_snapshot_isolation write conflict
		8002: true, // TiDB: SELECT FOR UPDATE write conflict (optimistic)
		8005: true, // TiDB: write conflict, txnStartTS is stale
		8022: true, // TiDB: KV error safe to retry
		8028: true, // TiDB: information schema changed during the transaction
		9007: true, // TiDB: write conflict
	}
	duplicateCodes = map[uint16]bool{
		1022: true, // ER_DUP_KEY
		1062: true, // ER_DUP_ENTRY
		1169: true, // ER_DUP_UNIQUE
		1586: true, // ER_DUP_ENTRY_WITH_KEY_NAME
	}
	constraintCodes = map[uint16]bool{
		1048: true, // column cannot be null
		1216: true, // FK: cannot add child row
		1217: true, // FK: cannot delete parent row
		1263: true, // NULL supplied to NOT NULL column
		1364: true, // field has no default value
		1451: true, // FK: parent row referenced
		1452: true, // FK: no parent row
		3819: true, // MySQL CHECK constraint violated
		4025: true, // MariaDB CONSTRAINT_FAILED
	}
	syntaxCodes = map[uint16]bool{
		1052: true, // ambiguous column
		1054: true, // unknown column
		1064: true, // parse error
		1093: true, // update target in FROM
		1109: true, // unknown table
		1111: true, // invalid use of group function
		1136: true, // column count does not match value count
		1222: true, // different number of columns in UNION
		1235: true, // not supported yet
		1241: true, // operand should contain N columns
		1242: true, // subquery returns more than one row
		1248: true, // derived table needs an alias
		1305: true, // function does not exist
		1582: true, // incorrect parameter count
		1583: true, // incorrect parameters
		4078: true, // MariaDB: illegal parameter data types for an operation
	}
	dataCodes = map[uint16]bool{
		1264: true, // out of range
		1265: true, // data truncated
		1292: true, // incorrect value
		1365: true, // division by 0
		1366: true, // incorrect value for column
		1367: true, // illegal value during parsing
		1406: true, // data too long
		1690: true, // value out of range
	}
	// Access errors share SQLSTATE 42000 with syntax errors but say nothing
	// about the statement.
	accessCodes = map[uint16]bool{1044: true, 1045: true, 1142: true, 1143: true, 1227: true}
	// The server ended the session or the statement.
	connectionCodes = map[uint16]bool{1053: true, 1152: true, 1153: true, 1158: true, 1159: true, 1160: true, 1161: true, 1927: true}
)

// classOf returns the class of a server error and whether the server rolled
// back the whole transaction.
func (t *Target) classOf(e *drv.MySQLError) (target.ErrorClass, bool) {
	n, state := e.Number, string(e.SQLState[:])
	switch {
	case n == 1213:
		return target.ClassDeadlock, true
	case n == 1205:
		return target.ClassLockTimeout, t.rollbackOnTimeout
	case n == 3572: // MySQL NOWAIT: could not lock at once
		return target.ClassLockTimeout, false
	case n == 9004: // TiDB: a prewrite gave up waiting for another's lock (the write is undone)
		return target.ClassLockTimeout, false
	case n == 8147: // TiDB: a deferred uniqueness check failed at COMMIT, which ends the transaction
		return target.ClassDuplicateKey, true
	case serializationCodes[n]:
		// MariaDB rolls back on 1020 since MDEV-35235; TiDB reports these at
		// COMMIT, where the transaction is over either way.
		return target.ClassSerialization, true
	case duplicateCodes[n]:
		return target.ClassDuplicateKey, false
	case constraintCodes[n]:
		return target.ClassConstraint, false
	case n == 1146, n == 1051: // table does not exist (1051: in DROP TABLE)
		return target.ClassNoSuchTable, false
	case n == 1050: // table already exists; SQLSTATE 42S01 would say syntax
		return target.ClassExists, false
	case syntaxCodes[n]:
		return target.ClassSyntax, false
	case dataCodes[n]:
		return target.ClassData, false
	case connectionCodes[n]:
		return target.ClassConnection, false
	case accessCodes[n]:
		return target.ClassPrivilege, false
	case state == "40001":
		return target.ClassSerialization, false
	case strings.HasPrefix(state, "23"):
		return target.ClassConstraint, false
	case strings.HasPrefix(state, "42"):
		return target.ClassSyntax, false
	case strings.HasPrefix(state, "22"):
		return target.ClassData, false
	}
	return target.ClassOther, false
}

// classify turns a driver error into a *target.Error. A cancelled context is
// reported as such, not as a DBMS error.
func (t *Target) classify(ctx context.Context, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", t.flavor, ctx.Err())
	}
	var me *drv.MySQLError
	if errors.As(err, &me) {
		e := &target.Error{Code: strconv.Itoa(int(me.Number)), Message: me.Message}
		e.Class, e.RolledBack = t.classOf(me)
		return e
	}
	var ne net.Error
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, drv.ErrInvalidConn) {
		if e := oversizeError(); e != nil {
			return e
		}
	}
	if errors.Is(err, driver.ErrBadConn) || errors.Is(err, drv.ErrInvalidConn) ||
		errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF) || errors.As(err, &ne) {
		// The session is gone, and with it any transaction.
		return &target.Error{Class: target.ClassConnection, Message: err.Error(), RolledBack: true}
	}
	return &target.Error{Class: target.ClassOther, Message: err.Error()}
}
