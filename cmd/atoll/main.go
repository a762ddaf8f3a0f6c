// Command atoll runs an Atoll member and talks to a cluster: one binary for
// the member and its command-line tools.
package main

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/internal/member"
)

func main() {
	if err := newRootCmd().Execute(); err != nil {
		var exit *exitError
		switch {
		case errors.As(err, &exit) && exit.message != "":
			fmt.Fprintln(os.Stderr, exit.message)
		case errors.As(err, &exit):
		default:
			// Errors of the client library already say where they come
			// from ("atoll: ..."): one prefix is enough.
			fmt.Fprintln(os.Stderr, "atoll:", strings.TrimPrefix(err.Error(), "atoll: "))
		}
		os.Exit(exitCode(err))
	}
}

func newRootCmd() *cobra.Command {
	root := &cobra.Command{
		Use:           "atoll",
		Short:         "Atoll in-memory data grid: member and tools",
		Version:       member.Version,
		SilenceUsage:  true,
		SilenceErrors: true,
	}
	root.SetVersionTemplate("atoll {{.Version}}\n")
	root.AddCommand(newMemberCmd(), newMapCmd(), newClusterCmd(), newSQLCmd(), newVectorsCmd(), newProfileCmd(), newSecurityCmd())
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
