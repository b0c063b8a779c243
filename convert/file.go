package convert

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/txlab/txlab/testcase"
)

// File converts the cases of the file at path from format, and gives each
// case without setup the tables and rows of a database dump: the one at
// setup when not "", else, for a ReplBug module, the dump ReplBug keeps
// for the bug (TxCheck's scenarios run on such databases). A dump found
// by itself that cannot be read is said to warn, and the case keeps no
// setup.
//
// A file that is not UTF-8 is refused with its line and byte offset, as
// txlab run refuses such a case file: its statements would reach the
// server as UTF-8, and another encoding's bytes read differently there.
// The errors do not name path: the caller does.
func File(format, path, setup string, warn func(string)) ([]*testcase.Case, error) {
	b, err := readUTF8(path, "")
	if err != nil {
		return nil, err
	}
	cases, err := Parse(format, path, bytes.NewReader(b))
	if err != nil {
		return nil, err
	}
	for _, c := range cases {
		if err := addDumpSetup(c, format, path, setup, warn); err != nil {
			return nil, err
		}
	}
	return cases, nil
}

// addDumpSetup gives a case without setup its dump's tables and rows (see
// File).
func addDumpSetup(c *testcase.Case, format, module, setup string, warn func(string)) error {
	if len(c.Setup) > 0 {
		return nil
	}
	dump, found := setup, false
	if dump == "" && format == "replbug" {
		dump, found = ReplBugDump(module, c.Known.Bug), true
	}
	if dump == "" {
		return nil
	}
	stmts, err := readDump(dump)
	if err != nil && found {
		warn(fmt.Sprintf("%v; the case has no setup", err))
		return nil
	}
	if err != nil {
		return err
	}
	c.Setup = stmts
	c.Comments = append(c.Comments, "The setup is the tables and rows of "+filepath.Base(dump)+" (a database dump), its CREATE TABLE and INSERT statements only.")
	return nil
}

func readDump(path string) ([]string, error) {
	b, err := readUTF8(path, path)
	if err != nil {
		return nil, err
	}
	return DumpSetup(path, bytes.NewReader(b))
}

// readUTF8 reads a file to convert, refusing one that is not UTF-8; the
// refusal names the file as name ("": only the line).
func readUTF8(path, name string) ([]byte, error) {
	b, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	if err := testcase.CheckUTF8(name, string(b)); err != nil {
		return nil, err
	}
	return b, nil
}

// Names gives converted cases their file names in one directory. A file's
// cases are base.txn, or base-1.txn, base-2.txn, … when it holds several;
// a name given already (PostgreSQL has nowait.spec and nowait-2.spec)
// gets .2, .3, … rather than overwrite another's case.
type Names struct {
	given map[string]bool
}

// Next is the name of case i (from 0) of the count cases of the file at
// path.
func (n *Names) Next(path string, i, count int) string {
	if n.given == nil {
		n.given = map[string]bool{}
	}
	base := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	name := base + ".txn"
	if count > 1 {
		name = fmt.Sprintf("%s-%d.txn", base, i+1)
	}
	dst := name
	for k := 2; n.given[dst]; k++ {
		dst = fmt.Sprintf("%s.%d.txn", strings.TrimSuffix(name, ".txn"), k)
	}
	n.given[dst] = true
	return dst
}
