//go:build !linux

package procs

import "syscall"

// endWithParent: elsewhere a worker process notices its parent's death
// when its reports' pipe breaks.
func endWithParent() *syscall.SysProcAttr { return nil }
