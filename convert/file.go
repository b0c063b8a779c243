package convert

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"github.com/txlab/txlab/convert/pgspec"
	"github.com/txlab/txlab/testcase"
)

// MaxInputBytes bounds a file File reads whole: a case source (a
// pg-isolation spec or mysql-test file is bounded by testcase.MaxBytes,
// as a case file is) or a database dump. A published case file or a
// TxCheck dump is kilobytes; a larger file is refused, unread.
const MaxInputBytes = 64 << 20

// DefaultMaxCases is the cases one file may make unless Options says
// otherwise: PostgreSQL's own specs make at most about 1,430
// (prepared-transactions.spec), the other formats' published files a few.
const DefaultMaxCases = pgspec.MaxCases

// ErrNotRegular refuses an input that is not a regular file: reading a
// FIFO blocks until something writes to it, a device never ends.
var ErrNotRegular = errors.New("not a regular file")

// TooManyCasesError is File's refusal of a file that would make more
// cases than Options.MaxCases: none of its cases is made.
type TooManyCasesError struct {
	// Count is the number of cases it would make (math.MaxInt64: more
	// than that).
	Count int64
	Max   int
	// What makes them, one case each, when the count says little by
	// itself (a spec's "32784 permutations", or its interleavings); ""
	// otherwise.
	What string
}

func (e *TooManyCasesError) Error() string {
	return fmt.Sprintf("%s: more than the %d allowed", e.CountText(), e.Max)
}

// CountText says how many cases the file would make ("5000 cases",
// "32784 permutations, one case each").
func (e *TooManyCasesError) CountText() string {
	if e.What != "" {
		return e.What + ", one case each"
	}
	if e.Count == math.MaxInt64 {
		return "more than 9.2e18 cases"
	}
	return fmt.Sprintf("%d cases", e.Count)
}

// Options are File's settings beyond the file.
type Options struct {
	// Setup (a database dump's statements, ReadDump's), when not nil,
	// becomes the setup of every case that has none; SetupFrom is its
	// file, which the cases' comment names. Without it, a ReplBug
	// module's case gets the dump ReplBug keeps for its bug (TxCheck's
	// scenarios run on such databases), found by itself; one that cannot
	// be read is said to Warn, and the case keeps no setup.
	Setup     []string
	SetupFrom string
	// MaxCases bounds the cases the file may make (0: DefaultMaxCases);
	// a file that would make more is refused whole with a
	// *TooManyCasesError, before any case is made.
	MaxCases int
	Warn     func(string)
}

// File converts the cases of the file at path from format, calling emit
// with each case, its text (c.String(), what its case file holds), its
// index (from 0) and the number of cases, in order; it stops at the first
// error emit returns. A file that cannot be converted is refused before
// emit sees any of its cases, but for a pg-isolation spec: its cases are
// made and emitted one at a time (its interleavings are never all held),
// so a permutation that cannot be converted ends File after the ones
// before it were emitted. A file that would make more than
// Options.MaxCases is refused before any case is made, and so is a case
// whose text would be larger than a case file may hold. File checks ctx
// between cases and returns ctx's error when it is done.
//
// An input that is not a regular file is refused (ErrNotRegular) without
// being opened for a blocking read, and so is one larger than
// MaxInputBytes. A file that is not UTF-8 is refused with its line and
// byte offset, as txlab run refuses such a case file: its statements
// would reach the server as UTF-8, and another encoding's bytes read
// differently there. The errors do not name path: the caller does.
func File(ctx context.Context, format, path string, o Options, emit func(c *testcase.Case, text string, i, n int) error) error {
	if o.MaxCases <= 0 {
		o.MaxCases = DefaultMaxCases
	}
	if o.Warn == nil {
		o.Warn = func(string) {}
	}
	limit := int64(MaxInputBytes)
	if format == "pg-isolation" || format == "mysql-test" {
		limit = testcase.MaxBytes
	}
	b, err := readUTF8(path, "", limit)
	if err != nil {
		return err
	}
	found := map[string]foundDump{} // a ReplBug module's dump is read once
	if format == "pg-isolation" {
		sp, err := pgspec.ParseSpec(path, bytes.NewReader(b))
		if err != nil {
			return err
		}
		if n := sp.Count(); n > int64(o.MaxCases) {
			return &TooManyCasesError{Count: n, Max: o.MaxCases, What: sp.CountText()}
		}
		return sp.Each(ctx, path, func(c *testcase.Case, i, n int) error {
			addDumpSetup(c, format, path, o, found)
			text, err := caseText(c, i)
			if err != nil {
				return err
			}
			return emit(c, text, i, n)
		})
	}
	if format == "troc" || format == "writecheck" || format == "dt2" {
		if n := countEnds(b); n > o.MaxCases {
			return &TooManyCasesError{Count: int64(n), Max: o.MaxCases}
		}
	}
	cases, err := parse(ctx, format, path, bytes.NewReader(b), o.MaxCases)
	if err != nil {
		return err
	}
	if len(cases) > o.MaxCases {
		return &TooManyCasesError{Count: int64(len(cases)), Max: o.MaxCases}
	}
	for i, c := range cases {
		addDumpSetup(c, format, path, o, found)
		if _, err := caseText(c, i); err != nil {
			return err
		}
	}
	for i, c := range cases {
		if err := ctx.Err(); err != nil {
			return err
		}
		text, _ := caseText(c, i)
		if err := emit(c, text, i, len(cases)); err != nil {
			return err
		}
		cases[i] = nil // emitted: let it go
	}
	return nil
}

// caseText is case i's text, refused when the case file would be larger
// than txlab run reads (a dump as every case's setup, a statement
// continued over millions of lines).
func caseText(c *testcase.Case, i int) (string, error) {
	text := c.String()
	if len(text) > testcase.MaxBytes {
		return "", fmt.Errorf("case %d would be %d bytes, more than the %d a case file may hold (txlab run reads no larger)", i+1, len(text), testcase.MaxBytes)
	}
	return text, nil
}

// foundDump is a dump a ReplBug module's cases share, read once.
type foundDump struct {
	stmts []string
	err   error
}

// addDumpSetup gives a case without setup its dump's tables and rows (see
// Options.Setup).
func addDumpSetup(c *testcase.Case, format, module string, o Options, found map[string]foundDump) {
	if len(c.Setup) > 0 {
		return
	}
	stmts, from := o.Setup, o.SetupFrom
	if stmts == nil && format == "replbug" {
		from = ReplBugDump(module, c.Known.Bug)
		if from == "" {
			return
		}
		d, ok := found[from]
		if !ok {
			d.stmts, d.err = ReadDump(from)
			found[from] = d
			if d.err != nil {
				o.Warn(fmt.Sprintf("%v; the case has no setup", d.err))
			}
		}
		if d.err != nil {
			return
		}
		stmts = d.stmts
	}
	if stmts == nil {
		return
	}
	c.Setup = stmts
	c.Comments = append(c.Comments, "The setup is the tables and rows of "+filepath.Base(from)+" (a database dump), its CREATE TABLE and INSERT statements only.")
}

// ReadDump reads the database dump at path (mysqldump's, see DumpSetup)
// as setup statements, refusing what File refuses of an input; the
// errors name path.
func ReadDump(path string) ([]string, error) {
	b, err := readUTF8(path, path, MaxInputBytes)
	if err != nil {
		return nil, err
	}
	return DumpSetup(path, bytes.NewReader(b))
}

// readUTF8 reads a file to convert, refusing one that is not a regular
// file, is larger than limit or is not UTF-8; the refusal names the file
// as name ("": only the line, or nothing).
func readUTF8(path, name string, limit int64) ([]byte, error) {
	b, err := readInput(path, limit)
	if err != nil {
		// Named once: "f.sql: no such file or directory", not "f.sql:
		// stat f.sql: …".
		var pe *os.PathError
		if errors.As(err, &pe) {
			err = pe.Err
		}
		if name != "" {
			err = fmt.Errorf("%s: %w", name, err)
		}
		return nil, err
	}
	if utf8.Valid(b) {
		return b, nil // without CheckUTF8's copy of the text
	}
	return nil, testcase.CheckUTF8(name, string(b))
}

// readInput reads the regular file at path, at most limit bytes. It
// looks before it opens (a FIFO's open blocks until a writer comes), opens
// without blocking in case the path changed in between, and looks again
// at what it opened.
func readInput(path string, limit int64) ([]byte, error) {
	st, err := os.Stat(path)
	if err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	f, err := os.OpenFile(path, os.O_RDONLY|oNonblock, 0)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if st, err = f.Stat(); err != nil {
		return nil, err
	}
	if !st.Mode().IsRegular() {
		return nil, ErrNotRegular
	}
	tooLarge := fmt.Errorf("larger than %s, the most txlab import reads of a file", sizeText(limit))
	if st.Size() > limit {
		return nil, tooLarge
	}
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, tooLarge // it grew while read
	}
	return b, nil
}

func sizeText(n int64) string {
	if n%(1<<20) == 0 {
		return fmt.Sprintf("%d MiB", n>>20)
	}
	return fmt.Sprintf("%d bytes", n)
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
