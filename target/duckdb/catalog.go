package duckdb

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/target"
)

// catalog implements target.Catalog over the target's own session. DuckDB
// has no accounts: every session reaches the whole file and nothing past
// it (the program's settings), so the administrative session and a case's
// are alike, as on SQLite. Its objects are those of the main schema of the
// file's own catalog (current_database()).
type catalog struct {
	s *Session
	// db is the file's catalog (current_database()): txlab's statements
	// name its tables in full, as db.main.t, because a temporary table
	// shadows a table of the file even when named main.t.
	db string
	// sweep: the file is a fresh one of txlab's, so every sequence and
	// type in it is a case's (Sweep drops them).
	sweep bool
}

// objects lists the main schema's tables and views by kind.
const objects = "SELECT table_name, CASE table_type WHEN 'VIEW' THEN 'VIEW' ELSE 'TABLE' END FROM information_schema.tables " +
	"WHERE table_catalog = current_database() AND table_schema = 'main'"

// name is an object of the file's main schema, named in full.
func (c catalog) name(n string) string { return quoteIdent(c.db) + ".main." + quoteIdent(n) }

func (c catalog) kinds(ctx context.Context) (map[string]string, error) {
	res, err := c.s.Exec(ctx, objects)
	if err != nil {
		return nil, err
	}
	if err := res.Whole(); err != nil {
		return nil, err
	}
	out := make(map[string]string, len(res.Rows))
	for _, r := range res.Rows {
		out[r[0].S] = r[1].S
	}
	return out, nil
}

// Tables implements target.Catalog: tables and views.
func (c catalog) Tables(ctx context.Context) ([]string, error) {
	k, err := c.kinds(ctx)
	if err != nil {
		return nil, err
	}
	names := make([]string, 0, len(k))
	for n := range k {
		names = append(names, n)
	}
	slices.Sort(names)
	return names, nil
}

// DropTables implements target.Catalog: views first, then tables (again
// while a foreign key between them makes the order matter).
func (c catalog) DropTables(ctx context.Context, names []string) error {
	k, err := c.kinds(ctx)
	if err != nil {
		return err
	}
	for _, kind := range []string{"VIEW", "TABLE"} {
		var todo []string
		for _, n := range names {
			if k[n] == kind {
				todo = append(todo, n)
			}
		}
		for len(todo) > 0 {
			var left []string
			var last error
			for _, n := range todo {
				if _, err := c.s.Exec(ctx, "DROP "+kind+" IF EXISTS "+c.name(n)); err != nil {
					if ctx.Err() != nil {
						return err
					}
					left, last = append(left, n), err
				}
			}
			if len(left) == len(todo) {
				return last
			}
			todo = left
		}
	}
	return nil
}

// TruncateTables implements target.Truncater: each table loses its rows
// and keeps its definition. It refuses, emptying nothing, a view among
// the names, and any table while a foreign key or a sequence (which
// would not restart) exists.
func (c catalog) TruncateTables(ctx context.Context, names []string) error {
	k, err := c.kinds(ctx)
	if err != nil {
		return err
	}
	for _, n := range names {
		if k[n] != "TABLE" {
			return fmt.Errorf("%s is a %s, not a table", n, strings.ToLower(k[n]))
		}
	}
	fks, err := c.QueryColumn(ctx, "SELECT table_name FROM duckdb_constraints() WHERE database_name = current_database() AND constraint_type = 'FOREIGN KEY'")
	if err != nil {
		return err
	}
	if len(fks) > 0 {
		return fmt.Errorf("table %s has a foreign key", fks[0])
	}
	seqs, err := c.QueryColumn(ctx, sequences)
	if err != nil {
		return err
	}
	if len(seqs) > 0 {
		return fmt.Errorf("sequence %s would not restart", seqs[0])
	}
	for _, n := range names {
		if err := c.ExecAdmin(ctx, "DELETE FROM "+c.name(n)); err != nil {
			return err
		}
	}
	return nil
}

func (c catalog) ExecAdmin(ctx context.Context, q string) error {
	_, err := c.s.Exec(ctx, q)
	return err
}

func (c catalog) QueryColumn(ctx context.Context, q string) ([]string, error) {
	res, err := c.s.Exec(ctx, q)
	if err != nil {
		return nil, err
	}
	if err := res.Whole(); err != nil {
		return nil, err
	}
	out := make([]string, len(res.Rows))
	for i, r := range res.Rows {
		out[i] = r[0].S
	}
	return out, nil
}

func (c catalog) TableRows(ctx context.Context, table string) ([]target.Row, error) {
	res, err := c.s.Exec(ctx, "SELECT * FROM "+c.name(table))
	if err != nil {
		return nil, err
	}
	// A table of the final state is used whole, or not at all.
	return res.Rows, res.Whole()
}

// sequences lists the main schema's sequences.
const sequences = "SELECT sequence_name FROM duckdb_sequences() WHERE database_name = current_database() AND schema_name = 'main'"

// Sweep implements target.Sweeper: in a fresh file of txlab's, the
// sequences and types cases made go with their tables. In a file of the
// user's (duckdb:PATH) DuckDB cannot tell whose they are, and they stay.
func (c catalog) Sweep(ctx context.Context) error {
	if !c.sweep {
		return nil
	}
	seqs, err := c.QueryColumn(ctx, sequences)
	if err != nil {
		return err
	}
	for _, n := range seqs {
		if err := c.ExecAdmin(ctx, "DROP SEQUENCE IF EXISTS "+c.name(n)+" CASCADE"); err != nil {
			return err
		}
	}
	types, err := c.QueryColumn(ctx, "SELECT type_name FROM duckdb_types() WHERE database_name = current_database() AND schema_name = 'main' AND NOT internal")
	if err != nil {
		return err
	}
	for _, n := range types {
		if err := c.ExecAdmin(ctx, "DROP TYPE IF EXISTS "+c.name(n)+" CASCADE"); err != nil {
			return err
		}
	}
	return nil
}
