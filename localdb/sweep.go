package localdb

import (
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
	"time"
)

// orphanGrace is how long a directory without owner.pid is left alone: the
// process that just created it may not have written the file yet.
const orphanGrace = 2 * time.Minute

// sweepStale removes txlab-localdb-* directories in bases whose owner process
// is gone (killed with SIGKILL, or crashed before Stop), first killing a
// server still running from such a directory. Best effort: problems are logged.
func sweepStale(bases []string, log io.Writer) {
	sweepPrefix(bases, dirPrefix, log)
}

// sweepPrefix is sweepStale for the directories whose names start with prefix.
func sweepPrefix(bases []string, prefix string, log io.Writer) {
	for _, base := range bases {
		entries, err := os.ReadDir(base)
		if err != nil {
			continue
		}
		for _, e := range entries {
			if !e.IsDir() || !strings.HasPrefix(e.Name(), prefix) {
				continue
			}
			dir := filepath.Join(base, e.Name())
			if !isStale(dir, e) {
				continue
			}
			killStaleServer(dir, log)
			if err := removeAll(dir); err != nil {
				fmt.Fprintf(log, "localdb: remove stale %s: %v\n", dir, err)
			} else {
				fmt.Fprintf(log, "localdb: removed stale %s\n", dir)
			}
		}
	}
}

// ScratchDir creates a temporary directory for an embedded database (an
// SQLite file), named prefix followed by random characters and marked with
// this process as its owner, after removing the directories of that prefix
// whose owner is gone: a txlab killed with SIGKILL cannot clean up after
// itself, the next one does.
func ScratchDir(prefix string) (string, error) {
	base := os.TempDir()
	sweepPrefix([]string{base}, prefix, io.Discard)
	dir, err := os.MkdirTemp(base, prefix)
	if err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, ownerFile), []byte(selfIdentity().String()+"\n"), 0o644); err != nil {
		os.RemoveAll(dir)
		return "", err
	}
	return dir, nil
}

// isStale reports whether dir's owner is no longer alive.
func isStale(dir string, e os.DirEntry) bool {
	b, err := os.ReadFile(filepath.Join(dir, ownerFile))
	if err != nil {
		if !os.IsNotExist(err) {
			return false // unreadable (another user's?): not ours to judge
		}
		fi, err := e.Info()
		return err == nil && time.Since(fi.ModTime()) > orphanGrace
	}
	owner, err := parseProcIdentity(string(b))
	if err != nil {
		return false
	}
	return !owner.alive()
}

// killStaleServer kills the server recorded in dir, if it still runs and its
// command line names dir (so a recycled pid is never hit).
func killStaleServer(dir string, log io.Writer) {
	b, err := os.ReadFile(filepath.Join(dir, serverPIDFile))
	if err != nil {
		return
	}
	id, err := parseProcIdentity(string(b))
	if err != nil || !id.alive() || !cmdlineContains(id.pid, dir) {
		return
	}
	fmt.Fprintf(log, "localdb: killing stale server pid %d in %s\n", id.pid, dir)
	_ = killTree(id.pid)
	// Not our child, so no Wait: poll until it is gone (bounded).
	for i := 0; i < 100 && id.alive(); i++ {
		time.Sleep(20 * time.Millisecond)
	}
}
