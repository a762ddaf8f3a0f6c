package plan

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

// TestBuildContext: a context that carries a build timeout gives a build
// context that ends after it; one that carries none is used as it is.
func TestBuildContext(t *testing.T) {
	parent := context.Background()
	ctx, cancel := BuildContext(parent)
	require.Equal(t, parent, ctx, "no timeout: the context itself")
	cancel()

	ctx, cancel = BuildContext(WithBuildTimeout(parent, time.Millisecond))
	defer cancel()
	dl, ok := ctx.Deadline()
	require.True(t, ok, "a build timeout sets a deadline")
	require.WithinDuration(t, time.Now(), dl, time.Minute)
	select {
	case <-ctx.Done():
	case <-time.After(time.Minute):
		t.Fatal("the build context did not end a minute after its 1 ms timeout")
	}
	require.ErrorIs(t, ctx.Err(), context.DeadlineExceeded)
	require.NoError(t, parent.Err(), "the caller's context goes on")

	ctx, cancel = BuildContext(WithBuildTimeout(parent, 0))
	defer cancel()
	_, ok = ctx.Deadline()
	require.False(t, ok, "a zero timeout bounds nothing")
}
