package procs

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
)

// A campaign's worker processes write their bundles under a directory of
// the parent's in the system's temporary directory, removed when the
// campaign ends. A parent killed with kill -9 cannot remove it; the next
// campaign does, once the parent that made it is gone.

const (
	tmpPattern = "txlab-procs-"
	// ownerFile holds the process ID of the parent that uses the
	// directory. A directory kept for its bundles after a failed merge
	// has none, and is never removed by another campaign.
	ownerFile = "parent.pid"
)

// makeTmp creates the campaign's directory, marked as the running
// process's, after removing those that dead campaigns left.
func makeTmp() (string, error) {
	removeDeadTmp(os.TempDir())
	tmp, err := os.MkdirTemp("", tmpPattern)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(tmp, ownerFile), []byte(strconv.Itoa(os.Getpid())), 0o600); err != nil {
		os.RemoveAll(tmp)
		return "", err
	}
	return tmp, nil
}

// removeDeadTmp removes the campaign directories under dir whose parent
// process no longer exists. A directory without an owner file, or one this
// user does not own, or whose process is alive (or unknown), is left.
func removeDeadTmp(dir string) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return
	}
	for _, e := range entries {
		if !e.IsDir() || !strings.HasPrefix(e.Name(), tmpPattern) {
			continue
		}
		path := filepath.Join(dir, e.Name())
		info, err := os.Lstat(path)
		if err != nil || !info.IsDir() || !ownedByMe(info) {
			continue
		}
		data, err := os.ReadFile(filepath.Join(path, ownerFile))
		if err != nil {
			continue
		}
		pid, err := strconv.Atoi(strings.TrimSpace(string(data)))
		if err != nil || pid <= 0 || pid == os.Getpid() {
			continue
		}
		if processGone(pid) {
			os.RemoveAll(path)
		}
	}
}
