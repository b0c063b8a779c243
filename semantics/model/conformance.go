package model

import "github.com/txlab/txlab/target"

// Conformance is what the model makes of one execution.
type Conformance struct {
	Rules Rules
	Level target.Level
	// Deviation is the first statement (or the final state) outside the
	// permitted set, or nil.
	Deviation *Deviation
	// Halted says why the model stopped judging before the end ("" when
	// it judged every statement and the final state), or why it could not
	// judge at all.
	Halted string
	// Reason is Halted's short form, the same for every case that stopped
	// for the same cause, for counting ("open rows: UPDATE").
	Reason string
}

// Conforms reports whether every statement and the final state lie inside
// the permitted set: whatever anomaly the execution shows, the DBMS's
// documented views produce it.
func (c *Conformance) Conforms() bool { return c.Deviation == nil && c.Halted == "" }

// ReasonTruncated is Conformance.Reason for an execution with a result
// txlab did not keep whole (target.Limits). It is the executor's
// TruncatedReason, spelled here so that the model needs no executor
// (package replay's test holds the two equal).
const ReasonTruncated = "result too large to keep"
