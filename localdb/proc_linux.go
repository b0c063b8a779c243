//go:build linux

package localdb

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"os/user"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"syscall"
)

const supported = true

// credential is the user a child process runs as.
type credential = syscall.Credential

// The kernel delivers the parent-death signal when the *thread* that forked
// the child exits, not the process. Go may retire an OS thread (when a goroutine
// that locked it exits), so children are started from one goroutine that locks
// its thread and never returns: that thread lives exactly as long as the
// process, and Pdeathsig then means "when txlab dies".
var (
	spawnOnce sync.Once
	spawnReqs chan spawnReq
)

type spawnReq struct {
	cmd  *exec.Cmd
	done chan error
}

// startCmd starts cmd from the dedicated spawner thread.
func startCmd(cmd *exec.Cmd) error {
	spawnOnce.Do(func() {
		spawnReqs = make(chan spawnReq)
		go func() {
			runtime.LockOSThread() // never unlocked: see above
			for r := range spawnReqs {
				r.done <- r.cmd.Start()
			}
		}()
	})
	done := make(chan error, 1)
	spawnReqs <- spawnReq{cmd: cmd, done: done}
	return <-done
}

// sysProcAttr puts the child in its own process group (so a terminal's Ctrl-C
// reaches only txlab, which then stops servers in order), kills it when txlab
// dies, and optionally runs it as another user.
func sysProcAttr(cred *credential) *syscall.SysProcAttr {
	return &syscall.SysProcAttr{
		Setpgid:    true,
		Pdeathsig:  syscall.SIGKILL,
		Credential: cred,
	}
}

// unprivilegedUser is the account PostgreSQL runs as when txlab runs as root.
const unprivilegedUser = "nobody"

// runAsFor returns the credential to run kind's programs with: nil (the
// current user) except for PostgreSQL under root, which refuses to start as
// root.
func runAsFor(kind Kind) (*credential, error) {
	if kind != Postgres || os.Geteuid() != 0 {
		return nil, nil
	}
	uid, gid := uint32(65534), uint32(65534)
	if u, err := user.Lookup(unprivilegedUser); err == nil {
		if n, err := strconv.ParseUint(u.Uid, 10, 32); err == nil {
			uid = uint32(n)
		}
		if n, err := strconv.ParseUint(u.Gid, 10, 32); err == nil {
			gid = uint32(n)
		}
	}
	return &credential{Uid: uid, Gid: gid, Groups: []uint32{}}, nil
}

// procIdentity is a pid plus its start time (clock ticks since boot), so a
// recycled pid is not mistaken for the original process.
type procIdentity struct {
	pid   int
	start uint64
}

func (p procIdentity) String() string { return fmt.Sprintf("%d %d", p.pid, p.start) }

func parseProcIdentity(s string) (procIdentity, error) {
	f := strings.Fields(s)
	if len(f) < 1 {
		return procIdentity{}, fmt.Errorf("empty")
	}
	pid, err := strconv.Atoi(f[0])
	if err != nil || pid <= 0 {
		return procIdentity{}, fmt.Errorf("bad pid %q", f[0])
	}
	p := procIdentity{pid: pid}
	if len(f) > 1 {
		if p.start, err = strconv.ParseUint(f[1], 10, 64); err != nil {
			return procIdentity{}, fmt.Errorf("bad start time %q", f[1])
		}
	}
	return p, nil
}

// selfIdentity identifies the current process.
func selfIdentity() procIdentity {
	pid := os.Getpid()
	st, _ := procStartTime(pid)
	return procIdentity{pid: pid, start: st}
}

// procStartTime reads field 22 of /proc/PID/stat.
func procStartTime(pid int) (uint64, error) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, err
	}
	// The command name (field 2) is in parentheses and may contain spaces.
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	f := strings.Fields(string(b[i+1:]))
	// f[0] is field 3 (state), so field 22 is f[19].
	if len(f) < 20 {
		return 0, fmt.Errorf("malformed /proc/%d/stat", pid)
	}
	return strconv.ParseUint(f[19], 10, 64)
}

// alive reports whether the identified process still exists (and is not a
// zombie). A zero start time matches any process with that pid.
func (p procIdentity) alive() bool {
	st, err := procStartTime(p.pid)
	if err != nil {
		return false
	}
	if p.start != 0 && st != p.start {
		return false
	}
	b, err := os.ReadFile("/proc/" + strconv.Itoa(p.pid) + "/stat")
	if err == nil {
		if i := bytes.LastIndexByte(b, ')'); i >= 0 && i+2 < len(b) && b[i+2] == 'Z' {
			return false
		}
	}
	return true
}

// cmdlineContains reports whether process pid's command line mentions s; used
// to make sure a pid read from a stale pid file is really that server.
func cmdlineContains(pid int, s string) bool {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
	if err != nil {
		return false
	}
	return bytes.Contains(b, []byte(s))
}

// killTree sends SIGKILL to pid's process group when pid leads one (localdb
// starts every program with Setpgid), so helpers such as mariadb-install-db's
// bootstrap server or PostgreSQL's backends go too; else to pid alone.
func killTree(pid int) error {
	if pgid, err := syscall.Getpgid(pid); err == nil && pgid == pid {
		return syscall.Kill(-pid, syscall.SIGKILL)
	}
	return syscall.Kill(pid, syscall.SIGKILL)
}

// resume continues pid and its children (PostgreSQL's backends) after a
// SIGSTOP; a process that runs ignores SIGCONT.
func resume(pid int) {
	_ = syscall.Kill(pid, syscall.SIGCONT)
	for _, p := range allPIDs() {
		if ppid, ok := parentOf(p); ok && ppid == pid {
			_ = syscall.Kill(p, syscall.SIGCONT)
		}
	}
}

// allPIDs lists the processes in /proc.
func allPIDs() []int {
	entries, _ := os.ReadDir("/proc")
	var out []int
	for _, e := range entries {
		if pid, err := strconv.Atoi(e.Name()); err == nil {
			out = append(out, pid)
		}
	}
	return out
}

// parentOf reads pid's parent from /proc/PID/stat: "pid (comm) state
// ppid …", where comm may hold spaces and parentheses.
func parentOf(pid int) (int, bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, false
	}
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if i < 0 || len(f) < 2 {
		return 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	return ppid, err == nil
}
