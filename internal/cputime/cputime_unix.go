//go:build unix

// Package cputime reads the CPU time this process has used, for
// benchmarks that report it beside wall time: on a shared machine it
// depends less on the other processes' load.
package cputime

import (
	"syscall"
	"time"
)

// Process is the CPU time this process has used (user and system, every
// thread, the garbage collector's included), or 0 where it cannot be read.
func Process() time.Duration {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
