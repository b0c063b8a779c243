package fuzz

import (
	"cmp"
	"errors"
	"fmt"
	"io"
	"maps"
	"slices"
	"sort"
	"strings"
	"time"

	"github.com/txlab/txlab/bugs"
	"github.com/txlab/txlab/executor"
	"github.com/txlab/txlab/features"
	"github.com/txlab/txlab/internal/english"
	"github.com/txlab/txlab/internal/termsafe"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/testcase"
	"github.com/txlab/txlab/verdict"
)

// Summary is what a campaign did. Its JSON form is `txlab fuzz --json`.
type Summary struct {
	Target string `json:"target"`
	// Seed is a string in JSON: a seed above 2^53 does not survive JSON
	// tools that read numbers as doubles (jq, JavaScript), and a rounded
	// seed silently repeats other cases.
	Seed    uint64 `json:"seed,string"`
	Workers int    `json:"workers"`
	// Procs is the number of worker processes (txlab fuzz --procs) whose
	// summaries this one sums; Workers then counts all of theirs.
	Procs int `json:"procs,omitempty"`
	// Shard is "I/N" when the campaign was one of N shards (--shard).
	Shard string `json:"shard,omitempty"`
	// Oracles names the oracles that judged the run (empty: cases only ran).
	Oracles []string `json:"oracles"`
	// ByOracle counts each oracle's work and findings.
	ByOracle map[string]*OracleCounts `json:"by_oracle"`
	// Rounds are generated groups (several submitted orders of the same
	// transactions for WSS) or workload rounds; Cases are the cases run
	// (for a free-running workload: its rounds).
	Rounds        int `json:"rounds"`
	Cases         int `json:"cases"`
	SetupFailures int `json:"setup_failures,omitempty"`
	// SetupExamples are the first few setup failures, with the error.
	SetupExamples []string `json:"setup_failure_examples,omitempty"`
	// ToReduce counts the bug bundles handed to reduction
	// (Options.Reduce), Reduced those it reduced.
	ToReduce     int `json:"to_reduce,omitempty"`
	Reduced      int `json:"reduced,omitempty"`
	Transactions int `json:"transactions"`
	Statements   int `json:"statements"`
	Blocked      int `json:"blocked"`
	Skipped      int `json:"skipped"`
	Hangs        int `json:"hangs"`
	// HangBundles are the bundles of the cases that hung (kind hang,
	// verdict suspect: not an oracle's finding), one per case.
	HangBundles     []string          `json:"hang_bundles,omitempty"`
	JudgeTimeouts   int               `json:"judge_timeouts,omitempty"` // ran, but the case's bound ended their judging
	ErrorsByClass   map[string]int    `json:"errors_by_class"`
	InvalidCount    int               `json:"invalid_statements"`
	InvalidRatio    float64           `json:"invalid_statement_ratio"`
	InvalidExamples []string          `json:"invalid_examples,omitempty"`
	Findings        []verdict.Finding `json:"findings"`
	// Features counts the cases that used each SQL feature
	// (features.Names: savepoint, foreign-key, skip-locked, …).
	Features       map[string]int `json:"features,omitempty"`
	ElapsedSeconds float64        `json:"elapsed_seconds"`
	CasesPerSecond float64        `json:"cases_per_second"`
	Interrupted    bool           `json:"interrupted"`
	// Error is why the campaign stopped early ("" when it did not).
	Error string `json:"error,omitempty"`

	// Free-running workloads count transaction outcomes here.
	Free                  bool    `json:"free_running,omitempty"`
	Committed             int     `json:"committed,omitempty"`
	Failed                int     `json:"failed,omitempty"`
	Unknown               int     `json:"unknown,omitempty"`
	TransactionsPerSecond float64 `json:"transactions_per_second,omitempty"`
}

// OracleCounts is one oracle's share of a campaign.
type OracleCounts struct {
	// Judged counts the cases (rounds) the oracle judged.
	Judged int `json:"judged"`
	// JudgedToEnd counts the judged cases the oracle judged to their end;
	// Undecided counts the others by why (oracle.Judgement.Undecided).
	// A workload's rounds are always judged to the end.
	JudgedToEnd int            `json:"judged_to_end"`
	Undecided   map[string]int `json:"undecided,omitempty"`
	Findings    int            `json:"findings"`
	Bugs        int            `json:"bugs"`
	// Known counts the findings a suppression file matched.
	Known int `json:"known,omitempty"`
}

// undecided counts a case the oracle did not judge to its end, by why.
func (c *OracleCounts) undecided(why string) {
	if c.Undecided == nil {
		c.Undecided = map[string]int{}
	}
	c.Undecided[why]++
}

// maxInvalidExamples bounds the invalid statements (and the setup
// failures) kept for the summary.
const maxInvalidExamples = 5

func newSummary(info target.Info, opt Options, workers int) *Summary {
	s := &Summary{
		Target:        fmt.Sprintf("%s %s", info.DBMS, info.Version),
		Seed:          opt.Seed,
		Shard:         opt.Shard.String(),
		Workers:       workers,
		Oracles:       []string{},
		ByOracle:      map[string]*OracleCounts{},
		ErrorsByClass: map[string]int{},
		Findings:      []verdict.Finding{},
		Free:          opt.Workload != nil,
	}
	names := []string{}
	if opt.Workload != nil {
		names = append(names, opt.Workload.Name())
	}
	if len(opt.Oracles) > 0 {
		for _, o := range opt.Oracles[0] {
			names = append(names, o.Name())
		}
	}
	for _, n := range names {
		s.Oracles = append(s.Oracles, n)
		s.ByOracle[n] = &OracleCounts{}
	}
	return s
}

// finish fills in the rates and how the campaign ended.
func (s *Summary) finish(el time.Duration, err error, interrupted bool) {
	s.ElapsedSeconds = el.Seconds()
	if el > 0 {
		s.CasesPerSecond = float64(s.Cases) / el.Seconds()
		if s.Free {
			s.TransactionsPerSecond = float64(s.Transactions) / el.Seconds()
		}
	}
	if s.Statements > 0 {
		s.InvalidRatio = float64(s.InvalidCount) / float64(s.Statements)
	}
	if err != nil {
		s.Error = err.Error()
	}
	s.Interrupted = interrupted && err == nil
}

// Merge sums the summaries of the parts of one campaign (the worker
// processes of txlab fuzz --procs, each a shard): counts, findings and
// examples added up, the rates taken over elapsed (0: the longest part's
// time). It is interrupted when a part was and none failed, and stopped by
// an error when one was. The parts must share the target, seed and
// oracles; the sum is no shard of its own.
func Merge(elapsed time.Duration, parts ...*Summary) *Summary {
	if len(parts) == 0 {
		return nil
	}
	first := parts[0]
	s := &Summary{
		Target: first.Target, Seed: first.Seed, Procs: len(parts),
		Oracles: slices.Clone(first.Oracles), ByOracle: map[string]*OracleCounts{},
		ErrorsByClass: map[string]int{}, Findings: []verdict.Finding{},
	}
	var errs []string
	interrupted := false
	longest := 0.0
	for _, p := range parts {
		s.Workers += p.Workers
		s.Free = s.Free || p.Free
		s.Rounds += p.Rounds
		s.Cases += p.Cases
		s.SetupFailures += p.SetupFailures
		s.SetupExamples = appendExamples(s.SetupExamples, p.SetupExamples)
		s.ToReduce += p.ToReduce
		s.Reduced += p.Reduced
		s.Transactions += p.Transactions
		s.Statements += p.Statements
		s.Blocked += p.Blocked
		s.Skipped += p.Skipped
		s.Hangs += p.Hangs
		s.HangBundles = append(s.HangBundles, p.HangBundles...)
		s.JudgeTimeouts += p.JudgeTimeouts
		s.InvalidCount += p.InvalidCount
		s.InvalidExamples = appendExamples(s.InvalidExamples, p.InvalidExamples)
		s.Committed += p.Committed
		s.Failed += p.Failed
		s.Unknown += p.Unknown
		for c, n := range p.ErrorsByClass {
			s.ErrorsByClass[c] += n
		}
		for f, n := range p.Features {
			if s.Features == nil {
				s.Features = map[string]int{}
			}
			s.Features[f] += n
		}
		for name, c := range p.ByOracle {
			sum := s.ByOracle[name]
			if sum == nil {
				sum = &OracleCounts{}
				s.ByOracle[name] = sum
			}
			sum.Judged += c.Judged
			sum.JudgedToEnd += c.JudgedToEnd
			sum.Findings += c.Findings
			sum.Bugs += c.Bugs
			sum.Known += c.Known
			for why, n := range c.Undecided {
				if sum.Undecided == nil {
					sum.Undecided = map[string]int{}
				}
				sum.Undecided[why] += n
			}
		}
		s.Findings = append(s.Findings, p.Findings...)
		if p.Error != "" {
			errs = append(errs, p.Error)
		}
		interrupted = interrupted || p.Interrupted
		longest = max(longest, p.ElapsedSeconds)
	}
	if elapsed <= 0 {
		elapsed = time.Duration(longest * float64(time.Second))
	}
	var err error
	if len(errs) > 0 {
		err = errors.New(strings.Join(errs, "; "))
	}
	s.finish(elapsed, err, interrupted)
	return s
}

// appendExamples adds examples to a summary's list, up to the number one
// campaign keeps.
func appendExamples(to, from []string) []string {
	for _, ex := range from {
		if len(to) >= maxInvalidExamples {
			break
		}
		to = append(to, ex)
	}
	return to
}

// addFindings counts findings for their oracles.
func (s *Summary) addFindings(fs []verdict.Finding) {
	s.Findings = append(s.Findings, fs...)
	for _, f := range fs {
		c := s.ByOracle[f.Oracle]
		if c == nil {
			c = &OracleCounts{}
			s.ByOracle[f.Oracle] = c
		}
		c.Findings++
		switch f.Verdict {
		case verdict.Bug:
			c.Bugs++
		case verdict.Known:
			c.Known++
		}
	}
}

// addCase counts one case's events and findings.
func (s *Summary) addCase(c *testcase.Case, out *oracle.Outcome, setupErr error) {
	s.Cases++
	s.Transactions += countTransactions(c)
	for _, f := range features.Of(c) {
		if s.Features == nil {
			s.Features = map[string]int{}
		}
		s.Features[f]++
	}
	if setupErr != nil {
		s.SetupFailures++
		if len(s.SetupExamples) < maxInvalidExamples {
			s.SetupExamples = append(s.SetupExamples, fmt.Sprintf("%s: %v", c.Name, setupErr))
		}
	}
	if out == nil {
		return
	}
	for _, name := range out.Judged {
		c := s.ByOracle[name]
		c.Judged++
		if why := out.Undecided[name]; why != "" {
			c.undecided(why)
		} else {
			c.JudgedToEnd++
		}
	}
	if name := out.JudgeTimeout; name != "" {
		// Not judged at all, but counted: judging it took too long.
		s.ByOracle[name].undecided("judging ran out of time")
	}
	s.addFindings(out.Findings)
	if out.JudgeTimeout != "" {
		s.JudgeTimeouts++
	}
	res := out.Result
	if res == nil {
		return
	}
	if res.Hang {
		s.Hangs++
	}
	for _, evs := range [][]executor.Event{res.Setup, res.Events} {
		for _, ev := range evs {
			switch {
			case ev.Implicit:
				continue
			case ev.Status == executor.StatusBlocked:
				s.Blocked++
				continue
			case ev.Status == executor.StatusSkipped:
				s.Skipped++
				continue
			}
			s.Statements++
			if ev.Error == nil {
				continue
			}
			s.ErrorsByClass[string(ev.Error.Class)]++
			if ev.Error.Class == target.ClassSyntax {
				s.InvalidCount++
				if len(s.InvalidExamples) < maxInvalidExamples {
					s.InvalidExamples = append(s.InvalidExamples, fmt.Sprintf("%s: %s -- %s", c.Name, ev.SQL, ev.Error.Message))
				}
			}
		}
	}
}

// addRound counts one workload round.
func (s *Summary) addRound(name string, res *oracle.RoundResult) {
	s.Rounds++
	s.Cases++
	s.ByOracle[name].Judged++
	s.ByOracle[name].JudgedToEnd++
	s.Transactions += res.Transactions
	s.Committed += res.Committed
	s.Failed += res.Failed
	s.Unknown += res.Unknown
	for c, n := range res.ErrorsByClass {
		s.ErrorsByClass[c] += n
	}
	s.addFindings(res.Findings)
}

// countTransactions counts explicit transactions and autocommit statements.
func countTransactions(c *testcase.Case) int {
	inTxn := map[int]bool{}
	n := 0
	for _, st := range c.Steps {
		switch testcase.ControlOf(st.SQL) {
		case testcase.Begin:
			inTxn[st.Conn] = true
			n++
		case testcase.Commit, testcase.Rollback:
			inTxn[st.Conn] = false
		default:
			if !inTxn[st.Conn] {
				n++
			}
		}
	}
	return n
}

// Progress is what a campaign has done so far: what its progress line
// shows. A worker process of txlab fuzz --procs sends its own to the
// parent, which adds them up (Add) and shows the sum.
type Progress struct {
	// Free: a free-running workload, counted in transactions.
	Free bool `json:"free,omitempty"`
	// Judging: oracles judge the cases, so the line counts findings.
	Judging bool `json:"judging,omitempty"`
	Cases   int  `json:"cases"`
	// Transactions include a workload's rounds still running.
	Transactions int `json:"transactions"`
	Blocked      int `json:"blocked"`
	Failed       int `json:"failed,omitempty"`
	Findings     int `json:"findings"`
	Bugs         int `json:"bugs"`
	Known        int `json:"known"`
	// Reducing names the bundle whose reduction has run longest, for
	// ReducingFor ("" when none is being reduced).
	Reducing    string        `json:"reducing,omitempty"`
	ReducingFor time.Duration `json:"reducing_for,omitempty"`
}

// progress is the summary's progress, with inFlight transactions of
// workload rounds still running.
func (s *Summary) progress(inFlight int) Progress {
	p := Progress{Free: s.Free, Judging: len(s.Oracles) > 0, Cases: s.Cases, Transactions: s.Transactions + inFlight,
		Blocked: s.Blocked, Failed: s.Failed, Findings: len(s.Findings)}
	for _, c := range s.ByOracle {
		p.Bugs += c.Bugs
		p.Known += c.Known
	}
	return p
}

// Add sums two parts of one campaign's progress; the reduction shown is
// the one that has run longer.
func (p Progress) Add(q Progress) Progress {
	sum := Progress{Free: p.Free || q.Free, Judging: p.Judging || q.Judging, Cases: p.Cases + q.Cases,
		Transactions: p.Transactions + q.Transactions, Blocked: p.Blocked + q.Blocked, Failed: p.Failed + q.Failed,
		Findings: p.Findings + q.Findings, Bugs: p.Bugs + q.Bugs, Known: p.Known + q.Known,
		Reducing: p.Reducing, ReducingFor: p.ReducingFor}
	if q.Reducing != "" && (sum.Reducing == "" || q.ReducingFor > sum.ReducingFor) {
		sum.Reducing, sum.ReducingFor = q.Reducing, q.ReducingFor
	}
	return sum
}

func (s *Summary) progressLine(el time.Duration, inFlight int) string {
	return s.progress(inFlight).Line(el)
}

// Line is the progress line after el.
func (p Progress) Line(el time.Duration) string {
	secs := el.Seconds()
	if secs <= 0 {
		secs = 1
	}
	// Short enough for an 80-column terminal beside the spinner, the count
	// and the elapsed time: the details are in the summary at the end, and
	// what does not fit is left out, least important first.
	const width = 55
	var parts []string
	if p.Free {
		parts = append(parts, fmt.Sprintf("%d txns (%.0f/s)", p.Transactions, float64(p.Transactions)/secs))
	} else {
		parts = append(parts, fmt.Sprintf("%d cases (%.1f/s)", p.Cases, float64(p.Cases)/secs))
	}
	var extra []string // in the order they are left out, last first
	if p.Judging {
		parts = append(parts, fmt.Sprintf("%d bug%s", p.Bugs, english.S(p.Bugs)))
		if p.Known > 0 {
			extra = append(extra, fmt.Sprintf("%d known", p.Known))
		}
		if other := p.Findings - p.Bugs - p.Known; other > 0 {
			extra = append(extra, fmt.Sprintf("%d other", other))
		}
	}
	if p.Free {
		extra = append(extra, fmt.Sprintf("%d failed", p.Failed), fmt.Sprintf("%d rounds", p.Cases))
	} else {
		extra = append(extra, fmt.Sprintf("%d blocked", p.Blocked))
	}
	line := strings.Join(parts, " · ")
	for _, e := range extra {
		if len([]rune(line))+3+len([]rune(e)) <= width {
			line += " · " + e
		}
	}
	if p.Reducing != "" {
		line += fmt.Sprintf(" · reducing %.4s… %s", p.Reducing, p.ReducingFor.Round(time.Second))
	}
	return line
}

// findingsLine is "wss 2 (1 bug), isorel 0".
func (s *Summary) findingsLine() string {
	parts := make([]string, len(s.Oracles))
	for i, name := range s.Oracles {
		c := s.ByOracle[name]
		parts[i] = fmt.Sprintf("%s %d", name, c.Findings)
		var of []string
		if c.Bugs > 0 {
			of = append(of, fmt.Sprintf("%d bug%s", c.Bugs, english.S(c.Bugs)))
		}
		if c.Known > 0 {
			of = append(of, fmt.Sprintf("%d known", c.Known))
		}
		if len(of) > 0 {
			parts[i] += " (" + strings.Join(of, ", ") + ")"
		}
	}
	return strings.Join(parts, ", ")
}

// toTheEndLines say, per oracle that judged cases, how many it judged to
// their end and the commonest reasons it did not: "troc 951 of 1000
// (95.1%); undecided: 30 open rows: UPDATE, 12 hang, 7 for 3 other reasons".
func (s *Summary) toTheEndLines() []string {
	const shown = 3
	var lines []string
	for _, name := range s.Oracles {
		c := s.ByOracle[name]
		if c.Judged == 0 && len(c.Undecided) == 0 {
			continue
		}
		line := fmt.Sprintf("%s %d of %d", name, c.JudgedToEnd, c.Judged)
		if c.Judged > 0 {
			line += fmt.Sprintf(" (%.1f%%)", 100*float64(c.JudgedToEnd)/float64(c.Judged))
		}
		reasons := slices.SortedFunc(maps.Keys(c.Undecided), func(a, b string) int {
			return cmp.Or(cmp.Compare(c.Undecided[b], c.Undecided[a]), strings.Compare(a, b))
		})
		var parts []string
		rest, restN := 0, 0
		for i, r := range reasons {
			if i < shown {
				parts = append(parts, fmt.Sprintf("%d %s", c.Undecided[r], r))
				continue
			}
			rest += c.Undecided[r]
			restN++
		}
		if restN > 0 {
			parts = append(parts, fmt.Sprintf("%d for %d other reason%s", rest, restN, english.S(restN)))
		}
		if len(parts) > 0 {
			line += "; undecided: " + strings.Join(parts, ", ")
		}
		lines = append(lines, line)
	}
	return lines
}

func (s *Summary) errorsLine() string {
	if len(s.ErrorsByClass) == 0 {
		return "none"
	}
	classes := make([]string, 0, len(s.ErrorsByClass))
	for c := range s.ErrorsByClass {
		classes = append(classes, c)
	}
	sort.Strings(classes)
	parts := make([]string, len(classes))
	for i, c := range classes {
		parts[i] = fmt.Sprintf("%s %d", c, s.ErrorsByClass[c])
	}
	return strings.Join(parts, ", ")
}

// WriteText prints the summary for people.
func (s *Summary) WriteText(w io.Writer) {
	fmt.Fprintf(w, "txlab fuzz on %s, seed %d", termsafe.Line(s.Target), s.Seed)
	if s.Shard != "" {
		fmt.Fprintf(w, ", shard %s", s.Shard)
	}
	switch {
	case s.Procs > 1:
		fmt.Fprintf(w, ", %d workers in %d processes", s.Workers, s.Procs)
	case s.Workers > 1:
		fmt.Fprintf(w, ", %d workers", s.Workers)
	}
	fmt.Fprintln(w)
	if s.Free {
		fmt.Fprintf(w, "  rounds        %d over %.1fs\n", s.Cases, s.ElapsedSeconds)
		fmt.Fprintf(w, "  transactions  %d (%.0f/s): %d committed, %d failed, %d unknown outcome\n",
			s.Transactions, s.TransactionsPerSecond, s.Committed, s.Failed, s.Unknown)
		fmt.Fprintf(w, "  errors        %s\n", s.errorsLine())
	} else {
		fmt.Fprintf(w, "  cases         %d (%.1f/s over %.1fs)", s.Cases, s.CasesPerSecond, s.ElapsedSeconds)
		if s.Rounds != s.Cases {
			fmt.Fprintf(w, " in %d groups", s.Rounds)
		}
		fmt.Fprintln(w)
		if s.SetupFailures > 0 {
			fmt.Fprintf(w, "  setup failed  %d cases (not judged; -v shows why)\n", s.SetupFailures)
			for _, ex := range s.SetupExamples {
				fmt.Fprintf(w, "      e.g. %s\n", termsafe.Line(ex))
			}
		}
		fmt.Fprintf(w, "  transactions  %d\n", s.Transactions)
		fmt.Fprintf(w, "  statements    %d (blocked %d times, %d skipped after an abort)\n", s.Statements, s.Blocked, s.Skipped)
		fmt.Fprintf(w, "  errors        %s\n", s.errorsLine())
		fmt.Fprintf(w, "  invalid       %d statements, %.3f%% of all\n", s.InvalidCount, 100*s.InvalidRatio)
		if len(s.Features) > 0 {
			var parts []string
			for _, name := range features.Names {
				if n := s.Features[name]; n > 0 {
					parts = append(parts, fmt.Sprintf("%s %d", name, n))
				}
			}
			fmt.Fprintf(w, "  features      %s (cases)\n", strings.Join(parts, ", "))
		}
		for _, ex := range s.InvalidExamples {
			fmt.Fprintf(w, "      e.g. %s\n", termsafe.Line(ex))
		}
		if s.ToReduce > 0 {
			fmt.Fprintf(w, "  reduced       %d of %d bug bundles (case.txn reduced, case.orig.txn as found", s.Reduced, s.ToReduce)
			if s.Reduced < s.ToReduce {
				fmt.Fprint(w, "; -v says why not")
			}
			fmt.Fprintln(w, ")")
		}
		if s.Hangs > 0 {
			fmt.Fprintf(w, "  hangs         %s did not finish within --hang-timeout (not judged);", english.Plural(s.Hangs, "case"))
			switch n := len(s.HangBundles); {
			case n == 0:
				fmt.Fprintln(w, " no bundle (no --out writer)")
			case n <= 3:
				fmt.Fprintf(w, " txlab run replays each: %s\n", termsafe.Line(strings.Join(s.HangBundles, ", ")))
			default:
				fmt.Fprintf(w, " txlab run replays each: %s and %d more (-v names them)\n", termsafe.Line(strings.Join(s.HangBundles[:3], ", ")), n-3)
			}
		}
		if s.JudgeTimeouts > 0 {
			fmt.Fprintf(w, "  judge timeout %d cases not judged within --hang-timeout\n", s.JudgeTimeouts)
		}
	}
	if len(s.Oracles) == 0 {
		fmt.Fprintln(w, "  oracles       none (cases only ran)")
	} else {
		fmt.Fprintf(w, "  oracles       %s\n", strings.Join(s.Oracles, ", "))
		if !s.Free {
			for _, line := range s.toTheEndLines() {
				fmt.Fprintf(w, "  to the end    %s\n", line)
			}
		}
	}
	fmt.Fprintf(w, "  findings      %d (%d bugs", len(s.Findings), verdict.CountBugs(s.Findings))
	if n := verdict.Count(s.Findings, verdict.Known); n > 0 {
		fmt.Fprintf(w, ", %d known", n)
	}
	fmt.Fprint(w, ")")
	if len(s.Oracles) > 0 {
		fmt.Fprintf(w, ": %s", termsafe.Line(s.findingsLine()))
	}
	fmt.Fprintln(w)
	if id, n, bugs := s.DominantKnownBug(); id != "" {
		fmt.Fprintf(w, "  hint          %d of %d bug findings are %s, a known bug (txlab bugs show %s); a --suppress file\n", n, bugs, id, id)
		fmt.Fprintf(w, "                with the line %s counts them as known, so that new ones stand out\n", id)
	}
	switch {
	case s.Error != "":
		fmt.Fprintln(w, "  (stopped by an error)")
	case s.Interrupted:
		fmt.Fprintln(w, "  (interrupted)")
	}
	if s.Shard != "" {
		fmt.Fprintf(w, "repeat with --seed %d --shard %s\n", s.Seed, s.Shard)
		return
	}
	fmt.Fprintf(w, "repeat with --seed %d\n", s.Seed)
}

// DominantKnownBug names the known bug (the corpus's bug whose rule the
// findings name) behind at least half of the campaign's bug findings, with
// how many that is and the bug findings in all; "" when there is none.
// That campaign's bugs are mostly one already reported: suppressing it
// lets a new one stand out.
func (s *Summary) DominantKnownBug() (id string, n, total int) {
	by := map[string]int{}
	for _, f := range s.Findings {
		if f.Verdict != verdict.Bug {
			continue
		}
		total++
		if e, ok := bugs.ByRule(f.Rule); ok {
			by[e.Bug]++
		}
	}
	for bug, c := range by {
		if 2*c >= total && (c > n || c == n && bug < id) {
			id, n = bug, c
		}
	}
	return id, n, total
}
