package target

import (
	"context"
	"fmt"
	"sort"
	"strings"
)

// RegistryTable is the table, in txlab's own schema, that lists the tables
// txlab created there. It is how Reset tells txlab's tables from a user's.
const RegistryTable = "txlab_owned_tables"

// Catalog is the little an adapter must provide for the ownership policy
// (Owned). Each adapter implements it over an administrative connection that
// works in txlab's schema.
type Catalog interface {
	// Tables lists every table and view in txlab's schema, the registry included.
	Tables(ctx context.Context) ([]string, error)
	// DropTables drops the named tables and views, and whatever depends on
	// them (foreign keys, views); names that no longer exist are skipped.
	DropTables(ctx context.Context, names []string) error
	// ExecAdmin runs one statement that returns no rows.
	ExecAdmin(ctx context.Context, sql string) error
	// QueryColumn runs a query and returns its first column as text.
	QueryColumn(ctx context.Context, sql string) ([]string, error)
	// TableRows returns all rows of one table (SELECT *), in any order.
	TableRows(ctx context.Context, table string) ([]Row, error)
}

// DependentsLister is implemented by catalogs of DBMSs where objects outside
// txlab's schema can depend on its tables (a user's view over one, a foreign
// key referencing one). Reset refuses while any exists, rather than drop
// through it or let a cascade take it along.
type DependentsLister interface {
	// Dependents describes, one string each, the objects outside txlab's
	// schema that depend on a table or view in it.
	Dependents(ctx context.Context) ([]string, error)
}

// Owned is the one place that decides which tables txlab may drop: those
// listed in RegistryTable. Adapters embed it to implement Target.Adopt, Reset
// and Dump, so every DBMS follows the same policy.
type Owned struct {
	Cat Catalog
	// Where names the schema for error messages, e.g. `database "txlab"`.
	Where string
	// Elsewhere tells the user how to point txlab at a place of its own
	// (default: "choose another schema with --schema").
	Elsewhere string
}

// Ensure creates the registry table if it does not exist yet. The statement is
// valid in every supported dialect.
func (o Owned) Ensure(ctx context.Context) error {
	err := o.Cat.ExecAdmin(ctx, "CREATE TABLE IF NOT EXISTS "+RegistryTable+" (name VARCHAR(255) NOT NULL PRIMARY KEY)")
	if err != nil {
		return fmt.Errorf("create registry table %s in %s: %w", RegistryTable, o.Where, err)
	}
	return nil
}

// classify splits the schema's current tables into the registered ones that
// exist and the foreign ones (neither registered nor the registry). It only
// reads: a schema without a registry has no registered tables.
func (o Owned) classify(ctx context.Context) (owned, foreign []string, hasRegistry bool, err error) {
	all, err := o.Cat.Tables(ctx)
	if err != nil {
		return nil, nil, false, fmt.Errorf("list tables in %s: %w", o.Where, err)
	}
	registered := map[string]bool{}
	for _, t := range all {
		if t == RegistryTable {
			hasRegistry = true
		}
	}
	if hasRegistry {
		reg, err := o.Cat.QueryColumn(ctx, "SELECT name FROM "+RegistryTable)
		if err != nil {
			return nil, nil, false, fmt.Errorf("read %s in %s: %w", RegistryTable, o.Where, err)
		}
		for _, n := range reg {
			registered[n] = true
		}
	}
	for _, t := range all {
		switch {
		case t == RegistryTable:
		case registered[t]:
			owned = append(owned, t)
		default:
			foreign = append(foreign, t)
		}
	}
	sort.Strings(owned)
	sort.Strings(foreign)
	return owned, foreign, hasRegistry, nil
}

// Tables returns the registered tables that exist, sorted.
func (o Owned) Tables(ctx context.Context) ([]string, error) {
	owned, _, _, err := o.classify(ctx)
	return owned, err
}

// Adopt registers every table of the schema that is not registered yet,
// creating the registry on first use.
func (o Owned) Adopt(ctx context.Context) error {
	if err := o.Ensure(ctx); err != nil {
		return err
	}
	_, foreign, _, err := o.classify(ctx)
	if err != nil {
		return err
	}
	for _, t := range foreign {
		if strings.ContainsAny(t, "\\\x00") {
			return fmt.Errorf("table name %q in %s: txlab does not handle names with a backslash or NUL", t, o.Where)
		}
		q := "INSERT INTO " + RegistryTable + " (name) VALUES (" + quoteString(t) + ")"
		if err := o.Cat.ExecAdmin(ctx, q); err != nil {
			return fmt.Errorf("register table %s in %s: %w", t, o.Where, err)
		}
	}
	return nil
}

// Check refuses, touching nothing, a schema that holds tables txlab did not
// create.
func (o Owned) Check(ctx context.Context) error {
	_, foreign, _, err := o.classify(ctx)
	if err != nil {
		return err
	}
	return o.refuse(foreign)
}

func (o Owned) refuse(foreign []string) error {
	if len(foreign) == 0 {
		return nil
	}
	hint := o.Elsewhere
	if hint == "" {
		hint = "choose another schema with --schema"
	}
	return fmt.Errorf("%s holds tables txlab did not create (%s); refusing to drop anything: "+
		"%s, or drop them yourself",
		o.Where, strings.Join(foreign, ", "), hint)
}

// Reset drops every registered table and empties the registry. When the
// schema holds a table txlab did not create it refuses, touching nothing (not
// even creating the registry).
func (o Owned) Reset(ctx context.Context) error {
	owned, foreign, hasRegistry, err := o.classify(ctx)
	if err != nil {
		return err
	}
	if err := o.refuse(foreign); err != nil {
		return err
	}
	if dl, ok := o.Cat.(DependentsLister); ok && len(owned) > 0 {
		deps, err := dl.Dependents(ctx)
		if err != nil {
			return fmt.Errorf("look for objects outside %s that depend on txlab's tables: %w", o.Where, err)
		}
		if len(deps) > 0 {
			return fmt.Errorf("objects outside %s depend on txlab's tables (%s); refusing to drop anything: "+
				"drop them yourself, or choose another schema with --schema", o.Where, strings.Join(deps, ", "))
		}
	}
	if len(owned) > 0 {
		if err := o.Cat.DropTables(ctx, owned); err != nil {
			return fmt.Errorf("drop txlab tables in %s: %w", o.Where, err)
		}
	}
	if !hasRegistry {
		return nil
	}
	if err := o.Cat.ExecAdmin(ctx, "DELETE FROM "+RegistryTable); err != nil {
		return fmt.Errorf("clear %s in %s: %w", RegistryTable, o.Where, err)
	}
	return nil
}

// Dump returns every registered table with its rows in canonical order.
func (o Owned) Dump(ctx context.Context) (State, error) {
	owned, err := o.Tables(ctx)
	if err != nil {
		return nil, err
	}
	st := make(State, len(owned))
	for _, t := range owned {
		rows, err := o.Cat.TableRows(ctx, t)
		if err != nil {
			return nil, fmt.Errorf("dump table %s: %w", t, err)
		}
		if rows == nil {
			rows = []Row{}
		}
		SortRows(rows)
		st[t] = rows
	}
	return st, nil
}

// quoteString renders s as an SQL string literal valid in every dialect, as
// long as s holds no backslash (MySQL reads those as escapes); Adopt refuses
// such names.
func quoteString(s string) string {
	return "'" + strings.ReplaceAll(s, "'", "''") + "'"
}
