package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"

	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgproto3"

	"github.com/txlab/txlab/target"
)

// classOf maps a SQLSTATE to an error class.
func classOf(code string) target.ErrorClass {
	switch code {
	case "40P01":
		return target.ClassDeadlock
	case "40001":
		return target.ClassSerialization
	case "55P03": // lock_not_available: lock_timeout or NOWAIT
		return target.ClassLockTimeout
	case "23505":
		return target.ClassDuplicateKey
	case "25P02":
		return target.ClassAborted
	case "42P01": // undefined_table
		return target.ClassNoSuchTable
	case "42P07": // duplicate_table (a relation: table, index, sequence)
		return target.ClassExists
	case "42501": // insufficient_privilege: the case role may not touch it
		return target.ClassPrivilege
	case "0A000": // feature_not_supported: the statement cannot run
		return target.ClassSyntax
	case "57P01", "57P02", "57P03": // admin/crash shutdown, cannot connect now
		return target.ClassConnection
	}
	switch {
	case strings.HasPrefix(code, "23"):
		return target.ClassConstraint
	case strings.HasPrefix(code, "42"):
		return target.ClassSyntax
	case strings.HasPrefix(code, "22"):
		return target.ClassData
	case strings.HasPrefix(code, "08"):
		return target.ClassConnection
	}
	return target.ClassOther
}

// classify turns a pgconn error into a *target.Error. RolledBack follows the
// connection's transaction status: after any error inside a transaction block
// PostgreSQL accepts only ROLLBACK ('E'). A cancelled context is reported as
// such, not as a DBMS error.
func (t *Target) classify(ctx context.Context, c *pgconn.PgConn, err error) error {
	if ctx.Err() != nil {
		return fmt.Errorf("%s: %w", t.flavor, ctx.Err())
	}
	var pe *pgconn.PgError
	if errors.As(err, &pe) {
		msg := pe.Message
		if pe.Detail != "" {
			msg += " (" + pe.Detail + ")"
		}
		msg = shorten(msg)
		return &target.Error{
			Class:      classOf(pe.Code),
			Code:       pe.Code,
			Message:    msg,
			RolledBack: c.TxStatus() == 'E',
		}
	}
	var big *pgproto3.ExceededMaxBodyLenErr
	if errors.As(err, &big) {
		return &target.Error{Class: target.ClassConnection, RolledBack: true, Oversize: true,
			Message: fmt.Sprintf("the server sent a message of %d bytes, more than txlab keeps of a result (%d bytes, --max-result-bytes): the connection was closed", big.ActualBodyLen, big.MaxExpectedBodyLen)}
	}
	if c.IsClosed() {
		return &target.Error{Class: target.ClassConnection, Message: err.Error(), RolledBack: true}
	}
	return &target.Error{Class: target.ClassOther, Message: err.Error()}
}

// maxErrorText is the most of a server's error text txlab keeps: the
// text can quote a value the case made (an invalid input of 500 MB), and
// it is printed and written into reports.
const maxErrorText = 4 << 10

// shorten cuts an error text longer than maxErrorText, saying how long it
// was.
func shorten(msg string) string {
	if len(msg) <= maxErrorText {
		return msg
	}
	cut := maxErrorText
	for cut > 0 && !utf8.RuneStart(msg[cut]) {
		cut--
	}
	return fmt.Sprintf("%s… (%d bytes of error text in all)", msg[:cut], len(msg))
}
