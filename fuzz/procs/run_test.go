package procs

import (
	"context"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/txlab/txlab/fuzz"
)

// fakeWorker makes the test binary a worker process: it reports through a
// Reporter as txlab fuzz --procs-worker does, or fails as the argument says.
const fakeWorker = "TXLAB_PROCS_TEST_WORKER"

func TestMain(m *testing.M) {
	if how := os.Getenv(fakeWorker); how != "" {
		os.Exit(runFakeWorker(how, os.Args[1:]))
	}
	os.Exit(m.Run())
}

// runFakeWorker is worker process args[0] (its shard), writing into
// args[1]. "ok": it runs 10 cases. "fail": shard 1 runs until stopped and
// ends with its summary; shard 2, once shard 1 is ready to be stopped,
// ends with a line on stderr and exit 2.
func runFakeWorker(how string, args []string) int {
	ready := filepath.Join(filepath.Dir(args[1]), "ready")
	sum := &fuzz.Summary{Target: "fake 1.0", Seed: 7, Workers: 1, Cases: 10}
	switch {
	case how == "fail" && args[0] == "1":
		stop := make(chan os.Signal, 1)
		signal.Notify(stop, os.Interrupt)
		os.WriteFile(ready, nil, 0o644)
		<-stop
		sum.Interrupted = true
	case how == "fail":
		for _, err := os.Stat(ready); err != nil; _, err = os.Stat(ready) {
			time.Sleep(10 * time.Millisecond)
		}
		os.Stderr.WriteString("txlab: the disk is on fire\n")
		return 2
	}
	r := NewReporter(os.Stdout)
	r.Send(Message{Target: "fake 1.0"})
	r.Progress(fuzz.Progress{Cases: 5})
	if err := r.Finish(sum, nil, nil); err != nil {
		return 2
	}
	return 0
}

func fakeCampaign(t *testing.T, how string) (Campaign, *strings.Builder) {
	exe, err := os.Executable()
	if err != nil {
		t.Fatal(err)
	}
	t.Setenv(fakeWorker, how)
	var stderr strings.Builder
	return Campaign{
		Procs: 2, Workers: 1, Seed: 7, Out: t.TempDir(), Began: time.Now(),
		Executable: exe, Args: func(i int, dir string) []string { return []string{string(rune('1' + i)), dir} },
		StopDelay: 5 * time.Second, Stderr: &stderr,
	}, &stderr
}

// TestRun: the worker processes' summaries are summed, the first line is
// said once.
func TestRun(t *testing.T) {
	c, stderr := fakeCampaign(t, "ok")
	res, err := Run(context.Background(), c)
	if err != nil || res == nil {
		t.Fatalf("%v, %v", res, err)
	}
	if s := res.Summary; s.Procs != 2 || s.Cases != 20 || s.Workers != 2 || s.Error != "" || res.Signatures != nil || res.Page != "" {
		t.Errorf("summary %+v, signatures %v, page %q", s, res.Signatures, res.Page)
	}
	if got := stderr.String(); got != "txlab fuzz: fake 1.0, seed 7, 2 processes\n" {
		t.Errorf("stderr %q", got)
	}
}

// TestRunWorkerFails: a failing worker process stops the others; it is
// named with its last line on stderr, and the others' summary says the
// campaign failed rather than that it was interrupted.
func TestRunWorkerFails(t *testing.T) {
	c, _ := fakeCampaign(t, "fail")
	res, err := Run(context.Background(), c)
	if err == nil || err.Error() != "worker process 2/2: the disk is on fire (repeat with --seed 7)" {
		t.Fatalf("error %v", err)
	}
	if res == nil || res.Summary.Procs != 1 || !strings.Contains(res.Summary.Error, "the disk is on fire") || res.Summary.Interrupted {
		t.Errorf("result %+v", res)
	}
}
