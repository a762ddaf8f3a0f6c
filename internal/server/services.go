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
	default:
		err = invalid("pipeline request %d carries no known operation", req.CallId)
	}
	if err != nil {
		resp.Error = toPipelineError(err)
	}
	return resp
}
