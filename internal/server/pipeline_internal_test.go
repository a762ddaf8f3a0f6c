package server

import (
	"context"
	"errors"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
)

type streamKey struct{}

// A call's context behaves as context.WithDeadline on the stream's would,
// but starts no timer until something waits on it.
func TestCallContext(t *testing.T) {
	stream := context.WithValue(context.Background(), streamKey{}, "stream value")

	t.Run("deadline passed, nothing waited", func(t *testing.T) {
		c := &callContext{Context: stream, deadline: time.Now().Add(-time.Millisecond)}
		require.ErrorIs(t, c.Err(), context.DeadlineExceeded)
		require.False(t, c.armed.Load(), "Err starts no timer")
		dl, ok := c.Deadline()
		require.True(t, ok)
		require.Equal(t, c.deadline, dl)
		require.Equal(t, "stream value", c.Value(streamKey{}))
		c.end()
	})

	t.Run("Done closes at the deadline", func(t *testing.T) {
		c := &callContext{Context: stream, deadline: time.Now().Add(20 * time.Millisecond)}
		defer c.end()
		require.NoError(t, c.Err())
		select {
		case <-c.Done():
		case <-time.After(time.Minute):
			t.Fatal("Done did not close at the deadline")
		}
		require.ErrorIs(t, c.Err(), context.DeadlineExceeded)
	})

	t.Run("the stream ending ends the call", func(t *testing.T) {
		s, cancel := context.WithCancel(stream)
		c := &callContext{Context: s, deadline: time.Now().Add(time.Hour)}
		defer c.end()
		cancel()
		require.ErrorIs(t, c.Err(), context.Canceled, "before anything waited")
		<-c.Done()
		require.ErrorIs(t, c.Err(), context.Canceled)
	})

	t.Run("derived contexts end with the call", func(t *testing.T) {
		c := &callContext{Context: stream, deadline: time.Now().Add(time.Hour)}
		child, cancel := context.WithCancel(c)
		defer cancel()
		labelled := context.WithValue(c, streamKey{}, "child value")
		stopped := make(chan struct{})
		context.AfterFunc(c, func() { close(stopped) })
		c.end()
		<-child.Done()
		<-labelled.Done()
		<-stopped
		require.ErrorIs(t, child.Err(), context.Canceled)
		require.Equal(t, "stream value", c.Value(streamKey{}), "values outlive the call")
	})

	t.Run("ended before anything waited", func(t *testing.T) {
		c := &callContext{Context: stream, deadline: time.Now().Add(time.Hour)}
		c.end()
		<-c.Done()
		require.True(t, errors.Is(c.Err(), context.Canceled))
	})
}

// A call that waits for nothing allocates its context alone.
func TestCallContextAllocatesNoTimer(t *testing.T) {
	stream := context.Background()
	allocs := testing.AllocsPerRun(1000, func() {
		c := &callContext{Context: stream, deadline: time.Now().Add(time.Second)}
		if c.Err() != nil {
			t.Fatal(c.Err())
		}
		c.end()
	})
	require.LessOrEqual(t, allocs, 1.0)
}
