package postgres

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/txlab/txlab/target"
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

// SweepLeftovers implements target.LeftoverSweeper. A sibling schema
// (SCHEMA_…) is a killed run's when the role txlab names after it exists
// and reaches no further; a role of that name that can do more is not
// txlab's and is left as it is. A sibling a live run holds is skipped.
// Opening it ends the dead run's sessions; closing it has the role drop
// what it owns, then drops the role.
func (t *Target) SweepLeftovers(ctx context.Context) ([]string, error) {
	if !t.role.created {
		return nil, nil // the --db role serves the cases: txlab creates no roles here
	}
	pattern := strings.NewReplacer(`\`, `\\`, "_", `\_`, "%", `\%`).Replace(t.schema) + `\_%`
	rows, err := t.adminQuery(ctx, "SELECT nspname FROM pg_catalog.pg_namespace WHERE nspname LIKE "+quoteString(pattern)+" ORDER BY nspname")
	if err != nil {
		return nil, fmt.Errorf("list txlab's sibling schemas: %w", err)
	}
	var swept []string
	for _, sib := range column(rows) {
		role := caseRoleName(t.cfg.Database, sib)
		found, err := t.adminQuery(ctx, "SELECT 1 FROM pg_catalog.pg_roles WHERE rolname = "+quoteString(role))
		if err != nil {
			return swept, fmt.Errorf("look for role %s: %w", role, err)
		}
		if len(found) == 0 {
			continue
		}
		if wider, err := t.reachBeyond(ctx, role); err != nil {
			return swept, err
		} else if len(wider) > 0 {
			continue // not txlab's role
		}
		s, err := Open(ctx, t.url, t.flavor, sib)
		if errors.Is(err, target.ErrSchemaInUse) {
			continue
		}
		if err == nil {
			err = s.Close()
		}
		if err != nil {
			return swept, fmt.Errorf("schema %q and role %s, left by a txlab run that was killed: %w", sib, role, err)
		}
		swept = append(swept, sib)
	}
	return swept, nil
}
