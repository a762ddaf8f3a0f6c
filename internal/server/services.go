package server

// The unary services and the pipeline dispatcher call the same handlers;
// this file connects them.

import (
	"context"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
)

type mapService struct {
	pb.UnimplementedMapServiceServer
	s *Server
}

type metadataService struct {
	pb.UnimplementedMetadataServiceServer
	s *Server
}

type clusterService struct {
	pb.UnimplementedClusterServiceServer
	s *Server
}

type transactionService struct {
	pb.UnimplementedTransactionServiceServer
	s *Server
}

// named gives a request that names several maps the map its call is
// observed under: the first it names (metrics by map need one).
type named[R any] struct {
	r    R
	name string
}

func (n named[R]) GetMap() string { return n.name }

// observeNamed is observe for a request observed under name.
func observeNamed[Req, Resp any](s *Server, ctx context.Context, k op, name string, r Req, h func(context.Context, Req) (Resp, error)) (Resp, error) {
	return observe(s, ctx, k, named[Req]{r: r, name: name}, func(ctx context.Context, n named[Req]) (Resp, error) { return h(ctx, n.r) })
}

func firstMap(keys []*pb.MapKey) string {
	if len(keys) == 0 {
		return ""
	}
	return keys[0].GetMap()
}

func txLockMap(r *pb.TxLockRequest) string { return r.GetPrimary().GetMap() }

func txValidateMap(r *pb.TxValidateRequest) string {
	if len(r.Entries) == 0 {
		return ""
	}
	return r.Entries[0].GetMap()
}

func txCommitMap(r *pb.TxCommitRequest) string {
	if r.OnePhase != nil {
		return r.OnePhase.GetMap()
	}
	return r.GetPrimary().GetMap()
}

func (s *Server) txApply(ctx context.Context, r *pb.TxReleaseRequest) (*pb.Empty, error) {
	return s.txRelease(ctx, r, true)
}

func (s *Server) txRollback(ctx context.Context, r *pb.TxReleaseRequest) (*pb.Empty, error) {
	return s.txRelease(ctx, r, false)
}

func (t *transactionService) Read(ctx context.Context, r *pb.TxReadRequest) (*pb.TxReadResponse, error) {
	return observe(t.s, ctx, opTxRead, r, t.s.txRead)
}

func (t *transactionService) Lock(ctx context.Context, r *pb.TxLockRequest) (*pb.TxLockResponse, error) {
	return observeNamed(t.s, ctx, opTxLock, txLockMap(r), r, t.s.txLock)
}

func (t *transactionService) Validate(ctx context.Context, r *pb.TxValidateRequest) (*pb.Empty, error) {
	return observeNamed(t.s, ctx, opTxValidate, txValidateMap(r), r, t.s.txValidate)
}

func (t *transactionService) Commit(ctx context.Context, r *pb.TxCommitRequest) (*pb.TxCommitResponse, error) {
	return observeNamed(t.s, ctx, opTxCommit, txCommitMap(r), r, t.s.txCommit)
}

func (t *transactionService) Apply(ctx context.Context, r *pb.TxReleaseRequest) (*pb.Empty, error) {
	return observeNamed(t.s, ctx, opTxApply, firstMap(r.Keys), r, t.s.txApply)
}

func (t *transactionService) Rollback(ctx context.Context, r *pb.TxReleaseRequest) (*pb.Empty, error) {
	return observeNamed(t.s, ctx, opTxRollback, firstMap(r.Keys), r, t.s.txRollback)
}

func (m *mapService) Lock(ctx context.Context, r *pb.LockRequest) (*pb.LockResponse, error) {
	return observe(m.s, ctx, opLock, r, m.s.lock)
}

func (m *mapService) Unlock(ctx context.Context, r *pb.KeyRequest) (*pb.Empty, error) {
	return observe(m.s, ctx, opUnlock, r, m.s.unlock)
}

func (m *mapService) IsLocked(ctx context.Context, r *pb.KeyRequest) (*pb.LockState, error) {
	return observe(m.s, ctx, opIsLocked, r, m.s.isLocked)
}

func (m *mapService) ForceUnlock(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	return observe(m.s, ctx, opForceUnlock, r, m.s.forceUnlock)
}

func (m *mapService) RenewLocks(ctx context.Context, r *pb.RenewLocksRequest) (*pb.RenewLocksResponse, error) {
	return observeNamed(m.s, ctx, opRenewLocks, firstMap(r.Keys), r, m.s.renewLocks)
}

func (m *mapService) Put(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	return observe(m.s, ctx, opPut, r, m.s.put)
}

func (m *mapService) Set(ctx context.Context, r *pb.SetRequest) (*pb.Empty, error) {
	return observe(m.s, ctx, opSet, r, m.s.set)
}

func (m *mapService) PutIfAbsent(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	return observe(m.s, ctx, opPutIfAbsent, r, m.s.putIfAbsent)
}

func (m *mapService) Get(ctx context.Context, r *pb.KeyRequest) (*pb.ValueResponse, error) {
	return observe(m.s, ctx, opGet, r, m.s.get)
}

func (m *mapService) Remove(ctx context.Context, r *pb.KeyRequest) (*pb.ValueResponse, error) {
	return observe(m.s, ctx, opRemove, r, m.s.remove)
}

func (m *mapService) Delete(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	return observe(m.s, ctx, opDelete, r, m.s.delete)
}

func (m *mapService) RemoveIfSame(ctx context.Context, r *pb.ReplaceIfSameRequest) (*pb.BoolResponse, error) {
	return observe(m.s, ctx, opRemoveIfSame, r, m.s.removeIfSame)
}

func (m *mapService) Replace(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	return observe(m.s, ctx, opReplace, r, m.s.replace)
}

func (m *mapService) ReplaceIfSame(ctx context.Context, r *pb.ReplaceIfSameRequest) (*pb.BoolResponse, error) {
	return observe(m.s, ctx, opReplaceIfSame, r, m.s.replaceIfSame)
}

func (m *mapService) ContainsKey(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	return observe(m.s, ctx, opContainsKey, r, m.s.containsKey)
}

func (m *mapService) Evict(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	return observe(m.s, ctx, opEvict, r, m.s.evict)
}

func (m *mapService) SetTtl(ctx context.Context, r *pb.SetTtlRequest) (*pb.BoolResponse, error) {
	return observe(m.s, ctx, opSetTTL, r, m.s.setTTL)
}

func (m *mapService) GetEntryView(ctx context.Context, r *pb.KeyRequest) (*pb.EntryViewResponse, error) {
	return observe(m.s, ctx, opGetEntryView, r, m.s.getEntryView)
}

func (m *mapService) PutAll(ctx context.Context, r *pb.PutAllRequest) (*pb.Empty, error) {
	return observe(m.s, ctx, opPutAll, r, m.s.putAll)
}

func (m *mapService) GetAll(ctx context.Context, r *pb.GetAllRequest) (*pb.EntriesResponse, error) {
	return observe(m.s, ctx, opGetAll, r, m.s.getAll)
}

func (m *mapService) Size(ctx context.Context, r *pb.MapRequest) (*pb.SizeResponse, error) {
	return observe(m.s, ctx, opSize, r, m.s.size)
}

func (m *mapService) Clear(ctx context.Context, r *pb.MapRequest) (*pb.SizeResponse, error) {
	return observe(m.s, ctx, opClear, r, m.s.clear)
}

func (m *mapService) EvictAll(ctx context.Context, r *pb.MapRequest) (*pb.Empty, error) {
	return observe(m.s, ctx, opEvictAll, r, m.s.evictAll)
}

func (m *mapService) Destroy(ctx context.Context, r *pb.MapRequest) (*pb.Empty, error) {
	return observe(m.s, ctx, opDestroy, r, m.s.destroy)
}

func (m *mapService) GetMapStats(ctx context.Context, r *pb.MapRequest) (*pb.MapStats, error) {
	return observe(m.s, ctx, opStats, r, m.s.mapStats)
}

func (m *mapService) ConfigureMap(ctx context.Context, r *pb.MapConfig) (*pb.Empty, error) {
	return observe(m.s, ctx, opConfigure, r, m.s.configureMap)
}

func (m *metadataService) PutSchemas(ctx context.Context, r *pb.PutSchemasRequest) (*pb.Empty, error) {
	return m.s.putSchemas(ctx, r)
}

func (m *metadataService) GetSchema(ctx context.Context, r *pb.GetSchemaRequest) (*pb.Schema, error) {
	return m.s.getSchema(ctx, r)
}

func (m *metadataService) PutClassDefinitions(ctx context.Context, r *pb.PutClassDefinitionsRequest) (*pb.Empty, error) {
	return m.s.putClassDefinitions(ctx, r)
}

func (m *metadataService) GetClassDefinition(ctx context.Context, r *pb.GetClassDefinitionRequest) (*pb.ClassDefinition, error) {
	return m.s.getClassDefinition(ctx, r)
}

func (m *metadataService) PutLayouts(ctx context.Context, r *pb.PutLayoutsRequest) (*pb.Empty, error) {
	return m.s.putLayouts(ctx, r)
}

func (m *metadataService) GetLayout(ctx context.Context, r *pb.GetLayoutRequest) (*pb.Layout, error) {
	return m.s.getLayout(ctx, r)
}

func (m *metadataService) ListMetadata(ctx context.Context, r *pb.Empty) (*pb.MetadataList, error) {
	return m.s.listMetadata(ctx, r)
}

func (m *mapService) Iterate(r *pb.IterateRequest, stream pb.MapService_IterateServer) error {
	return m.s.iterate(r, stream)
}

func (m *mapService) Listen(r *pb.ListenRequest, stream pb.MapService_ListenServer) error {
	return m.s.listen(r, stream)
}

func (c *clusterService) Connect(ctx context.Context, r *pb.ConnectRequest) (*pb.ConnectResponse, error) {
	return c.s.connect(ctx, r)
}

func (c *clusterService) GetPartitionTable(ctx context.Context, r *pb.GetPartitionTableRequest) (*pb.PartitionTable, error) {
	return c.s.partitionTable(ctx, r)
}

func (c *clusterService) GetClusterState(ctx context.Context, r *pb.GetClusterStateRequest) (*pb.ClusterState, error) {
	return c.s.clusterState(ctx, r)
}

func (c *clusterService) PushClientStatistics(ctx context.Context, r *pb.ClientStatistics) (*pb.Empty, error) {
	return c.s.pushClientStatistics(ctx, r)
}

func (c *clusterService) WatchPartitionTable(r *pb.GetPartitionTableRequest, stream pb.ClusterService_WatchPartitionTableServer) error {
	return c.s.watchPartitionTable(r, stream)
}

// dispatch runs one pipeline request and builds its response.
func (s *Server) dispatch(ctx context.Context, req *pb.PipelineRequest) *pb.PipelineResponse {
	resp := &pb.PipelineResponse{CallId: req.CallId}
	var err error
	switch op := req.Op.(type) {
	case *pb.PipelineRequest_Put:
		var r *pb.ValueResponse
		if r, err = observe(s, ctx, opPut, op.Put, s.put); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Set:
		var r *pb.Empty
		if r, err = observe(s, ctx, opSet, op.Set, s.set); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_PutIfAbsent:
		var r *pb.ValueResponse
		if r, err = observe(s, ctx, opPutIfAbsent, op.PutIfAbsent, s.putIfAbsent); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Get:
		var r *pb.ValueResponse
		if r, err = observe(s, ctx, opGet, op.Get, s.get); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Remove:
		var r *pb.ValueResponse
		if r, err = observe(s, ctx, opRemove, op.Remove, s.remove); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Delete:
		var r *pb.BoolResponse
		if r, err = observe(s, ctx, opDelete, op.Delete, s.delete); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_RemoveIfSame:
		var r *pb.BoolResponse
		if r, err = observe(s, ctx, opRemoveIfSame, op.RemoveIfSame, s.removeIfSame); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_Replace:
		var r *pb.ValueResponse
		if r, err = observe(s, ctx, opReplace, op.Replace, s.replace); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_ReplaceIfSame:
		var r *pb.BoolResponse
		if r, err = observe(s, ctx, opReplaceIfSame, op.ReplaceIfSame, s.replaceIfSame); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_ContainsKey:
		var r *pb.BoolResponse
		if r, err = observe(s, ctx, opContainsKey, op.ContainsKey, s.containsKey); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_Evict:
		var r *pb.BoolResponse
		if r, err = observe(s, ctx, opEvict, op.Evict, s.evict); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_SetTtl:
		var r *pb.BoolResponse
		if r, err = observe(s, ctx, opSetTTL, op.SetTtl, s.setTTL); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_GetEntryView:
		var r *pb.EntryViewResponse
		if r, err = observe(s, ctx, opGetEntryView, op.GetEntryView, s.getEntryView); err == nil {
			resp.Result = &pb.PipelineResponse_EntryView{EntryView: r}
		}
	case *pb.PipelineRequest_PutAll:
		var r *pb.Empty
		if r, err = observe(s, ctx, opPutAll, op.PutAll, s.putAll); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_GetAll:
		var r *pb.EntriesResponse
		if r, err = observe(s, ctx, opGetAll, op.GetAll, s.getAll); err == nil {
			resp.Result = &pb.PipelineResponse_Entries{Entries: r}
		}
	case *pb.PipelineRequest_Size:
		var r *pb.SizeResponse
		if r, err = observe(s, ctx, opSize, op.Size, s.size); err == nil {
			resp.Result = &pb.PipelineResponse_Size{Size: r}
		}
	case *pb.PipelineRequest_Clear:
		var r *pb.SizeResponse
		if r, err = observe(s, ctx, opClear, op.Clear, s.clear); err == nil {
			resp.Result = &pb.PipelineResponse_Size{Size: r}
		}
	case *pb.PipelineRequest_EvictAll:
		var r *pb.Empty
		if r, err = observe(s, ctx, opEvictAll, op.EvictAll, s.evictAll); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_Destroy:
		var r *pb.Empty
		if r, err = observe(s, ctx, opDestroy, op.Destroy, s.destroy); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_GetMapStats:
		var r *pb.MapStats
		if r, err = observe(s, ctx, opStats, op.GetMapStats, s.mapStats); err == nil {
			resp.Result = &pb.PipelineResponse_MapStats{MapStats: r}
		}
	case *pb.PipelineRequest_ConfigureMap:
		var r *pb.Empty
		if r, err = observe(s, ctx, opConfigure, op.ConfigureMap, s.configureMap); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_PutSchemas:
		var r *pb.Empty
		if r, err = s.putSchemas(ctx, op.PutSchemas); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_GetSchema:
		var r *pb.Schema
		if r, err = s.getSchema(ctx, op.GetSchema); err == nil {
			resp.Result = &pb.PipelineResponse_Schema{Schema: r}
		}
	case *pb.PipelineRequest_PutClassDefinitions:
		var r *pb.Empty
		if r, err = s.putClassDefinitions(ctx, op.PutClassDefinitions); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_GetClassDefinition:
		var r *pb.ClassDefinition
		if r, err = s.getClassDefinition(ctx, op.GetClassDefinition); err == nil {
			resp.Result = &pb.PipelineResponse_ClassDefinition{ClassDefinition: r}
		}
	case *pb.PipelineRequest_PutLayouts:
		var r *pb.Empty
		if r, err = s.putLayouts(ctx, op.PutLayouts); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_GetLayout:
		var r *pb.Layout
		if r, err = s.getLayout(ctx, op.GetLayout); err == nil {
			resp.Result = &pb.PipelineResponse_Layout{Layout: r}
		}
	case *pb.PipelineRequest_Lock:
		var r *pb.LockResponse
		if r, err = observe(s, ctx, opLock, op.Lock, s.lock); err == nil {
			resp.Result = &pb.PipelineResponse_Lock{Lock: r}
		}
	case *pb.PipelineRequest_Unlock:
		var r *pb.Empty
		if r, err = observe(s, ctx, opUnlock, op.Unlock, s.unlock); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_IsLocked:
		var r *pb.LockState
		if r, err = observe(s, ctx, opIsLocked, op.IsLocked, s.isLocked); err == nil {
			resp.Result = &pb.PipelineResponse_LockState{LockState: r}
		}
	case *pb.PipelineRequest_ForceUnlock:
		var r *pb.BoolResponse
		if r, err = observe(s, ctx, opForceUnlock, op.ForceUnlock, s.forceUnlock); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_RenewLocks:
		var r *pb.RenewLocksResponse
		if r, err = observeNamed(s, ctx, opRenewLocks, firstMap(op.RenewLocks.Keys), op.RenewLocks, s.renewLocks); err == nil {
			resp.Result = &pb.PipelineResponse_RenewLocks{RenewLocks: r}
		}
	case *pb.PipelineRequest_TxRead:
		var r *pb.TxReadResponse
		if r, err = observe(s, ctx, opTxRead, op.TxRead, s.txRead); err == nil {
			resp.Result = &pb.PipelineResponse_TxRead{TxRead: r}
		}
	case *pb.PipelineRequest_TxLock:
		var r *pb.TxLockResponse
		if r, err = observeNamed(s, ctx, opTxLock, txLockMap(op.TxLock), op.TxLock, s.txLock); err == nil {
			resp.Result = &pb.PipelineResponse_TxLock{TxLock: r}
		}
	case *pb.PipelineRequest_TxValidate:
		var r *pb.Empty
		if r, err = observeNamed(s, ctx, opTxValidate, txValidateMap(op.TxValidate), op.TxValidate, s.txValidate); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_TxCommit:
		var r *pb.TxCommitResponse
		if r, err = observeNamed(s, ctx, opTxCommit, txCommitMap(op.TxCommit), op.TxCommit, s.txCommit); err == nil {
			resp.Result = &pb.PipelineResponse_TxCommit{TxCommit: r}
		}
	case *pb.PipelineRequest_TxApply:
		var r *pb.Empty
		if r, err = observeNamed(s, ctx, opTxApply, firstMap(op.TxApply.Keys), op.TxApply, s.txApply); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_TxRollback:
		var r *pb.Empty
		if r, err = observeNamed(s, ctx, opTxRollback, firstMap(op.TxRollback.Keys), op.TxRollback, s.txRollback); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	default:
		err = invalid("pipeline request %d carries no known operation", req.CallId)
	}
	if err != nil {
		resp.Error = toPipelineError(err)
	}
	return resp
}
