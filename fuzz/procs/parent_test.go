package procs

import (
	"testing"

	"github.com/txlab/txlab/report"
	"github.com/txlab/txlab/verdict"
)

// TestRelocate: the findings name their signature's merged bundle, or
// none where it did not survive, never a worker's removed directory.
func TestRelocate(t *testing.T) {
	fs := []verdict.Finding{{Signature: "a", Dir: "/tmp/w/shard-1/0001-a"}, {Signature: "a", Dir: "/tmp/w/shard-2/0001-a"}, {Signature: "b", Dir: "/tmp/w/shard-2/0002-b"}, {Signature: "c"}}
	relocate(fs, []report.SignatureCount{{Signature: "a", Dir: "out/0007-a"}, {Signature: "c"}})
	if fs[0].Dir != "out/0007-a" || fs[1].Dir != "out/0007-a" || fs[2].Dir != "" || fs[3].Dir != "" {
		t.Errorf("relocated %+v", fs)
	}
}

// TestEnv: a worker process gets its share of the cores, at least
// its workers, unless GOMAXPROCS is set already.
func TestEnv(t *testing.T) {
	env := []string{"HOME=/h"}
	for _, tc := range []struct {
		cores, n, workers int
		want              string
	}{
		{16, 16, 1, "GOMAXPROCS=1"}, {16, 4, 1, "GOMAXPROCS=4"}, {2, 4, 1, "GOMAXPROCS=1"}, {16, 4, 8, "GOMAXPROCS=8"},
	} {
		got := Env(env, tc.cores, tc.n, tc.workers)
		if len(got) != 2 || got[0] != "HOME=/h" || got[1] != tc.want {
			t.Errorf("%d cores, %d processes of %d workers: %q, want %s", tc.cores, tc.n, tc.workers, got, tc.want)
		}
	}
	if got := Env([]string{"GOMAXPROCS=3"}, 16, 2, 1); len(got) != 1 || got[0] != "GOMAXPROCS=3" {
		t.Errorf("a GOMAXPROCS given: %q", got)
	}
	if len(env) != 1 {
		t.Errorf("the parent's environment changed: %q", env)
	}
}
