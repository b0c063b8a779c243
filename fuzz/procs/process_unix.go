//go:build unix

package procs

import (
	"errors"
	"os"
	"syscall"
)

// processGone reports whether no process has the ID pid.
func processGone(pid int) bool {
	return errors.Is(syscall.Kill(pid, 0), syscall.ESRCH)
}

// ownedByMe reports whether the file belongs to this process's user.
func ownedByMe(info os.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Getuid()
}
