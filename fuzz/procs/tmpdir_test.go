package procs

import (
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestRemoveDeadTmp: a campaign directory whose parent process is gone
// (kill -9) is removed by the next campaign; one whose parent runs, one
// kept for its bundles (no owner file) and a directory of another name
// stay.
func TestRemoveDeadTmp(t *testing.T) {
	dead := exec.Command("true")
	if err := dead.Run(); err != nil {
		t.Fatal(err)
	}
	live := exec.Command("sleep", "60")
	if err := live.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { live.Process.Kill(); live.Wait() })

	dir := t.TempDir()
	mk := func(name string, pid int) string {
		p := filepath.Join(dir, name)
		if err := os.MkdirAll(filepath.Join(p, "shard-1"), 0o755); err != nil {
			t.Fatal(err)
		}
		if pid != 0 {
			if err := os.WriteFile(filepath.Join(p, ownerFile), []byte(strconv.Itoa(pid)), 0o600); err != nil {
				t.Fatal(err)
			}
		}
		return p
	}
	gone := mk(tmpPattern+"1", dead.Process.Pid)
	running := mk(tmpPattern+"2", live.Process.Pid)
	kept := mk(tmpPattern+"3", 0)
	other := mk("other-4", dead.Process.Pid)
	removeDeadTmp(dir)
	if _, err := os.Stat(gone); !os.IsNotExist(err) {
		t.Errorf("%s of a dead campaign is left (%v)", gone, err)
	}
	for _, p := range []string{running, kept, other} {
		if _, err := os.Stat(p); err != nil {
			t.Errorf("%s was removed: %v", p, err)
		}
	}
}
