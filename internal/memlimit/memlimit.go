// Package memlimit sets the Go runtime's soft memory limit for txlab when
// GOMEMLIMIT does not: what txlab keeps is bounded (target.Limits) far
// below it, and past it the collector runs harder rather than let the
// heap grow to twice what is live (GOGC) until the kernel's OOM killer
// ends the process, and the server txlab started, without a word.
package memlimit

import (
	"os"
	"runtime/debug"
	"strconv"
	"strings"
)

// Default is the limit unless the machine (or the cgroup) has less memory.
const Default = 1 << 30

// Set applies Default, or three quarters of the machine's (or the
// cgroup's) memory where that is less; GOMEMLIMIT, when set, wins.
func Set() {
	if os.Getenv("GOMEMLIMIT") != "" {
		return // the runtime has read it
	}
	debug.SetMemoryLimit(limit(available()))
}

// limit is the limit for avail bytes of memory (0: unknown).
func limit(avail int64) int64 {
	l := int64(Default)
	if avail > 0 && avail/4*3 < l {
		l = avail / 4 * 3
	}
	return l
}

// available is the cgroup's memory limit, else the machine's memory, 0
// when neither can be read.
func available() int64 {
	if b, err := os.ReadFile("/sys/fs/cgroup/memory.max"); err == nil {
		if n, err := strconv.ParseInt(strings.TrimSpace(string(b)), 10, 64); err == nil && n > 0 {
			return n
		}
	}
	b, err := os.ReadFile("/proc/meminfo")
	if err != nil {
		return 0
	}
	for _, line := range strings.Split(string(b), "\n") {
		if f := strings.Fields(line); len(f) >= 2 && f[0] == "MemTotal:" {
			if kb, err := strconv.ParseInt(f[1], 10, 64); err == nil {
				return kb << 10
			}
		}
	}
	return 0
}
