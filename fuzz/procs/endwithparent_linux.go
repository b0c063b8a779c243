package procs

import "syscall"

// endWithParent has the kernel send SIGTERM to a worker process when its
// parent dies.
func endWithParent() *syscall.SysProcAttr {
	return &syscall.SysProcAttr{Pdeathsig: syscall.SIGTERM}
}
