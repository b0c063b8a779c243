package testcase

import "testing"

func TestControlOf(t *testing.T) {
	tests := []struct {
		sql  string
		want Control
	}{
		{"BEGIN", Begin},
		{"begin;", Begin},
		{"START TRANSACTION", Begin},
		{"START SLAVE", NotControl},
		{" COMMIT ", Commit},
		{"END", Commit},
		{"ROLLBACK", Rollback},
		{"ROLLBACK TO SAVEPOINT a", NotControl},
		{"SELECT 1", NotControl},
		{"", NotControl},
	}
	for _, tt := range tests {
		if got := ControlOf(tt.sql); got != tt.want {
			t.Errorf("ControlOf(%q) = %d, want %d", tt.sql, got, tt.want)
		}
	}
}
