// Command txlab-duckdb serves sessions on one DuckDB database file to txlab
// (package target/duckdb), which builds it once into its cache and starts
// one per target:
//
//	txlab-duckdb -db FILE -socket PATH [-read-only] [-temp DIR] [-memory-limit 1GB] [-threads 1]
//
// It opens FILE with DuckDB confined to it (no file access outside it, no
// extensions installed or loaded, no persistent secrets, the configuration
// locked: see settings), listens on the Unix socket PATH (never on a
// network port), prints one ready line on stdout ("txlab-duckdb 1
// v1.5.6") and serves every connection as one session: one *sql.Conn of
// database/sql, its statements run one at a time in order (the protocol:
// wire.go). It refuses the statement kinds that reach outside the file or
// the session (ATTACH, COPY, EXPORT, LOAD, SET, PRAGMA, …: refusedKinds).
// It exits when its standard input closes (txlab ended it or died; on
// Linux txlab also has the kernel kill it when txlab dies).
package main

import (
	"bufio"
	"context"
	"database/sql"
	"database/sql/driver"
	"errors"
	"flag"
	"fmt"
	"io"
	"math/big"
	"net"
	"net/url"
	"os"
	"strconv"
	"strings"
	"sync"
	"time"

	duckdb "github.com/duckdb/duckdb-go/v2"
)

// settings confine DuckDB to its database file, set in this order once
// the database is open, before any session (the driver would apply a
// DSN's options in no fixed order, and DuckDB refuses some after
// enable_external_access is off); lock_configuration comes last, and from
// then on every SET of a global option fails. checked are only read back:
// it cannot change while the database runs, and is off by default.
// Each is read back before the program serves (checkSettings).
var (
	settings = [][2]string{
		{"enable_external_access", "false"},
		{"autoinstall_known_extensions", "false"},
		{"autoload_known_extensions", "false"},
		{"allow_persistent_secrets", "false"},
		{"allow_community_extensions", "false"},
		{"lock_configuration", "true"},
	}
	checked = [][2]string{
		{"allow_unsigned_extensions", "false"},
	}
)

// refusedKinds are the statement kinds no session may run, by DuckDB's
// own reading of the statement (its prepared statement's type), whatever
// the text looks like.
var refusedKinds = map[duckdb.StmtType]string{
	duckdb.STATEMENT_TYPE_ATTACH:       "ATTACH opens another database",
	duckdb.STATEMENT_TYPE_DETACH:       "DETACH detaches a database",
	duckdb.STATEMENT_TYPE_COPY:         "COPY reads or writes files",
	duckdb.STATEMENT_TYPE_EXPORT:       "EXPORT writes files",
	duckdb.STATEMENT_TYPE_LOAD:         "INSTALL and LOAD bring in extensions",
	duckdb.STATEMENT_TYPE_EXTENSION:    "an extension's statement reaches outside the database",
	duckdb.STATEMENT_TYPE_SET:          "SET, RESET and USE change the session (search_path, the database used)",
	duckdb.STATEMENT_TYPE_VARIABLE_SET: "SET VARIABLE keeps state beyond the statement",
	duckdb.STATEMENT_TYPE_PRAGMA:       "PRAGMA changes or reads settings",
	duckdb.STATEMENT_TYPE_CALL:         "CALL runs a table function for its effects",
	duckdb.STATEMENT_TYPE_PREPARE:      "PREPARE runs SQL later",
	duckdb.STATEMENT_TYPE_EXECUTE:      "EXECUTE runs prepared SQL",
	duckdb.STATEMENT_TYPE_CREATE_FUNC:  "CREATE MACRO or FUNCTION stores code",
	duckdb.STATEMENT_TYPE_MULTI:        "it holds several statements",
	duckdb.STATEMENT_TYPE_LOGICAL_PLAN: "it is a plan, not a statement",
	duckdb.STATEMENT_TYPE_RELATION:     "it is a relation, not a statement",
	duckdb.STATEMENT_TYPE_VACUUM:       "VACUUM rewrites the database",
}

// maxRequest bounds a request frame: a case statement is far smaller.
const maxRequest = 16 << 20

func main() {
	dbPath := flag.String("db", "", "the database `file` (created if missing)")
	socket := flag.String("socket", "", "the Unix socket `path` to listen on (its directory should be private)")
	temp := flag.String("temp", "", "DuckDB's temp_directory (default: FILE.tmp)")
	memory := flag.String("memory-limit", "1GB", "DuckDB's memory_limit")
	threads := flag.Int("threads", 1, "DuckDB's threads")
	readOnly := flag.Bool("read-only", false, "open the file read-only (access_mode=READ_ONLY)")
	flag.Parse()
	if *dbPath == "" || *socket == "" || flag.NArg() > 0 {
		fmt.Fprintln(os.Stderr, "usage: txlab-duckdb -db FILE -socket PATH [-read-only] [-temp DIR] [-memory-limit 1GB] [-threads 1]")
		os.Exit(2)
	}
	if err := run(*dbPath, *socket, *temp, *memory, *threads, *readOnly); err != nil {
		fmt.Fprintf(os.Stderr, "txlab-duckdb: %v\n", err)
		os.Exit(1)
	}
}

// dsn is the database's DSN: the path and every setting, in the order
// DuckDB applies them.
func dsn(path, temp, memory string, threads int, readOnly bool) (string, error) {
	if strings.ContainsAny(path, "?#%") {
		return "", fmt.Errorf("database file %q: a name with ?, # or %% is not supported", path)
	}
	var q []string
	if readOnly {
		q = append(q, "access_mode=READ_ONLY")
	}
	opts := [][2]string{{"threads", strconv.Itoa(threads)}, {"memory_limit", memory}}
	if temp != "" {
		opts = append(opts, [2]string{"temp_directory", temp})
	}
	for _, kv := range opts {
		q = append(q, kv[0]+"="+url.QueryEscape(kv[1]))
	}
	return path + "?" + strings.Join(q, "&"), nil
}

func run(path, socket, temp, memory string, threads int, readOnly bool) error {
	d, err := dsn(path, temp, memory, threads, readOnly)
	if err != nil {
		return err
	}
	connector, err := duckdb.NewConnector(d, nil)
	if err != nil {
		return fmt.Errorf("open %s: %w", path, err)
	}
	db := sql.OpenDB(connector)
	defer db.Close()
	// A closed session's connection goes: its transaction ends with it.
	db.SetMaxIdleConns(0)
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	version, err := checkSettings(ctx, db)
	if err != nil {
		return err
	}
	os.Remove(socket)
	ln, err := net.Listen("unix", socket)
	if err != nil {
		return err
	}
	defer os.Remove(socket)
	if err := os.Chmod(socket, 0o600); err != nil {
		ln.Close()
		return err
	}
	var wg sync.WaitGroup
	var mu sync.Mutex
	open := map[net.Conn]bool{}
	go func() {
		// Standard input is txlab's end of a pipe: it closes when txlab
		// closes the target or dies.
		io.Copy(io.Discard, os.Stdin)
		cancel()
		ln.Close()
		mu.Lock()
		for c := range open {
			c.Close()
		}
		mu.Unlock()
	}()
	fmt.Printf("%s %d %s\n", ReadyWord, ProtocolVersion, version)
	for {
		nc, err := ln.Accept()
		if err != nil {
			if ctx.Err() != nil {
				break
			}
			return err
		}
		mu.Lock()
		open[nc] = true
		mu.Unlock()
		wg.Add(1)
		go func() {
			defer wg.Done()
			serve(ctx, db, nc)
			mu.Lock()
			delete(open, nc)
			mu.Unlock()
		}()
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(10 * time.Second):
	}
	return nil
}

// checkSettings sets settings, reads back every one and returns DuckDB's
// version.
func checkSettings(ctx context.Context, db *sql.DB) (string, error) {
	for _, kv := range settings {
		if _, err := db.ExecContext(ctx, "SET "+kv[0]+" = "+kv[1]); err != nil {
			return "", fmt.Errorf("setting %s: %w", kv[0], err)
		}
	}
	var version string
	if err := db.QueryRowContext(ctx, "SELECT version()").Scan(&version); err != nil {
		return "", err
	}
	for _, kv := range append(settings, checked...) {
		var v string
		if err := db.QueryRowContext(ctx, "SELECT current_setting('"+kv[0]+"')::VARCHAR").Scan(&v); err != nil {
			return "", fmt.Errorf("setting %s: %w", kv[0], err)
		}
		if !strings.EqualFold(v, kv[1]) {
			return "", fmt.Errorf("setting %s is %s, want %s: refusing to serve", kv[0], v, kv[1])
		}
	}
	return version, nil
}

// serve runs one session: its connection's requests in order, until it
// closes or the program ends.
func serve(parent context.Context, db *sql.DB, nc net.Conn) {
	defer nc.Close()
	ctx, cancel := context.WithCancel(parent)
	defer cancel()
	sc, err := db.Conn(ctx)
	if err != nil {
		w := bufio.NewWriter(nc)
		WriteFrame(w, FrameError, EncodeFailure(failure(err, false)))
		w.Flush()
		return
	}
	defer sc.Close()
	reqs := make(chan Request)
	go func() {
		// A closed connection cancels the statement running for it.
		defer close(reqs)
		defer cancel()
		r := bufio.NewReader(nc)
		for {
			k, p, err := ReadFrame(r, maxRequest)
			if err != nil {
				return
			}
			req, err := DecodeRequest(k, p)
			if err != nil {
				return
			}
			select {
			case reqs <- req:
			case <-ctx.Done():
				return
			}
		}
	}()
	w := bufio.NewWriterSize(nc, 64<<10)
	for req := range reqs {
		if err := answer(ctx, sc, req, w); err != nil {
			return
		}
		if err := w.Flush(); err != nil {
			return
		}
	}
}

// answer runs one request and writes its answer; an error is the
// connection's (the answer could not be written).
func answer(ctx context.Context, sc *sql.Conn, req Request, w io.Writer) error {
	var out error
	err := sc.Raw(func(dc any) error {
		c, ok := dc.(*duckdb.Conn)
		if !ok {
			return errors.New("not a DuckDB connection")
		}
		out = execute(ctx, c, req, w)
		return nil
	})
	if err != nil {
		return WriteFrame(w, FrameError, EncodeFailure(failure(err, true)))
	}
	return out
}

// writeErr is an error writing the answer.
type writeErr struct{ error }

// execute runs req on c. Prepare refuses a text of several statements
// before running any, and names the statement's kind.
func execute(ctx context.Context, c *duckdb.Conn, req Request, w io.Writer) error {
	fail := func(err error, kind duckdb.StmtType, known bool) error {
		aborted := probeAborted(c)
		if known && kind == duckdb.STATEMENT_TYPE_TRANSACTION && strings.Contains(err.Error(), "Failed to commit") {
			aborted = true // a failed COMMIT ends its transaction
		}
		return WriteFrame(w, FrameError, EncodeFailure(failure(err, aborted)))
	}
	ds, err := c.Prepare(req.SQL)
	if err != nil {
		return fail(err, 0, false)
	}
	st := ds.(*duckdb.Stmt)
	defer st.Close()
	kind, err := st.StatementType()
	if err != nil {
		return fail(err, 0, false)
	}
	why, ok := refusedKinds[kind]
	if !ok && kind == duckdb.STATEMENT_TYPE_CREATE && createsCode(req.SQL) {
		why, ok = "CREATE MACRO or FUNCTION stores code (a macro can shadow a function txlab's own queries call)", true
	}
	if ok {
		return WriteFrame(w, FrameError, EncodeFailure(Failure{Type: "Permission",
			Message: "Permission Error: txlab-duckdb refuses this statement: " + why, Aborted: probeAborted(c)}))
	}
	if !req.Query {
		res, err := st.ExecContext(ctx, nil)
		if err != nil {
			return fail(err, kind, true)
		}
		n, err := res.RowsAffected()
		if err != nil {
			n = -1
		}
		return WriteFrame(w, FrameDone, EncodeDone(Done{Affected: n}))
	}
	rows, err := st.QueryContext(ctx, nil)
	if err != nil {
		return fail(err, kind, true)
	}
	defer rows.Close()
	cols := rows.Columns()
	if err := WriteFrame(w, FrameColumns, EncodeColumns(cols)); err != nil {
		return writeErr{err}
	}
	types := make([]string, len(cols))
	if tn, ok := rows.(driver.RowsColumnTypeDatabaseTypeName); ok {
		for i := range types {
			types[i] = tn.ColumnTypeDatabaseTypeName(i)
		}
	}
	dst := make([]driver.Value, len(cols))
	vals := make([]Value, len(cols))
	var sent, dropped uint64
	var bytes int64
	for {
		err := rows.Next(dst)
		if err == io.EOF {
			break
		}
		if err != nil {
			return fail(err, kind, true)
		}
		if dropped > 0 || sent >= req.MaxRows {
			dropped++
			continue
		}
		for i, v := range dst {
			vals[i] = text(v, types[i])
			dst[i] = nil
		}
		size := RowBytes(vals)
		if uint64(bytes+size) > req.MaxBytes {
			dropped++
			continue
		}
		if err := WriteFrame(w, FrameRow, EncodeRow(vals)); err != nil {
			return writeErr{err}
		}
		sent++
		bytes += size
	}
	return WriteFrame(w, FrameDone, EncodeDone(Done{Affected: -1, Dropped: dropped}))
}

// createsCode reports whether a CREATE statement makes a macro (DuckDB's
// prepared CREATE MACRO is of the plain CREATE kind): its words after
// CREATE, OR REPLACE, TEMP or TEMPORARY, past comments.
func createsCode(q string) bool {
	for _, w := range leadingWords(q, 5) {
		switch w {
		case "CREATE", "OR", "REPLACE", "TEMP", "TEMPORARY":
			continue
		case "MACRO", "FUNCTION":
			return true
		}
		return false
	}
	return false
}

// leadingWords returns the first n words of q, upper-cased, skipping
// white space and comments (-- to the end of the line, /* */ nested).
func leadingWords(q string, n int) []string {
	var out []string
	for i := 0; i < len(q) && len(out) < n; {
		switch c := q[i]; {
		case c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f':
			i++
		case strings.HasPrefix(q[i:], "--"):
			for i < len(q) && q[i] != '\n' {
				i++
			}
		case strings.HasPrefix(q[i:], "/*"):
			depth := 0
			for i < len(q) {
				if strings.HasPrefix(q[i:], "/*") {
					depth++
					i += 2
				} else if strings.HasPrefix(q[i:], "*/") {
					depth--
					i += 2
					if depth == 0 {
						break
					}
				} else {
					i++
				}
			}
		case c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(q) && (q[j] >= 'a' && q[j] <= 'z' || q[j] >= 'A' && q[j] <= 'Z' || q[j] == '_') {
				j++
			}
			out = append(out, strings.ToUpper(q[i:j]))
			i = j
		default:
			return out // a quote, a parenthesis: past the words that matter
		}
	}
	return out
}

// probeAborted reports, after a statement failed, whether the session
// now accepts only ROLLBACK: DuckDB answers any other statement of an
// aborted transaction with "Current transaction is aborted". SELECT 1
// reads no database, so it neither starts a snapshot nor changes one.
func probeAborted(c *duckdb.Conn) bool {
	ds, err := c.Prepare("SELECT 1")
	if err != nil {
		return true
	}
	defer ds.Close()
	_, err = ds.(*duckdb.Stmt).ExecContext(context.Background(), nil)
	return err != nil
}

// failure is the 'X' frame of err: DuckDB's error type as its message
// starts ("Constraint" of "Constraint Error: …", "Out of Range").
func failure(err error, aborted bool) Failure {
	msg := err.Error()
	var de *duckdb.Error
	if errors.As(err, &de) {
		msg = de.Msg
	}
	typ := ""
	if head, _, ok := strings.Cut(msg, " Error: "); ok && !strings.ContainsAny(head, "\n:") && len(head) < 40 {
		typ = head
	}
	if errors.Is(err, context.Canceled) || errors.Is(err, context.DeadlineExceeded) {
		typ = "INTERRUPT"
	}
	return Failure{Type: typ, Message: msg, Aborted: aborted}
}

// text formats a value as txlab's other adapters do (target.FormatValue:
// integers in decimal, floats in the shortest form that reads back,
// booleans 1 and 0), decimals with their scale's digits, dates and times
// as DuckDB writes them.
func text(v driver.Value, typ string) Value {
	switch x := v.(type) {
	case nil:
		return Value{Null: true}
	case string:
		return Value{S: x}
	case []byte:
		return Value{S: string(x)}
	case bool:
		if x {
			return Value{S: "1"}
		}
		return Value{S: "0"}
	case int8:
		return Value{S: strconv.FormatInt(int64(x), 10)}
	case int16:
		return Value{S: strconv.FormatInt(int64(x), 10)}
	case int32:
		return Value{S: strconv.FormatInt(int64(x), 10)}
	case int64:
		return Value{S: strconv.FormatInt(x, 10)}
	case uint8:
		return Value{S: strconv.FormatUint(uint64(x), 10)}
	case uint16:
		return Value{S: strconv.FormatUint(uint64(x), 10)}
	case uint32:
		return Value{S: strconv.FormatUint(uint64(x), 10)}
	case uint64:
		return Value{S: strconv.FormatUint(x, 10)}
	case float32:
		return Value{S: float(float64(x), 32)}
	case float64:
		return Value{S: float(x, 64)}
	case *big.Int:
		return Value{S: x.String()}
	case duckdb.Decimal:
		return Value{S: decimal(x)}
	case duckdb.UUID:
		return Value{S: x.String()}
	case *duckdb.UUID:
		return Value{S: x.String()}
	case duckdb.Interval:
		return Value{S: fmt.Sprintf("%d months %d days %d microseconds", x.Months, x.Days, x.Micros)}
	case time.Time:
		switch {
		case typ == "DATE":
			return Value{S: x.Format("2006-01-02")}
		case strings.HasPrefix(typ, "TIME") && !strings.HasPrefix(typ, "TIMESTAMP"):
			return Value{S: x.Format("15:04:05.999999")}
		case strings.Contains(typ, "TIME ZONE") || strings.HasSuffix(typ, "_TZ"):
			return Value{S: x.Format("2006-01-02 15:04:05.999999Z07")}
		}
		return Value{S: x.Format("2006-01-02 15:04:05.999999")}
	}
	return Value{S: fmt.Sprint(v)}
}

// float writes f in the shortest form that reads back, infinities and NaN
// as DuckDB does.
func float(f float64, bits int) string {
	switch s := strconv.FormatFloat(f, 'g', -1, bits); s {
	case "+Inf":
		return "inf"
	case "-Inf":
		return "-inf"
	case "NaN":
		return "nan"
	default:
		return s
	}
}

// decimal writes d with its scale's digits (DECIMAL(10,2) 1.5 is 1.50).
func decimal(d duckdb.Decimal) string {
	if d.Value == nil {
		return "0"
	}
	s := new(big.Int).Abs(d.Value).String()
	sign := ""
	if d.Value.Sign() < 0 {
		sign = "-"
	}
	scale := int(d.Scale)
	if scale == 0 {
		return sign + s
	}
	if len(s) <= scale {
		s = strings.Repeat("0", scale-len(s)+1) + s
	}
	return sign + s[:len(s)-scale] + "." + s[len(s)-scale:]
}
