// Package semantics is txlab's one statement of what each DBMS family
// promises at each isolation level (and, where it matters, under which server
// setting), and its one judge. The table holds the documented mechanisms that
// explain a difference from a serial execution and the anomaly classes each
// level forbids; Judge turns (DBMS, level, settings, --model, --strict, an
// anomaly) into a verdict and the rule behind it (a stable slug, one line of
// text and a source); anomaly names and their one hierarchy are the typed
// constants of anomaly.go. Oracles ask this package instead of switching on
// the DBMS themselves, so that a new DBMS or a newly documented behaviour is
// one more row of data here, not a code change in every oracle.
package semantics

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// MechanismKind says how an oracle can test whether a mechanism explains
// what it saw. Each kind has one test, implemented by the oracle that uses it.
type MechanismKind string

// Mechanism kinds.
const (
	// SnapshotPredicate: a write evaluates its WHERE clause on a snapshot
	// taken before a concurrent writer committed, so it misses rows that
	// writer inserted (or, at read committed, changed into its range). The
	// test: the serial order that runs the write's transaction before that
	// concurrent writer reproduces the state.
	SnapshotPredicate MechanismKind = "snapshot-predicate"
	// SemiConsistentRead: an UPDATE that finds a row locked by a concurrent
	// transaction evaluates its WHERE clause on the row's latest committed
	// version and skips the row without waiting when that version does not
	// match, even if the locking transaction's version would. The test: the
	// UPDATE did not wait; a concurrent transaction held uncommitted
	// UPDATE/DELETE changes (and no uncommitted inserts, which have no
	// committed version: MDEV-30835) on its table; the difference lies in that
	// table; and the UPDATE changed exactly as many rows as it does when run
	// on the committed state of its start (plus its own transaction's
	// earlier statements), i.e. it skipped no row whose committed version
	// matched.
	SemiConsistentRead MechanismKind = "semi-consistent-read"
)

// Mechanism is one documented way a DBMS may legitimately differ from the
// first-commit-first serial order.
type Mechanism struct {
	Kind MechanismKind `json:"kind"`
	Rule verdict.Rule  `json:"rule"`
	// Writers lists the statement kinds (first keyword, upper case) of the
	// concurrent writer whose effect the mechanism may hide.
	Writers []string `json:"writers,omitempty"`
	// WriterAfter restricts the mechanism to a concurrent write that
	// completed after the hiding write started: a lock-based DBMS that skips
	// gap locks misses later inserts, but must wait for earlier uncommitted
	// ones (missing those is MDEV-30835).
	WriterAfter bool `json:"writer_after,omitempty"`
	// Statement says the mechanism acts per statement (read committed takes
	// a fresh view for every statement): its test also moves a single write
	// statement, not only its whole transaction, before the concurrent
	// writer, in the statement-level serial schedule.
	Statement bool `json:"statement,omitempty"`
}

// Promise is what one DBMS promises at one level under the given settings.
type Promise struct {
	DBMS  string       `json:"dbms"`
	Level target.Level `json:"level"`
	// Serializable is true when the level promises equivalence to some serial
	// order (not necessarily the commit order).
	Serializable bool `json:"serializable"`
	// AnySerialOrder is the rule that makes a result reproduced by some other
	// serial order allowed (only set when Serializable).
	AnySerialOrder *verdict.Rule `json:"any_serial_order,omitempty"`
	// ReadsAnyOrder is set when a serializable level may order a reader
	// before a writer that committed first (PostgreSQL SSI, WriteCheck
	// footnote 4): reads must match some serial order, not the commit order.
	ReadsAnyOrder *verdict.Rule `json:"reads_any_order,omitempty"`
	// WSS lists the documented mechanisms that explain a write-specific
	// serializability difference at this level.
	WSS []Mechanism `json:"wss,omitempty"`
	// Forbidden lists the anomaly classes the level forbids (for IsoRel).
	Forbidden []Anomaly `json:"forbidden,omitempty"`
	// RealTime is set when the promise includes real-time order (strict
	// serializability): only then are cycles through real-time edges
	// forbidden.
	RealTime bool `json:"real_time,omitempty"`
}

// row is one line of the table: it applies to the listed DBMS names (empty:
// every DBMS) and levels, when the setting (if any) has the given value.
// Later rows add to earlier ones.
type row struct {
	dbms    []string
	levels  []target.Level
	setting string // "name=value" that must hold; "" for always
	apply   func(p *Promise)
}

var (
	anySerialOrder = verdict.Rule{
		Name:   "serializable-any-order",
		Text:   "serializable promises equivalence to some serial order, not necessarily the commit order",
		Source: "SQL standard; Adya PL-3",
	}
	pgSSIReads = verdict.Rule{
		Name:   "postgres-ssi-read-order",
		Text:   "PostgreSQL serializable (SSI) may order a reader before a writer that committed first",
		Source: "PostgreSQL docs 13.2.3; WriteCheck footnote 4",
	}
	sqliteWALReads = verdict.Rule{
		Name:   "sqlite-wal-read-snapshot",
		Text:   "SQLite in WAL mode: a transaction reads the snapshot of its first read, so it is ordered before writers that commit after that read",
		Source: "SQLite docs: Isolation In SQLite, WAL mode",
	}
	innodbRCGaps = Mechanism{
		Kind: SnapshotPredicate,
		Rule: verdict.Rule{
			Name:   "innodb-rc-no-gap-locks",
			Text:   "at read committed InnoDB takes no gap locks: a row a concurrent transaction inserts (or moves) into a range after a write scanned it is neither blocked nor seen by that write",
			Source: "MariaDB/MySQL docs: InnoDB transaction isolation levels, READ COMMITTED",
		},
		Writers:     []string{"INSERT", "REPLACE", "UPDATE"},
		WriterAfter: true,
		Statement:   true,
	}
	innodbSemiConsistent = Mechanism{
		Kind: SemiConsistentRead,
		Rule: verdict.Rule{
			Name:   "innodb-semi-consistent-read",
			Text:   "at read committed an InnoDB UPDATE that meets a row locked by another transaction evaluates its WHERE on the latest committed version and skips the row without waiting if that version does not match",
			Source: "MySQL/MariaDB docs: InnoDB transaction isolation levels (READ COMMITTED, semi-consistent read); MDEV-26687 (by design); WriteCheck §6.4.1 Listing 5",
		},
		Writers: []string{"UPDATE", "DELETE"},
	}
	pgRCSnapshot = Mechanism{
		Kind: SnapshotPredicate,
		Rule: verdict.Rule{
			Name:   "postgres-rc-statement-snapshot",
			Text:   "a write's predicate is evaluated on a snapshot that does not include a concurrent uncommitted insert (or a row a concurrent update moved into its range)",
			Source: "PostgreSQL docs 13.2.1 (read committed)",
		},
		Writers:   []string{"INSERT", "UPDATE"},
		Statement: true,
	}
	pgRRSnapshot = Mechanism{
		Kind: SnapshotPredicate,
		Rule: verdict.Rule{
			Name:   "postgres-rr-transaction-snapshot",
			Text:   "a write's predicate is evaluated on the transaction's snapshot, which does not include a concurrent uncommitted insert",
			Source: "PostgreSQL docs 13.2.2 (repeatable read)",
		},
		Writers: []string{"INSERT"},
	}
)

const (
	anyPostgres = "postgres"
)

// docs says where each DBMS family documents its isolation levels; a rule
// that cites a DBMS's promise cites this.
var docs = map[string]string{
	"postgres":  "PostgreSQL docs 13.2 Transaction Isolation (Table 13.1)",
	"mariadb":   "MariaDB docs: SET TRANSACTION; InnoDB transaction isolation levels",
	"mysql":     "MySQL docs 17.7.2.1 Transaction Isolation Levels",
	"sqlite":    "SQLite docs: Isolation In SQLite",
	"tidb":      "TiDB docs: TiDB Transaction Isolation Levels",
	"cockroach": "CockroachDB docs: Transactions (isolation levels)",
}

// table is the semantics table. DBMS names are target.Info().DBMS values.
var table = []row{
	{levels: []target.Level{target.ReadUncommitted}, apply: forbid(G0)},
	{levels: []target.Level{target.ReadCommitted}, apply: forbid(G0, G1a, G1b, G1c)},
	{dbms: []string{"mysql", "mariadb", "tidb"}, levels: []target.Level{target.RepeatableRead}, apply: forbid(G0, G1a, G1b, G1c)},
	{dbms: []string{"mariadb"}, levels: []target.Level{target.RepeatableRead}, setting: "innodb_snapshot_isolation=ON", apply: forbid(LostUpdate)},
	{dbms: []string{anyPostgres}, levels: []target.Level{target.RepeatableRead}, apply: forbid(G0, G1a, G1b, G1c, LostUpdate, GSingle, GNonadjacent, GSinglePredicate, GNonadjacentPredicate)},
	{levels: []target.Level{target.Snapshot}, apply: forbid(G0, G1a, G1b, G1c, LostUpdate, GSingle, GNonadjacent, GSinglePredicate, GNonadjacentPredicate)},
	// TiDB's optimistic transactions are snapshot isolation at both levels
	// (read committed takes effect only in pessimistic mode): TiDB docs,
	// Transaction Isolation Levels.
	{dbms: []string{"tidb"}, levels: []target.Level{target.ReadCommitted, target.RepeatableRead}, setting: "tidb_txn_mode=optimistic", apply: forbid(G0, G1a, G1b, G1c, LostUpdate, GSingle, GNonadjacent, GSinglePredicate, GNonadjacentPredicate)},
	{levels: []target.Level{target.Serializable}, apply: func(p *Promise) {
		p.Serializable = true
		r := anySerialOrder
		p.AnySerialOrder = &r
		p.Forbidden = append(p.Forbidden, G0, G1a, G1b, G1c, GSingle, G2)
	}},
	{dbms: []string{anyPostgres, "cockroach"}, levels: []target.Level{target.Serializable}, apply: func(p *Promise) {
		r := pgSSIReads
		p.ReadsAnyOrder = &r
	}},
	{dbms: []string{"sqlite"}, levels: []target.Level{target.Serializable}, apply: func(p *Promise) {
		r := sqliteWALReads
		p.ReadsAnyOrder = &r
	}},
	{dbms: []string{anyPostgres}, levels: []target.Level{target.ReadUncommitted, target.ReadCommitted}, apply: mechanisms(pgRCSnapshot)},
	{dbms: []string{"mysql", "mariadb"}, levels: []target.Level{target.ReadUncommitted, target.ReadCommitted}, apply: mechanisms(innodbRCGaps, innodbSemiConsistent)},
	{dbms: []string{anyPostgres}, levels: []target.Level{target.RepeatableRead}, apply: mechanisms(pgRRSnapshot)},
}

func forbid(as ...Anomaly) func(*Promise) {
	return func(p *Promise) {
		for _, a := range as {
			if !slices.Contains(p.Forbidden, a) {
				p.Forbidden = append(p.Forbidden, a)
			}
		}
	}
}

func mechanisms(ms ...Mechanism) func(*Promise) {
	return func(p *Promise) { p.WSS = append(p.WSS, ms...) }
}

// Lookup returns what dbms (a target.Info().DBMS value) promises at level
// under the given server settings (name → value; nil for defaults). An empty
// level means the DBMS's default and should be resolved by the caller first.
func Lookup(dbms string, level target.Level, settings map[string]string) Promise {
	p := Promise{DBMS: dbms, Level: level}
	for _, r := range table {
		if len(r.dbms) > 0 && !slices.Contains(r.dbms, dbms) {
			continue
		}
		if !slices.Contains(r.levels, level) {
			continue
		}
		if r.setting != "" && !settingHolds(r.setting, settings) {
			continue
		}
		r.apply(&p)
	}
	return p
}

func settingHolds(s string, settings map[string]string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] == '=' {
			v, ok := settings[s[:i]]
			return ok && strings.EqualFold(normalizeBool(v), s[i+1:])
		}
	}
	_, ok := settings[s]
	return ok
}

// modelSettings are the server settings the statement-level model
// (semantics/model) reads besides the table's: TiDB's clustering default
// and its configuration (which names its storage).
var modelSettings = []string{"tidb_enable_clustered_index", "tidb_config"}

// SettingNames lists the server settings some row of the table (or the
// statement-level model) depends on.
func SettingNames() []string {
	names := slices.Clone(modelSettings)
	for _, r := range table {
		if r.setting == "" {
			continue
		}
		name, _, _ := strings.Cut(r.setting, "=")
		if !slices.Contains(names, name) {
			names = append(names, name)
		}
	}
	return names
}

// ServerSettings reads the settings the table depends on from t (when its
// adapter can report them) and lays the given overrides (from --set, as
// "name=value") over them. Values compare case-insensitively in Lookup.
func ServerSettings(ctx context.Context, t target.Target, overrides []string) (map[string]string, error) {
	out := map[string]string{}
	if r, ok := target.As[target.SettingsReader](t); ok {
		got, err := r.Settings(ctx, SettingNames())
		if err != nil {
			return nil, err
		}
		for k, v := range got {
			out[k] = v
		}
	}
	for _, kv := range overrides {
		k, v, ok := strings.Cut(kv, "=")
		if !ok {
			return nil, fmt.Errorf("setting %q: want name=value", kv)
		}
		out[strings.TrimSpace(k)] = strings.TrimSpace(v)
	}
	return out, nil
}

// normalizeBool maps the spellings servers and users use for booleans onto
// ON/OFF, the spelling the table uses.
func normalizeBool(v string) string {
	switch strings.ToLower(strings.TrimSpace(v)) {
	case "1", "on", "true", "yes":
		return "ON"
	case "0", "off", "false", "no":
		return "OFF"
	}
	return v
}
