package fuzz

import (
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/verdict"
)

// TestSeedJSON: a seed above 2^53 comes out as a string that reads back
// exactly (jq and JavaScript round such numbers).
func TestSeedJSON(t *testing.T) {
	s := Summary{Seed: 4179549059931332354}
	b, err := json.Marshal(s)
	if err != nil {
		t.Fatal(err)
	}
	if !strings.Contains(string(b), `"seed":"4179549059931332354"`) {
		t.Fatalf("seed in JSON: %s", b)
	}
	var back Summary
	if err := json.Unmarshal(b, &back); err != nil || back.Seed != s.Seed {
		t.Fatalf("read back %d (%v), want %d", back.Seed, err, s.Seed)
	}
}

// TestDominantKnownBug: a campaign whose bugs are mostly one known bug
// names it (and the summary says how to suppress it); a mix does not.
func TestDominantKnownBug(t *testing.T) {
	known := verdict.Finding{Oracle: "troc", Verdict: verdict.Bug, Rule: "mdev-30835-update-skips-uncommitted-insert"}
	other := verdict.Finding{Oracle: "wss", Verdict: verdict.Bug, Rule: "wss-fcrfs"}
	allowed := verdict.Finding{Oracle: "wss", Verdict: verdict.Allowed, Rule: "innodb-rc-no-gap-locks"}
	s := &Summary{Findings: []verdict.Finding{known, known, other, allowed, allowed, allowed}}
	if id, n, total := s.DominantKnownBug(); id != "MDEV-30835" || n != 2 || total != 3 {
		t.Errorf("DominantKnownBug = %q %d of %d, want MDEV-30835 2 of 3", id, n, total)
	}
	var b strings.Builder
	s.WriteText(&b)
	if !strings.Contains(b.String(), "2 of 3 bug findings are MDEV-30835") || !strings.Contains(b.String(), "with the line MDEV-30835") {
		t.Errorf("the summary gives no --suppress hint:\n%s", b.String())
	}
	s.Findings = []verdict.Finding{known, other, other}
	if id, _, _ := s.DominantKnownBug(); id != "" {
		t.Errorf("a campaign of mostly new findings got the hint %q", id)
	}
}

// TestProgressLineFits: the live line stays short enough for an 80-column
// terminal beside the spinner, the count and the elapsed time (about 25
// columns), however large the counts grow.
func TestProgressLineFits(t *testing.T) {
	s := &Summary{Oracles: []string{"wss", "isorel", "troc"}, ByOracle: map[string]*OracleCounts{
		"wss": {Bugs: 1234, Known: 99999}, "isorel": {}, "troc": {Bugs: 5}}, Cases: 12345678, Blocked: 98765432}
	for range 123456 {
		s.Findings = append(s.Findings, verdict.Finding{})
	}
	line := s.progressLine(10*time.Hour, 0)
	if n := len([]rune(line)); n > 80-25 {
		t.Errorf("progress line of %d columns: %q", n, line)
	}
	if !strings.Contains(line, "1239 bugs") || !strings.Contains(line, "99999 known") {
		t.Errorf("progress line %q: want the bugs and known counts", line)
	}
	s.Free = true
	if n := len([]rune(s.progressLine(10*time.Hour, 0))); n > 80-25 {
		t.Errorf("free-running progress line of %d columns", n)
	}
}
