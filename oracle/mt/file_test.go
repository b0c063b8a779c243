package mt

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"

	"github.com/txlab/txlab/history"
)

// checkFileReference is CheckFile as it was before readFile: the whole
// history read as history.Txns, then Check.
func checkFileReference(path, model string) (int, string, any) {
	fail := func(err error) (int, string, any) {
		return 2, err.Error() + "\n", map[string]string{"error": err.Error()}
	}
	m, err := ParseModel(model)
	if err != nil {
		return fail(err)
	}
	h, err := history.ReadFile(path)
	if err != nil {
		return fail(err)
	}
	if len(h.Txns) == 0 {
		return fail(fmt.Errorf("%s: no transactions: an empty history checks nothing", path))
	}
	res, err := Check(h, m)
	var ie *InputError
	if errors.As(err, &ie) {
		return fail(fmt.Errorf("%s: %w", path, err))
	} else if err != nil {
		return fail(err)
	}
	if res.Valid {
		return 0, fmt.Sprintf("%s: %d transactions, %s: valid\n", path, res.Txns, m), res
	}
	return 1, Format(path, res), res
}

// TestCheckFileSameAsReference: reading a file into a chist changes no
// exit status, report or --json value, on every history in testdata and
// every model.
func TestCheckFileSameAsReference(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	bad, _ := filepath.Glob("testdata/bad/*.jsonl")
	files = append(files, bad...)
	if len(files) < 20 {
		t.Fatalf("only %d histories in testdata", len(files))
	}
	for _, path := range files {
		for _, m := range []string{"serializable", "snapshot", "strict-serializable", "linearizable"} {
			exit, report, js := CheckFile(path, m)
			wexit, wreport, wjs := checkFileReference(path, m)
			if exit != wexit || report != wreport || !reflect.DeepEqual(js, wjs) {
				t.Errorf("%s %s: exit %d, report %q; want %d, %q", path, m, exit, report, wexit, wreport)
			}
		}
	}
}

// writeHistory writes a valid history of n transactions (the initial one
// and n-1 of two operations on two keys) to a file, with comment and
// blank lines among them, and returns its path.
func writeHistory(t testing.TB, n int) string {
	t.Helper()
	var b strings.Builder
	b.WriteString("# a history\n")
	b.WriteString(`{"id":0,"init":true,"ops":["w(1,1)","w(2,2)"]}` + "\n")
	last := map[int]int{1: 1, 2: 2}
	for i := 1; i < n; i++ {
		k := 1 + i%2
		fmt.Fprintf(&b, `{"id":%d,"session":%d,"status":"ok","start":%d,"end":%d,"ops":["r(%d,%d)","w(%d,%d)"]}`+"\n", i, i%8, 10*i, 10*i+5, k, last[k], k, i+2)
		last[k] = i + 2
		if i%7 == 0 {
			b.WriteString("\n  \t\n# more\n")
		}
	}
	path := filepath.Join(t.TempDir(), "h.jsonl")
	if err := os.WriteFile(path, []byte(b.String()), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// TestCheckFileLimit: a history of more transactions than Limits allows is
// refused, with one line naming the limit and the flag, before it is read
// (a file) or on the line past the limit (a stream); one at the limit is
// checked.
func TestCheckFileLimit(t *testing.T) {
	path := writeHistory(t, 200)
	exit, report, js := CheckFileLimits(path, "serializable", Limits{MaxTxns: 199})
	want := path + ": more than 199 transactions: raise --max-transactions to check it (checking takes about 250 MB of memory a million transactions)\n"
	if exit != 2 || report != want {
		t.Errorf("over the limit: exit %d, report %q; want 2, %q", exit, report, want)
	}
	if m, ok := js.(map[string]string); !ok || m["error"] != strings.TrimSuffix(want, "\n") {
		t.Errorf("over the limit: --json value %#v", js)
	}
	if exit, report, _ := CheckFileLimits(path, "serializable", Limits{MaxTxns: 200}); exit != 0 {
		t.Errorf("at the limit (comment and blank lines not counted): exit %d, %s", exit, report)
	}
	if exit, report, _ := CheckFile(path, "serializable"); exit != 0 {
		t.Errorf("default limit: exit %d, %s", exit, report)
	}

	// A stream is refused on the transaction past the limit: the 200th
	// transaction is on line 2+199+the comment lines before it.
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	_, err = readHistory(f, Limits{MaxTxns: 199}, 0)
	lines := 2 + 199 + 3*(199/7)
	if want := fmt.Sprintf("line %d: more than 199 transactions: raise --max-transactions", lines); err == nil || !strings.HasPrefix(err.Error(), want) {
		t.Errorf("stream over the limit: %v; want %q…", err, want)
	}
}

// TestCheckFileOpsLimit: beside the initial transaction's writes, a
// history may have MaxOpsPerTxn operations a transaction on average.
func TestCheckFileOpsLimit(t *testing.T) {
	dir := t.TempDir()
	write := func(name, s string) string {
		p := filepath.Join(dir, name)
		if err := os.WriteFile(p, []byte(s), 0o644); err != nil {
			t.Fatal(err)
		}
		return p
	}
	var init strings.Builder
	init.WriteString(`{"id":0,"init":true,"ops":[`)
	for k := range 1000 {
		if k > 0 {
			init.WriteString(",")
		}
		fmt.Fprintf(&init, `"w(%d,%d)"`, k, k)
	}
	init.WriteString("]}\n")
	small := write("small.jsonl", init.String()+`{"id":1,"ops":["r(1,1)","w(1,1001)"]}`+"\n")
	if exit, report, _ := CheckFileLimits(small, "serializable", Limits{MaxTxns: 2}); exit != 0 {
		t.Errorf("a large initial transaction counts as one: exit %d, %s", exit, report)
	}
	wide := write("wide.jsonl", `{"id":1,"ops":["r(1,1)","w(1,2)","r(2,1)","w(2,2)","r(3,1)"]}`+"\n"+`{"id":2,"ops":["r(1,1)","w(1,2)","r(2,1)","w(2,2)"]}`+"\n")
	exit, report, _ := CheckFileLimits(wide, "serializable", Limits{MaxTxns: 2})
	if want := wide + ": line 2: more than 8 operations (4 a transaction for --max-transactions 2): raise --max-transactions to check it\n"; exit != 2 || report != want {
		t.Errorf("too many operations: exit %d, report %q; want %q", exit, report, want)
	}
}

// TestCountTxnLines: the up-front count is the transactions
// history.Reader finds (lines neither blank nor comments), whatever the
// white space, and over lines longer than its buffer.
func TestCountTxnLines(t *testing.T) {
	long := strings.Repeat("x", 3<<20)
	for _, c := range []struct {
		in   string
		want int
	}{
		{"", 0},
		{"\n\n", 0},
		{"a", 1},
		{"a\n", 1},
		{"a\nb", 2},
		{" \t# c\n#\n a\n\r\n\u00a0\n\u00a0b\n\v\f\n", 2},
		{"a\r\nb\r\n", 2},
		{long + "\n" + long + "\n#" + long + "\n" + long, 3},
		{"   " + long + "\nq", 2},
	} {
		got, err := countTxnLines(strings.NewReader(c.in), 1<<20)
		if err != nil || got != c.want {
			t.Errorf("countTxnLines(%.40q) = %d, %v; want %d", c.in, got, err, c.want)
		}
	}
	if got, _ := countTxnLines(strings.NewReader("a\nb\nc\nd\n"), 2); got != 3 {
		t.Errorf("countTxnLines stops past max: got %d, want 3", got)
	}
}

// BenchmarkCheckFile: `txlab check` of a valid 1M-transaction history file
// (the generator of issue 41: two operations on two keys, 8 sessions),
// reading included; B/op and allocs/op are the whole command's.
func BenchmarkCheckFile(b *testing.B) {
	path := writeHistory(b, 1_000_000)
	st, err := os.Stat(path)
	if err != nil {
		b.Fatal(err)
	}
	b.SetBytes(st.Size())
	b.ReportAllocs()
	for b.Loop() {
		if exit, report, _ := CheckFile(path, "serializable"); exit != 0 {
			b.Fatal(report)
		}
	}
}
