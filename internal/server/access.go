package server

import (
	"context"
	"fmt"
	"net"
	"strings"
	"time"
	"unicode"

	"google.golang.org/grpc"
	"google.golang.org/grpc/metadata"
	"google.golang.org/grpc/peer"
	"google.golang.org/protobuf/reflect/protoreflect"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/query/plan"
	"github.com/atolldb/atoll/internal/security"
)

// Access control
//
// Every call passes one check before a handler runs: the interceptors run
// access.admit for each unary call and stream, and the pipelines run
// access.authorize for each call they carry. A caller is what its
// connection established — a member of this cluster (the member
// handshake) or a client — and, when the member has a security section,
// the principal its credentials name (security.Authenticator). The table
// below gives every method of the member's address its rule: members
// only, any authenticated client, a cluster action, or actions on the
// maps its request names. A method the table does not name is refused,
// and a test fails for any registered method missing from it, so a
// method added later cannot slip through unchecked. Handlers check
// nothing themselves; a SQL statement, whose maps are known only once it
// is planned, is checked by authorizeStatement, from the same rules.
// Members are trusted with everything (they proved they belong), and
// without a security section every client is too, as before.

// ruleKind is what a method asks of its caller.
type ruleKind uint8

const (
	// ruleMembers: member connections only.
	ruleMembers ruleKind = iota + 1
	// ruleAuthenticated: any authenticated client.
	ruleAuthenticated
	// ruleCluster: a cluster action (admin).
	ruleCluster
	// ruleMap: an action on the map the request names.
	ruleMap
	// ruleMaps: actions on the maps a request names, which the rule's
	// needs lists (requests of several maps: transactions, lock renewals).
	ruleMaps
	// rulePerCall: a stream of calls (a pipeline), each checked by the
	// rule of the method it stands for.
	rulePerCall
	// ruleStatement: a query, checked once planned: sql for SQL, and the
	// action each map it touches needs.
	ruleStatement
)

// rule is one row of the access table.
type rule struct {
	kind   ruleKind
	action security.Action
	// needs lists what a ruleMaps request asks for.
	needs func(msg any) []mapNeed
}

// mapNeed is one action on one map that a request needs.
type mapNeed struct {
	action  security.Action
	mapName string
}

func onMaps[M any](needs func(M) []mapNeed) rule {
	return rule{kind: ruleMaps, needs: func(msg any) []mapNeed {
		m, ok := msg.(M)
		if !ok {
			return nil
		}
		return needs(m)
	}}
}

func onMap(a security.Action) rule     { return rule{kind: ruleMap, action: a} }
func onCluster(a security.Action) rule { return rule{kind: ruleCluster, action: a} }

var authenticated = rule{kind: ruleAuthenticated}

// methodRules gives every method of the member's address its rule.
var methodRules = func() map[string]rule {
	m := map[string]rule{
		pb.MapService_Put_FullMethodName:           onMap(security.ActionPut),
		pb.MapService_Set_FullMethodName:           onMap(security.ActionPut),
		pb.MapService_PutIfAbsent_FullMethodName:   onMap(security.ActionPut),
		pb.MapService_Replace_FullMethodName:       onMap(security.ActionPut),
		pb.MapService_ReplaceIfSame_FullMethodName: onMap(security.ActionPut),
		pb.MapService_SetTtl_FullMethodName:        onMap(security.ActionPut),
		pb.MapService_PutAll_FullMethodName:        onMap(security.ActionPut),
		pb.MapService_Get_FullMethodName:           onMap(security.ActionRead),
		pb.MapService_ContainsKey_FullMethodName:   onMap(security.ActionRead),
		pb.MapService_GetEntryView_FullMethodName:  onMap(security.ActionRead),
		pb.MapService_GetAll_FullMethodName:        onMap(security.ActionRead),
		pb.MapService_Size_FullMethodName:          onMap(security.ActionRead),
		pb.MapService_GetMapStats_FullMethodName:   onMap(security.ActionRead),
		pb.MapService_Iterate_FullMethodName:       onMap(security.ActionRead),
		pb.MapService_Remove_FullMethodName:        onMap(security.ActionRemove),
		pb.MapService_Delete_FullMethodName:        onMap(security.ActionRemove),
		pb.MapService_RemoveIfSame_FullMethodName:  onMap(security.ActionRemove),
		pb.MapService_Evict_FullMethodName:         onMap(security.ActionRemove),
		pb.MapService_EvictAll_FullMethodName:      onMap(security.ActionRemove),
		pb.MapService_Clear_FullMethodName:         onMap(security.ActionRemove),
		pb.MapService_Destroy_FullMethodName:       onMap(security.ActionDestroy),
		pb.MapService_ConfigureMap_FullMethodName:  onMap(security.ActionCreate),
		pb.MapService_Listen_FullMethodName:        onMap(security.ActionListen),
		pb.MapService_Lock_FullMethodName:          onMap(security.ActionLock),
		pb.MapService_Unlock_FullMethodName:        onMap(security.ActionLock),
		pb.MapService_IsLocked_FullMethodName:      onMap(security.ActionLock),
		pb.MapService_ForceUnlock_FullMethodName:   onMap(security.ActionLock),
		pb.MapService_RenewLocks_FullMethodName: onMaps(func(r *pb.RenewLocksRequest) []mapNeed {
			return keysNeed(nil, security.ActionLock, r.GetKeys())
		}),

		// A transaction reads and validates the maps it read; it locks
		// the keys it writes (Lock, Commit's own locks, Rollback and
		// Apply, which release them), and each write needs put or remove
		// as its intent says.
		pb.TransactionService_Read_FullMethodName: onMaps(func(r *pb.TxReadRequest) []mapNeed {
			return []mapNeed{{security.ActionRead, r.GetMap()}}
		}),
		pb.TransactionService_Lock_FullMethodName: onMaps(func(r *pb.TxLockRequest) []mapNeed {
			return lockEntriesNeed(nil, r.GetEntries(), r.GetRead())
		}),
		pb.TransactionService_Validate_FullMethodName: onMaps(func(r *pb.TxValidateRequest) []mapNeed {
			return validateNeed(nil, r.GetEntries())
		}),
		pb.TransactionService_Commit_FullMethodName: onMaps(func(r *pb.TxCommitRequest) []mapNeed {
			needs := lockEntriesNeed(nil, r.GetLock(), false)
			if e := r.GetOnePhase(); e != nil {
				needs = lockEntriesNeed(needs, []*pb.TxLockEntry{e}, false)
			}
			needs = validateNeed(needs, r.GetValidate())
			needs = keysNeed(needs, security.ActionLock, r.GetSecondaries())
			if k := r.GetPrimary(); k != nil {
				needs = append(needs, mapNeed{security.ActionLock, k.GetMap()})
			}
			return needs
		}),
		pb.TransactionService_Apply_FullMethodName: onMaps(func(r *pb.TxReleaseRequest) []mapNeed {
			return keysNeed(nil, security.ActionLock, r.GetKeys())
		}),
		pb.TransactionService_Rollback_FullMethodName: onMaps(func(r *pb.TxReleaseRequest) []mapNeed {
			return keysNeed(nil, security.ActionLock, r.GetKeys())
		}),

		pb.MetadataService_PutSchemas_FullMethodName:          authenticated,
		pb.MetadataService_GetSchema_FullMethodName:           authenticated,
		pb.MetadataService_PutClassDefinitions_FullMethodName: authenticated,
		pb.MetadataService_GetClassDefinition_FullMethodName:  authenticated,
		pb.MetadataService_PutLayouts_FullMethodName:          authenticated,
		pb.MetadataService_GetLayout_FullMethodName:           authenticated,
		pb.MetadataService_ListMetadata_FullMethodName:        authenticated,

		pb.ClusterService_Connect_FullMethodName:              authenticated,
		pb.ClusterService_GetPartitionTable_FullMethodName:    authenticated, // clients route by it
		pb.ClusterService_WatchPartitionTable_FullMethodName:  authenticated,
		pb.ClusterService_PushClientStatistics_FullMethodName: authenticated,
		pb.ClusterService_GetClusterState_FullMethodName:      onCluster(security.ActionAdmin),

		pb.PipelineService_Pipeline_FullMethodName: {kind: rulePerCall},

		pb.QueryService_Execute_FullMethodName:     {kind: ruleStatement},
		pb.QueryService_Fetch_FullMethodName:       authenticated, // cursors belong to their session
		pb.QueryService_Close_FullMethodName:       authenticated,
		pb.QueryService_AddIndex_FullMethodName:    onMap(security.ActionIndex),
		pb.QueryService_Pipeline_FullMethodName:    {kind: rulePerCall},
		pb.QueryService_RunFragment_FullMethodName: {kind: ruleMembers},
	}
	for _, sd := range []*grpc.ServiceDesc{&memberv1.MemberService_ServiceDesc, &memberv1.ExchangeService_ServiceDesc, &memberv1.TransactionResolverService_ServiceDesc} {
		for _, md := range sd.Methods {
			m["/"+sd.ServiceName+"/"+md.MethodName] = rule{kind: ruleMembers}
		}
		for _, st := range sd.Streams {
			m["/"+sd.ServiceName+"/"+st.StreamName] = rule{kind: ruleMembers}
		}
	}
	return m
}()

// keysNeed appends action on the map of each key.
func keysNeed(needs []mapNeed, action security.Action, keys []*pb.MapKey) []mapNeed {
	for _, k := range keys {
		needs = append(needs, mapNeed{action, k.GetMap()})
	}
	return needs
}

// lockEntriesNeed appends what locking entries needs: lock on each map,
// and put or remove for a write's intent; read, when the lock also reads
// the values.
func lockEntriesNeed(needs []mapNeed, entries []*pb.TxLockEntry, read bool) []mapNeed {
	for _, e := range entries {
		needs = append(needs, mapNeed{security.ActionLock, e.GetMap()})
		switch e.GetIntent() {
		case pb.TxIntent_TX_INTENT_PUT:
			needs = append(needs, mapNeed{security.ActionPut, e.GetMap()})
		case pb.TxIntent_TX_INTENT_REMOVE:
			needs = append(needs, mapNeed{security.ActionRemove, e.GetMap()})
		}
		if read {
			needs = append(needs, mapNeed{security.ActionRead, e.GetMap()})
		}
	}
	return needs
}

// validateNeed appends read on the map of each entry validated.
func validateNeed(needs []mapNeed, entries []*pb.TxValidateEntry) []mapNeed {
	for _, e := range entries {
		needs = append(needs, mapNeed{security.ActionRead, e.GetMap()})
	}
	return needs
}

// HasAccessRule reports whether the access table names a method (for the
// test that every registered method has a rule).
func HasAccessRule(fullMethod string) bool {
	_, ok := methodRules[fullMethod]
	return ok
}

// pipelineMethods maps the field numbers of PipelineRequest's op to the
// unary methods they stand for (the field put_if_absent for
// MapService/PutIfAbsent), and queryCallMethods those of QueryCall's.
var (
	pipelineMethods = oneofMethods((&pb.PipelineRequest{}).ProtoReflect().Descriptor().Oneofs().ByName("op"),
		opService{desc: pb.MapService_ServiceDesc}, opService{desc: pb.MetadataService_ServiceDesc},
		opService{prefix: "tx_", desc: pb.TransactionService_ServiceDesc})
	queryCallMethods = oneofMethods((&pb.QueryCall{}).ProtoReflect().Descriptor().Oneofs().ByName("op"), opService{desc: pb.QueryService_ServiceDesc})
)

// opService is a service whose methods a oneof's fields stand for: the
// field prefix+put_if_absent for the method PutIfAbsent.
type opService struct {
	prefix string
	desc   grpc.ServiceDesc
}

func oneofMethods(od protoreflect.OneofDescriptor, services ...opService) map[protoreflect.FieldNumber]string {
	out := map[protoreflect.FieldNumber]string{}
	for i := 0; i < od.Fields().Len(); i++ {
		f := od.Fields().Get(i)
		for _, sv := range services {
			field, ok := strings.CutPrefix(string(f.Name()), sv.prefix)
			if !ok {
				continue
			}
			name := camel(field)
			for _, md := range sv.desc.Methods {
				if md.MethodName == name {
					out[f.Number()] = "/" + sv.desc.ServiceName + "/" + name
				}
			}
		}
	}
	return out
}

// camel turns a field name (put_if_absent) into a method name (PutIfAbsent).
func camel(s string) string {
	var b strings.Builder
	up := true
	for _, r := range s {
		if r == '_' {
			up = true
			continue
		}
		if up {
			r = unicode.ToUpper(r)
			up = false
		}
		b.WriteRune(r)
	}
	return b.String()
}

// caller is the access decision about a call, kept in its context.
type caller struct {
	// principal is the authenticated client (nil when unrestricted).
	principal *security.Principal
	// unrestricted: a member, or a client of a member without security.
	unrestricted bool
}

type callerKey struct{}

func callerOf(ctx context.Context) *caller {
	c, _ := ctx.Value(callerKey{}).(*caller)
	return c
}

var unrestricted = &caller{unrestricted: true}

// restrictedCaller returns the caller of a pipeline's call when its
// calls are checked one by one; nil and no error when it may make any
// call, nil and an error when its stream reached no access decision.
func restrictedCaller(ctx context.Context) (*caller, error) {
	c := callerOf(ctx)
	if c == nil {
		return nil, fmt.Errorf("%w: the call reached no access decision", ErrPermissionDenied)
	}
	if c.unrestricted {
		return nil, nil
	}
	return c, nil
}

// refusalLogInterval is how often refusals of one address (or of one
// principal and action) are logged.
const refusalLogInterval = time.Minute

// access decides who may call what, and counts and logs refusals.
type access struct {
	s        *Server
	refusals security.RefusalLog
}

// admit runs the checks of a call that need only its method and
// connection. It returns the call's context (which carries the decision
// for the checks that follow) and, for a method whose rule names the map
// of its request, the check to run on the request.
func (a *access) admit(ctx context.Context, method string) (context.Context, func(msg any) error, error) {
	r, ok := methodRules[method]
	if !ok {
		a.refused(ctx, "no-rule", "refused a call of a method that has no access rule", method)
		return ctx, nil, fmt.Errorf("%w: %s has no access rule on this member", ErrPermissionDenied, method)
	}
	isMember := a.s.cfg.IsMember != nil && a.s.cfg.IsMember(ctx)
	if r.kind == ruleMembers && !isMember {
		a.refused(ctx, "member-only", "refused member-only calls from a connection that did not open with the member handshake", method)
		return ctx, nil, fmt.Errorf("%w: %s is served to the members of the cluster only, and this connection did not open with the member handshake",
			ErrPermissionDenied, method)
	}
	if isMember {
		return context.WithValue(ctx, callerKey{}, unrestricted), nil, nil
	}
	info, _ := cluster.Peer(ctx)
	if info.Refusal != nil {
		return ctx, nil, info.Refusal
	}
	if a.s.cfg.Auth == nil {
		return context.WithValue(ctx, callerKey{}, unrestricted), nil, nil
	}
	var header string
	if v := metadata.ValueFromIncomingContext(ctx, security.AuthorizationHeader); len(v) > 0 {
		header = v[0]
	}
	p, err := a.s.cfg.Auth.Authenticate(ctx, header, info.ClientCert)
	if err != nil {
		if sm := a.s.cfg.Security; sm != nil {
			sm.AuthFailures.Inc()
		}
		a.logRefusal(ctx, "auth", "refused a call: authentication failed", "method", method, "reason", err.Error())
		return ctx, nil, err
	}
	ctx = context.WithValue(ctx, callerKey{}, &caller{principal: p})
	switch r.kind {
	case ruleCluster:
		return ctx, nil, a.check(ctx, p, r.action, "")
	case ruleMap:
		return ctx, func(msg any) error { return a.checkRequest(ctx, p, r.action, msg) }, nil
	case ruleMaps:
		return ctx, func(msg any) error { return a.checkNeeds(ctx, p, r.needs(msg)) }, nil
	}
	return ctx, nil, nil
}

// authorize checks one call a pipeline carries, by the rule of the method
// it stands for, under the decision its stream was admitted with.
func (a *access) authorize(ctx context.Context, method string, msg any) error {
	c, err := restrictedCaller(ctx)
	if c == nil {
		return err
	}
	r, ok := methodRules[method]
	if !ok {
		return fmt.Errorf("%w: this call has no access rule on this member", ErrPermissionDenied)
	}
	switch r.kind {
	case ruleAuthenticated, ruleStatement:
		return nil // a statement is checked once planned
	case ruleCluster:
		return a.check(ctx, c.principal, r.action, "")
	case ruleMap:
		return a.checkRequest(ctx, c.principal, r.action, msg)
	case ruleMaps:
		return a.checkNeeds(ctx, c.principal, r.needs(msg))
	}
	return fmt.Errorf("%w: %s cannot be called in a pipeline", ErrPermissionDenied, method)
}

// authorizeMap is authorize for a call whose rule is an action on the map
// it names, given the map's name rather than the request (the framed
// pipeline's plain key operations, which it decodes without messages).
func (a *access) authorizeMap(ctx context.Context, method, mapName string) error {
	c, err := restrictedCaller(ctx)
	if c == nil {
		return err
	}
	r, ok := methodRules[method]
	if !ok || r.kind != ruleMap {
		return fmt.Errorf("%w: this call has no access rule on this member", ErrPermissionDenied)
	}
	return a.check(ctx, c.principal, r.action, mapName)
}

// checkRequest checks action on the map a request names.
func (a *access) checkRequest(ctx context.Context, p *security.Principal, action security.Action, msg any) error {
	named, ok := msg.(interface{ GetMap() string })
	if !ok {
		return fmt.Errorf("%w: the request names no map", ErrPermissionDenied)
	}
	return a.check(ctx, p, action, named.GetMap())
}

// checkNeeds checks every action a request needs (one that names no map
// touches none).
func (a *access) checkNeeds(ctx context.Context, p *security.Principal, needs []mapNeed) error {
	for _, n := range needs {
		if err := a.check(ctx, p, n.action, n.mapName); err != nil {
			return err
		}
	}
	return nil
}

// authorizeStatement checks a planned query: sql for a SQL statement,
// and for every map it touches the action that needs (read; put for
// INSERT, SINK INTO and UPDATE; remove for DELETE; create for CREATE and
// DROP MAPPING; index for CREATE INDEX; admin for the members' exchange
// counters). mappingMap resolves a dropped mapping to its map.
func (a *access) authorizeStatement(ctx context.Context, ph *plan.Physical, sql bool, mappingMap func(string) string) error {
	c := callerOf(ctx)
	if c == nil {
		return fmt.Errorf("%w: the statement reached no access decision", ErrPermissionDenied)
	}
	if c.unrestricted {
		return nil
	}
	if sql {
		if err := a.check(ctx, c.principal, security.ActionSQL, ""); err != nil {
			return err
		}
	}
	for _, t := range plan.Touches(ph.Root) {
		action, name := security.ActionRead, t.Map
		switch t.Kind {
		case plan.TouchWrite:
			action = security.ActionPut
		case plan.TouchRemove:
			action = security.ActionRemove
		case plan.TouchCreate:
			action = security.ActionCreate
		case plan.TouchDropMapping:
			action, name = security.ActionCreate, mappingMap(t.Map)
		case plan.TouchIndex:
			action = security.ActionIndex
		case plan.TouchMembers:
			action = security.ActionAdmin
		}
		if err := a.check(ctx, c.principal, action, name); err != nil {
			return err
		}
	}
	return nil
}

// check returns a *security.DeniedError (counted and logged) unless p may
// do action on the map (or the cluster).
func (a *access) check(ctx context.Context, p *security.Principal, action security.Action, mapName string) error {
	err := p.Check(action, mapName)
	if err == nil {
		return nil
	}
	if sm := a.s.cfg.Security; sm != nil {
		sm.Denied.WithLabelValues(action.String()).Inc()
	}
	a.logRefusal(ctx, p.Name+" "+action.String(), "permission denied", "principal", p.Name, "action", action.String(), "map", mapName)
	return err
}

// refused counts a call refused whoever made it, and logs it once a
// minute per remote host and kind.
func (a *access) refused(ctx context.Context, kind, msg, method string) {
	if c := a.s.cfg.RefusedCalls; c != nil {
		c.Inc()
	}
	a.logRefusal(ctx, kind, msg, "method", method)
}

// logRefusal logs a refusal at most once a minute per remote host and
// kind (what: a principal and action, or a kind of refusal).
func (a *access) logRefusal(ctx context.Context, what, msg string, args ...any) {
	host := "unknown"
	if p, ok := peer.FromContext(ctx); ok && p.Addr != nil {
		host = p.Addr.String()
		if h, _, err := net.SplitHostPort(host); err == nil {
			host = h
		}
	}
	if log, n := a.refusals.Note(host+" "+what, time.Now()); log {
		a.s.log.Warn(msg, append(args, "address", host, "refused since last logged", n)...)
	}
}
