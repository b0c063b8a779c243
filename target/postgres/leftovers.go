package postgres

import (
	"context"
	"fmt"
	"strings"
)

// prepared refuses to start while the database holds prepared
// transactions (PREPARE TRANSACTION). One outlives its session, its role
// and a restart, and holds its locks until someone ends it: a run would
// wait on them with no cause named. Cases may not prepare one (the scope
// check refuses PREPARE TRANSACTION), so one found here was left by an
// earlier txlab, or is another application's; the error names each and
// the statement that removes it, and txlab ends none itself.
func (t *Target) prepared(ctx context.Context) error {
	rows, err := t.adminQuery(ctx, "SELECT gid, owner FROM pg_catalog.pg_prepared_xacts WHERE database = pg_catalog.current_database() ORDER BY prepared, gid")
	if err != nil {
		return fmt.Errorf("look for prepared transactions: %w", err)
	}
	if len(rows) == 0 {
		return nil
	}
	var what, fix []string
	for _, r := range rows {
		what = append(what, fmt.Sprintf("%s (role %s)", quoteString(r[0].S), r[1].S))
		fix = append(fix, "ROLLBACK PREPARED "+quoteString(r[0].S)+";")
	}
	return fmt.Errorf("database %q holds %d prepared transaction%s, which keep their locks until ended and would make this run wait: %s; "+
		"unless another application still needs them, end them as their role or a superuser, in this database: %s",
		t.cfg.Database, len(rows), plural(len(rows)), strings.Join(what, ", "), strings.Join(fix, " "))
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
