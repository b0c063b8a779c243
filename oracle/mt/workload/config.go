package workload

import (
	"errors"
	"fmt"
	"io"
	"regexp"
	"strings"
	"time"

	"github.com/txlab/txlab/target"
)

// Distribution is how sessions pick the keys an MT touches.
type Distribution string

// The key-access distributions of the MTC paper's workload generator.
const (
	// Uniform picks every key with the same probability.
	Uniform Distribution = "uniform"
	// Zipfian picks key i with probability ∝ 1/i^1.1: a few keys are hot.
	Zipfian Distribution = "zipfian"
	// Hotspot sends 80% of the picks to the first 20% of the keys.
	Hotspot Distribution = "hotspot"
	// Exponential picks key i with probability ∝ e^(−4i/Keys).
	Exponential Distribution = "exponential"
)

// Distributions lists the accepted distributions, for flag help.
var Distributions = []Distribution{Uniform, Zipfian, Hotspot, Exponential}

// ParseDistribution accepts a distribution name in any case.
func ParseDistribution(s string) (Distribution, error) {
	d := Distribution(strings.ToLower(strings.TrimSpace(s)))
	for _, k := range Distributions {
		if d == k {
			return d, nil
		}
	}
	return "", fmt.Errorf("unknown key distribution %q (want uniform, zipfian, hotspot or exponential)", s)
}

// DefaultTable is the table the workload creates in txlab's schema.
const DefaultTable = "txlab_mt"

// Config describes one workload run. The zero value of a field means its
// default (see DefaultConfig), except ReadOnlyRatio and Seed, whose zero is
// meaningful.
type Config struct {
	// Sessions is the number of concurrent sessions (connections).
	Sessions int
	// Txns is the number of MTs to run, over all sessions, counting failed
	// ones (so a run on a contended SQLite file still ends). With Duration
	// set, 0 means no limit.
	Txns int
	// Keys is the number of rows; few keys make conflicts, and so
	// anomalies, likely.
	Keys int
	// ReadOnlyRatio is the fraction of MTs that only read (0 to 1). LWT
	// runs ignore it: a linearizability history has no plain reads.
	ReadOnlyRatio float64
	// Distribution is how keys are picked; default uniform.
	Distribution Distribution
	// LWT runs lightweight transactions instead of MTs: every operation is
	// one autocommit statement, an insert-if-not-exists or a compare-and-set,
	// and the history is checked with mt.Linearizable.
	LWT bool
	// Level is the isolation level of every session; "" is the target's
	// default level.
	Level target.Level
	// Seed makes the key choices reproducible (the interleaving is not).
	Seed uint64
	// Duration bounds the run's wall time; 0 runs until Txns are done.
	Duration time.Duration
	// Table is the workload's table; default DefaultTable.
	Table string
	// Progress, if set, is called after each recorded MT with the number
	// recorded so far, from the recording goroutine: it must be cheap.
	Progress func(done int)
	// History, if set, receives every transaction as a JSON line
	// (history.WriteTxn) as soon as it finishes, so a long run that dies
	// loses nothing already recorded.
	History io.Writer
}

// DefaultConfig returns the defaults: 8 sessions, 10 000 MTs on 10 keys,
// uniform keys, 20% read-only MTs (the paper's share of read-only
// transactions).
func DefaultConfig() Config {
	return Config{Sessions: 8, Txns: 10_000, Keys: 10, ReadOnlyRatio: 0.2, Distribution: Uniform, Table: DefaultTable}
}

// withDefaults fills zero fields from DefaultConfig.
func (c Config) withDefaults() Config {
	d := DefaultConfig()
	if c.Sessions == 0 {
		c.Sessions = d.Sessions
	}
	if c.Txns == 0 && c.Duration == 0 {
		c.Txns = d.Txns
	}
	if c.Keys == 0 {
		c.Keys = d.Keys
	}
	if c.Distribution == "" {
		c.Distribution = d.Distribution
	}
	if c.Table == "" {
		c.Table = d.Table
	}
	return c
}

var identRE = regexp.MustCompile(`^[A-Za-z_][A-Za-z0-9_]{0,62}$`)

// maxSessions keeps session numbers, which grow on reconnects, inside the
// high half of a positive int64 value (see value).
const maxSessions = 1 << 16

// Validate reports the first invalid field after defaults are applied.
func (c Config) Validate() error {
	c = c.withDefaults()
	var errs []error
	if c.Sessions < 1 || c.Sessions > maxSessions {
		errs = append(errs, fmt.Errorf("sessions %d: want 1 to %d", c.Sessions, maxSessions))
	}
	if c.Txns < 0 {
		errs = append(errs, fmt.Errorf("txns %d: want at least 0", c.Txns))
	}
	if c.Duration < 0 {
		errs = append(errs, fmt.Errorf("duration %v: must not be negative", c.Duration))
	}
	if c.Keys < 1 || c.Keys > 1<<30 {
		errs = append(errs, fmt.Errorf("keys %d: want 1 to %d", c.Keys, 1<<30))
	}
	if !(c.ReadOnlyRatio >= 0 && c.ReadOnlyRatio <= 1) {
		errs = append(errs, fmt.Errorf("read-only ratio %v: want 0 to 1", c.ReadOnlyRatio))
	}
	if _, err := ParseDistribution(string(c.Distribution)); err != nil {
		errs = append(errs, err)
	}
	if !identRE.MatchString(c.Table) {
		errs = append(errs, fmt.Errorf("table %q: want a plain SQL identifier", c.Table))
	}
	if c.Level != "" {
		if _, err := target.ParseLevel(string(c.Level)); err != nil {
			errs = append(errs, err)
		}
	}
	if len(errs) > 0 {
		return fmt.Errorf("workload: %w", errors.Join(errs...))
	}
	return nil
}
