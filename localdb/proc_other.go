//go:build !linux

package localdb

import (
	"errors"
	"os/exec"
	"syscall"
)

// Outside Linux the package compiles (so importers build everywhere) but
// Available reports it unsupported and Start refuses to run.
const supported = false

type credential struct{ Uid, Gid uint32 }

var errUnsupported = errors.New("localdb: only supported on Linux")

func startCmd(cmd *exec.Cmd) error { return errUnsupported }

func sysProcAttr(cred *credential) *syscall.SysProcAttr { return nil }

func runAsFor(kind Kind) (*credential, error) { return nil, errUnsupported }

type procIdentity struct {
	pid   int
	start uint64
}

func (p procIdentity) String() string { return "" }

func parseProcIdentity(s string) (procIdentity, error) { return procIdentity{}, errUnsupported }

func selfIdentity() procIdentity { return procIdentity{} }

func (p procIdentity) alive() bool { return true } // never sweep what we cannot check

func cmdlineContains(pid int, s string) bool { return false }

func procStartTime(pid int) (uint64, error) { return 0, errUnsupported }

func killTree(pid int) error { return errUnsupported }

func resume(int) {}
