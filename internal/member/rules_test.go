package member_test

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/server"
)

// TestEveryMethodHasAccessRule: every gRPC method a member serves has a
// row in the server's access table. A method added to any service
// without one fails here (and is refused by the member until it gets
// one), so nothing reaches a handler unchecked.
func TestEveryMethodHasAccessRule(t *testing.T) {
	cfg := member.DefaultConfig()
	cfg.Bind, cfg.Admin = "127.0.0.1:0", ""
	m, err := member.Start(context.Background(), cfg)
	require.NoError(t, err)
	defer m.Close()
	methods := m.ServiceMethods()
	require.Greater(t, len(methods), 50)
	for _, method := range methods {
		assert.True(t, server.HasAccessRule(method), "%s has no access rule (internal/server/access.go)", method)
	}
}
