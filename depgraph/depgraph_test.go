package depgraph

import (
	"bufio"
	"math/rand/v2"
	"os"
	"strconv"
	"strings"
	"testing"
)

func parseKind(t *testing.T, s string) Kind {
	for k, n := range kindNames {
		if n == s {
			return Kind(k)
		}
	}
	t.Fatalf("bad kind %q", s)
	return 0
}

func TestCycles(t *testing.T) {
	f, err := os.Open("testdata/cycles.txt")
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if strings.HasPrefix(sc.Text(), "#") {
			continue
		}
		p := strings.Split(sc.Text(), "|")
		t.Run(p[0], func(t *testing.T) {
			n, _ := strconv.Atoi(p[1])
			var edges []Edge
			for _, f := range strings.Fields(p[2]) {
				ft, k, _ := strings.Cut(f, ":")
				a, b, _ := strings.Cut(ft, ">")
				x, _ := strconv.Atoi(a)
				y, _ := strconv.Atoi(b)
				edges = append(edges, Edge{From: int32(x), To: int32(y), Kind: parseKind(t, k)})
			}
			g := Build(n, edges)
			sccs, comp := g.CyclicSCCs()
			if p[3] == "acyclic" {
				if len(sccs) != 0 {
					t.Fatalf("found cyclic components %v in an acyclic graph", sccs)
				}
				return
			}
			if len(sccs) != 1 {
				t.Fatalf("got %d cyclic components, want 1", len(sccs))
			}
			cyc := g.ShortestCycle(sccs[0], comp, 0, nil)
			kinds := make([]Kind, len(cyc))
			for i, e := range cyc {
				kinds[i] = g.Edges[e].Kind
				if g.Edges[e].To != g.Edges[cyc[(i+1)%len(cyc)]].From {
					t.Fatalf("cycle %v is not connected", cyc)
				}
			}
			if got := Classify(kinds); got != p[3] {
				t.Errorf("class = %s (%s), want %s", got, Describe(kinds), p[3])
			}
		})
	}
}

// TestSCCAgainstReachability compares Tarjan with a naive transitive closure
// on random graphs: u and v share a cyclic component iff each reaches the other.
func TestSCCAgainstReachability(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for iter := 0; iter < 300; iter++ {
		n := 1 + r.IntN(12)
		var edges []Edge
		for i := r.IntN(2 * n); i > 0; i-- {
			edges = append(edges, Edge{From: int32(r.IntN(n)), To: int32(r.IntN(n))})
		}
		reach := make([][]bool, n)
		for i := range reach {
			reach[i] = make([]bool, n)
		}
		for _, e := range edges {
			reach[e.From][e.To] = true
		}
		for k := 0; k < n; k++ {
			for i := 0; i < n; i++ {
				for j := 0; j < n; j++ {
					reach[i][j] = reach[i][j] || reach[i][k] && reach[k][j]
				}
			}
		}
		g := Build(n, edges)
		sccs, comp := g.CyclicSCCs()
		inCyclic := make([]bool, n)
		for _, s := range sccs {
			for _, v := range s {
				inCyclic[v] = true
			}
			if cyc := g.ShortestCycle(s, comp, 0, nil); len(cyc) == 0 {
				t.Fatalf("no cycle found in component %v", s)
			}
		}
		for u := 0; u < n; u++ {
			if inCyclic[u] != reach[u][u] {
				t.Fatalf("graph %v: node %d cyclic=%v, reaches itself=%v", edges, u, inCyclic[u], reach[u][u])
			}
			for v := 0; v < n; v++ {
				same := comp[u] == comp[v]
				if u != v && same != (reach[u][v] && reach[v][u]) {
					t.Fatalf("graph %v: nodes %d,%d same component=%v", edges, u, v, same)
				}
			}
		}
	}
}

func BenchmarkTarjanChain1M(b *testing.B) {
	const n = 1 << 20
	edges := make([]Edge, 0, 2*n)
	for i := 0; i+1 < n; i++ {
		edges = append(edges, Edge{From: int32(i), To: int32(i + 1)})
		if i+7 < n {
			edges = append(edges, Edge{From: int32(i), To: int32(i + 7)})
		}
	}
	g := Build(n, edges)
	b.ReportAllocs()
	for b.Loop() {
		if s, _ := g.CyclicSCCs(); len(s) != 0 {
			b.Fatal("cycle in a DAG")
		}
	}
}
