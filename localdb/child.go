package localdb

import "os/exec"

// StartChild starts a helper program of txlab's (txlab-duckdb) as Start
// starts a server: in a process group of its own, so that a terminal's
// Ctrl-C reaches txlab only, and on Linux killed by the kernel when txlab
// dies (from the spawner thread: see startCmd). Elsewhere it is a plain
// start, and the program must notice txlab's end itself (its standard
// input closing).
func StartChild(cmd *exec.Cmd) error {
	if !supported {
		return cmd.Start()
	}
	cmd.SysProcAttr = sysProcAttr(nil)
	return startCmd(cmd)
}
