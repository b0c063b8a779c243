// Package mtoracle plugs mini-transaction workloads into `txlab fuzz
// --oracle mt`: each round runs the MT workload on a real target, checks the
// recorded history with package mt, judges every counterexample against the
// one judge of package semantics (bug, allowed or no finding) and writes a finding bundle holding the
// whole round's history, so `txlab check` reproduces the verdict offline.
package mtoracle

import (
	"bytes"
	"context"
	"fmt"
	"strings"

	"github.com/txlab/txlab/evidence"
	"github.com/txlab/txlab/history"
	"github.com/txlab/txlab/oracle"
	"github.com/txlab/txlab/oracle/mt"
	"github.com/txlab/txlab/oracle/mt/workload"
	"github.com/txlab/txlab/semantics"
	"github.com/txlab/txlab/target"
	"github.com/txlab/txlab/verdict"
)

// Name is the oracle's name in findings and on the command line.
const Name = "mt"

// Oracle is the MT oracle; it implements oracle.Workload.
type Oracle struct {
	// Workload is the per-round workload; Level, Seed and Duration are set
	// by each round.
	Workload workload.Config
	// Model judges against a textbook model instead of what the DBMS
	// documents (semantics.Judge); "" judges with the semantics table. The
	// history is checked with the MT checker closest to the model judged.
	Model semantics.Model
	// Strict makes every anomaly the level's textbook definition forbids a
	// bug, whatever the DBMS documents.
	Strict bool
	// Settings are the server settings the semantics table depends on.
	Settings map[string]string
}

// checkerModel is the MT model closest to a textbook model. Read committed has no MT model of its own: the serializable check
// runs and only G0/G1 anomalies count there. Repeatable read is checked as
// snapshot isolation, the model MT histories can decide (item write skew is
// invisible to it, as on every snapshot-based repeatable read).
func checkerModel(m semantics.Model) mt.Model {
	switch m {
	case semantics.StrictSerializable:
		return mt.StrictSerializable
	case semantics.Model(target.RepeatableRead), semantics.Model(target.Snapshot):
		return mt.Snapshot
	}
	return mt.Serializable
}

// Name implements oracle.Workload.
func (o *Oracle) Name() string { return Name }

// Round implements oracle.Workload.
func (o *Oracle) Round(ctx context.Context, t target.Target, spec oracle.RoundSpec) (*oracle.RoundResult, error) {
	level := spec.LevelOn(t)
	cfg := o.Workload
	cfg.Level, cfg.Seed = level, spec.Seed
	var ok bool
	if cfg.Duration, ok = spec.Limit(cfg.Duration); !ok {
		return &oracle.RoundResult{}, nil
	}
	cfg.Progress = spec.Progress
	h, st, err := workload.Run(ctx, t, cfg)
	if err != nil {
		return nil, err
	}
	res := &oracle.RoundResult{
		Transactions: st.Total(), Committed: st.Committed, Failed: st.Failed, Unknown: st.Unknown,
		ErrorsByClass: st.ByClass,
	}
	j := o.judge(t.Info().DBMS, level, cfg.LWT)
	chk, err := mt.Check(h, j.model)
	if err != nil {
		return nil, fmt.Errorf("checking the recorded history: %w", err)
	}
	seen := map[semantics.Anomaly]bool{}
	for _, a := range chk.Anomalies {
		f, ok := j.finding(a)
		if !ok || seen[a.Name] {
			continue // outside the level's definition, or already reported this round
		}
		seen[a.Name] = true
		f.Isolation = string(level)
		b, err := bundle(f, a, h, j.model, spec)
		if err != nil {
			return nil, err
		}
		res.Findings = append(res.Findings, f)
		res.Evidence = append(res.Evidence, b)
	}
	return res, nil
}

// judge decides what counts as a finding and its verdict for one level.
type judge struct {
	model mt.Model // the MT checker run on the history
	lwt   bool
	j     semantics.Judge
}

func (o *Oracle) judge(dbms string, level target.Level, lwt bool) *judge {
	j := &judge{lwt: lwt, j: semantics.Judge{DBMS: dbms, Level: level, Settings: o.Settings, Model: o.Model, Strict: o.Strict}}
	switch {
	case lwt:
		j.model = mt.Linearizable
	case o.Model != "":
		j.model = checkerModel(o.Model)
	default:
		j.model = checkerModel(semantics.Model(level))
	}
	return j
}

// finding judges one anomaly; ok is false when it is no finding at all.
func (j *judge) finding(a mt.Anomaly) (verdict.Finding, bool) {
	f := verdict.Finding{Oracle: Name, Kind: string(a.Name), Summary: a.Explanation}
	for _, t := range a.Txns {
		f.Transactions = append(f.Transactions, int(t.ID))
	}
	e := semantics.Evidence{Atomic: j.lwt}
	if !j.lwt {
		e.Classes = []semantics.Anomaly{a.Name}
		if a.Class != "" {
			e.Classes = append(e.Classes, a.Class)
		}
	}
	d, ok := j.j.Decide(e)
	f.Verdict, f.Rule = d.Verdict, d.Rule.Name
	return f, ok
}

// bundle builds the finding's report directory contents.
func bundle(f verdict.Finding, a mt.Anomaly, h *history.History, model mt.Model, spec oracle.RoundSpec) (evidence.Bundle, error) {
	var full, excerpt bytes.Buffer
	if err := history.Write(&full, h); err != nil {
		return evidence.Bundle{}, err
	}
	involved := map[int64]bool{}
	for _, t := range a.Txns {
		involved[t.ID] = true
	}
	for i := range h.Txns {
		if involved[h.Txns[i].ID] && !h.Txns[i].Init {
			if err := history.WriteTxn(&excerpt, &h.Txns[i]); err != nil {
				return evidence.Bundle{}, err
			}
		}
	}
	var b strings.Builder
	fmt.Fprintf(&b, "%s (%s): verdict %s [%s]\n", a.Name, a.Class, f.Verdict, f.Rule)
	fmt.Fprintf(&b, "isolation %s, checked as %s; round %d, seed %d, %d transactions\n\n", f.Isolation, model, spec.Index, spec.Seed, len(h.Txns))
	fmt.Fprintf(&b, "%s\n\n", a.Explanation)
	for _, t := range a.Txns {
		fmt.Fprintf(&b, "  T%d session %d %s: %s\n", t.ID, t.Session, t.Status, strings.Join(t.Ops, " "))
	}
	for _, s := range a.Cycle {
		fmt.Fprintf(&b, "  T%d -%s(key %d)-> T%d\n", s.From, s.Kind, s.Key, s.To)
	}
	fmt.Fprintf(&b, "\nhistory.jsonl is the whole round; check it again with:\n  txlab check --model %s history.jsonl\n", model)
	fmt.Fprintf(&b, "excerpt.jsonl holds only the transactions above.\n")
	return evidence.Bundle{
		Finding: f,
		Text:    b.String(),
		Details: a,
		Extra:   map[string][]byte{"history.jsonl": full.Bytes(), "excerpt.jsonl": excerpt.Bytes()},
	}, nil
}
