package member_test

import (
	"context"
	"crypto/tls"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/crypto/bcrypt"
	"google.golang.org/grpc"
	"google.golang.org/grpc/codes"
	"google.golang.org/grpc/credentials/insecure"
	"google.golang.org/grpc/status"

	memberv1 "github.com/atolldb/atoll/api/proto/atoll/member/v1"
	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/cluster"
	"github.com/atolldb/atoll/internal/member"
	"github.com/atolldb/atoll/internal/metrics"
	"github.com/atolldb/atoll/internal/security"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
	"github.com/atolldb/atoll/pkg/serialization"
)

// allActions are the actions of the permission model.
var allActions = []security.Action{
	security.ActionCreate, security.ActionDestroy, security.ActionPut, security.ActionRead, security.ActionRemove,
	security.ActionIndex, security.ActionListen, security.ActionLock, security.ActionSQL, security.ActionAdmin,
}

// securedCluster is one member with TLS and a security section whose
// users each hold a set of actions on the maps "m*" (and the cluster
// actions among them), plus the users of the SQL test.
type securedCluster struct {
	c     *testcluster.Cluster
	certs *testcluster.Certs
	tls   *tls.Config

	mu      sync.Mutex
	clients map[string]*client.Client
}

const rootUser = "root"

// userName names the user holding exactly the actions set.
func userName(set security.Action) string { return "u-" + strings.ReplaceAll(set.String(), "+", "-") }

// allBut names the user holding every action but a.
func allBut(a security.Action) string { return "all-but-" + a.String() }

func password(user string) string { return "pw-" + user + "-secret" }

func roleOf(maps map[string]security.Action, cluster security.Action) security.RoleConfig {
	r := security.RoleConfig{Maps: map[string][]string{}}
	for pattern, set := range maps {
		for _, a := range allActions {
			if set&a != 0 && a != security.ActionSQL && a != security.ActionAdmin {
				r.Maps[pattern] = append(r.Maps[pattern], a.String())
			}
		}
	}
	for _, a := range []security.Action{security.ActionSQL, security.ActionAdmin} {
		if cluster&a != 0 {
			r.Cluster = append(r.Cluster, a.String())
		}
	}
	return r
}

func startSecured(t *testing.T) *securedCluster {
	t.Helper()
	everything := security.ActionAll | security.ActionSQL | security.ActionAdmin
	sets := map[string]security.Action{rootUser: everything}
	for _, a := range allActions {
		sets[userName(a)] = a
		sets[allBut(a)] = everything &^ a
	}
	for _, set := range []security.Action{
		security.ActionSQL | security.ActionRead,
		security.ActionLock | security.ActionPut, // a transaction's write
		security.ActionLock | security.ActionRemove,
	} {
		sets[userName(set)] = set
	}
	cfg := &security.Config{Roles: map[string]security.RoleConfig{}}
	addUser := func(name string, role security.RoleConfig) {
		hash, err := bcrypt.GenerateFromPassword([]byte(password(name)), bcrypt.MinCost)
		require.NoError(t, err)
		cfg.Roles[name] = role
		cfg.Users = append(cfg.Users, security.UserConfig{Name: name, PasswordHash: string(hash), Roles: []string{name}})
	}
	for name, set := range sets {
		pattern := "m*"
		if name == rootUser {
			pattern = "*"
		}
		addUser(name, roleOf(map[string]security.Action{pattern: set}, set))
	}
	// The SQL test's users.
	addUser("analyst", roleOf(map[string]security.Action{"orders*": security.ActionRead}, security.ActionSQL))
	addUser("writer", roleOf(map[string]security.Action{"orders": security.ActionPut | security.ActionRead}, security.ActionSQL))
	addUser("ddl", roleOf(map[string]security.Action{"orders": security.ActionCreate | security.ActionIndex}, security.ActionSQL))
	addUser("nosql", roleOf(map[string]security.Action{"orders": security.ActionRead}, 0))
	// A token and a certificate subject with the admin role.
	cfg.Roles["ops"] = roleOf(nil, security.ActionAdmin)
	cfg.Tokens = []security.TokenConfig{{Name: "ops", TokenHash: security.HashToken([]byte("ops-token")), Roles: []string{"ops"}}}
	cfg.Certificates = []security.CertificateConfig{{Subject: "CN=ops-cert", Roles: []string{"ops"}}, {Subject: "CN=reporting", Roles: []string{"u-read"}}}

	certs := testcluster.NewCerts(t, "perm")
	clientTLS := certs.ClientTLS(t, "")
	sc := &securedCluster{certs: certs, tls: clientTLS, clients: map[string]*client.Client{}}
	sc.c = testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{
		Configure: func(c *member.Config) {
			c.TLS = certs.Member()
			c.Security = cfg
		},
		Access: &testcluster.Access{TLS: clientTLS, Authorization: security.BasicCredentials(rootUser, password(rootUser))},
	})
	t.Cleanup(func() {
		sc.mu.Lock()
		defer sc.mu.Unlock()
		for _, c := range sc.clients {
			_ = c.Close()
		}
	})
	return sc
}

// client returns the (cached) SDK client of a user.
func (sc *securedCluster) client(t *testing.T, user string) *client.Client {
	t.Helper()
	sc.mu.Lock()
	defer sc.mu.Unlock()
	if c := sc.clients[user]; c != nil {
		return c
	}
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	c, err := client.New(ctx, client.Config{Addresses: sc.c.Addrs(), ClusterName: "test", TLS: sc.tls,
		Credentials: client.Credentials{Username: user, Password: password(user)}})
	require.NoError(t, err, user)
	sc.clients[user] = c
	return c
}

// raw returns a gRPC connection to the member over TLS that sends the
// authorization header (none when empty).
func (sc *securedCluster) raw(t *testing.T, authorization string) *grpc.ClientConn {
	t.Helper()
	access := &testcluster.Access{TLS: sc.tls, Authorization: authorization}
	cc, err := grpc.NewClient(sc.c.Addrs()[0], access.DialOptions()...)
	require.NoError(t, err)
	t.Cleanup(func() { _ = cc.Close() })
	return cc
}

func (sc *securedCluster) rawUser(t *testing.T, user string) *grpc.ClientConn {
	return sc.raw(t, security.BasicCredentials(user, password(user)))
}

// invokeAny calls any method with an empty request: enough to meet the
// access check, which runs before a handler reads its request.
func invokeAny(ctx context.Context, cc *grpc.ClientConn, method string) error {
	st, err := cc.NewStream(ctx, &grpc.StreamDesc{ServerStreams: true, ClientStreams: true}, method)
	if err != nil {
		return err
	}
	_ = st.SendMsg(&pb.Empty{})
	_ = st.CloseSend()
	return st.RecvMsg(&pb.Empty{})
}

// refused reports whether err is an access refusal.
func refused(err error) bool {
	c := status.Code(err)
	return errors.Is(err, client.ErrPermissionDenied) || errors.Is(err, client.ErrUnauthenticated) ||
		c == codes.PermissionDenied || c == codes.Unauthenticated
}

type sdkCall func(ctx context.Context, c *client.Client) error
type rawCall func(ctx context.Context, cc *grpc.ClientConn) error

// permissionRow is one method's expectation: the actions it needs on the
// map "m1" (or the cluster), how the Go SDK makes it (through the
// pipeline for most map operations) and how a raw gRPC call makes it.
type permissionRow struct {
	method string
	needs  []security.Action // none: any authenticated client
	member bool              // member connections only
	sdk    sdkCall
	raw    rawCall
}

func m1(c *client.Client) *client.Map[string, string] { return client.GetMap[string, string](c, "m1") }

// Person is a Compact value: writing it publishes its schema.
type Person struct {
	Name string
	Age  int32
}

func permissionRows(t *testing.T) []permissionRow {
	ser, err := serialization.NewService(serialization.Config{})
	require.NoError(t, err)
	d := func(v any) []byte {
		b, err := ser.ToData(v)
		require.NoError(t, err)
		return b
	}
	key, val := d("k"), d("v")
	kr := &pb.KeyRequest{Map: "m1", Key: key}
	put := &pb.PutRequest{Map: "m1", Key: key, Value: val}
	ms := func(cc *grpc.ClientConn) pb.MapServiceClient { return pb.NewMapServiceClient(cc) }
	md := func(cc *grpc.ClientConn) pb.MetadataServiceClient { return pb.NewMetadataServiceClient(cc) }
	cs := func(cc *grpc.ClientConn) pb.ClusterServiceClient { return pb.NewClusterServiceClient(cc) }
	qs := func(cc *grpc.ClientConn) pb.QueryServiceClient { return pb.NewQueryServiceClient(cc) }
	one := func(a security.Action) []security.Action { return []security.Action{a} }
	stream := func(open func(ctx context.Context, cc *grpc.ClientConn) (grpc.ClientStream, error)) rawCall {
		return func(ctx context.Context, cc *grpc.ClientConn) error {
			st, err := open(ctx, cc)
			if err != nil {
				return err
			}
			return st.RecvMsg(&pb.EntriesResponse{})
		}
	}
	tc := func(cc *grpc.ClientConn) pb.TransactionServiceClient { return pb.NewTransactionServiceClient(cc) }
	txnID := func(n byte) []byte { id := make([]byte, 16); id[0], id[15] = 0x7a, n; return id }
	P, R, X, L := security.ActionPut, security.ActionRead, security.ActionRemove, security.ActionLock
	return []permissionRow{
		{pb.MapService_Put_FullMethodName, one(P), false,
			func(ctx context.Context, c *client.Client) error { _, _, err := m1(c).Put(ctx, "k", "v"); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).Put(ctx, put); return err }},
		{pb.MapService_Set_FullMethodName, one(P), false,
			func(ctx context.Context, c *client.Client) error { return m1(c).Set(ctx, "k", "v") },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).Set(ctx, &pb.SetRequest{Map: "m1", Key: key, Value: val})
				return err
			}},
		{pb.MapService_PutIfAbsent_FullMethodName, one(P), false,
			func(ctx context.Context, c *client.Client) error {
				_, _, err := m1(c).PutIfAbsent(ctx, "k", "v")
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).PutIfAbsent(ctx, put)
				return err
			}},
		{pb.MapService_Replace_FullMethodName, one(P), false,
			func(ctx context.Context, c *client.Client) error {
				_, _, err := m1(c).Replace(ctx, "k", "v")
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).Replace(ctx, put); return err }},
		{pb.MapService_ReplaceIfSame_FullMethodName, one(P), false,
			func(ctx context.Context, c *client.Client) error {
				_, err := m1(c).ReplaceIfSame(ctx, "k", "v", "w")
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).ReplaceIfSame(ctx, &pb.ReplaceIfSameRequest{Map: "m1", Key: key, Expected: val, Value: val})
				return err
			}},
		{pb.MapService_SetTtl_FullMethodName, one(P), false,
			func(ctx context.Context, c *client.Client) error {
				_, err := m1(c).SetTTL(ctx, "k", time.Hour)
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).SetTtl(ctx, &pb.SetTtlRequest{Map: "m1", Key: key, TtlMs: 1000})
				return err
			}},
		{pb.MapService_PutAll_FullMethodName, one(P), false,
			func(ctx context.Context, c *client.Client) error {
				return m1(c).PutAll(ctx, []client.Entry[string, string]{{Key: "a", Value: "1"}, {Key: "b", Value: "2"}})
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).PutAll(ctx, &pb.PutAllRequest{Map: "m1", Entries: []*pb.Entry{{Key: key, Value: val}}})
				return err
			}},
		{pb.MapService_Get_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error { _, _, err := m1(c).Get(ctx, "k"); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).Get(ctx, kr); return err }},
		{pb.MapService_ContainsKey_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error { _, err := m1(c).ContainsKey(ctx, "k"); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).ContainsKey(ctx, kr)
				return err
			}},
		{pb.MapService_GetEntryView_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error {
				_, _, err := m1(c).GetEntryView(ctx, "k")
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).GetEntryView(ctx, kr)
				return err
			}},
		{pb.MapService_GetAll_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error {
				_, err := m1(c).GetAll(ctx, []string{"k", "a"})
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).GetAll(ctx, &pb.GetAllRequest{Map: "m1", Keys: [][]byte{key}})
				return err
			}},
		{pb.MapService_Size_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error { _, err := m1(c).Size(ctx); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).Size(ctx, &pb.MapRequest{Map: "m1"})
				return err
			}},
		{pb.MapService_GetMapStats_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error { _, err := m1(c).Stats(ctx); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).GetMapStats(ctx, &pb.MapRequest{Map: "m1"})
				return err
			}},
		{pb.MapService_Iterate_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error { _, err := m1(c).EntrySet(ctx); return err },
			stream(func(ctx context.Context, cc *grpc.ClientConn) (grpc.ClientStream, error) {
				return ms(cc).Iterate(ctx, &pb.IterateRequest{Map: "m1", Kind: pb.IterationKind_ITERATION_KIND_ENTRIES})
			})},
		{pb.MapService_Remove_FullMethodName, one(X), false,
			func(ctx context.Context, c *client.Client) error { _, _, err := m1(c).Remove(ctx, "k"); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).Remove(ctx, kr); return err }},
		{pb.MapService_Delete_FullMethodName, one(X), false,
			func(ctx context.Context, c *client.Client) error { _, err := m1(c).Delete(ctx, "k"); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).Delete(ctx, kr); return err }},
		{pb.MapService_RemoveIfSame_FullMethodName, one(X), false,
			func(ctx context.Context, c *client.Client) error {
				_, err := m1(c).RemoveIfSame(ctx, "k", "v")
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).RemoveIfSame(ctx, &pb.ReplaceIfSameRequest{Map: "m1", Key: key, Expected: val})
				return err
			}},
		{pb.MapService_Evict_FullMethodName, one(X), false,
			func(ctx context.Context, c *client.Client) error { _, err := m1(c).Evict(ctx, "k"); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).Evict(ctx, kr); return err }},
		{pb.MapService_EvictAll_FullMethodName, one(X), false,
			func(ctx context.Context, c *client.Client) error { return m1(c).EvictAll(ctx) },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).EvictAll(ctx, &pb.MapRequest{Map: "m1"})
				return err
			}},
		{pb.MapService_Clear_FullMethodName, one(X), false,
			func(ctx context.Context, c *client.Client) error { return m1(c).Clear(ctx) },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).Clear(ctx, &pb.MapRequest{Map: "m1"})
				return err
			}},
		{pb.MapService_ConfigureMap_FullMethodName, one(security.ActionCreate), false,
			func(ctx context.Context, c *client.Client) error {
				n := int64(1000)
				return m1(c).Configure(ctx, client.MapConfig{MaxEntries: &n})
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).ConfigureMap(ctx, &pb.MapConfig{Map: "m1"})
				return err
			}},
		{pb.MapService_Listen_FullMethodName, one(security.ActionListen), false,
			func(ctx context.Context, c *client.Client) error {
				l, err := m1(c).AddEntryListener(ctx, client.ListenerConfig[string]{}, func(client.EntryEvent[string, string]) {})
				if err == nil {
					l.Close()
				}
				return err
			},
			stream(func(ctx context.Context, cc *grpc.ClientConn) (grpc.ClientStream, error) {
				return ms(cc).Listen(ctx, &pb.ListenRequest{Map: "m1"})
			})},
		{pb.MapService_Destroy_FullMethodName, one(security.ActionDestroy), false,
			func(ctx context.Context, c *client.Client) error { return m1(c).Destroy(ctx) },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).Destroy(ctx, &pb.MapRequest{Map: "m1"})
				return err
			}},
		{pb.QueryService_AddIndex_FullMethodName, one(security.ActionIndex), false,
			func(ctx context.Context, c *client.Client) error {
				return m1(c).AddIndex(ctx, client.IndexConfig{Type: client.IndexHash, Attributes: []string{"this"}})
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := qs(cc).AddIndex(ctx, &pb.AddIndexRequest{Map: "m1", Attributes: []string{"this"}})
				return err
			}},
		// SQL needs sql, and read on the maps it reads; a predicate query
		// needs read alone.
		{pb.QueryService_Execute_FullMethodName, []security.Action{security.ActionSQL, R}, false,
			func(ctx context.Context, c *client.Client) error {
				rows, err := c.SQL(ctx, "SELECT * FROM m1")
				if err == nil {
					rows.Close()
				}
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := qs(cc).Execute(ctx, &pb.ExecuteRequest{Query: &pb.ExecuteRequest_Sql{Sql: "SELECT * FROM m1"}})
				return err
			}},
		{pb.QueryService_Execute_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error {
				_, err := m1(c).EntrySetWithPredicate(ctx, predicate.Equal("this", "v"))
				return err
			}, nil},
		{pb.ClusterService_GetClusterState_FullMethodName, one(security.ActionAdmin), false,
			func(ctx context.Context, c *client.Client) error { _, err := c.ClusterState(ctx); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := cs(cc).GetClusterState(ctx, &pb.GetClusterStateRequest{})
				return err
			}},
		// Any authenticated client.
		{pb.ClusterService_Connect_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := cs(cc).Connect(ctx, &pb.ConnectRequest{ClusterName: "test", ClientUuid: make([]byte, 16)})
				return err
			}},
		{pb.ClusterService_GetPartitionTable_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := cs(cc).GetPartitionTable(ctx, &pb.GetPartitionTableRequest{})
				return err
			}},
		{pb.ClusterService_WatchPartitionTable_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				st, err := cs(cc).WatchPartitionTable(ctx, &pb.GetPartitionTableRequest{})
				if err == nil {
					_, err = st.Recv()
				}
				return err
			}},
		{pb.ClusterService_PushClientStatistics_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := cs(cc).PushClientStatistics(ctx, &pb.ClientStatistics{ClientUuid: make([]byte, 16)})
				return err
			}},
		{pb.MetadataService_PutSchemas_FullMethodName, nil, false,
			func(ctx context.Context, c *client.Client) error {
				return client.GetMap[string, Person](c, "m1").Set(ctx, "p", Person{Name: "a", Age: 1})
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := md(cc).PutSchemas(ctx, &pb.PutSchemasRequest{})
				return err
			}},
		{pb.MetadataService_GetSchema_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := md(cc).GetSchema(ctx, &pb.GetSchemaRequest{Id: 42})
				return err
			}},
		{pb.MetadataService_PutClassDefinitions_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := md(cc).PutClassDefinitions(ctx, &pb.PutClassDefinitionsRequest{})
				return err
			}},
		{pb.MetadataService_GetClassDefinition_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := md(cc).GetClassDefinition(ctx, &pb.GetClassDefinitionRequest{FactoryId: 1, ClassId: 1})
				return err
			}},
		{pb.MetadataService_PutLayouts_FullMethodName, nil, false,
			func(ctx context.Context, c *client.Client) error {
				l, err := serialization.NewLayout(9, 9, []serialization.LayoutField{{Name: "x", Op: serialization.OpInt}})
				if err != nil {
					return err
				}
				return c.RegisterLayouts(ctx, l)
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := md(cc).PutLayouts(ctx, &pb.PutLayoutsRequest{})
				return err
			}},
		{pb.MetadataService_GetLayout_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := md(cc).GetLayout(ctx, &pb.GetLayoutRequest{FactoryId: 9, ClassId: 9})
				return err
			}},
		{pb.MetadataService_ListMetadata_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := md(cc).ListMetadata(ctx, &pb.Empty{})
				return err
			}},
		{pb.QueryService_Fetch_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := qs(cc).Fetch(ctx, &pb.FetchRequest{CursorId: 987654321})
				return err
			}},
		{pb.QueryService_Close_FullMethodName, nil, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := qs(cc).Close(ctx, &pb.CloseRequest{CursorId: 987654321})
				return err
			}},
		// Locks need lock on their map.
		{pb.MapService_Lock_FullMethodName, one(L), false,
			func(ctx context.Context, c *client.Client) error {
				if err := m1(c).Lock(ctx, "locked"); err != nil {
					return err
				}
				return m1(c).Unlock(ctx, "locked")
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				lease := int64(1000)
				_, err := ms(cc).Lock(ctx, &pb.LockRequest{Map: "m1", Key: d("raw-locked"), LeaseMs: &lease})
				return err
			}},
		{pb.MapService_Unlock_FullMethodName, one(L), false,
			func(ctx context.Context, c *client.Client) error {
				err := m1(c).Unlock(ctx, "not-locked")
				if errors.Is(err, client.ErrNotLockOwner) {
					return nil
				}
				return err
			},
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).Unlock(ctx, kr); return err }},
		{pb.MapService_IsLocked_FullMethodName, one(L), false,
			func(ctx context.Context, c *client.Client) error { _, err := m1(c).IsLocked(ctx, "k"); return err },
			func(ctx context.Context, cc *grpc.ClientConn) error { _, err := ms(cc).IsLocked(ctx, kr); return err }},
		{pb.MapService_ForceUnlock_FullMethodName, one(L), false,
			func(ctx context.Context, c *client.Client) error { return m1(c).ForceUnlock(ctx, "k") },
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).ForceUnlock(ctx, kr)
				return err
			}},
		{pb.MapService_RenewLocks_FullMethodName, one(L), false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := ms(cc).RenewLocks(ctx, &pb.RenewLocksRequest{Keys: []*pb.MapKey{{Map: "m1", Key: key}}, LeaseMs: 1000})
				return err
			}},
		// A transaction reads with read, locks what it writes with lock
		// and put or remove, and validates what it read with read (each
		// row on keys of its own, with a short lease).
		{pb.TransactionService_Read_FullMethodName, one(R), false,
			func(ctx context.Context, c *client.Client) error {
				return c.RunInTransaction(ctx, func(tx *client.Tx) error {
					_, _, err := client.TxMap[string, string](tx, "m1").Get(ctx, "tx-read")
					return err
				})
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := tc(cc).Read(ctx, &pb.TxReadRequest{TxnId: txnID(1), Map: "m1", Key: d("tx-read")})
				return err
			}},
		{pb.TransactionService_Lock_FullMethodName, []security.Action{L, X}, false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				mk := &pb.MapKey{Map: "m1", Key: d("tx-lock")}
				_, err := tc(cc).Lock(ctx, &pb.TxLockRequest{TxnId: txnID(2), LeaseMs: 1000, Primary: mk,
					Entries: []*pb.TxLockEntry{{Map: "m1", Key: mk.Key, Expect: &pb.TxExpect{}, Intent: pb.TxIntent_TX_INTENT_REMOVE}}})
				return err
			}},
		{pb.TransactionService_Validate_FullMethodName, one(R), false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := tc(cc).Validate(ctx, &pb.TxValidateRequest{TxnId: txnID(3),
					Entries: []*pb.TxValidateEntry{{Map: "m1", Key: d("tx-validate"), Expect: &pb.TxExpect{}}}})
				return err
			}},
		{pb.TransactionService_Commit_FullMethodName, []security.Action{L, P}, false,
			func(ctx context.Context, c *client.Client) error {
				return c.RunInTransaction(ctx, func(tx *client.Tx) error {
					return client.TxMap[string, string](tx, "m1").Set(ctx, "tx-commit", "v")
				})
			},
			func(ctx context.Context, cc *grpc.ClientConn) error {
				mk := &pb.MapKey{Map: "m1", Key: d("tx-commit")}
				_, err := tc(cc).Commit(ctx, &pb.TxCommitRequest{TxnId: txnID(4), LeaseMs: 1000, Primary: mk, Finish: true,
					OnePhase: &pb.TxLockEntry{Map: "m1", Key: mk.Key, Expect: &pb.TxExpect{}, Intent: pb.TxIntent_TX_INTENT_PUT, Value: val}})
				return err
			}},
		{pb.TransactionService_Apply_FullMethodName, one(L), false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := tc(cc).Apply(ctx, &pb.TxReleaseRequest{TxnId: txnID(5), Keys: []*pb.MapKey{{Map: "m1", Key: d("tx-apply")}}})
				return err
			}},
		{pb.TransactionService_Rollback_FullMethodName, one(L), false, nil,
			func(ctx context.Context, cc *grpc.ClientConn) error {
				_, err := tc(cc).Rollback(ctx, &pb.TxReleaseRequest{TxnId: txnID(6), Keys: []*pb.MapKey{{Map: "m1", Key: d("tx-rollback")}}})
				return err
			}},
		// Streams of calls: the stream needs authentication, each call the
		// rule of its method (the rows above go through them).
		{pb.PipelineService_Pipeline_FullMethodName, nil, false,
			func(ctx context.Context, c *client.Client) error { _, _, err := m1(c).Get(ctx, "k"); return err }, nil},
		{pb.QueryService_Pipeline_FullMethodName, nil, false,
			func(ctx context.Context, c *client.Client) error {
				rows, err := c.SQL(ctx, "SHOW MAPPINGS")
				if err == nil {
					rows.Close()
				}
				return err
			}, nil},
	}
}

// TestSecurityPermissions runs every gRPC method of the member, through
// the Go SDK where it makes the call (most map operations travel in its
// pipeline) and as a raw gRPC call: allowed for a user whose roles grant
// exactly the actions the method needs, denied (PermissionDenied naming
// the action and the map) for a user granted every action but one of
// them; methods for any authenticated client are refused
// (Unauthenticated) without credentials; member-only methods are refused
// to every client, the admin included. Every method the member serves
// must have a row.
func TestSecurityPermissions(t *testing.T) {
	sc := startSecured(t)
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	root := sc.client(t, rootUser)
	_, err := root.SQL(ctx, "CREATE MAPPING m1 TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='varchar')")
	require.NoError(t, err)

	rows := permissionRows(t)
	covered := map[string]bool{}
	for _, r := range rows {
		covered[r.method] = true
	}
	methods := sc.c.Live()[0].Member().ServiceMethods()
	for _, m := range methods {
		if strings.HasPrefix(m, "/atoll.member.v1.") || m == pb.QueryService_RunFragment_FullMethodName {
			rows = append(rows, permissionRow{method: m, member: true})
			covered[m] = true
		}
		assert.True(t, covered[m], "no permission test row for %s", m)
	}

	noCreds := sc.raw(t, "")
	wrongPassword := sc.raw(t, security.BasicCredentials(rootUser, "not-the-password"))
	rootRaw := sc.rawUser(t, rootUser)
	for _, r := range rows {
		name := strings.TrimPrefix(r.method, "/atoll.")
		if len(r.needs) > 0 {
			name += fmt.Sprintf(" needs %v", r.needs)
		}
		t.Run(name, func(t *testing.T) {
			if r.member {
				err := invokeAny(ctx, rootRaw, r.method)
				assert.Equal(t, codes.PermissionDenied, status.Code(err), "the admin calling a member-only method: %v", err)
				return
			}
			// Allowed.
			var set security.Action
			for _, a := range r.needs {
				set |= a
			}
			user := rootUser
			if set != 0 {
				user = userName(set)
			}
			if r.sdk != nil {
				err := r.sdk(ctx, sc.client(t, user))
				assert.False(t, refused(err), "%s through the SDK as %s: %v", r.method, user, err)
			}
			if r.raw != nil {
				err := r.raw(ctx, sc.rawUser(t, user))
				assert.False(t, refused(err), "%s as %s: %v", r.method, user, err)
			}
			// Denied.
			if len(r.needs) == 0 {
				for _, cc := range []*grpc.ClientConn{noCreds, wrongPassword} {
					err := invokeAny(ctx, cc, r.method)
					assert.Equal(t, codes.Unauthenticated, status.Code(err), "%s without valid credentials: %v", r.method, err)
				}
				return
			}
			for _, a := range r.needs {
				user := allBut(a)
				mapName := `map "m1"`
				if a == security.ActionSQL || a == security.ActionAdmin {
					mapName = "cluster action"
				}
				if r.sdk != nil {
					err := r.sdk(ctx, sc.client(t, user))
					require.ErrorIs(t, err, client.ErrPermissionDenied, "%s through the SDK as %s", r.method, user)
					assert.Contains(t, err.Error(), fmt.Sprintf("%q", a.String()))
					assert.Contains(t, err.Error(), mapName)
				}
				if r.raw != nil {
					err := r.raw(ctx, sc.rawUser(t, user))
					assert.Equal(t, codes.PermissionDenied, status.Code(err), "%s as %s: %v", r.method, user, err)
					assert.Contains(t, status.Convert(err).Message(), fmt.Sprintf("%q", a.String()))
				}
			}
		})
	}

	// Denials are counted by action, and logged once per principal and
	// action (here: several denials of put within the minute).
	fams, err := sc.c.Live()[0].Metrics(ctx)
	require.NoError(t, err)
	for _, a := range []string{"put", "read", "remove", "sql", "admin"} {
		v, ok := series(fams, "atoll_security_denied_total", map[string]string{"action": a})
		assert.True(t, ok && v >= 1, "atoll_security_denied_total{action=%q} = %v", a, v)
	}
	for _, lock := range metrics.SecurityActions {
		_, ok := series(fams, "atoll_security_denied_total", map[string]string{"action": lock})
		assert.True(t, ok, "the series of %s exists from the start", lock)
	}
	logs := sc.c.Live()[0].Logs()
	assert.Equal(t, 1, strings.Count(logs, `msg="permission denied" principal="user all-but-put" action=put`), "denials of one principal and action are logged once a minute")
	assert.NotContains(t, logs, "not-the-password", "no credential in the logs")
	assert.NotContains(t, logs, password(allBut(security.ActionPut)))
	failures, _ := series(fams, "atoll_security_authentication_failures_total", nil)
	assert.GreaterOrEqual(t, failures, 2.0)
}

// TestSecuritySQL: a statement needs sql, and for every map behind the
// mappings it touches the action its part needs: SELECT (and the rows an
// UPDATE or DELETE finds) read, INSERT, SINK INTO and UPDATE put, DELETE
// remove, CREATE and DROP MAPPING create, CREATE INDEX index, the
// members' exchange counters admin. A mapping does not hide its map.
func TestSecuritySQL(t *testing.T) {
	sc := startSecured(t)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	root := sc.client(t, rootUser)
	for _, ddl := range []string{
		"CREATE MAPPING orders TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')",
		"CREATE MAPPING secrets TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')",
		"CREATE MAPPING alias EXTERNAL NAME secrets TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')",
		"INSERT INTO orders VALUES (1, 'one'), (2, 'two')",
		"INSERT INTO secrets VALUES (1, 'hidden')",
	} {
		_, err := root.SQL(ctx, ddl)
		require.NoError(t, err, ddl)
	}
	exec := func(user, stmt string) error {
		rows, err := sc.client(t, user).SQL(ctx, stmt)
		if err != nil {
			return err
		}
		defer rows.Close()
		for rows.Next() {
		}
		return rows.Err()
	}
	for _, c := range []struct {
		user, stmt string
		denied     string // "" = allowed; else the action and map named
	}{
		{"analyst", "SELECT * FROM orders", ""},
		{"analyst", "SELECT COUNT(*) FROM orders WHERE this = 'one'", ""},
		{"analyst", "SELECT * FROM secrets", `"read" on it`},
		{"analyst", "SELECT * FROM alias", `map "secrets"`},
		{"analyst", "SELECT o.this FROM orders o JOIN secrets s ON o.__key = s.__key", `map "secrets"`},
		{"analyst", "SELECT * FROM orders WHERE __key IN (SELECT __key FROM secrets)", `map "secrets"`},
		{"analyst", "EXPLAIN SELECT * FROM secrets", `map "secrets"`},
		{"analyst", "INSERT INTO orders VALUES (3, 'three')", `"put"`},
		{"analyst", "SINK INTO orders SELECT __key, this FROM orders", `"put"`},
		{"analyst", "UPDATE orders SET this = 'x' WHERE __key = 1", `"put"`},
		{"analyst", "DELETE FROM orders WHERE __key = 1", `"remove"`},
		{"analyst", "CREATE MAPPING o2 EXTERNAL NAME orders TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')", `"create"`},
		{"analyst", "DROP MAPPING orders", `"create"`},
		{"analyst", "CREATE INDEX oi ON orders (this)", `"index"`},
		{"analyst", "SELECT * FROM TABLE(exchange_stats())", `"admin"`},
		{"writer", "INSERT INTO orders VALUES (3, 'three')", ""},
		{"writer", "SINK INTO orders VALUES (3, 'drei')", ""},
		{"writer", "UPDATE orders SET this = 'eins' WHERE __key = 1", ""},
		{"writer", "DELETE FROM orders WHERE __key = 3", `"remove"`},
		{"writer", "INSERT INTO secrets VALUES (9, 'x')", `map "secrets"`},
		{"writer", "INSERT INTO orders SELECT __key + 10, this FROM secrets", `map "secrets"`},
		{"ddl", "CREATE MAPPING o2 EXTERNAL NAME orders TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')", ""},
		{"ddl", "DROP MAPPING o2", ""},
		{"ddl", "CREATE INDEX IF NOT EXISTS oi ON orders (this)", ""},
		{"ddl", "CREATE MAPPING s2 EXTERNAL NAME secrets TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='varchar')", `map "secrets"`},
		{"ddl", "DROP MAPPING alias", `map "secrets"`},
		{"ddl", "SELECT * FROM orders", `"read"`},
		{"nosql", "SELECT * FROM orders", `"sql"`},
	} {
		err := exec(c.user, c.stmt)
		if c.denied == "" {
			assert.NoError(t, err, "%s: %s", c.user, c.stmt)
			continue
		}
		if assert.ErrorIs(t, err, client.ErrPermissionDenied, "%s: %s", c.user, c.stmt) {
			assert.Contains(t, err.Error(), c.denied, "%s: %s", c.user, c.stmt)
		}
	}
	// The refused statements changed nothing.
	var n int64
	rows, err := root.SQL(ctx, "SELECT COUNT(*) FROM secrets")
	require.NoError(t, err)
	for rows.Next() {
		require.NoError(t, rows.Scan(&n))
	}
	rows.Close()
	assert.Equal(t, int64(1), n)
	// A predicate query is checked the same way (read, no sql).
	_, err = client.GetMap[int32, string](sc.client(t, "analyst"), "secrets").EntrySetWithPredicate(ctx, predicate.Equal("this", "hidden"))
	assert.ErrorIs(t, err, client.ErrPermissionDenied)
	got, err := client.GetMap[int32, string](sc.client(t, "nosql"), "orders").ValuesWithPredicate(ctx, predicate.Equal("this", "two"))
	require.NoError(t, err)
	assert.Equal(t, []string{"two"}, got)
}

// TestSecurityAuthentication: a client without credentials, with a wrong
// password or an unknown token is refused at connection with
// ErrUnauthenticated (no secret in the error or the logs); a token and a
// client certificate subject name principals; credentials are never
// sent without TLS unless allowed.
func TestSecurityAuthentication(t *testing.T) {
	sc := startSecured(t)
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	connect := func(cfg client.Config) (*client.Client, error) {
		cfg.Addresses, cfg.ClusterName = sc.c.Addrs(), "test"
		if cfg.TLS == nil {
			cfg.TLS = sc.tls
		}
		cfg.ConnectTimeout = 30 * time.Second
		c, err := client.New(ctx, cfg)
		if err == nil {
			t.Cleanup(func() { _ = c.Close() })
		}
		return c, err
	}
	start := time.Now()
	for name, creds := range map[string]client.Credentials{
		"none":           {},
		"wrong password": {Username: "analyst", Password: "guess-1234"},
		"unknown user":   {Username: "mallory", Password: "guess-1234"},
		"unknown token":  {Token: "guess-token"},
	} {
		_, err := connect(client.Config{Credentials: creds})
		require.ErrorIs(t, err, client.ErrUnauthenticated, name)
		assert.NotContains(t, err.Error(), "guess", name)
	}
	assert.Less(t, time.Since(start), 25*time.Second, "refusals are not retried until a timeout")
	assert.NotContains(t, sc.c.Live()[0].Logs(), "guess")

	ops, err := connect(client.Config{Credentials: client.Credentials{Token: "ops-token"}})
	require.NoError(t, err)
	st, err := ops.ClusterState(ctx)
	require.NoError(t, err)
	assert.Len(t, st.Members, 1)
	_, _, err = m1(ops).Get(ctx, "k")
	assert.ErrorIs(t, err, client.ErrPermissionDenied, "the ops role has no map action")

	// A client certificate of the CA names its principal.
	rep, err := connect(client.Config{TLS: sc.certs.ClientTLS(t, "reporting")})
	require.NoError(t, err)
	_, _, err = m1(rep).Get(ctx, "k")
	assert.NoError(t, err)
	assert.ErrorIs(t, m1(rep).Set(ctx, "k", "v"), client.ErrPermissionDenied)
	// A certificate of another CA names nobody.
	other := testcluster.NewCerts(t, "other")
	otherTLS := other.ClientTLS(t, "reporting")
	otherTLS.RootCAs = sc.tls.RootCAs
	_, err = connect(client.Config{TLS: otherTLS})
	assert.ErrorIs(t, err, client.ErrUnauthenticated)

	_, err = client.New(ctx, client.Config{Addresses: sc.c.Addrs(), ClusterName: "test", Credentials: client.Credentials{Username: "a", Password: "b"}})
	assert.ErrorContains(t, err, "only over TLS")
}

// TestAdminPortSecurity: with security on, the admin address serves
// /debug/* only to a principal with the admin action (a user, a token or
// a client certificate), over TLS; /metrics, /healthz and /readyz stay
// open.
func TestAdminPortSecurity(t *testing.T) {
	sc := startSecured(t)
	admin := sc.c.Live()[0].AdminAddr
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	get := func(path, authorization string, cfg *tls.Config) int {
		t.Helper()
		req, err := http.NewRequestWithContext(ctx, http.MethodGet, "https://"+admin+path, nil)
		require.NoError(t, err)
		if authorization != "" {
			req.Header.Set("Authorization", authorization)
		}
		resp, err := (&http.Client{Transport: &http.Transport{TLSClientConfig: cfg, DisableKeepAlives: true}}).Do(req)
		require.NoError(t, err)
		_, _ = io.Copy(io.Discard, resp.Body)
		_ = resp.Body.Close()
		return resp.StatusCode
	}
	for _, path := range []string{"/metrics", "/healthz", "/readyz"} {
		code := get(path, "", sc.tls)
		assert.True(t, code == http.StatusOK || path == "/readyz" && code == http.StatusServiceUnavailable, "%s: %d", path, code)
	}
	for _, path := range []string{"/debug/pprof/", "/debug/pprof/heap", "/debug/memory", "/debug/pprof/rates"} {
		assert.Equal(t, http.StatusUnauthorized, get(path, "", sc.tls), path)
		assert.Equal(t, http.StatusUnauthorized, get(path, security.BasicCredentials(rootUser, "wrong"), sc.tls), path)
		assert.Equal(t, http.StatusForbidden, get(path, security.BasicCredentials(allBut(security.ActionAdmin), password(allBut(security.ActionAdmin))), sc.tls), path)
		assert.Equal(t, http.StatusOK, get(path, security.BasicCredentials(rootUser, password(rootUser)), sc.tls), path)
		assert.Equal(t, http.StatusOK, get(path, "Bearer ops-token", sc.tls), path)
		assert.Equal(t, http.StatusOK, get(path, "", sc.certs.ClientTLS(t, "ops-cert")), path)
	}
	// Plain HTTP gets no answer of substance from a TLS admin address.
	resp, err := http.Get("http://" + admin + "/debug/pprof/")
	if err == nil {
		assert.NotEqual(t, http.StatusOK, resp.StatusCode)
		_ = resp.Body.Close()
	}
	assert.Contains(t, sc.c.Live()[0].Logs(), "refused an admin request")
}

// TestSecurityOffLogLine: without a security section the member says so
// in one line at start, and binds to loopback by default.
func TestSecurityOffLogLine(t *testing.T) {
	c := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	logs := c.Live()[0].Logs()
	assert.Equal(t, 1, strings.Count(logs, "security is off"), logs)
	assert.Contains(t, logs, "loopback=true")
	assert.Equal(t, "127.0.0.1:5701", member.DefaultConfig().Bind)
}

// TestTLSClients: a plaintext client of a TLS member and a TLS client of
// a plaintext member each fail at once with an error that says so; a
// member that requires client certificates refuses a client without
// one; renewed member certificates are served without a restart.
func TestTLSClients(t *testing.T) {
	certs := testcluster.NewCerts(t, "tls")
	tlsMember := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{
		Configure: func(c *member.Config) {
			c.TLS = certs.Member()
			c.TLS.ReloadInterval = member.Duration(50 * time.Millisecond)
		},
		Access: &testcluster.Access{TLS: certs.ClientTLS(t, "")},
	})
	plainMember := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()

	start := time.Now()
	_, err := client.New(ctx, client.Config{Addresses: tlsMember.Addrs(), ClusterName: "test"})
	require.ErrorIs(t, err, client.ErrUnauthenticated)
	assert.Contains(t, err.Error(), "serves TLS only")
	_, err = client.New(ctx, client.Config{Addresses: plainMember.Addrs(), ClusterName: "test", TLS: certs.ClientTLS(t, "")})
	var hs *client.HandshakeError
	require.ErrorAs(t, err, &hs)
	assert.Contains(t, err.Error(), "serves plaintext")
	assert.Less(t, time.Since(start), 5*time.Second, "neither waits for the connect timeout")

	c, err := client.New(ctx, client.Config{Addresses: tlsMember.Addrs(), ClusterName: "test", TLS: certs.ClientTLS(t, "")})
	require.NoError(t, err)
	defer c.Close()
	require.NoError(t, m1(c).Set(ctx, "k", "v"))

	// Renewal: new files in place; the next connection gets the new
	// certificate.
	renewed, key, err := certs.CA.Issue(security.CertOptions{CommonName: "renewed member", Hosts: []string{"127.0.0.1"}, Server: true, Client: true})
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(certs.KeyFile, key, 0o600))
	require.NoError(t, os.WriteFile(certs.CertFile, renewed, 0o644))
	require.Eventually(t, func() bool {
		conn, err := tls.Dial("tcp", tlsMember.Addrs()[0], certs.ClientTLS(t, ""))
		if err != nil {
			return false
		}
		defer conn.Close()
		return conn.ConnectionState().PeerCertificates[0].Subject.CommonName == "renewed member"
	}, 30*time.Second, 20*time.Millisecond)
	assert.Contains(t, tlsMember.Live()[0].Logs(), "TLS certificates reloaded")

	required := testcluster.Start(t, testcluster.InProcess, 1, testcluster.Options{
		Configure: func(c *member.Config) {
			c.TLS = certs.Member()
			c.TLS.ClientAuth = "required"
		},
		Access: &testcluster.Access{TLS: certs.ClientTLS(t, "app")},
	})
	_, err = client.New(ctx, client.Config{Addresses: required.Addrs(), ClusterName: "test", TLS: certs.ClientTLS(t, "")})
	require.ErrorIs(t, err, client.ErrUnauthenticated)
	assert.Contains(t, err.Error(), "client certificate")
	withCert, err := client.New(ctx, client.Config{Addresses: required.Addrs(), ClusterName: "test", TLS: certs.ClientTLS(t, "app")})
	require.NoError(t, err)
	_ = withCert.Close()
}

// TestSecuredMembers runs three member processes with TLS, a cluster
// secret and a security section: they form one cluster and replicate
// over TLS. A member whose certificate another CA signed, and one with
// another cluster secret, cannot join: each exits saying why, the
// cluster logs the refusal, and neither gets a table or data.
func TestSecuredMembers(t *testing.T) {
	if testing.Short() {
		t.Skip("starts member processes")
	}
	certs := testcluster.NewCerts(t, "members")
	dir := t.TempDir()
	secretFile := filepath.Join(dir, "secret")
	require.NoError(t, os.WriteFile(secretFile, []byte("0123456789abcdef-cluster-secret\n"), 0o600))
	hash, err := bcrypt.GenerateFromPassword([]byte("admin-password"), bcrypt.MinCost)
	require.NoError(t, err)
	yamlOf := func(c *testcluster.Certs, secret string) string {
		return fmt.Sprintf(`tls: {cert-file: %q, key-file: %q, ca-file: %q}
cluster-secret-file: %q
security:
  users: [{name: admin, password-hash: %q, roles: [admin]}]
  roles: {admin: {maps: {"*": [all]}, cluster: [sql, admin]}}
`, c.CertFile, c.KeyFile, c.CAFile, secret, string(hash))
	}
	access := &testcluster.Access{TLS: certs.ClientTLS(t, ""), Authorization: security.BasicCredentials("admin", "admin-password")}
	c := testcluster.Start(t, testcluster.Process, 3, testcluster.Options{ConfigYAML: yamlOf(certs, secretFile), Access: access})
	c.WaitStable(1, 3*time.Minute)
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	cl, err := client.New(ctx, client.Config{Addresses: c.Addrs(), ClusterName: "test", TLS: access.TLS,
		Credentials: client.Credentials{Username: "admin", Password: "admin-password"}})
	require.NoError(t, err)
	defer cl.Close()
	m := client.GetMap[int32, string](cl, "data")
	for k := int32(0); k < 200; k++ {
		require.NoError(t, m.Set(ctx, k, "v"))
	}
	st0, err := testcluster.StateWith(ctx, c.Addrs()[0], access)
	require.NoError(t, err)
	require.Len(t, st0.Members, 3)

	intruderCerts := testcluster.NewCerts(t, "intruders")
	wrongSecret := filepath.Join(dir, "wrong")
	require.NoError(t, os.WriteFile(wrongSecret, []byte("another-secret-of-16-bytes-or-more"), 0o600))
	for name, tc := range map[string]struct {
		yaml, joinerSays, clusterSays string
	}{
		"certificate of another CA": {yamlOf(intruderCerts, secretFile), "not one of the cluster's members'", "a TLS handshake failed"},
		"wrong cluster secret":      {yamlOf(certs, wrongSecret), "cluster secret differs", "did not accept this member's proof"},
	} {
		t.Run(name, func(t *testing.T) {
			conf := filepath.Join(t.TempDir(), "member.yaml")
			require.NoError(t, os.WriteFile(conf, []byte("cluster-name: test\n"+tc.yaml), 0o600))
			jctx, jcancel := context.WithTimeout(ctx, time.Minute)
			defer jcancel()
			out, err := execCommand(jctx, testcluster.Binary(t), "member", "start", "--config", conf, "--bind", "127.0.0.1:0", "--admin", "",
				"--join", strings.Join(c.Addrs(), ","))
			require.Error(t, err, "the intruder started:\n%s", out)
			assert.Contains(t, out, tc.joinerSays)
			assert.NotContains(t, out, "member started")
			require.Eventually(t, func() bool {
				for _, n := range c.Live() {
					if strings.Contains(n.Logs(), tc.clusterSays) {
						return true
					}
				}
				return false
			}, 30*time.Second, 50*time.Millisecond, "no member logged the refusal")
			st, err := testcluster.StateWith(ctx, c.Addrs()[0], access)
			require.NoError(t, err)
			assert.Len(t, st.Members, 3)
			assert.Equal(t, st0.PartitionTable.Version, st.PartitionTable.Version, "the table did not change")
		})
	}
	// The data is still whole.
	n, err := m.Size(ctx)
	require.NoError(t, err)
	assert.Equal(t, int64(200), n)

	// A plain member connection (no TLS) is refused too.
	cc, err := grpc.NewClient(c.Addrs()[0], grpc.WithTransportCredentials(cluster.Credentials(cluster.HandshakeConfig{ClusterName: "test", PartitionCount: 271})))
	require.NoError(t, err)
	defer cc.Close()
	_, err = memberv1.NewMemberServiceClient(cc).GetCatalog(ctx, &memberv1.Ack{})
	assert.Error(t, err)
	// Nor is a client connection in plaintext served.
	plain, err := grpc.NewClient(c.Addrs()[0], grpc.WithTransportCredentials(insecure.NewCredentials()))
	require.NoError(t, err)
	defer plain.Close()
	_, err = pb.NewClusterServiceClient(plain).GetPartitionTable(ctx, &pb.GetPartitionTableRequest{})
	assert.Equal(t, codes.Unauthenticated, status.Code(err), "%v", err)
}

// execCommand runs a command and returns its combined output.
func execCommand(ctx context.Context, name string, args ...string) (string, error) {
	out, err := exec.CommandContext(ctx, name, args...).CombinedOutput()
	return string(out), err
}
