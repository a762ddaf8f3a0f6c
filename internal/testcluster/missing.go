package testcluster

import (
	"os"
	"testing"
)

// Missing reports that a test cannot get what it needs (a tool, a
// privilege, a service), named by what. With the environment variable CI
// set the test fails, so that CI never passes without running it;
// elsewhere it is skipped with the same message.
func Missing(t testing.TB, what string) {
	t.Helper()
	if os.Getenv("CI") != "" {
		t.Fatalf("missing in CI: %s", what)
	}
	t.Skipf("skipped, missing: %s (with CI set this fails)", what)
}
