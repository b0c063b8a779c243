package sqlast

import "strings"

// LockTable is PostgreSQL's LOCK [TABLE] name [, ...] [IN mode MODE]
// [NOWAIT]: a table-level lock held to the end of the transaction
// (PostgreSQL 15 docs, LOCK and 13.3.1 Table-Level Locks). It is read in
// PostgreSQL's dialect only: the MySQL family's LOCK TABLES commits the
// open transaction and is another statement.
type LockTable struct {
	Tables []string
	Mode   TableLockMode
	Nowait bool
}

func (*LockTable) stmt() {}

// TableLockMode is a table-level lock mode, weakest first.
type TableLockMode int

// The table lock modes of PostgreSQL's conflict table (13.3.1). A LOCK
// without IN … MODE takes ACCESS EXCLUSIVE.
const (
	AccessShare TableLockMode = iota
	RowShare
	RowExclusive
	ShareUpdateExclusive
	ShareLock
	ShareRowExclusive
	Exclusive
	AccessExclusive
)

var tableLockModeNames = [...]string{"ACCESS SHARE", "ROW SHARE", "ROW EXCLUSIVE", "SHARE UPDATE EXCLUSIVE", "SHARE", "SHARE ROW EXCLUSIVE", "EXCLUSIVE", "ACCESS EXCLUSIVE"}

// TableLockModes lists every mode, weakest first.
var TableLockModes = []TableLockMode{AccessShare, RowShare, RowExclusive, ShareUpdateExclusive, ShareLock, ShareRowExclusive, Exclusive, AccessExclusive}

func (m TableLockMode) String() string { return tableLockModeNames[m] }

// tableLockConflicts is PostgreSQL's table 13.2 (Conflicting Lock Modes):
// for each requested mode, the held modes it conflicts with.
var tableLockConflicts = [...][]TableLockMode{
	AccessShare:          {AccessExclusive},
	RowShare:             {Exclusive, AccessExclusive},
	RowExclusive:         {ShareLock, ShareRowExclusive, Exclusive, AccessExclusive},
	ShareUpdateExclusive: {ShareUpdateExclusive, ShareLock, ShareRowExclusive, Exclusive, AccessExclusive},
	ShareLock:            {RowExclusive, ShareUpdateExclusive, ShareRowExclusive, Exclusive, AccessExclusive},
	ShareRowExclusive:    {RowExclusive, ShareUpdateExclusive, ShareLock, ShareRowExclusive, Exclusive, AccessExclusive},
	Exclusive:            {RowShare, RowExclusive, ShareUpdateExclusive, ShareLock, ShareRowExclusive, Exclusive, AccessExclusive},
	AccessExclusive:      {AccessShare, RowShare, RowExclusive, ShareUpdateExclusive, ShareLock, ShareRowExclusive, Exclusive, AccessExclusive},
}

// Conflicts reports whether a request for m conflicts with a lock of mode
// held by another transaction (PostgreSQL 15 docs, table 13.2).
func (m TableLockMode) Conflicts(held TableLockMode) bool {
	for _, c := range tableLockConflicts[m] {
		if c == held {
			return true
		}
	}
	return false
}

func (p *parser) lockTable() (*LockTable, error) {
	p.next() // LOCK
	if p.d != Postgres {
		return nil, p.errAt(p.peek(), "LOCK TABLE is read in PostgreSQL's dialect only")
	}
	p.acceptKw("TABLE")
	s := &LockTable{Mode: AccessExclusive}
	for {
		n, err := p.ident("a table name")
		if err != nil {
			return nil, err
		}
		s.Tables = append(s.Tables, n)
		if !p.acceptOp(",") {
			break
		}
	}
	if p.acceptKw("IN") {
		var words []string
		for !p.isKw("MODE") && p.peek().kind == tokWord && len(words) < 3 {
			words = append(words, strings.ToUpper(p.next().text))
		}
		name := strings.Join(words, " ")
		found := false
		for _, m := range TableLockModes {
			if m.String() == name {
				s.Mode, found = m, true
			}
		}
		if !found {
			return nil, p.errExpected("a lock mode (ACCESS SHARE … ACCESS EXCLUSIVE)")
		}
		if err := p.expectKw("MODE"); err != nil {
			return nil, err
		}
	}
	s.Nowait = p.acceptKw("NOWAIT")
	return s, nil
}

func (p *printer) lockTable(s *LockTable) {
	p.w("LOCK TABLE ")
	for i, n := range s.Tables {
		if i > 0 {
			p.w(", ")
		}
		p.ident(n)
	}
	p.w(" IN " + s.Mode.String() + " MODE")
	if s.Nowait {
		p.w(" NOWAIT")
	}
}
