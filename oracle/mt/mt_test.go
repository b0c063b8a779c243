package mt

import (
	"bufio"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/txlab/txlab/history"
)

// headers returns the values of "# key: value" lines of a testdata file.
func headers(t *testing.T, path, key string) []string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []string
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "# "+key+": "); ok {
			out = append(out, v)
		}
	}
	return out
}

// TestFigure5 checks every testdata history against each model it names:
// each anomaly of the paper's Figure 5 must be found and named, and the
// valid histories (including write skew under SI) must pass.
func TestFigure5(t *testing.T) {
	files, _ := filepath.Glob("testdata/*.jsonl")
	if len(files) < 14 {
		t.Fatalf("only %d testdata histories", len(files))
	}
	for _, path := range files {
		exps := headers(t, path, "expect")
		if len(exps) == 0 {
			t.Fatalf("%s: no expect header", path)
		}
		for _, exp := range exps {
			model, want, _ := strings.Cut(exp, " ")
			t.Run(filepath.Base(path)+"/"+model, func(t *testing.T) {
				h, err := history.ReadFile(path)
				if err != nil {
					t.Fatal(err)
				}
				res, err := Check(h, Model(model))
				if err != nil {
					t.Fatal(err)
				}
				if want == "valid" {
					if !res.Valid {
						t.Fatalf("want valid, got %s", Format(path, res))
					}
					return
				}
				if res.Valid || len(res.Anomalies) == 0 {
					t.Fatalf("want %s, got valid", want)
				}
				if got := string(res.Anomalies[0].Name); got != want {
					t.Errorf("anomaly = %s, want %s\n%s", got, want, Format(path, res))
				}
				if len(res.Anomalies[0].Txns) == 0 || res.Anomalies[0].Explanation == "" {
					t.Errorf("anomaly without transactions or explanation: %+v", res.Anomalies[0])
				}
			})
		}
	}
}

func TestBadInput(t *testing.T) {
	files, _ := filepath.Glob("testdata/bad/*.jsonl")
	for _, path := range files {
		t.Run(filepath.Base(path), func(t *testing.T) {
			want := headers(t, path, "error")[0]
			exit, report, _ := CheckFile(path, "serializable")
			if exit != 2 || !strings.Contains(report, want) {
				t.Errorf("exit %d, report %q; want 2 and %q", exit, report, want)
			}
			h, _ := history.ReadFile(path)
			_, err := Check(h, Serializable)
			var ie *InputError
			if !errors.As(err, &ie) {
				t.Errorf("error %v is not an *InputError", err)
			}
		})
	}
}

func TestCheckFileExit(t *testing.T) {
	for _, c := range []struct {
		path, model string
		exit        int
	}{
		{"testdata/valid-serial.jsonl", "serializable", 0},
		{"testdata/5n-write-skew.jsonl", "SER", 1},
		{"testdata/5n-write-skew.jsonl", "si", 0},
		{"testdata/5n-write-skew.jsonl", "nonsense", 2},
		{"testdata/missing.jsonl", "serializable", 2},
	} {
		if exit, report, js := CheckFile(c.path, c.model); exit != c.exit || js == nil {
			t.Errorf("%s %s: exit %d, want %d\n%s", c.path, c.model, exit, c.exit, report)
		}
	}
}
