package instrument

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
)

// Versions extracts the row versions of a result: every non-NULL pair of
// columns txlab_rI / txlab_wI, row by row, exact repeats left out (a join
// returns one table row once per partner).
func Versions(columns []string, rows []target.Row) []history.Version {
	type pos struct{ r, w int }
	var pairs []pos
	idx := map[string]int{}
	for i, c := range columns {
		idx[strings.ToLower(c)] = i
	}
	for i := 0; ; i++ {
		r, ok1 := idx[rowAlias(i)]
		w, ok2 := idx[wlistAlias(i)]
		if !ok1 || !ok2 {
			break
		}
		pairs = append(pairs, pos{r, w})
	}
	var out []history.Version
	seen := map[[2]string]bool{}
	for _, row := range rows {
		for _, p := range pairs {
			if p.r >= len(row) || p.w >= len(row) || row[p.r].Null || row[p.w].Null {
				continue
			}
			v := history.Version{Row: row[p.r].S, WList: TrimWList(row[p.w].S)}
			if k := [2]string{v.Row, v.WList}; !seen[k] {
				seen[k] = true
				out = append(out, v)
			}
		}
	}
	return out
}

// Strip removes the hidden columns from an event, for showing results to
// users as the original statement would have returned them (a DISTINCT
// query may show repeated rows: it ran with the rowIds). A statement that
// returns only hidden columns (a final read, the read before a DELETE) is
// txlab's own and keeps them: stripped, its rows would print as "()".
func Strip(ev executor.Event) executor.Event {
	keep := shown(ev.Columns)
	if len(keep) == len(ev.Columns) || len(keep) == 0 {
		return ev
	}
	out := ev
	out.Columns = make([]string, len(keep))
	for j, i := range keep {
		out.Columns[j] = ev.Columns[i]
	}
	out.Rows = make([]target.Row, len(ev.Rows))
	for r, row := range ev.Rows {
		nr := make(target.Row, 0, len(keep))
		for _, i := range keep {
			if i < len(row) {
				nr = append(nr, row[i])
			}
		}
		out.Rows[r] = nr
	}
	return out
}

// Strip turns the instrumented run res of p into the run of the case as
// written, for users and for comparing with a plain run: each event names
// the case's statement (SQL, Step) with the rewritten text in Sent, and
// the statements txlab added are marked Added (Step: the statement they
// serve, -1 for the final read); the hidden columns are dropped from every
// result and from the final state, the rows of a DELETE's or upsert's
// added RETURNING dropped (the count of rows it changed stays), and the
// rows of a DISTINCT or UNION query deduplicated again. Record reads the
// run before Strip.
func (p *Plan) Strip(res *executor.Result) {
	for i, ev := range res.Events {
		ev = Strip(ev)
		if ev.Step >= 0 && ev.Step < len(p.Steps) {
			ps := p.Steps[ev.Step]
			switch info := ps.Info; {
			case ps.Role != RoleMain || ev.Rows == nil || info == nil:
			case info.Returning && info.Hidden:
				ev.Affected = info.affected(res.Events[i])
				ev.Columns, ev.Rows = nil, nil
			case info.Scans:
				ev.Rows = matching(res.Events[i], ev.Rows)
			case info.Dedup:
				ev.Rows = dedup(ev.Rows)
			}
			ev.Step, ev.Added = ps.Orig, ps.Role != RoleMain
			if !ev.Added && ps.Orig >= 0 {
				if orig := p.Original.Steps[ps.Orig].SQL; orig != ev.SQL {
					ev.SQL, ev.Sent = orig, ev.SQL
				}
			}
		}
		res.Events[i] = ev
	}
	res.Final = StripState(res.Final, p.Tables)
}

// affected is the count of rows a statement with Returning changed, as
// its DBMS would count them without the RETURNING clause.
func (info *Info) affected(ev executor.Event) int64 {
	if !info.CountsChanges {
		return int64(len(ev.Rows))
	}
	var n int64
	seen := map[string]bool{}
	for _, row := range ev.Rows {
		// One returned row a VALUES row (Versions would merge equal ones).
		for _, v := range Versions(ev.Columns, []target.Row{row}) {
			// A VALUES row that meets a row an earlier one inserted is an
			// update of it, changed or not: only the first is an insert.
			inserted := info.inserts(v) && !seen[v.Row]
			seen[v.Row] = true
			switch {
			case strings.HasSuffix(v.WList, info.Appended):
				n += 2
			case inserted || info.ReplacesInPlace:
				n++
			}
		}
	}
	return n
}

// matching keeps the rows of stripped that the predicate read ev (its
// rows unstripped, in the same order) flagged as matching its WHERE.
func matching(ev executor.Event, stripped []target.Row) []target.Row {
	m := column(ev.Columns, MatchColumn)
	if m < 0 {
		return stripped
	}
	out := stripped[:0:0]
	for i, row := range ev.Rows {
		if m < len(row) && row[m].S == "1" && i < len(stripped) {
			out = append(out, stripped[i])
		}
	}
	return out
}

// column is the position of a result column by name, -1 when absent.
func column(columns []string, name string) int {
	return slices.IndexFunc(columns, func(c string) bool { return strings.EqualFold(c, name) })
}

// seenVersions are the versions of a predicate read's view: its rows, each
// with pred in Matches when it matched (every row of a read that ran
// without WHERE), and the versions of the rows it returned.
func seenVersions(ev executor.Event, pred string, scans bool) (seen, reads []history.Version) {
	m := column(ev.Columns, MatchColumn)
	for i, row := range ev.Rows {
		vs := Versions(ev.Columns, ev.Rows[i:i+1])
		match := !scans || m >= 0 && m < len(row) && row[m].S == "1"
		for _, v := range vs {
			if match {
				reads = append(reads, v)
				v.Matches = []string{pred}
			}
			seen = append(seen, v)
		}
	}
	return seen, reads
}

// installedVersions parses what a write returned of the versions it
// installed: rows with the hidden pair and InstalledColumn's bits
// (RETURNING), or the MySQL family's one value "rowId=wList?bits …".
func installedVersions(ev executor.Event, evaluated []string) []history.Version {
	c := column(ev.Columns, InstalledColumn)
	if c < 0 || len(evaluated) == 0 {
		return nil
	}
	matches := func(bits string) []string {
		var out []string
		for i, id := range evaluated {
			if i < len(bits) && bits[i] == '1' {
				out = append(out, id)
			}
		}
		return out
	}
	var out []history.Version
	if column(ev.Columns, rowAlias(0)) < 0 {
		for _, row := range ev.Rows {
			if c >= len(row) || row[c].Null {
				continue
			}
			for _, f := range strings.Fields(row[c].S) {
				r, rest, ok1 := strings.Cut(f, "=")
				w, bits, ok2 := strings.Cut(rest, "?")
				if ok1 && ok2 && r != "" && w != "" && len(bits) == len(evaluated) {
					out = append(out, history.Version{Row: r, WList: TrimWList(w), Matches: matches(bits)})
				}
			}
		}
		return out
	}
	for i, row := range ev.Rows {
		if c >= len(row) || row[c].Null || len(row[c].S) != len(evaluated) {
			continue
		}
		for _, v := range Versions(ev.Columns, ev.Rows[i:i+1]) {
			v.Matches = matches(row[c].S)
			out = append(out, v)
		}
	}
	return out
}

// dedup keeps the first of equal rows.
func dedup(rows []target.Row) []target.Row {
	out := rows[:0:0]
	for _, r := range rows {
		if !slices.ContainsFunc(out, func(o target.Row) bool { return o.Compare(r) == 0 }) {
			out = append(out, r)
		}
	}
	return out
}

// shown are the positions of the columns that are not hidden.
func shown(columns []string) []int {
	var keep []int
	for i, c := range columns {
		if !IsHidden(c) {
			keep = append(keep, i)
		}
	}
	return keep
}

// matchedVersions parses an UPDATE's post-read: one row, its first value,
// "rowId=wList rowId=wList …", NULL when it matched no row.
func matchedVersions(rows []target.Row) []history.Version {
	var out []history.Version
	if len(rows) != 1 || len(rows[0]) == 0 || rows[0][0].Null {
		return nil
	}
	for _, f := range strings.Fields(rows[0][0].S) {
		if r, w, ok := strings.Cut(f, "="); ok && r != "" && w != "" {
			out = append(out, history.Version{Row: r, WList: TrimWList(w)})
		}
	}
	return out
}

// txnRec accumulates one transaction while Record reads the schedule.
type txnRec struct {
	txn      history.Txn
	explicit bool
	groups   map[[2]int]int // group and subquery read (-1: none) → index in txn.Stmts
	aborted  bool
	commitOK bool // its COMMIT (or wrapper COMMIT) succeeded
	ended    bool // a COMMIT or ROLLBACK completed, or it was aborted
	mainOK   int  // autocommit: 1 ok, -1 failed, 0 never completed
	wrapped  bool
}

// Record builds the history of an instrumented case from its run: T0 with
// the initial rows, one transaction per transaction of the original case
// (session = connection, isolation, statements merged from their pre-read
// and main statement, error classes, commit status), and the final read.
// Start and End are positions in the actual schedule (1-based), which is
// the time order of the deterministic protocol.
func Record(p *Plan, res *executor.Result) (*history.History, error) {
	if res == nil {
		return nil, fmt.Errorf("record: no result")
	}
	h := &history.History{Txns: []history.Txn{initTxn(p)}}
	rc := newRecorder(p, res)
	for i, ev := range res.Events {
		if err := rc.event(int64(i+1), ev); err != nil {
			return nil, err
		}
	}
	for _, id := range rc.order {
		r := rc.recs[id]
		r.txn.Status = status(r, res.Hang)
		h.Txns = append(h.Txns, r.txn)
	}
	if res.Final != nil {
		h.Txns = append(h.Txns, p.finalTxn(res.Final, int64(len(res.Events)+1)))
	}
	return h, nil
}

// initTxn is T0: the rows the instrumented setup inserted.
func initTxn(p *Plan) history.Txn {
	init := history.Txn{ID: 0, Init: true, Status: history.OK}
	for i, info := range p.Setup {
		if !info.Instrumented || len(info.Inserted) == 0 {
			continue
		}
		init.Stmts = append(init.Stmts, history.Stmt{SQL: p.Original.Setup[i], Sent: []string{p.Case.Setup[i]}, Kind: info.Kind, Inserted: info.Inserted, Names: info.Names})
	}
	return init
}

// recorder follows a run's events into the transactions of its plan.
type recorder struct {
	p       *Plan
	res     *executor.Result
	recs    map[int64]*txnRec
	order   []int64          // the transactions in the plan's order
	sentOf  map[int][]string // group → the instrumented statements sent for it
	current map[int]*txnRec  // connection → its transaction in progress
}

func newRecorder(p *Plan, res *executor.Result) *recorder {
	rc := &recorder{p: p, res: res, recs: map[int64]*txnRec{}, sentOf: map[int][]string{}, current: map[int]*txnRec{}}
	for _, t := range p.Txns {
		rc.get(int64(t.ID), t.Conn, t.Explicit)
	}
	for i, st := range p.Steps {
		if st.Info != nil && st.Info.Instrumented && st.Role != RoleSubRead {
			rc.sentOf[st.Group] = append(rc.sentOf[st.Group], p.Case.Steps[i].SQL)
		}
		if st.Role == RoleBegin && st.Orig >= 0 {
			rc.recs[st.Txn].wrapped = true
		}
	}
	return rc
}

// get is transaction id's record, made on first use.
func (rc *recorder) get(id int64, conn int, explicit bool) *txnRec {
	r := rc.recs[id]
	if r == nil {
		lvl := rc.res.Levels[conn]
		if lvl == "" {
			lvl = rc.p.Case.LevelOf(conn)
		}
		r = &txnRec{txn: history.Txn{ID: id, Session: conn, Isolation: string(lvl)}, explicit: explicit, groups: map[[2]int]int{}}
		rc.recs[id] = r
		rc.order = append(rc.order, id)
	}
	return r
}

// event records the event at position at of the schedule.
func (rc *recorder) event(at int64, ev executor.Event) error {
	p := rc.p
	if ev.Step < 0 || ev.Step >= len(p.Steps) {
		if ev.Implicit {
			if r := rc.current[ev.Conn]; r != nil {
				r.aborted, r.ended = true, true
				r.txn.End = at
			}
		}
		return nil
	}
	ps := p.Steps[ev.Step]
	r := rc.recs[ps.Txn]
	if r == nil {
		return fmt.Errorf("record: step %d names unknown transaction T%d", ev.Step, ps.Txn)
	}
	rc.current[ev.Conn] = r
	if ev.Status == executor.StatusSkipped {
		return nil
	}
	if r.txn.Start == 0 {
		r.txn.Start = at
	}
	if ev.Status != executor.StatusBlocked {
		r.txn.End = at
	}
	failed := ev.Status == executor.StatusError
	if failed && ev.Error != nil && ev.Error.RolledBack {
		r.aborted, r.ended = true, true
	}
	if ps.Info == nil {
		if ev.Status == executor.StatusBlocked {
			return nil
		}
		switch ev.Kind.For(ev.SQL).Control {
		case testcase.Commit:
			r.commitOK, r.ended = !failed, true
		case testcase.Rollback:
			r.ended = true
		}
		return nil
	}
	st := rc.stmt(r, ps, ev, at)
	if ev.Status == executor.StatusBlocked {
		return nil
	}
	st.End = at
	if failed {
		if ev.Error != nil {
			st.Error = string(ev.Error.Class)
		} else {
			st.Error = string(target.ClassOther)
		}
		if ps.Role == RoleMain || ps.Role == RolePreRead {
			r.mainOK = -1
		}
		return nil
	}
	recordOutcome(r, st, ps, ev)
	return nil
}

// stmt is the history statement of ps's group in r, made at its first
// event: a statement merged from its pre-read, main statement and
// post-read, or a subquery's own read.
func (rc *recorder) stmt(r *txnRec, ps Step, ev executor.Event, at int64) *history.Stmt {
	gk := [2]int{ps.Group, -1}
	if ps.Role == RoleSubRead {
		gk[1] = ps.Sub
	}
	k, ok := r.groups[gk]
	if !ok {
		k = len(r.txn.Stmts)
		r.groups[gk] = k
		orig := ev.SQL
		if ps.Orig >= 0 {
			orig = rc.p.Original.Steps[ps.Orig].SQL
		}
		st := history.Stmt{SQL: orig, Sent: rc.sentOf[ps.Group], Kind: ps.Info.Kind,
			Aggregate: ps.Info.Aggregate, Locking: ps.Info.Locking, Note: ps.Info.Note, Start: at}
		if ps.Role == RoleSubRead {
			// The subquery's own statement (the one before is the
			// statement it belongs to): what it read, in that
			// statement's snapshot.
			st = history.Stmt{SQL: ps.Info.Subs[ps.Sub].SQL, Sent: []string{ev.SQL}, Kind: "SELECT", Start: at}
		}
		r.txn.Stmts = append(r.txn.Stmts, st)
	}
	return &r.txn.Stmts[k]
}

// recordOutcome records what a completed, successful event of ps read,
// deleted, installed and inserted into st.
func recordOutcome(r *txnRec, st *history.Stmt, ps Step, ev executor.Event) {
	if ps.Role == RoleSubRead {
		sub := ps.Info.Subs[ps.Sub]
		st.Predicate, st.Table = sub.Predicate, sub.Table
		var reads []history.Version
		st.Seen, reads = seenVersions(ev, sub.Predicate, true)
		if sub.Items {
			st.Reads = reads
		}
		return
	}
	if !ps.Info.Instrumented || ps.Info.Aggregate {
		if ps.Role == RoleMain && r.mainOK == 0 {
			r.mainOK = 1
		}
		return
	}
	switch ps.Role {
	case RolePostRead:
		st.Reads = append(st.Reads, matchedVersions(ev.Rows)...)
		st.Installed = append(st.Installed, installedVersions(ev, ps.Info.Evaluated)...)
		st.Evaluated = ps.Info.Evaluated
	case RolePreRead:
		if ps.Info.PreDeletes {
			st.Deleted = Versions(ev.Columns, ev.Rows)
		} else {
			st.Reads = Versions(ev.Columns, ev.Rows)
		}
	case RoleMain, RoleFinalRead:
		if r.mainOK == 0 {
			r.mainOK = 1
		}
		mainOutcome(st, ps, ev)
	}
}

// mainOutcome records a main statement's (or the final read's) rows.
func mainOutcome(st *history.Stmt, ps Step, ev executor.Event) {
	if ps.Info.Evaluated != nil {
		st.Installed = append(st.Installed, installedVersions(ev, ps.Info.Evaluated)...)
		st.Evaluated = ps.Info.Evaluated
	}
	switch {
	case ps.Info.Predicate != "":
		st.Predicate, st.Table = ps.Info.Predicate, ps.Info.View
		var reads []history.Version
		st.Seen, reads = seenVersions(ev, ps.Info.Predicate, ps.Info.Scans)
		st.Reads = append(st.Reads, reads...)
	case ps.Info.Returning && ps.Info.Kind == "UPDATE":
	case ps.Info.Returning && ps.Info.Kind == "DELETE":
		st.Deleted = Versions(ev.Columns, ev.Rows)
	case ps.Info.Returning:
		for _, v := range Versions(ev.Columns, ev.Rows) {
			if !ps.Info.inserts(v) {
				v.WList = strings.TrimSuffix(v.WList, ps.Info.Appended)
				st.Reads = append(st.Reads, v)
			}
		}
	default:
		st.Reads = append(st.Reads, Versions(ev.Columns, ev.Rows)...)
	}
	st.Inserted, st.Names = ps.Info.Inserted, ps.Info.Names
}

// finalTxn is the final read: the versions of the final state, dumped with
// the hidden columns (the last two of every table p instrumented) after
// every connection ended; rows without them (inserted uninstrumented) are
// left out.
func (p *Plan) finalTxn(final target.State, at int64) history.Txn {
	t := history.Txn{ID: p.FinalTxn, Session: p.FinalConn, Status: history.OK, Start: at, End: at, Final: true}
	for _, tbl := range p.Tables {
		st := history.Stmt{SQL: p.finalReads[tbl], Kind: "SELECT", Table: tbl, Start: at, End: at}
		if p.names != nil {
			st.Names = p.names(target.State{tbl: final[tbl]})
		}
		for _, row := range final[tbl] {
			if len(row) < 2 {
				continue
			}
			r, w := row[len(row)-2], row[len(row)-1]
			if !r.Null && !w.Null {
				st.Reads = append(st.Reads, history.Version{Row: r.S, WList: TrimWList(w.S)})
			}
		}
		t.Stmts = append(t.Stmts, st)
	}
	return t
}

// status decides a transaction's outcome from what Record saw.
func status(r *txnRec, hang bool) history.Status {
	switch {
	case r.aborted:
		return history.Fail
	case r.explicit || r.wrapped:
		if r.commitOK && (r.explicit || r.mainOK == 1) {
			return history.OK
		}
		if !r.ended && hang {
			return history.Unknown
		}
		// Rolled back, failed COMMIT, or never ended: closing the session
		// at the end of the case rolled it back.
		return history.Fail
	case r.mainOK == 1:
		return history.OK
	case r.mainOK == 0 && hang:
		return history.Unknown
	}
	return history.Fail
}

// TxnName renders a transaction id as it appears in wLists.
func TxnName(id int64) string { return "T" + strconv.FormatInt(id, 10) }

// StripState drops the two hidden columns, which instrumentation appends
// to every table it creates, from a final state.
func StripState(st target.State, tables []string) target.State {
	out := target.State{}
	for name, rows := range st {
		if !slices.Contains(tables, name) {
			out[name] = rows
			continue
		}
		trimmed := make([]target.Row, len(rows))
		for i, r := range rows {
			trimmed[i] = r[:max(len(r)-2, 0)]
		}
		target.SortRows(trimmed)
		out[name] = trimmed
	}
	return out
}
