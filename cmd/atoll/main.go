// Command atoll runs an Atoll member and talks to a cluster: one binary for
// the member and its command-line tools.
package main

import (
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		if msg := err.Error(); msg != "" {
			fmt.Fprintln(os.Stderr, "atoll:", msg)
		}
		os.Exit(exitCode(err))
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "atoll",
		Short:         "Atoll in-memory data grid: member and tools",
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.AddCommand(newVectorsCmd())
	return root
}

// exitError carries an exit status for failures that have already been
// reported (for example, verification failures listed line by line).
type exitError struct {
	code int
}

func (e *exitError) Error() string { return "" }

func exitCode(err error) int {
	if e, ok := err.(*exitError); ok {
		return e.code
	}
	return 1
}
