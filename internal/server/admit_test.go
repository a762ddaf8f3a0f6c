package server

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/status"
)

type memberKey struct{}

// Until the member has started (joined its cluster), only the other
// members' calls are admitted; clients get a retryable Unavailable that
// says why. Once draining, nobody is.
func TestAdmitWhileStarting(t *testing.T) {
	s := New(Config{IsMember: func(ctx context.Context) bool { return ctx.Value(memberKey{}) != nil }})
	client, member := context.Background(), context.WithValue(context.Background(), memberKey{}, true)

	err := s.admit(client)
	require.ErrorIs(t, err, ErrStarting)
	st := status.Convert(toStatus(err))
	require.Equal(t, codes.Unavailable, st.Code())
	require.Contains(t, st.Message(), "joined its cluster")
	require.NoError(t, s.admit(member))

	s.Started()
	require.NoError(t, s.admit(client))
	s.Drain()
	require.ErrorIs(t, s.admit(client), ErrShuttingDown)
	require.ErrorIs(t, s.admit(member), ErrShuttingDown)
}
