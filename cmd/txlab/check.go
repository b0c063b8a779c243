package main

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/spf13/cobra"

	"github.com/txlab/txlab/internal/exitcode"
	"github.com/txlab/txlab/oracle/mt"
)

func newCheckCmd(g *globalFlags) *cobra.Command {
	var model string
	var maxTxns int
	cmd := &cobra.Command{
		Use:   "check --model M [--json] HISTORY.jsonl",
		Short: "Check a recorded mini-transaction history offline (MTC)",
		Long: `check verifies a history of mini-transactions (JSON Lines, format in
history/README.md) against a consistency model in linear time (strict
serializability in O(n log n)). A violation names the anomaly (lost-update,
write-skew, long-fork, fractured-read, causality-violation, ...), lists the
transactions with their operations and explains the cycle.
A history of more than --max-transactions transactions (or of more than 4
operations a transaction on average, besides the initial one's) is refused
with exit status 2 rather than read: checking takes about 250 MB of memory
a million transactions, and the default keeps the check under 1 GB.
Exit status: 0 valid, 1 violated, 2 bad input.`,
		Example: `  txlab check --model serializable history.jsonl
  txlab check --model snapshot --json history.jsonl
  txlab check --model linearizable lwt-history.jsonl`,
		Args: cobra.ExactArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			if maxTxns < 1 {
				return exitcode.Fault(fmt.Errorf("--max-transactions %d: want at least 1", maxTxns))
			}
			code, text, js, err := mt.CheckFileContext(cmd.Context(), args[0], model, mt.Limits{MaxTxns: maxTxns})
			if err != nil {
				return exitcode.Fault(fmt.Errorf("%s: interrupted", args[0]))
			}
			if g.json {
				enc := json.NewEncoder(cmd.OutOrStdout())
				enc.SetIndent("", "  ")
				if err := enc.Encode(js); err != nil {
					return err
				}
			} else if code != 2 {
				fmt.Fprint(cmd.OutOrStdout(), text)
			}
			switch code {
			case 0:
				return nil
			case 1:
				return &exitcode.Error{Code: 1}
			}
			first, _, _ := strings.Cut(text, "\n")
			return exitcode.Fault(errors.New(first))
		},
	}
	cmd.Flags().StringVar(&model, "model", "serializable", "consistency model: serializable, snapshot, strict-serializable or linearizable\n(also SER, SI, SSER, LIN) (e.g. --model snapshot)")
	cmd.Flags().IntVar(&maxTxns, "max-transactions", mt.DefaultMaxTxns, "refuse a history of more transactions than this (exit 2); checking takes about 250 MB\nof memory a million (e.g. --max-transactions 10000000 for a 10M-transaction history)")
	return cmd
}
