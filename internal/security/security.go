// Package security holds what a member needs to know who calls it and
// what they may do: TLS material that reloads when its files change
// (tls.go), certificates for a cluster's own CA (certs.go), the
// principals of the configuration — users with password hashes, bearer
// tokens, client certificate subjects — and how a call proves it is one
// (authn.go, password.go), and the actions their roles grant on map-name
// patterns (roles.go). It is a leaf: the cluster layer, the server and the
// member use it; it decides nothing about calls itself.
package security

import (
	"errors"
	"fmt"
	"strings"
)

// Errors of authentication and authorization.
var (
	// ErrUnauthenticated: a call carried no credentials, or credentials
	// that name no principal of the configuration.
	ErrUnauthenticated = errors.New("security: unauthenticated")
	// ErrDenied: the principal's roles do not grant the action.
	ErrDenied = errors.New("security: permission denied")
)

// Action is what a call does, as Hazelcast's client permissions name it
// (create, destroy, put, read, remove, index, listen, lock on maps), plus
// the cluster actions sql and admin. Actions are bits: a role's grant on a
// pattern is a set of them.
type Action uint16

// Map actions.
const (
	ActionCreate Action = 1 << iota
	ActionDestroy
	ActionPut
	ActionRead
	ActionRemove
	ActionIndex
	ActionListen
	ActionLock
	// ActionSQL runs SQL statements (the maps a statement touches are
	// checked too).
	ActionSQL
	// ActionAdmin reads and changes the cluster's state: the member list
	// and partition table with migrations, exchange counters, profiles and
	// the other admin endpoints.
	ActionAdmin
)

// ActionAll is Hazelcast's "all": every map action.
const ActionAll = ActionCreate | ActionDestroy | ActionPut | ActionRead | ActionRemove | ActionIndex | ActionListen | ActionLock

// clusterActions are the actions that name no map.
const clusterActions = ActionSQL | ActionAdmin

var actionNames = []struct {
	a    Action
	name string
}{
	{ActionCreate, "create"}, {ActionDestroy, "destroy"}, {ActionPut, "put"}, {ActionRead, "read"},
	{ActionRemove, "remove"}, {ActionIndex, "index"}, {ActionListen, "listen"}, {ActionLock, "lock"},
	{ActionSQL, "sql"}, {ActionAdmin, "admin"},
}

// String names a single action; a set of several is joined with "+".
func (a Action) String() string {
	var names []string
	for _, n := range actionNames {
		if a&n.a != 0 {
			names = append(names, n.name)
		}
	}
	if len(names) == 0 {
		return "none"
	}
	return strings.Join(names, "+")
}

// ParseAction reads one action name ("all" stands for every map action).
func ParseAction(s string) (Action, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if s == "all" {
		return ActionAll, nil
	}
	for _, n := range actionNames {
		if n.name == s {
			return n.a, nil
		}
	}
	return 0, fmt.Errorf("unknown action %q: want create, destroy, put, read, remove, index, listen, lock, all, sql or admin", s)
}

// DeniedError is a call the principal's roles do not allow. It names the
// principal, the action and the map (empty for cluster actions), never a
// credential. It matches ErrDenied.
type DeniedError struct {
	Principal string
	Action    Action
	Map       string
}

func (e *DeniedError) Error() string {
	if e.Map == "" {
		return fmt.Sprintf("permission denied: %s may not %s (no role grants the cluster action %q)", e.Principal, verb(e.Action), e.Action)
	}
	return fmt.Sprintf("permission denied: %s may not %s map %q (no role grants %q on it)", e.Principal, verb(e.Action), e.Map, e.Action)
}

// Unwrap makes the error match ErrDenied.
func (e *DeniedError) Unwrap() error { return ErrDenied }

func verb(a Action) string {
	switch a {
	case ActionSQL:
		return "run SQL"
	case ActionAdmin:
		return "make admin calls"
	case ActionRead:
		return "read"
	}
	return a.String() + " on"
}

// AuthError is a refused authentication: Reason says why without
// repeating the credential. It matches ErrUnauthenticated.
type AuthError struct{ Reason string }

func (e *AuthError) Error() string { return "authentication failed: " + e.Reason }

// Unwrap makes the error match ErrUnauthenticated.
func (e *AuthError) Unwrap() error { return ErrUnauthenticated }
