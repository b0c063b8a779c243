package rules

import (
	"os/exec"
	"strings"
	"testing"
)

// TestImportsOnlyLeaves keeps the rules pure data: of txlab they import
// only the leaf packages of value types (verdict, target/txn), never the
// runtime that talks to a DBMS or the engine that replays them, and those
// leaves import nothing of txlab.
func TestImportsOnlyLeaves(t *testing.T) {
	leaves := map[string]bool{"github.com/txlab/txlab/verdict": true, "github.com/txlab/txlab/target/txn": true}
	for _, pkg := range []string{".", "../../verdict", "../../target/txn"} {
		out, err := exec.Command("go", "list", "-deps", pkg).Output()
		if err != nil {
			t.Fatalf("go list -deps %s: %v", pkg, err)
		}
		deps := strings.Fields(string(out))
		self := deps[len(deps)-1] // go list -deps lists the package last
		for _, dep := range deps[:len(deps)-1] {
			if strings.HasPrefix(dep, "github.com/txlab/") && (!leaves[dep] || leaves[self]) {
				t.Errorf("%s imports %s", self, dep)
			}
		}
	}
}
