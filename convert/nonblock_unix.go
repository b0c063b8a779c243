//go:build unix

package convert

import "syscall"

// oNonblock opens a FIFO without waiting for a writer (readInput refuses
// it then); on a regular file it changes nothing.
const oNonblock = syscall.O_NONBLOCK
