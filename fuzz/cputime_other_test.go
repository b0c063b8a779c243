//go:build !unix

package fuzz_test

import "time"

// cpuTime is the CPU time this process has used: not read here.
func cpuTime() time.Duration { return 0 }
