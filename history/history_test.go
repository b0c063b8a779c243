package history

import (
	"bufio"
	"bytes"
	"os"
	"reflect"
	"strconv"
	"strings"
	"testing"
)

func TestReadExample(t *testing.T) {
	h, err := ReadFile("testdata/example.jsonl")
	if err != nil {
		t.Fatal(err)
	}
	if len(h.Txns) != 5 {
		t.Fatalf("got %d transactions, want 5", len(h.Txns))
	}
	if !h.Txns[0].Init || h.Txns[3].Status != Fail || h.Txns[4].Status != Unknown || h.Txns[4].End != 0 {
		t.Errorf("fields not decoded: %+v", h.Txns)
	}
	want := Op{Kind: W, Key: 2, Value: 102}
	if got := h.Txns[1].Ops[3]; got != want {
		t.Errorf("op = %v, want %v", got, want)
	}
	// Write then Read is the identity.
	var buf bytes.Buffer
	if err := Write(&buf, h); err != nil {
		t.Fatal(err)
	}
	h2, err := Read(&buf)
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(h, h2) {
		t.Errorf("round trip differs:\n%+v\n%+v", h, h2)
	}
}

func TestReadErrors(t *testing.T) {
	f, err := os.Open("testdata/bad.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		parts := strings.SplitN(sc.Text(), "|", 3)
		name, in, want := parts[0], strings.ReplaceAll(parts[1], `\n`, "\n"), parts[2]
		t.Run(name, func(t *testing.T) {
			_, err := Read(strings.NewReader(in))
			if err == nil || !strings.Contains(err.Error(), want) {
				t.Errorf("error = %v, want it to contain %q", err, want)
			}
		})
	}
}

func FuzzRead(f *testing.F) {
	ex, _ := os.ReadFile("testdata/example.jsonl")
	f.Add(string(ex))
	f.Add(`{"id":1,"ops":["r( 1 , -2 )"]}`)
	f.Add(`{"id":1,"ops":["w(1,2"]}`)
	f.Fuzz(func(t *testing.T, in string) {
		h, err := Read(strings.NewReader(in))
		if err != nil {
			return
		}
		// Anything accepted must survive Write → Read unchanged.
		var buf bytes.Buffer
		if err := Write(&buf, h); err != nil {
			t.Fatal(err)
		}
		h2, err := Read(&buf)
		if err != nil {
			t.Fatalf("re-reading written history: %v\n%s", err, buf.String())
		}
		if !reflect.DeepEqual(h, h2) {
			t.Fatalf("round trip differs:\n%+v\n%+v", h, h2)
		}
	})
}

func FuzzParseWList(f *testing.F) {
	for _, s := range []string{"T0", "T0,T3,T7", "T0,T3#17", " T0 , T12", "T0,,T1", "T", "T-1", "T99999999999999999999", "t1", "T0,T1,"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		prefix := []int64{-7}
		ids, err := AppendWList(prefix, in)
		if err != nil {
			return
		}
		if ids[0] != -7 {
			t.Fatalf("AppendWList(%q) changed dst: %v", in, ids)
		}
		ids = ids[1:]
		if len(ids) == 0 {
			t.Fatalf("AppendWList(%q) accepted an empty list", in)
		}
		// Anything accepted is a list of Tn entries: rendering and parsing
		// again gives the same ids.
		parts := make([]string, len(ids))
		for i, id := range ids {
			if id < 0 {
				t.Fatalf("AppendWList(%q) = %v: negative id", in, ids)
			}
			parts[i] = "T" + strconv.FormatInt(id, 10)
		}
		again, err := ParseWList(strings.Join(parts, ","))
		if err != nil || !reflect.DeepEqual(again, ids) {
			t.Fatalf("ParseWList(%q) = %v, %v; want %v", strings.Join(parts, ","), again, err, ids)
		}
	})
}

// TestParseWListTags: a tag after '#' names the statement that wrote the
// entry and does not change the transaction.
func TestParseWListTags(t *testing.T) {
	ids, err := ParseWList("T0,T3#17,T3")
	if err != nil || !reflect.DeepEqual(ids, []int64{0, 3, 3}) {
		t.Errorf("ParseWList = %v, %v; want [0 3 3]", ids, err)
	}
	if _, err := ParseWList("T0,#17"); err == nil {
		t.Error("ParseWList accepted an entry that is only a tag")
	}
}
