//go:build unix

package report

import "syscall"

// oNoFollow makes the open fail on a symbolic link put in place between
// ReadFile's Lstat and its open.
const oNoFollow = syscall.O_NOFOLLOW
