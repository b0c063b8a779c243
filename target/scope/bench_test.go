package scope

import (
	"path/filepath"
	"testing"
)

// BenchmarkCheck checks the benign testdata statements of every dialect,
// one statement an op.
func BenchmarkCheck(b *testing.B) {
	type stmt struct {
		sql string
		r   Rules
	}
	var all []stmt
	for _, d := range dialects {
		for _, e := range readEntries(b, filepath.Join("testdata", d.name+"-allowed.sql")) {
			all = append(all, stmt{e.sql, d.rules})
		}
	}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		s := all[i%len(all)]
		if err := Check(s.sql, s.r); err != nil {
			b.Fatal(err)
		}
	}
}
