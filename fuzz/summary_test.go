package fuzz

import (
	"encoding/json"
	"strings"
	"testing"
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
