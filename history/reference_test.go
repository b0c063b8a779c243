package history

import (
	"bufio"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"reflect"
	"strings"
	"testing"
)

// readReference is Read as it was before Reader and parseFast: one
// encoding/json decode per line and a map of every id. Read must give
// what it gives, history for history and error for error.
func readReference(r io.Reader) (*History, error) {
	h := &History{}
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 64<<10), 16<<20)
	seen := make(map[int64]int)
	inits := 0
	for n := 1; sc.Scan(); n++ {
		b := sc.Bytes()
		trimmed := strings.TrimSpace(string(b))
		if trimmed == "" || trimmed[0] == '#' {
			continue
		}
		var l line
		dec := json.NewDecoder(strings.NewReader(trimmed))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&l); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("line %d: trailing data after the JSON object", n)
		}
		st, err := ParseStatus(l.Status)
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		if prev, dup := seen[l.ID]; dup {
			return nil, fmt.Errorf("line %d: transaction id %d already used on line %d", n, l.ID, prev)
		}
		seen[l.ID] = n
		if l.Init {
			inits++
			if inits > 1 {
				return nil, fmt.Errorf("line %d: a second init transaction", n)
			}
			if st != OK {
				return nil, fmt.Errorf("line %d: the init transaction must have status ok", n)
			}
		}
		if l.End != 0 && l.End < l.Start {
			return nil, fmt.Errorf("line %d: end %d before start %d", n, l.End, l.Start)
		}
		t := Txn{ID: l.ID, Session: l.Session, Status: st, Start: l.Start, End: l.End, Init: l.Init, Final: l.Final, Ops: make([]Op, len(l.Ops)), Isolation: l.Isolation, Stmts: l.Stmts}
		for i := range t.Stmts {
			if err := t.Stmts[i].validate(); err != nil {
				return nil, fmt.Errorf("line %d: statement %d: %w", n, i+1, err)
			}
		}
		for i, s := range l.Ops {
			if t.Ops[i], err = ParseOp(s); err != nil {
				return nil, fmt.Errorf("line %d: %w", n, err)
			}
		}
		h.Txns = append(h.Txns, t)
	}
	if err := sc.Err(); err != nil {
		return nil, fmt.Errorf("reading history: %w", err)
	}
	return h, nil
}

// sameAsReference fails t unless Read and readReference agree on in.
func sameAsReference(t *testing.T, in string) {
	t.Helper()
	want, werr := readReference(strings.NewReader(in))
	got, gerr := Read(strings.NewReader(in))
	if fmt.Sprint(werr) != fmt.Sprint(gerr) {
		t.Fatalf("input %q:\nerror %v\nwant  %v", in, gerr, werr)
	}
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("input %q:\ngot  %+v\nwant %+v", in, got, want)
	}
}

// referenceLines are lines in and around parseFast's shape: each is read
// alone, and all of them in pairs (ids used twice, a second init).
var referenceLines = []string{
	`{"id":0,"init":true,"ops":["w(1,0)","w(2,0)"]}`,
	`{"id":1,"session":1,"status":"ok","start":1000,"end":1900,"ops":["r(1,0)","w(1,101)","r(2,0)","w(2,102)"]}`,
	`{"id":2,"session":2,"status":"unknown","start":2100,"ops":["r(2,102)","w(2,201)"]}`,
	`{"id":3,"status":"fail","ops":[]}`,
	`{}`, `{ }`, `{"id":-0}`, `{"id":-5}`, `{"id":05}`, `{"id":1.0}`, `{"id":1e3}`, `{"id":"1"}`, `{"id":null}`,
	`{"id":123456789012345678}`, `{"id":1234567890123456789}`, `{"id":9223372036854775808}`,
	`{"id":1,"id":2}`, `{"ID":7}`, `{"Id":7,"ops":["r(1,1)"]}`, `{"id":1,"opz":[]}`,
	`{"id":1,"status":""}`, `{"id":1,"status":"OK"}`, `{"id":1,"status":"maybe"}`, `{"id":1,"status":"o\u006b"}`,
	`{"id":1,"init":true,"status":"fail"}`, `{"id":1,"init":1}`, `{"id":1,"init":truex}`, `{"id":1,"final":false}`,
	`{"id":1,"start":5,"end":3}`, `{"id":1,"start":5,"end":0}`, `{"id":1,"start":-5,"end":-3}`,
	`{"id":1,"ops":["r( 1 , -2 )"]}`, `{"id":1,"ops":[" r(1,2) "]}`, `{"id":1,"ops":["r(+1,007)"]}`,
	`{"id":1,"ops":["r(1,2,3)"]}`, `{"id":1,"ops":["r(1,2"]}`, `{"id":1,"ops":["x(1,2)"]}`, `{"id":1,"ops":["r(a,2)"]}`,
	`{"id":1,"ops":["r(1,99999999999999999999)"]}`, `{"id":1,"ops":["r(1,-9223372036854775808)"]}`,
	`{"id":1,"ops":["r(1,\u0032)"]}`, `{"id":1,"ops":["r(1,2)",]}`, `{"id":1,"ops":[,"r(1,2)"]}`, `{"id":1,"ops":null}`,
	`{"id":1,"ops":["R(1,2)"]}`, `{"id":1,"ops":["r (1,2)"]}`, `{"id":1,"ops":["r(1 2)"]}`, `{"id":1,"ops":["r(,)"]}`,
	`{"id":1,"ops":["w(1,2)"],"ops":["r(1,2)"]}`, `{"id":1,"ops":[1]}`, `{"id":1,"ops":["r(1,2)"] , "session" : 3 }`,
	"{\t\"id\"\t:\t1\t}", `{"id":1}}`, `{"id":1}]`, `{"id":1} {"id":2}`, `{"id":1}x`, `{"id":1`, `{"id":1,}`, `[]`, `1`, `"x"`,
	`{"id":1,"isolation":"serializable"}`, `{"id":1,"stmts":[]}`, `{"id":1,"stmts":[{"sql":"SELECT 1","kind":"SELECT"}]}`,
	`{"id":1,"session":99999999999999999999}`, `{"id":1,"status":"ok\u0000"}`, "{\"id\":1,\"status\":\"\xff\"}",
	`# a comment`, ``, `   `, "\u00a0{\"id\":9}\u00a0",
}

func TestReadMatchesReference(t *testing.T) {
	for _, l := range referenceLines {
		sameAsReference(t, l)
	}
	for _, a := range referenceLines {
		for _, b := range referenceLines {
			sameAsReference(t, a+"\n"+b)
		}
	}
	ex, err := os.ReadFile("testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	sameAsReference(t, string(ex))
}

// TestParseFastTakes: the recorders' lines are decoded by parseFast, not
// handed to encoding/json.
func TestParseFastTakes(t *testing.T) {
	for _, l := range []string{
		`{"id":0,"init":true,"ops":["w(1,0)","w(2,0)"]}`,
		`{"id":1,"session":1,"status":"ok","start":1000,"end":1900,"ops":["r(1,0)","w(1,101)","r(2,0)","w(2,102)"]}`,
		`{"id":2,"session":2,"status":"unknown","start":2100,"ops":["r(2,102)","w(2,201)"]}`,
		`{"id":3,"session":1,"status":"fail","start":2000,"end":2300,"ops":[]}`,
	} {
		var tx Txn
		if _, ok := parseFast([]byte(l), &tx, nil); !ok {
			t.Errorf("parseFast refused %s", l)
		}
	}
}

// TestDuplicateIDLines: the line a repeated id was first used on, whether
// the ids rise or not and with blank and comment lines between.
func TestDuplicateIDLines(t *testing.T) {
	for _, in := range []string{
		"{\"id\":1}\n\n# c\n{\"id\":2}\n\n{\"id\":3}\n{\"id\":2}",
		"\n\n{\"id\":1}\n{\"id\":2}\n# x\n# y\n{\"id\":3}\n{\"id\":1}",
		"{\"id\":5}\n{\"id\":3}\n\n{\"id\":4}\n#\n{\"id\":3}",
		"{\"id\":5}\n{\"id\":3}\n\n{\"id\":4}\n#\n{\"id\":5}",
		"{\"id\":5}\n{\"id\":6}\n\n{\"id\":4}\n#\n{\"id\":9}\n{\"id\":4}",
		"{\"id\":5}\n{\"id\":6}\n\n{\"id\":4}\n#\n{\"id\":9}\n{\"id\":6}",
		"#\n#\n{\"id\":-1}\n{\"id\":-1}",
	} {
		sameAsReference(t, in)
	}
	// Over several blocks of idSet, with comments here and there.
	var b strings.Builder
	for i := range 3*idBlock + 5 {
		fmt.Fprintf(&b, "{\"id\":%d}\n", 2*i)
		if i%1000 == 7 {
			b.WriteString("# c\n\n")
		}
	}
	all := b.String()
	for _, dup := range []int{0, 2 * (idBlock - 1), 2 * idBlock, 2 * (2*idBlock + 3), 2 * (3*idBlock + 4)} {
		sameAsReference(t, all+fmt.Sprintf("{\"id\":%d}\n", dup))
		sameAsReference(t, all+"{\"id\":1}\n"+fmt.Sprintf("{\"id\":%d}\n", dup))
	}
	sameAsReference(t, all+"{\"id\":1}\n{\"id\":3}\n{\"id\":1}\n")
}

// TestLongLine: a line over MaxLine is refused in one line that says so,
// having read no more than MaxLine of it.
func TestLongLine(t *testing.T) {
	in := "{\"id\":1}\n{\"id\":2,\"ops\":[\"" + strings.Repeat("x", MaxLine) + "\"]}\n"
	_, err := Read(strings.NewReader(in))
	if err == nil || err.Error() != "line 2: longer than 16 MiB, the longest line a history may have" {
		t.Errorf("error = %v", err)
	}
}

func FuzzReadMatchesReference(f *testing.F) {
	for _, l := range referenceLines {
		f.Add(l)
	}
	f.Add("{\"id\":1}\n{\"id\":1}")
	f.Fuzz(func(t *testing.T, in string) {
		sameAsReference(t, in)
	})
}
