// Package gen is txlab's seeded random case generator: a schema (tables,
// keys, checks, defaults, indexes), initial rows that satisfy it, and 2–5
// transactions interleaved into a submitted order. The same seed and Config
// always give the same case, byte for byte, so a finding is reproduced from
// its seed alone.
//
// Validity matters more than variety: every statement is built type-correct
// for the strictest supported DBMS (PostgreSQL) and avoids the constructs
// each dialect rejects, so that errors during a run are about concurrency
// and constraints, not about the generator.
package gen

import (
	"math/rand/v2"
	"strconv"

	"github.com/txlab/txlab/sqlast"
	"github.com/txlab/txlab/testcase"
)

// pcgStream is the fixed second word of the PCG state. Changing it changes
// every generated case, so it is part of the case format's stability.
const pcgStream = 0x7478_6c61_625f_6765 // "txlab_ge"

// Config bounds what the generator produces. Zero fields take the defaults
// noted; the ratios take their default at 0 and mean "never" when negative.
type Config struct {
	Dialect    sqlast.Dialect
	MaxTables  int // 1..3 (default 3)
	MaxColumns int // user columns per table 1..3 (default 3)
	MaxRows    int // initial rows per table 0..5 (default 5); negative means none
	MinTxns    int // transactions per case, 2..5 (default 2)
	MaxTxns    int // (default 5)
	MaxStmts   int // statements per explicit transaction 1..10 (default 10)

	AutocommitRatio float64 // share of single-statement autocommit transactions (default 0.2)
	RollbackRatio   float64 // share of explicit transactions ending in ROLLBACK (default 0.2)

	// NoSharedLocks: the target rejects shared locking reads (TiDB), so a
	// query drawn with FOR SHARE gets no locking clause; FOR UPDATE stays.
	// The draws are the same, so the rest of the case is too.
	NoSharedLocks bool
	// NoLockingReads: the target rejects every locking read (DuckDB), so
	// no query gets a locking clause. The draws are the same.
	NoLockingReads bool

	// Features are the SQL features beyond the base subset (package
	// features' names) the target supports (target.Info.Features); the
	// generator draws them only then. Nil: the base subset.
	Features []string
}

func (c Config) withDefaults() Config {
	def := func(v *int, d, lo, hi int) {
		if *v == 0 {
			*v = d
		}
		*v = min(max(*v, lo), hi)
	}
	def(&c.MaxTables, 3, 1, 3)
	def(&c.MaxColumns, 3, 1, 3)
	if c.MaxRows < 0 {
		c.MaxRows = 0
	} else {
		def(&c.MaxRows, 5, 0, 5)
	}
	def(&c.MinTxns, 2, 2, 5)
	def(&c.MaxTxns, 5, 2, 5)
	c.MaxTxns = max(c.MaxTxns, c.MinTxns)
	def(&c.MaxStmts, 10, 1, 10)
	ratio := func(v *float64, d float64) {
		switch {
		case *v == 0:
			*v = d
		case *v < 0:
			*v = 0
		case *v > 1:
			*v = 1
		}
	}
	ratio(&c.AutocommitRatio, 0.2)
	ratio(&c.RollbackRatio, 0.2)
	return c
}

// Generator draws schemas, rows and statements from one seeded source. It is
// not safe for concurrent use.
type Generator struct {
	cfg    Config
	r      *rand.Rand
	schema *Schema
	rows   []sqlast.Stmt
	feat   map[string]bool // Config.Features
	// inTxn: the statement being drawn is part of an explicit
	// transaction (LOCK TABLE exists only there); locked: that
	// transaction has a LOCK TABLE already.
	inTxn, locked bool
}

// New makes a generator and draws its schema and initial rows.
func New(seed uint64, cfg Config) *Generator {
	g := &Generator{cfg: cfg.withDefaults(), r: rand.New(rand.NewPCG(seed, pcgStream)), feat: map[string]bool{}}
	for _, f := range g.cfg.Features {
		g.feat[f] = true
	}
	g.schema = g.genSchema()
	g.rows = g.genRows()
	return g
}

// Config returns the configuration with defaults applied.
func (g *Generator) Config() Config { return g.cfg }

// Rand exposes the generator's source so oracles building their own shapes
// stay reproducible from the same seed.
func (g *Generator) Rand() *rand.Rand { return g.r }

// Schema returns the generated schema, including the values seen so far.
func (g *Generator) Schema() *Schema { return g.schema }

// InitialRows returns the INSERT statements of the initial rows (at most one
// per table).
func (g *Generator) InitialRows() []sqlast.Stmt { return g.rows }

// Setup returns the whole setup: CREATE TABLE, CREATE INDEX, then the
// initial rows.
func (g *Generator) Setup() []sqlast.Stmt {
	return append(g.schema.CreateStatements(), g.rows...)
}

// Case generates one complete case from seed: its setup and steps hold
// rendered SQL for cfg.Dialect, its Seed header is the seed in decimal, and
// DBMS and isolation are left for the caller.
func Case(seed uint64, cfg Config) *testcase.Case {
	g := New(seed, cfg)
	n := g.cfg.MinTxns + g.r.IntN(g.cfg.MaxTxns-g.cfg.MinTxns+1)
	txns := make([]*Txn, n)
	for i := range txns {
		txns[i] = g.Transaction()
	}
	c := &testcase.Case{Seed: strconv.FormatUint(seed, 10)}
	d := g.cfg.Dialect
	for _, s := range g.Setup() {
		c.Setup = append(c.Setup, sqlast.Format(d, s))
	}
	for _, st := range g.InterleaveOn(txns, g.Connections(n)) {
		sql := sqlast.Format(d, st.Stmt)
		c.Steps = append(c.Steps, testcase.Step{Conn: st.Conn, SQL: sql, Kind: testcase.Classify(sql)})
	}
	return c
}

// CaseSeed derives the i-th case's seed from a run seed with SplitMix64, a
// fixed bijective mix, so runs can be resumed or sharded by case index.
func CaseSeed(runSeed uint64, i int) uint64 {
	z := runSeed + uint64(i+1)*0x9e3779b97f4a7c15
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9
	z = (z ^ (z >> 27)) * 0x94d049bb133111eb
	return z ^ (z >> 31)
}

// chance returns true with probability p.
func (g *Generator) chance(p float64) bool { return g.r.Float64() < p }

// pick returns a random element of xs (which must not be empty).
func (g *Generator) pick(xs []string) string { return xs[g.r.IntN(len(xs))] }

// subset returns n distinct elements of xs in their original order.
func (g *Generator) subset(xs []string, n int) []string {
	idx := g.r.Perm(len(xs))[:n]
	keep := make([]bool, len(xs))
	for _, i := range idx {
		keep[i] = true
	}
	var out []string
	for i, x := range xs {
		if keep[i] {
			out = append(out, x)
		}
	}
	return out
}
