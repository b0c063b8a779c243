package target_test

import (
	"context"
	"database/sql"
	"fmt"
	"testing"

	_ "modernc.org/sqlite"

	"github.com/txlab/txlab/target"
)

// BenchmarkReadRows measures ReadRows over a real driver (embedded SQLite,
// in memory): the per-row cost of scanning, formatting and, since results
// are bounded, counting what is kept. "over-limit" reads a result twice the
// row bound, so half of it is only counted.
func BenchmarkReadRows(b *testing.B) {
	db, err := sql.Open("sqlite", "file::memory:")
	if err != nil {
		b.Fatal(err)
	}
	defer db.Close()
	db.SetMaxOpenConns(1)
	for _, bc := range []struct {
		name string
		rows int
		val  string // SQL for the second column
	}{
		{"10k-ints", 10_000, "x * 7"},
		{"10k-100B", 10_000, "printf('%.100c', 'v')"},
		{"over-limit-200k", 200_000, "x * 7"},
	} {
		q := fmt.Sprintf("WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < %d) SELECT x, %s, NULL FROM c", bc.rows, bc.val)
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				rows, err := db.QueryContext(context.Background(), q)
				if err != nil {
					b.Fatal(err)
				}
				res, err := target.ReadRows(rows)
				if err != nil {
					b.Fatal(err)
				}
				if len(res.Rows) == 0 {
					b.Fatal("no rows")
				}
			}
		})
	}
}
