package target

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"sort"
	"strings"
	"sync"
	"time"
)

// RegistryTable is the table, in txlab's own schema, that lists the tables
// txlab created there. It is how Reset tells txlab's tables from a user's.
const RegistryTable = "txlab_owned_tables"

// Catalog is the little an adapter must provide for the ownership policy
// (Owned).
//
// Two accounts serve it, and which one runs a statement is the safety
// boundary: the --db account (the administrative connection) reads the
// server's catalogs and keeps txlab's registry, and never reads, empties or
// drops an object a case could have made; those statements run as the case
// account. A case's view can call functions, its table can carry triggers
// and defaults, and on PostgreSQL a view's functions run as whoever reads
// it: run as the administrator, a case file would run with the
// administrator's rights.
type Catalog interface {
	// Tables lists every table and view in txlab's schema, the registry
	// included (administrative connection: a catalog read).
	Tables(ctx context.Context) ([]string, error)
	// DropTables drops the named tables and views, and whatever depends on
	// them (foreign keys, views); names that no longer exist are skipped.
	// The drops run as the case account.
	DropTables(ctx context.Context, names []string) error
	// ExecAdmin runs one statement that returns no rows on the
	// administrative connection: the registry's statements, never one
	// that names a case's object.
	ExecAdmin(ctx context.Context, sql string) error
	// QueryColumn runs a query on the administrative connection and
	// returns its first column as text: catalog reads and the registry.
	QueryColumn(ctx context.Context, sql string) ([]string, error)
	// TableRows returns all rows of one table or view (SELECT *), in any
	// order, read as the case account.
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
	// Registry is RegistryTable as the catalog's statements name it
	// (default: unqualified). PostgreSQL's administrative connection
	// qualifies it: its search_path holds nothing a case can write, so
	// that no name in txlab's own statements resolves to a case's object.
	Registry string
}

// registry is the registry's name in the catalog's statements.
func (o Owned) registry() string {
	if o.Registry != "" {
		return o.Registry
	}
	return RegistryTable
}

// Ensure creates the registry table if it does not exist yet. The statement is
// valid in every supported dialect.
func (o Owned) Ensure(ctx context.Context) error {
	err := o.Cat.ExecAdmin(ctx, "CREATE TABLE IF NOT EXISTS "+o.registry()+" (name VARCHAR(255) NOT NULL PRIMARY KEY)")
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
		reg, err := o.Cat.QueryColumn(ctx, "SELECT name FROM "+o.registry())
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

// Adopt registers the tables named in created (see scope.Created) that now
// exist in the schema unregistered, creating the registry on first use.
// Any other table found there is left alone: txlab records only what its
// own statements created, so a table someone else creates in its schema
// during a run is never taken for txlab's (Reset then refuses the schema
// instead of dropping it).
func (o Owned) Adopt(ctx context.Context, created []string) error {
	_, foreign, hasRegistry, err := o.classify(ctx)
	if err != nil {
		return err
	}
	if !hasRegistry {
		if err := o.Ensure(ctx); err != nil {
			return err
		}
	}
	ours := make(map[string]bool, len(created))
	for _, n := range created {
		ours[strings.ToLower(n)] = true
	}
	var adopt []string
	for _, t := range foreign {
		if ours[strings.ToLower(t)] {
			adopt = append(adopt, t)
		}
	}
	if len(adopt) == 0 {
		return nil
	}
	values := make([]string, len(adopt))
	for i, t := range adopt {
		if strings.ContainsAny(t, "\\\x00") {
			return fmt.Errorf("table name %q in %s: txlab does not handle names with a backslash or NUL", t, o.Where)
		}
		values[i] = "(" + quoteString(t) + ")"
	}
	q := "INSERT INTO " + o.registry() + " (name) VALUES " + strings.Join(values, ", ")
	if err := o.Cat.ExecAdmin(ctx, q); err != nil {
		return fmt.Errorf("register tables %s in %s: %w", strings.Join(adopt, ", "), o.Where, err)
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

// refuseDependents fails while an object outside the schema depends on one
// of the owned tables.
func (o Owned) refuseDependents(ctx context.Context, owned []string) error {
	dl, ok := o.Cat.(DependentsLister)
	if !ok || len(owned) == 0 {
		return nil
	}
	deps, err := dl.Dependents(ctx)
	if err != nil {
		return fmt.Errorf("look for objects outside %s that depend on txlab's tables: %w", o.Where, err)
	}
	if len(deps) > 0 {
		return fmt.Errorf("objects outside %s depend on txlab's tables (%s); refusing to drop anything: "+
			"drop them yourself, or choose another schema with --schema", o.Where, strings.Join(deps, ", "))
	}
	return nil
}

// Sweeper is implemented by catalogs that can tell, by the server's own
// record of who owns what, the objects other than tables that cases
// created in txlab's schema (PostgreSQL: routines, sequences and types
// owned by the case role), and drop them. Reset calls it after dropping the
// tables.
type Sweeper interface {
	Sweep(ctx context.Context) error
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
	if err := o.refuseDependents(ctx, owned); err != nil {
		return err
	}
	if len(owned) > 0 {
		if err := o.Cat.DropTables(ctx, owned); err != nil {
			return fmt.Errorf("drop txlab tables in %s: %w", o.Where, err)
		}
	}
	if sw, ok := o.Cat.(Sweeper); ok {
		if err := sw.Sweep(ctx); err != nil {
			return fmt.Errorf("drop what cases created in %s: %w", o.Where, err)
		}
	}
	if !hasRegistry {
		return nil
	}
	if err := o.Cat.ExecAdmin(ctx, "DELETE FROM "+o.registry()); err != nil {
		return fmt.Errorf("clear %s in %s: %w", RegistryTable, o.Where, err)
	}
	return nil
}

// Truncater is implemented by catalogs that can empty tables faster than
// dropping and re-creating them (InnoDB: TRUNCATE takes a third of the time
// of DROP + CREATE TABLE + CREATE INDEX, the largest share of a short case's
// server time).
type Truncater interface {
	// TruncateTables empties the named tables as TRUNCATE does: the table
	// is as CREATE left it, with no rows and its AUTO_INCREMENT restarted.
	// It fails on a table that a foreign key references.
	TruncateTables(ctx context.Context, names []string) error
}

// ErrCannotEmpty is returned by Owned.Empty when the catalog cannot
// truncate; the caller drops and re-creates instead.
var ErrCannotEmpty = fmt.Errorf("this target cannot empty its tables in place")

// CanEmpty reports whether Empty works here (the catalog can truncate).
func (o Owned) CanEmpty() bool {
	_, ok := o.Cat.(Truncater)
	return ok
}

// Empty empties every registered table in place and returns their names,
// sorted; the caller knows their definitions are the ones it wants (the
// executor reuses a case's tables when the next setup is the same). Like
// Reset it refuses, touching nothing, while the schema holds a table txlab
// did not create.
func (o Owned) Empty(ctx context.Context) ([]string, error) {
	tr, ok := o.Cat.(Truncater)
	if !ok {
		return nil, ErrCannotEmpty
	}
	owned, foreign, _, err := o.classify(ctx)
	if err != nil {
		return nil, err
	}
	if err := o.refuse(foreign); err != nil {
		return nil, err
	}
	// No look for dependents here: emptying a table breaks no view, and
	// TruncateTables leaves foreign keys checked, so the server refuses a
	// table that any foreign key references (the caller then starts over
	// with Reset, which names such dependents).
	if len(owned) > 0 {
		if err := tr.TruncateTables(ctx, owned); err != nil {
			return nil, fmt.Errorf("empty txlab tables in %s: %w", o.Where, err)
		}
	}
	return owned, nil
}

// Dump returns every registered table with its rows in canonical order.
// The state is bounded by CurrentLimits across its tables (each table's
// read by the catalog's, as one result): past them Dump returns a
// *TruncatedError and no state, for an oracle must not compare part of one.
func (o Owned) Dump(ctx context.Context) (State, error) {
	owned, err := o.Tables(ctx)
	if err != nil {
		return nil, err
	}
	lim := CurrentLimits()
	keep := NewKeeper(lim)
	st := make(State, len(owned))
	for _, t := range owned {
		rows, err := o.Cat.TableRows(ctx, t)
		if te := (*TruncatedError)(nil); errors.As(err, &te) {
			kept, _ := keep.Kept()
			return nil, &TruncatedError{What: "the final state (table " + t + ")", Kept: kept + te.Kept, Dropped: te.Dropped, Limits: lim}
		}
		if err != nil {
			return nil, fmt.Errorf("dump table %s: %w", t, err)
		}
		for i, r := range rows {
			if !keep.Keep(RowSize(r)) {
				kept, _ := keep.Kept()
				return nil, &TruncatedError{What: "the final state (table " + t + ")", Kept: kept, Dropped: int64(len(rows) - i), Limits: lim}
			}
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

// Throttle spaces out a check too costly to make before every reset: the
// look for triggers, routines and events outside txlab's schema that name
// its tables reads every table's triggers and every routine's source
// (4 ms on an idle MariaDB, growing with the server's tables). Such code
// appears rarely, and a check finding some is made again every time.
type Throttle struct {
	mu   sync.Mutex
	last time.Time
}

// CodeCheckInterval is the most time between two looks for code that
// names txlab's tables.
const CodeCheckInterval = 5 * time.Second

// Due reports whether the check must run now: the first time, after a
// check that found something, and CodeCheckInterval after the last clean one.
func (t *Throttle) Due() bool {
	t.mu.Lock()
	defer t.mu.Unlock()
	return t.last.IsZero() || time.Since(t.last) >= CodeCheckInterval
}

// Done records a check's outcome; only a clean one is remembered.
func (t *Throttle) Done(clean bool) {
	t.mu.Lock()
	defer t.mu.Unlock()
	if clean {
		t.last = time.Now()
	} else {
		t.last = time.Time{}
	}
}

// NewPassword is a fresh random password for the account case sessions log
// in as, known to this process only. Upper and lower case, a digit and a
// sign satisfy the usual password policies (MySQL's validate_password).
func NewPassword() (string, error) {
	b := make([]byte, 18)
	if _, err := rand.Read(b); err != nil {
		return "", fmt.Errorf("random password: %w", err)
	}
	return "Tx1-" + hex.EncodeToString(b), nil
}
