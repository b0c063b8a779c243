package mysql

import (
	"context"
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"strings"

	drv "github.com/go-sql-driver/mysql"

	"github.com/txlab/txlab/target"
)

// Waiting implements target.Target.
//
// information_schema.INNODB_TRX is not used for MySQL/MariaDB row locks: it is
// served from a cache that InnoDB refreshes only when nobody read it during
// the previous 100 ms, so polling it every millisecond freezes it (a session
// stays "LOCK WAIT" long after it got its lock). Instead PROCESSLIST, which is
// live, tells which sessions are executing a statement or waiting for a
// metadata/table lock, and only when one is executing does SHOW ENGINE INNODB
// STATUS, also live, tell whether it waits for a row lock.
func (t *Target) Waiting(ctx context.Context, ids []string) (map[string]bool, error) {
	out := make(map[string]bool, len(ids))
	if len(ids) == 0 {
		return out, nil
	}
	list, err := idList(ids)
	if err != nil {
		return nil, err
	}
	if t.blind {
		return nil, target.ErrNoIntrospection
	}
	if t.flavor == TiDB {
		return t.waitingTiDB(ctx, ids, list, out)
	}
	rows, err := t.admin.QueryContext(ctx, "SELECT ID, COMMAND, STATE FROM information_schema.PROCESSLIST WHERE ID IN ("+list+")")
	if err != nil {
		return nil, fmt.Errorf("%s: lock waits: %w", t.flavor, err)
	}
	var running []string
	for rows.Next() {
		var id, command, state string
		var st []byte
		if err := rows.Scan(&id, &command, &st); err != nil {
			rows.Close()
			return nil, err
		}
		state = string(st)
		switch {
		case strings.HasPrefix(state, "Waiting for") && strings.HasSuffix(state, "lock"):
			out[id] = true
		case command == "Query":
			running = append(running, id)
		}
	}
	rows.Close()
	if err := rows.Err(); err != nil {
		return nil, err
	}
	if len(running) == 0 {
		return out, nil
	}
	waiting, err := t.rowLockWaits(ctx)
	if errors.Is(err, target.ErrNoIntrospection) {
		return nil, err
	}
	if err != nil {
		return nil, fmt.Errorf("%s: row lock waits: %w", t.flavor, err)
	}
	for _, id := range running {
		if waiting[id] {
			out[id] = true
		}
	}
	return out, nil
}

// Ping implements target.Pinger with the protocol's own ping on a
// connection of the admin pool; the driver closes it when ctx ends, so a
// frozen server cannot hold the caller past ctx.
func (t *Target) Ping(ctx context.Context) error {
	return t.admin.PingContext(ctx)
}

// Addr implements target.Pinger.
func (t *Target) Addr() string { return t.base.Addr }

var (
	trxHeader  = regexp.MustCompile(`(?m)^---TRANSACTION `)
	lockWait   = regexp.MustCompile(`(?m)^LOCK WAIT `)
	trxSession = regexp.MustCompile(`(?m)^\w+ thread id (\d+),`)
)

// rowLockWaits returns the server sessions whose InnoDB transaction waits for
// a lock, from the transaction list of SHOW ENGINE INNODB STATUS, where each
// waiting transaction has a "LOCK WAIT ..." line and a
// "MariaDB thread id N, ..." (or "MySQL thread id N, ...") line.
func (t *Target) rowLockWaits(ctx context.Context) (map[string]bool, error) {
	var typ, name, status string
	err := t.admin.QueryRowContext(ctx, "SHOW ENGINE INNODB STATUS").Scan(&typ, &name, &status)
	var me *drv.MySQLError
	if errors.As(err, &me) && (me.Number == 1227 || me.Number == 1142) {
		// No PROCESS privilege: the cached view is better than nothing.
		return t.rowLockWaitsTrx(ctx)
	}
	if err != nil {
		return nil, err
	}
	return parseLockWaits(status), nil
}

// parseLockWaits reads the sessions with a waiting transaction from the text
// of SHOW ENGINE INNODB STATUS.
func parseLockWaits(status string) map[string]bool {
	waiting := map[string]bool{}
	for _, trx := range trxHeader.Split(status, -1)[1:] {
		if !lockWait.MatchString(trx) {
			continue
		}
		if m := trxSession.FindStringSubmatch(trx); m != nil {
			waiting[m[1]] = true
		}
	}
	return waiting
}

// rowLockWaitsTrx reads information_schema.INNODB_TRX (see Waiting for why it
// is only the fallback).
func (t *Target) rowLockWaitsTrx(ctx context.Context) (map[string]bool, error) {
	rows, err := t.admin.QueryContext(ctx, "SELECT trx_mysql_thread_id FROM information_schema.INNODB_TRX WHERE trx_state = 'LOCK WAIT'")
	var me *drv.MySQLError
	if errors.As(err, &me) && (me.Number == 1227 || me.Number == 1142) {
		// An account without PROCESS (a least-privileged --db account)
		// sees no lock waits at all: the executor falls back to timeouts.
		return nil, target.ErrNoIntrospection
	}
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	waiting := map[string]bool{}
	for rows.Next() {
		var id int64
		if err := rows.Scan(&id); err != nil {
			return nil, err
		}
		waiting[strconv.FormatInt(id, 10)] = true
	}
	return waiting, rows.Err()
}
