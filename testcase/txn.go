package testcase

// Txn is one transaction of a case: an explicit BEGIN … COMMIT/ROLLBACK on
// one connection, or a single autocommit statement.
type Txn struct {
	ID       int   `json:"id"` // 1-based, in the order of the transactions' first steps
	Conn     int   `json:"conn"`
	Steps    []int `json:"steps"` // indices into the case's steps
	Explicit bool  `json:"explicit"`
}

// Transactions splits a case's steps into transactions, per connection, in
// the order of their first steps. Oracles that reason per transaction (WSS,
// IsoRel) share this one reading of a case.
func Transactions(c *Case) []*Txn {
	var out []*Txn
	open := map[int]*Txn{}
	for i, s := range c.Steps {
		ctl := KindOf(s).Control
		cur := open[s.Conn]
		switch {
		case ctl == Begin:
			// A BEGIN inside an open transaction commits it implicitly on
			// MySQL; we simply start a new transaction.
			cur = &Txn{Conn: s.Conn, Explicit: true}
			out = append(out, cur)
			open[s.Conn] = cur
		case cur == nil:
			cur = &Txn{Conn: s.Conn}
			out = append(out, cur)
		}
		cur.Steps = append(cur.Steps, i)
		if cur.Explicit && (ctl == Commit || ctl == Rollback) {
			delete(open, s.Conn)
		}
	}
	for i, t := range out {
		t.ID = i + 1
	}
	return out
}
