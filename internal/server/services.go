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
	return m.s.put(ctx, r)
}

func (m *mapService) Set(ctx context.Context, r *pb.SetRequest) (*pb.Empty, error) {
	return m.s.set(ctx, r)
}

func (m *mapService) PutIfAbsent(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	return m.s.putIfAbsent(ctx, r)
}

func (m *mapService) Get(ctx context.Context, r *pb.KeyRequest) (*pb.ValueResponse, error) {
	return m.s.get(ctx, r)
}

func (m *mapService) Remove(ctx context.Context, r *pb.KeyRequest) (*pb.ValueResponse, error) {
	return m.s.remove(ctx, r)
}

func (m *mapService) Delete(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	return m.s.delete(ctx, r)
}

func (m *mapService) RemoveIfSame(ctx context.Context, r *pb.ReplaceIfSameRequest) (*pb.BoolResponse, error) {
	return m.s.removeIfSame(ctx, r)
}

func (m *mapService) Replace(ctx context.Context, r *pb.PutRequest) (*pb.ValueResponse, error) {
	return m.s.replace(ctx, r)
}

func (m *mapService) ReplaceIfSame(ctx context.Context, r *pb.ReplaceIfSameRequest) (*pb.BoolResponse, error) {
	return m.s.replaceIfSame(ctx, r)
}

func (m *mapService) ContainsKey(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	return m.s.containsKey(ctx, r)
}

func (m *mapService) Evict(ctx context.Context, r *pb.KeyRequest) (*pb.BoolResponse, error) {
	return m.s.evict(ctx, r)
}

func (m *mapService) SetTtl(ctx context.Context, r *pb.SetTtlRequest) (*pb.BoolResponse, error) {
	return m.s.setTTL(ctx, r)
}

func (m *mapService) GetEntryView(ctx context.Context, r *pb.KeyRequest) (*pb.EntryViewResponse, error) {
	return m.s.getEntryView(ctx, r)
}

func (m *mapService) PutAll(ctx context.Context, r *pb.PutAllRequest) (*pb.Empty, error) {
	return m.s.putAll(ctx, r)
}

func (m *mapService) GetAll(ctx context.Context, r *pb.GetAllRequest) (*pb.EntriesResponse, error) {
	return m.s.getAll(ctx, r)
}

func (m *mapService) Size(ctx context.Context, r *pb.MapRequest) (*pb.SizeResponse, error) {
	return m.s.size(ctx, r)
}

func (m *mapService) Clear(ctx context.Context, r *pb.MapRequest) (*pb.Empty, error) {
	return m.s.clear(ctx, r)
}

func (m *mapService) EvictAll(ctx context.Context, r *pb.MapRequest) (*pb.Empty, error) {
	return m.s.evictAll(ctx, r)
}

func (m *mapService) Destroy(ctx context.Context, r *pb.MapRequest) (*pb.Empty, error) {
	return m.s.destroy(ctx, r)
}

func (m *mapService) GetMapStats(ctx context.Context, r *pb.MapRequest) (*pb.MapStats, error) {
	return m.s.mapStats(ctx, r)
}

func (m *mapService) ConfigureMap(ctx context.Context, r *pb.MapConfig) (*pb.Empty, error) {
	return m.s.configureMap(ctx, r)
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
		if r, err = s.put(ctx, op.Put); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Set:
		var r *pb.Empty
		if r, err = s.set(ctx, op.Set); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_PutIfAbsent:
		var r *pb.ValueResponse
		if r, err = s.putIfAbsent(ctx, op.PutIfAbsent); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Get:
		var r *pb.ValueResponse
		if r, err = s.get(ctx, op.Get); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Remove:
		var r *pb.ValueResponse
		if r, err = s.remove(ctx, op.Remove); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_Delete:
		var r *pb.BoolResponse
		if r, err = s.delete(ctx, op.Delete); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_RemoveIfSame:
		var r *pb.BoolResponse
		if r, err = s.removeIfSame(ctx, op.RemoveIfSame); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_Replace:
		var r *pb.ValueResponse
		if r, err = s.replace(ctx, op.Replace); err == nil {
			resp.Result = &pb.PipelineResponse_Value{Value: r}
		}
	case *pb.PipelineRequest_ReplaceIfSame:
		var r *pb.BoolResponse
		if r, err = s.replaceIfSame(ctx, op.ReplaceIfSame); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_ContainsKey:
		var r *pb.BoolResponse
		if r, err = s.containsKey(ctx, op.ContainsKey); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_Evict:
		var r *pb.BoolResponse
		if r, err = s.evict(ctx, op.Evict); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_SetTtl:
		var r *pb.BoolResponse
		if r, err = s.setTTL(ctx, op.SetTtl); err == nil {
			resp.Result = &pb.PipelineResponse_Bool{Bool: r}
		}
	case *pb.PipelineRequest_GetEntryView:
		var r *pb.EntryViewResponse
		if r, err = s.getEntryView(ctx, op.GetEntryView); err == nil {
			resp.Result = &pb.PipelineResponse_EntryView{EntryView: r}
		}
	case *pb.PipelineRequest_PutAll:
		var r *pb.Empty
		if r, err = s.putAll(ctx, op.PutAll); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_GetAll:
		var r *pb.EntriesResponse
		if r, err = s.getAll(ctx, op.GetAll); err == nil {
			resp.Result = &pb.PipelineResponse_Entries{Entries: r}
		}
	case *pb.PipelineRequest_Size:
		var r *pb.SizeResponse
		if r, err = s.size(ctx, op.Size); err == nil {
			resp.Result = &pb.PipelineResponse_Size{Size: r}
		}
	case *pb.PipelineRequest_Clear:
		var r *pb.Empty
		if r, err = s.clear(ctx, op.Clear); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_EvictAll:
		var r *pb.Empty
		if r, err = s.evictAll(ctx, op.EvictAll); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_Destroy:
		var r *pb.Empty
		if r, err = s.destroy(ctx, op.Destroy); err == nil {
			resp.Result = &pb.PipelineResponse_Empty{Empty: r}
		}
	case *pb.PipelineRequest_GetMapStats:
		var r *pb.MapStats
		if r, err = s.mapStats(ctx, op.GetMapStats); err == nil {
			resp.Result = &pb.PipelineResponse_MapStats{MapStats: r}
		}
	case *pb.PipelineRequest_ConfigureMap:
		var r *pb.Empty
		if r, err = s.configureMap(ctx, op.ConfigureMap); err == nil {
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
