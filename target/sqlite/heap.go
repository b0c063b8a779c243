package sqlite

import (
	"context"
	"database/sql"
	"fmt"

	"modernc.org/libc"
	sqlite3 "modernc.org/sqlite/lib"

	"github.com/txlab/txlab/target"
)

// Embedded SQLite allocates in txlab's own process, so a statement that
// builds a huge value or intermediate result (a recursive CTE folded into
// one string, a sort of millions of rows) takes txlab's memory, past
// anything target.Limits bounds. SQLite's hard heap limit makes such an
// allocation fail, and the statement with it (SQLITE_NOMEM, an error of
// class other), instead.
//
// modernc.org/sqlite is built with SQLITE_DEFAULT_MEMSTATUS=0, and without
// memory statistics SQLite ignores the heap limit: memStatus turns them on,
// which sqlite3_config allows only before SQLite initializes (the first
// connection opened in the process), hence at package initialization.
var memStatus = enableMemStatus()

// enableMemStatus turns on SQLite's memory statistics; an error says the
// heap limit will not hold (SQLite was initialized first).
func enableMemStatus() error {
	tls := libc.NewTLS()
	defer tls.Close()
	va := libc.Xmalloc(tls, 8)
	if va == 0 {
		return fmt.Errorf("sqlite: out of memory enabling memory statistics")
	}
	defer libc.Xfree(tls, va)
	if rc := sqlite3.Xsqlite3_config(tls, sqlite3.SQLITE_CONFIG_MEMSTATUS, libc.VaList(va, int32(1))); rc != sqlite3.SQLITE_OK {
		return fmt.Errorf("sqlite: enabling memory statistics (for the heap limit): sqlite3_config returned %d", rc)
	}
	return nil
}

// minHeapLimit is the least heap SQLite gets: a statement on txlab's
// small tables needs a few MiB (the page cache is 2 MiB per connection).
const minHeapLimit = 256 << 20

// HeapLimit is SQLite's hard heap limit in this process: four times what
// txlab keeps of results (--max-result-bytes), and at least minHeapLimit,
// so raising the one raises the other.
func HeapLimit() int64 {
	return max(4*target.CurrentLimits().Bytes, minHeapLimit)
}

// setHeapLimit applies HeapLimit. The limit is SQLite's, for the whole
// process; each Open sets it again, after the command line set the limits.
func setHeapLimit(ctx context.Context, c *sql.Conn) error {
	if memStatus != nil {
		return memStatus
	}
	if _, err := c.ExecContext(ctx, fmt.Sprintf("PRAGMA hard_heap_limit = %d", HeapLimit())); err != nil {
		return fmt.Errorf("sqlite: setting the heap limit: %w", err)
	}
	return nil
}
