package localdb

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestDuckDBModuleCopy: the files txlab builds txlab-duckdb from are the
// module in duckdb/ (go generate ./localdb copies them).
func TestDuckDBModuleCopy(t *testing.T) {
	for name, embedded := range duckdbFiles() {
		b, err := os.ReadFile(filepath.Join("..", "duckdb", filepath.FromSlash(name)))
		if err != nil {
			t.Fatal(err)
		}
		if string(b) != embedded {
			t.Errorf("localdb/duckdbmodule's copy of %s differs from duckdb/%s: run go generate ./localdb", name, name)
		}
	}
	if !strings.Contains(duckdbGoMod, "github.com/duckdb/duckdb-go/v2 v2.10506.0") {
		t.Errorf("duckdb/go.mod does not require duckdb-go v2.10506.0 (DuckDB %s)", DuckDBVersion)
	}
	if !strings.Contains(duckdbGoMod, "\ngo "+strings.TrimPrefix(duckdbToolchain, "go")+"\n") {
		t.Errorf("duckdb/go.mod's go line is not the toolchain txlab builds it with (%s)", duckdbToolchain)
	}
}

// TestDuckDBBuildKey: the key changes with the program's source.
func TestDuckDBBuildKey(t *testing.T) {
	k := duckdbBuildKey()
	if !strings.HasPrefix(k, "v"+DuckDBVersion+"-") {
		t.Errorf("key %s", k)
	}
	old := duckdbMain
	duckdbMain += "\n"
	defer func() { duckdbMain = old }()
	if duckdbBuildKey() == k {
		t.Error("the build key does not change with main.go")
	}
}
