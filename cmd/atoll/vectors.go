package main

import (
	"fmt"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/internal/vectors"
)

func newVectorsCmd() *cobra.Command {
	cmd := &cobra.Command{
		Use:   "vectors",
		Short: "Check serialization against Hazelcast test vectors",
	}
	cmd.AddCommand(&cobra.Command{
		Use:   "verify DIR...",
		Short: "Encode, decode and route every vector in the given directories",
		Long: `verify reads every *.json vector file in the given directories (or files),
rebuilds each value, encodes it and compares the bytes, decodes the bytes and
compares the value, and checks the partition hash and partition id. It prints
one line per failing vector and ends with "N passed, M failed"; the exit
status is 1 when any vector failed.`,
		Args: cobra.MinimumNArgs(1),
		RunE: func(cmd *cobra.Command, args []string) error {
			vs, errs := vectors.Load(args...)
			out := cmd.OutOrStdout()
			failed := len(errs)
			for _, err := range errs {
				fmt.Fprintf(out, "FAIL %s\n", oneLine(err.Error()))
			}
			for _, v := range vs {
				if err := vectors.Check(v); err != nil {
					failed++
					fmt.Fprintf(out, "FAIL %s (%s): %s\n", v.Name, v.File, oneLine(err.Error()))
				}
			}
			fmt.Fprintf(out, "%d passed, %d failed\n", len(vs)+len(errs)-failed, failed)
			if failed > 0 {
				return &exitError{code: 1}
			}
			return nil
		},
	})
	return cmd
}

// oneLine folds a multi-line error into one line.
func oneLine(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c == '\n' {
			b[i] = ';'
		}
	}
	return string(b)
}
