package server

import (
	"context"
	"fmt"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/serialization/metaproto"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Limits of a metadata registration call, checked before anything is
// converted or registered: definitions per call, fields per definition
// (schema, class definition or layout) and fields per call.
const (
	maxMetadataPerCall   = 10_000
	maxDefinitionFields  = 10_000
	maxFieldsPerMetadata = 100_000
)

// checkMetadata refuses a registration call over the limits.
func checkMetadata(list *pb.MetadataList) error {
	if n := len(list.Schemas) + len(list.ClassDefinitions) + len(list.Layouts); n > maxMetadataPerCall {
		return &TooLargeError{Op: "putMetadata", What: "request", Size: n, Limit: maxMetadataPerCall, Unit: "definitions"}
	}
	total := 0
	count := func(kind string, n int) error {
		total += n
		switch {
		case n > maxDefinitionFields:
			return &TooLargeError{Op: "putMetadata", What: kind, Size: n, Limit: maxDefinitionFields, Unit: "fields"}
		case total > maxFieldsPerMetadata:
			return &TooLargeError{Op: "putMetadata", What: "request", Size: total, Limit: maxFieldsPerMetadata, Unit: "fields"}
		}
		return nil
	}
	for _, sc := range list.Schemas {
		if err := count(fmt.Sprintf("schema %.64q", sc.TypeName), len(sc.Fields)); err != nil {
			return err
		}
	}
	for _, cd := range list.ClassDefinitions {
		if err := count(fmt.Sprintf("class definition %d/%d", cd.FactoryId, cd.ClassId), len(cd.Fields)); err != nil {
			return err
		}
	}
	for _, l := range list.Layouts {
		if err := count(fmt.Sprintf("layout %d/%d", l.FactoryId, l.ClassId), len(l.Fields)); err != nil {
			return err
		}
	}
	return nil
}

// putMetadata registers metadata on this member and on every other member
// before it answers, so that data needing it is accepted anywhere.
func (s *Server) putMetadata(ctx context.Context, list *pb.MetadataList) (*pb.Empty, error) {
	if err := checkMetadata(list); err != nil {
		return nil, err
	}
	if err := metaproto.Register(s.cfg.Serialization, list); err != nil {
		return nil, err
	}
	if err := s.cfg.Cluster.BroadcastMetadata(ctx, list); err != nil {
		return nil, fmt.Errorf("%w: %w", ErrUnavailable, err)
	}
	return &pb.Empty{}, nil
}

func (s *Server) putSchemas(ctx context.Context, r *pb.PutSchemasRequest) (*pb.Empty, error) {
	return s.putMetadata(ctx, &pb.MetadataList{Schemas: r.Schemas})
}

func (s *Server) getSchema(_ context.Context, r *pb.GetSchemaRequest) (*pb.Schema, error) {
	sc, ok := s.cfg.Serialization.Schemas().Get(r.Id)
	if !ok {
		return nil, &serialization.SchemaNotFoundError{SchemaID: r.Id}
	}
	return metaproto.SchemaToProto(sc), nil
}

func (s *Server) putClassDefinitions(ctx context.Context, r *pb.PutClassDefinitionsRequest) (*pb.Empty, error) {
	return s.putMetadata(ctx, &pb.MetadataList{ClassDefinitions: r.Definitions})
}

func (s *Server) getClassDefinition(_ context.Context, r *pb.GetClassDefinitionRequest) (*pb.ClassDefinition, error) {
	cd, ok := s.cfg.Serialization.ClassRegistry().Get(r.FactoryId, r.ClassId, r.Version)
	if !ok {
		return nil, &serialization.ClassNotFoundError{Format: "portable", FactoryID: r.FactoryId, ClassID: r.ClassId, Version: r.Version, Reason: "no class definition is registered"}
	}
	return metaproto.ClassDefinitionToProto(cd), nil
}

func (s *Server) putLayouts(ctx context.Context, r *pb.PutLayoutsRequest) (*pb.Empty, error) {
	return s.putMetadata(ctx, &pb.MetadataList{Layouts: r.Layouts})
}

func (s *Server) getLayout(_ context.Context, r *pb.GetLayoutRequest) (*pb.Layout, error) {
	l, ok := s.cfg.Serialization.LayoutRegistry().Get(r.FactoryId, r.ClassId)
	if !ok {
		return nil, &serialization.ClassNotFoundError{Format: "identified", FactoryID: r.FactoryId, ClassID: r.ClassId, Reason: "no layout is registered"}
	}
	return metaproto.LayoutToProto(l), nil
}

func (s *Server) listMetadata(_ context.Context, _ *pb.Empty) (*pb.MetadataList, error) {
	return metaproto.List(s.cfg.Serialization), nil
}
