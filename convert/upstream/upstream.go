// Package upstream writes a finding the way a DBMS's developers take a
// report: the case as a test of their own suite (a PostgreSQL
// isolation-tester spec, a MariaDB/MySQL mysql-test file), as a plain
// script for one client terminal per connection, and as a block to paste
// into their tracker.
//
// The paste block is written for a reader who has never seen txlab: it
// holds the DBMS and its version, the level, the statements to run (in
// the client's own SQL, one -- connection N comment where the terminal
// changes), which statement went wrong, what was expected of it and what
// happened. It holds none of txlab's own headers (seed, reduced-from,
// replay), no local path, and it names connections as the schedule does:
// an oracle's "transaction T2" becomes the connection that ran it.
package upstream

import (
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/convert/mysqltest"
	"github.com/txlab/txlab/convert/pgspec"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// File names of what Files writes into a bundle.
const (
	SpecFile      = "upstream.spec"  // PostgreSQL isolation tester
	TestFile      = "upstream.test"  // mysql-test-run
	TerminalsFile = "upstream.sql"   // one client terminal per connection
	PasteFile     = "bug-report.txt" // the block to paste into a tracker
)

// Finding is what the upstream files are made of.
type Finding struct {
	// DBMS and Version are what the server reported; Settings its
	// non-default settings (name=value).
	DBMS, Version string
	Settings      []string
	// Server are the semantics' settings as the server had them
	// (name=value): a maintainer's first question.
	Server []string
	// Level is the level the finding was judged at ("" = the case's).
	Level string
	// Kind is the finding's kind (incorrect-blocking, lost-update, …);
	// Summary the oracle's sentence; Rule the rule that decided its
	// verdict (one named after a tracker's issue names a known bug).
	Kind, Summary, Rule string
	// Case is the case the finding was made on.
	Case *testcase.Case
	// Events is Case's schedule as it ran (nil: not known): which
	// statements waited and which failed, and what each did.
	Events []executor.Event
	// Details are the oracle's details (report.json's): a statement's
	// step, connection and text, and the rows it had to return.
	Details json.RawMessage
}

// Files are the upstream files of f by name (Files' constants); a format
// that cannot hold the case (a statement with a } in a spec) is left out.
func Files(f Finding) map[string][]byte {
	if f.Case == nil {
		return nil
	}
	f.Events = ofCase(f.Case, f.Events)
	c := f.leveled()
	out := map[string][]byte{}
	if spec, err := pgspec.Write(strip(c)); err == nil {
		out[SpecFile] = []byte(spec)
	}
	o := OutcomesOf(f.Events)
	if !isMySQL(f.DBMS) {
		// Another DBMS's error codes mean nothing to mysqltest's --error.
		o.Errors = nil
	}
	out[TestFile] = []byte(mysqltest.Write(strip(c), o))
	out[TerminalsFile] = []byte(Terminals(c, f.DBMS, OutcomesOf(f.Events)))
	out[PasteFile] = []byte(Paste(f))
	return out
}

// leveled is the case with the finding's level for every connection that
// the case leaves at the default (the level the finding was judged at).
func (f Finding) leveled() *testcase.Case {
	c := *f.Case
	if l, err := target.ParseLevel(f.Level); err == nil && f.Level != "" && c.Isolation == "" && len(c.ConnIsolation) == 0 {
		c.Isolation = l
	}
	return &c
}

// strip is the case without txlab's headers and comments: what a vendor's
// test holds is its statements.
func strip(c *testcase.Case) *testcase.Case {
	return &testcase.Case{Isolation: c.Isolation, ConnIsolation: c.ConnIsolation, Setup: c.Setup, Steps: c.Steps}
}

// ofCase is events when they are a run of c (each case statement's event
// names its step and text), else nil: a schedule of another case (the
// case as found, beside a reduced one) says nothing of this one's steps.
func ofCase(c *testcase.Case, events []executor.Event) []executor.Event {
	for _, ev := range events {
		if ev.Step < 0 || ev.Added || ev.Implicit {
			continue
		}
		if ev.Step >= len(c.Steps) || c.Steps[ev.Step].SQL != ev.SQL || c.Steps[ev.Step].Conn != ev.Conn {
			return nil
		}
	}
	return events
}

// OutcomesOf reads a schedule: the steps that waited for a lock and the
// error code of each that failed (the statements txlab added or sent by
// itself are not the case's).
func OutcomesOf(events []executor.Event) mysqltest.Outcomes {
	o := mysqltest.Outcomes{Blocked: map[int]bool{}, Errors: map[int]string{}}
	for _, ev := range events {
		if ev.Step < 0 || ev.Added || ev.Implicit {
			continue
		}
		switch ev.Status {
		case executor.StatusBlocked:
			o.Blocked[ev.Step] = true
		case executor.StatusError:
			if ev.Error != nil && ev.Error.Code != "" {
				o.Errors[ev.Step] = ev.Error.Code
			}
		}
	}
	return o
}

// isMySQL reports whether dbms speaks MySQL's SQL for session settings.
func isMySQL(dbms string) bool {
	switch strings.ToLower(firstWord(dbms)) {
	case "mariadb", "mysql", "tidb":
		return true
	}
	return false
}

func firstWord(s string) string {
	f := strings.Fields(s)
	if len(f) == 0 {
		return ""
	}
	return f[0]
}

// levelStatement is the statement that sets a session's level on dbms
// ("" for SQLite, whose level is not a session's choice).
func levelStatement(dbms string, l target.Level) string {
	switch {
	case l == "":
		return ""
	case isMySQL(dbms):
		return "SET SESSION TRANSACTION ISOLATION LEVEL " + pgspec.LevelName(l) + ";"
	case strings.HasPrefix(strings.ToLower(dbms), "postgres"):
		return "SET SESSION CHARACTERISTICS AS TRANSACTION ISOLATION LEVEL " + pgspec.LevelName(l) + ";"
	}
	return ""
}

// Terminals prints the case as a script for one client terminal per
// connection: the setup first, then the statements in order, with a
// "-- connection N" line wherever the terminal changes; the first
// statement of each connection sets its level, and a statement that
// waited for a lock says so (the next ones go on in another terminal).
func Terminals(c *testcase.Case, dbms string, o mysqltest.Outcomes) string {
	return terminals(c, dbms, o, -1, nil)
}

// terminals is Terminals with the statement a finding is about marked
// (focus, -1 for none) and, for a finding about the final state, a
// SELECT of each table in final after the last statement.
func terminals(c *testcase.Case, dbms string, o mysqltest.Outcomes, focus int, final []string) string {
	autocommit := map[int]bool{}
	for _, t := range testcase.Transactions(c) {
		for _, s := range t.Steps {
			autocommit[s] = !t.Explicit
		}
	}
	var b strings.Builder
	if len(c.Setup) > 0 {
		b.WriteString("-- setup, in autocommit, in any terminal:\n")
		for _, s := range c.Setup {
			b.WriteString(s + ";\n")
		}
	}
	cur := 0
	seen := map[int]bool{}
	for i, s := range c.Steps {
		if s.Conn != cur {
			if b.Len() > 0 {
				b.WriteString("\n")
			}
			fmt.Fprintf(&b, "-- connection %d\n", s.Conn)
			cur = s.Conn
			if !seen[s.Conn] {
				seen[s.Conn] = true
				if ls := levelStatement(dbms, c.LevelOf(s.Conn)); ls != "" {
					b.WriteString(ls + "\n")
				}
			}
		}
		b.WriteString(s.SQL + ";")
		var notes []string
		if i == focus {
			notes = append(notes, "<- this statement: see Expected below")
		}
		if autocommit[i] {
			notes = append(notes, "autocommit")
		}
		if o.Blocked[i] {
			notes = append(notes, "waits for a lock; go on in the next terminal")
		}
		if len(notes) > 0 {
			b.WriteString("  -- " + strings.Join(notes, "; "))
		}
		b.WriteString("\n")
	}
	// The run ends every session before it reads the final state, which
	// rolls back a transaction the case left open: the reader's terminals
	// must do the same, or the final state differs.
	for _, t := range testcase.Transactions(c) {
		last := testcase.KindOf(c.Steps[t.Steps[len(t.Steps)-1]]).Control
		if !t.Explicit || last == testcase.Commit || last == testcase.Rollback {
			continue
		}
		if t.Conn != cur {
			fmt.Fprintf(&b, "\n-- connection %d\n", t.Conn)
			cur = t.Conn
		}
		b.WriteString("ROLLBACK;\n")
	}
	if len(final) > 0 {
		b.WriteString("\n-- then, in any terminal:\n")
		for _, t := range final {
			b.WriteString("SELECT * FROM " + t + ";\n")
		}
	}
	return b.String()
}

// details is the part of an oracle's details the paste block reads
// (Troc's: the statement a finding is about and the rows it had to return).
type details struct {
	Conn int          `json:"conn"`
	Step *int         `json:"step"` // 1-based
	SQL  string       `json:"sql"`
	Want []target.Row `json:"want"`
	May  []target.Row `json:"may"`
	Got  []target.Row `json:"got"`
	// WantAffected is the row count the statement's documented view gives.
	WantAffected *int64 `json:"want_affected"`
	// WSS's: the final states of the run and of the serial order it was
	// compared with, and how they differ.
	ActualFinal target.State `json:"actual_final"`
	SerialFinal target.State `json:"serial_final"`
	Violation   struct {
		Serial struct {
			Order []int `json:"order"`
		} `json:"serial"`
		// Cause is the model's account of what went wrong, in plain words.
		Cause string `json:"cause"`
		// How many orders of running the transactions one at a time were
		// tried, of how many, and one that gives the actual state.
		OrdersTried int   `json:"orders_tried"`
		OrdersTotal int   `json:"orders_total"`
		Skipped     bool  `json:"orders_skipped"`
		Reproducing []int `json:"reproducing"`
		Diff        struct {
			Tables []struct {
				Table      string  `json:"table"`
				OnlyActual [][]any `json:"only_actual"`
				OnlySerial [][]any `json:"only_serial"`
			} `json:"tables"`
		} `json:"diff"`
	} `json:"violation"`
}

// Paste is the block to paste into the DBMS's tracker (see the package
// doc).
func Paste(f Finding) string {
	f.Events = ofCase(f.Case, f.Events)
	c := f.leveled()
	var d details
	if len(f.Details) > 0 {
		json.Unmarshal(f.Details, &d) // another oracle's details: no statement
	}
	focus := -1
	if d.Step != nil && *d.Step >= 1 && *d.Step <= len(c.Steps) {
		focus = *d.Step - 1
	}
	o := OutcomesOf(f.Events)
	var b strings.Builder
	level := f.Level
	if level == "" {
		level = string(c.Isolation)
	}
	title := strings.ReplaceAll(f.Kind, "-", " ")
	if t, ok := titles[f.Kind]; ok {
		title = t
	}
	if v := d.Violation; v.Serial.Order != nil && (v.Reproducing != nil || v.Skipped) {
		// Another serial order gives it: the promise broken is the
		// order the transactions committed in.
		title = "a final state that differs from running the transactions one at a time in the order they committed,"
	}
	if level != "" {
		title += " at " + pgspec.LevelName(target.Level(level))
	}
	b.WriteString(strings.ToUpper(title[:1]) + title[1:] + "\n\n")
	if f.DBMS == "" {
		f.DBMS = c.DBMS
	}
	server := strings.TrimSpace(f.DBMS + " " + f.Version)
	if mysql, tidb, ok := strings.Cut(f.Version, "-TiDB-"); ok {
		// TiDB reports a MySQL version first; its tracker wants its own.
		server = "TiDB " + tidb + " (it reports MySQL " + mysql + ")"
	}
	if server != "" {
		fmt.Fprintf(&b, "DBMS: %s\n", server)
	}
	for _, s := range f.Settings {
		fmt.Fprintf(&b, "Setting: %s\n", s)
	}
	var had []string
	for _, s := range f.Server {
		name, _, _ := strings.Cut(s, "=")
		if !slices.ContainsFunc(f.Settings, func(set string) bool { return strings.HasPrefix(set, name+"=") }) {
			had = append(had, s)
		}
	}
	if len(had) > 0 {
		fmt.Fprintf(&b, "Server settings: %s\n", strings.Join(had, ", "))
	}
	b.WriteString("Isolation level: " + levelsLine(c) + "\n\n")
	b.WriteString("Open one client session per connection and run the statements below in this order,\neach in the session its \"-- connection N\" line names:\n\n")
	var final []string
	if focus < 0 {
		for _, t := range d.Violation.Diff.Tables {
			final = append(final, t.Table)
		}
	}
	b.WriteString(terminals(c, f.DBMS, o, focus, final))
	b.WriteString("\n")
	if focus >= 0 {
		s := c.Steps[focus]
		what := fmt.Sprintf("connection %d's %s", s.Conn, oneLine(s.SQL))
		exp, act := expectation(f.Kind, d, eventOf(f.Events, focus))
		if exp != "" {
			fmt.Fprintf(&b, "Expected: %s %s.\n", what, exp)
			fmt.Fprintf(&b, "Actual: %s.\n", act)
		} else {
			fmt.Fprintf(&b, "The statement: %s.\n", what)
		}
	}
	if focus < 0 {
		b.WriteString(finalState(c, d, o, f.Events != nil))
	}
	// A final state's comparison is said by Expected and Actual already;
	// its summary names txlab's serial orders (FCRFS), which no tracker
	// knows, so only the model's plain account of the cause is added.
	why := f.Summary
	if f.Kind == "incorrect-result" && len(d.Want)+len(d.Got) > 0 {
		// Expected and Actual give the rows; the summary only says that
		// they differ.
		why = ""
	}
	if v := d.Violation; v.Serial.Order != nil {
		why = v.Cause
		if why == "" && !v.Skipped && v.Reproducing == nil && v.OrdersTried == v.OrdersTotal && v.OrdersTotal > 1 {
			why = fmt.Sprintf("none of the %d orders of running the transactions one at a time leaves this final state", v.OrdersTotal)
		}
	}
	if why != "" {
		fmt.Fprintf(&b, "What went wrong: %s.\n", strings.TrimSuffix(Connections(c, why), "."))
	}
	if id, link := knownIssue(f.Rule); link != "" {
		if strings.HasPrefix(id, "MySQL") && !strings.EqualFold(firstWord(f.DBMS), "mysql") {
			// MySQL's tracker is not this DBMS's: the report goes to its
			// own, citing the twin.
			fmt.Fprintf(&b, "Known issue: %s (%s) reports the same behaviour in MySQL.\n", id, link)
		} else {
			fmt.Fprintf(&b, "Known issue: this is the behaviour of %s (%s).\n", id, link)
		}
	}
	return b.String()
}

// issueRule is a rule named after a tracker's issue: mdev-30835-…,
// mysql-104833-…, tidb-57170-….
var issueRule = regexp.MustCompile(`^(mdev|mysql|tidb)-([0-9]+)-`)

// knownIssue is the issue a rule is named after and its page, or "".
func knownIssue(rule string) (id, link string) {
	m := issueRule.FindStringSubmatch(rule)
	if m == nil {
		return "", ""
	}
	switch m[1] {
	case "mdev":
		return "MDEV-" + m[2], "https://jira.mariadb.org/browse/MDEV-" + m[2]
	case "mysql":
		return "MySQL bug #" + m[2], "https://bugs.mysql.com/bug.php?id=" + m[2]
	default:
		return "TiDB issue #" + m[2], "https://github.com/pingcap/tidb/issues/" + m[2]
	}
}

// titles name the kinds whose names are an oracle's own terms.
var titles = map[string]string{
	"tx-wss":   "a result no serial execution of the transactions gives",
	"stmt-wss": "a result no serial execution of the statements gives",
}

// levelsLine says the connections' levels: one for all, or each.
func levelsLine(c *testcase.Case) string {
	conns := c.Conns()
	same := true
	for _, n := range conns {
		same = same && c.LevelOf(n) == c.LevelOf(conns[0])
	}
	name := func(l target.Level) string {
		if l == "" {
			return "the server's default"
		}
		return pgspec.LevelName(l)
	}
	if same && len(conns) > 0 {
		return name(c.LevelOf(conns[0])) + " (every connection)"
	}
	var parts []string
	for _, n := range conns {
		parts = append(parts, fmt.Sprintf("connection %d %s", n, name(c.LevelOf(n))))
	}
	return strings.Join(parts, ", ")
}

// eventOf is the case statement's own event in the schedule (the last,
// when it waited and then ran).
func eventOf(events []executor.Event, step int) *executor.Event {
	var ev *executor.Event
	for i := range events {
		e := &events[i]
		if e.Step == step && !e.Added && !e.Implicit {
			ev = e
		}
	}
	return ev
}

// expectation says what was expected of the statement and what it did.
func expectation(kind string, d details, ev *executor.Event) (string, string) {
	switch kind {
	case "incorrect-blocking":
		if ev == nil {
			return "", ""
		}
		if ev.Status == executor.StatusBlocked || ev.Resumed {
			return "runs without waiting: no other transaction holds a lock it needs", "it waited for a lock, then " + said(*ev)
		}
		return "waits until the transaction holding the row's lock commits or rolls back", "it did not wait: " + said(*ev)
	case "incorrect-result", "incorrect-affected", "incorrect-error":
		if len(d.Want)+len(d.May)+len(d.Got) > 0 {
			exp := "returns " + rows(d.Want)
			if len(d.May) > 0 {
				exp += " (and may return " + rows(d.May) + " as well)"
			}
			return exp, "it returned " + rows(d.Got)
		}
		if d.WantAffected != nil && ev != nil {
			return "affects " + english.Plural(int(*d.WantAffected), "row") + ", as the rows its isolation level lets it see give", said(*ev)
		}
		if ev != nil {
			return "gives the outcome its isolation level documents", said(*ev)
		}
	}
	return "", ""
}

// finalState says how the final state differs from the one running the
// transactions one at a time gives (WSS's evidence), "" without one.
func finalState(c *testcase.Case, d details, o mysqltest.Outcomes, known bool) string {
	v := d.Violation
	if len(v.Diff.Tables) == 0 {
		return ""
	}
	var order []string
	for _, id := range v.Serial.Order {
		order = append(order, Connections(c, fmt.Sprintf("T%d", id)))
	}
	// Each table that differs, whole where the bundle has both states (a
	// reader compares them with what SELECT * printed), else the rows
	// that differ, a row one side lacks said as such.
	var exp, act []string
	for _, t := range v.Diff.Tables {
		if d.ActualFinal != nil && d.SerialFinal != nil {
			exp = append(exp, t.Table+" "+holds(d.SerialFinal[t.Table]))
			act = append(act, t.Table+" "+holds(d.ActualFinal[t.Table]))
			continue
		}
		should, is := anyRows(t.OnlySerial), anyRows(t.OnlyActual)
		switch {
		case len(t.OnlySerial) == 0:
			exp = append(exp, fmt.Sprintf("%s does not hold %s", t.Table, is))
			act = append(act, fmt.Sprintf("%s holds %s", t.Table, is))
		case len(t.OnlyActual) == 0:
			exp = append(exp, fmt.Sprintf("%s holds %s", t.Table, should))
			act = append(act, fmt.Sprintf("%s does not hold %s", t.Table, should))
		default:
			exp = append(exp, fmt.Sprintf("%s holds %s", t.Table, should))
			act = append(act, fmt.Sprintf("%s holds %s instead", t.Table, is))
		}
	}
	or := ""
	if c.Isolation == target.Serializable {
		// SERIALIZABLE's other correct outcome.
		or = ", or one of the transactions fails with a serialization error"
	}
	var b strings.Builder
	fmt.Fprintf(&b, "Expected: after the last statement, %s, as running the transactions one at a time (%s) leaves it%s.\n", strings.Join(exp, "; "), strings.Join(order, ", then "), or)
	ran := ""
	if known && len(o.Errors) == 0 {
		ran = "no statement failed, and "
	}
	fmt.Fprintf(&b, "Actual: %safter the last statement %s.\n", ran, strings.Join(act, "; "))
	return b.String()
}

// holds says a table's rows: "holds (1, a), (2, b)", or "is empty".
func holds(rs []target.Row) string {
	if len(rs) == 0 {
		return "is empty"
	}
	return "holds " + rows(rs)
}

func anyRows(rs [][]any) string {
	if len(rs) == 0 {
		return "no such row"
	}
	var parts []string
	for _, r := range rs {
		var vals []string
		for _, v := range r {
			if v == nil {
				vals = append(vals, "NULL")
			} else {
				vals = append(vals, fmt.Sprint(v))
			}
		}
		parts = append(parts, "("+strings.Join(vals, ", ")+")")
	}
	return strings.Join(parts, ", ")
}

func rows(rs []target.Row) string {
	if len(rs) == 0 {
		return "no rows"
	}
	var parts []string
	for _, r := range rs {
		parts = append(parts, executor.FormatRow(r))
	}
	return strings.Join(parts, ", ")
}

// txnRE matches an oracle's name of a transaction: "transaction T2", "T2".
var txnRE = regexp.MustCompile(`\b(?:[Tt]ransaction )?T([0-9]+)\b`)

// Connections rewrites an oracle's transaction names (T2, transaction T2)
// as the connection that ran the transaction, the way the schedule names
// it: "connection 3's transaction", or "connection 3's 2nd transaction"
// where the connection ran more than one.
func Connections(c *testcase.Case, text string) string {
	txns := testcase.Transactions(c)
	nth := map[int]int{}   // txn id → its place among its connection's
	count := map[int]int{} // conn → transactions
	for _, t := range txns {
		count[t.Conn]++
		nth[t.ID] = count[t.Conn]
	}
	return txnRE.ReplaceAllStringFunc(text, func(m string) string {
		id, _ := strconv.Atoi(txnRE.FindStringSubmatch(m)[1])
		if id < 1 || id > len(txns) {
			return m
		}
		t := txns[id-1]
		if count[t.Conn] == 1 {
			return fmt.Sprintf("connection %d's transaction", t.Conn)
		}
		return fmt.Sprintf("connection %d's %s transaction", t.Conn, ordinal(nth[id]))
	})
}

func ordinal(n int) string {
	suffix := "th"
	switch {
	case n%100 >= 11 && n%100 <= 13:
	case n%10 == 1:
		suffix = "st"
	case n%10 == 2:
		suffix = "nd"
	case n%10 == 3:
		suffix = "rd"
	}
	return strconv.Itoa(n) + suffix
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// said is what the client showed for a statement, in the words of the
// DBMS's own client: the rows, the rows affected, or the error.
func said(ev executor.Event) string {
	switch {
	case ev.Error != nil:
		e := ev.Error
		if e.Code != "" {
			return fmt.Sprintf("it failed with error %s: %s", e.Code, oneLine(e.Message))
		}
		return "it failed: " + oneLine(e.Message)
	case ev.Rows != nil || len(ev.Columns) > 0:
		return "it returned " + english.Plural(len(ev.Rows), "row")
	case ev.Affected >= 0:
		return "Query OK, " + english.Plural(int(ev.Affected), "row") + " affected"
	}
	return "it succeeded"
}
