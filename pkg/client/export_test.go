package client

import (
	"context"
	"time"
)

// RetryPolicy is the Backoff that cfg.Retry configures, defaults filled.
func RetryPolicy(cfg Config) Backoff {
	d := cfg.withDefaults()
	return d.Retry.backoff()
}

// RetryLoop starts a retry loop on policy, as the client's retrying calls
// do: wait waits the next retry's delay, reset starts over.
func RetryLoop(policy Backoff) (wait func(ctx context.Context, hint time.Duration) error, reset func()) {
	r := retrier{policy: policy}
	return r.wait, r.reset
}

// CommitUntilLocked runs tx's commit until every key it writes is locked,
// and stops there, as a client that dies at that point.
func CommitUntilLocked(ctx context.Context, tx *Tx) error { return tx.commit(ctx, commitUntilLocked) }

// CommitUntilCommitted runs tx's commit until its primary committed, and
// stops there (no other key applied, no lock released), as a client that
// dies at that point.
func CommitUntilCommitted(ctx context.Context, tx *Tx) error {
	return tx.commit(ctx, commitUntilCommitted)
}
