package connect

import (
	"fmt"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/target"
)

// Release runs a command's cleanup (closing the targets and the oracles'
// sessions) when it ends with *err — in the background when t's server
// stopped answering: every query the cleanup makes (a session's reset,
// dropping txlab's case account) would wait out its timeout on the frozen
// server, and the process ends with it all the same. A throwaway server
// txlab started is stopped before the command ends, whatever happened:
// when frozen, first (there is nothing to clean in it).
//
// A cleanup that fails after a run that did not is the run's error, exit
// 2: what txlab could not drop or close (a case role a user's object now
// depends on, a server that crashed) is left on the server, and the user
// must hear of it.
func Release(err *error, t target.Target, cleanup func() error) {
	if !target.IsFrozen(*err) {
		cerr := cleanup()
		if cerr != nil && exitcode.Of(*err) < 2 {
			*err = exitcode.Fault(fmt.Errorf("closing the target: %w", cerr))
		}
		return
	}
	if srv := Server(t); srv != nil {
		srv.Stop()
	}
	go cleanup()
}
