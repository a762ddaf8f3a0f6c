// Command atoll runs an Atoll member and talks to a cluster: one binary for
// the member and its command-line tools.
package main

import (
	"errors"
	"fmt"
	"os"

	"github.com/spf13/cobra"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		var exit *exitError
		switch {
		case errors.As(err, &exit) && exit.message != "":
			fmt.Fprintln(os.Stderr, exit.message)
		case errors.As(err, &exit):
		default:
			fmt.Fprintln(os.Stderr, "atoll:", err)
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
	root.AddCommand(newMemberCmd(), newMapCmd(), newClusterCmd(), newSQLCmd(), newVectorsCmd(), newProfileCmd())
	return root
}

// exitError carries an exit status, for failures that are already reported
// (verification failures listed line by line) or that print a bare
// message on stderr (a missing key prints "not found").
type exitError struct {
	code    int
	message string
}

func (e *exitError) Error() string { return e.message }

func exitCode(err error) int {
	var e *exitError
	if errors.As(err, &e) {
		return e.code
	}
	return 1
}
