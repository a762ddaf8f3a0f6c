package server

import (
	"context"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/serialization/metaproto"
	"github.com/atolldb/atoll/pkg/serialization"
)

// maxMetadataPerCall bounds the definitions one registration call carries.
const maxMetadataPerCall = 10000

func (s *Server) putSchemas(_ context.Context, r *pb.PutSchemasRequest) (*pb.Empty, error) {
	if len(r.Schemas) > maxMetadataPerCall {
		return nil, invalid("%d schemas in one call; the limit is %d", len(r.Schemas), maxMetadataPerCall)
	}
	// Convert everything before registering anything.
	schemas := make([]*serialization.Schema, len(r.Schemas))
	for i, p := range r.Schemas {
		sc, err := metaproto.SchemaFromProto(p)
		if err != nil {
			return nil, err
		}
		schemas[i] = sc
	}
	for _, sc := range schemas {
		if _, err := s.cfg.Serialization.Schemas().Add(sc); err != nil {
			return nil, err
		}
	}
	return &pb.Empty{}, nil
}

func (s *Server) getSchema(_ context.Context, r *pb.GetSchemaRequest) (*pb.Schema, error) {
	sc, ok := s.cfg.Serialization.Schemas().Get(r.Id)
	if !ok {
		return nil, &serialization.SchemaNotFoundError{SchemaID: r.Id}
	}
	return metaproto.SchemaToProto(sc), nil
}

func (s *Server) putClassDefinitions(_ context.Context, r *pb.PutClassDefinitionsRequest) (*pb.Empty, error) {
	if len(r.Definitions) > maxMetadataPerCall {
		return nil, invalid("%d class definitions in one call; the limit is %d", len(r.Definitions), maxMetadataPerCall)
	}
	defs := make([]*serialization.ClassDefinition, len(r.Definitions))
	for i, p := range r.Definitions {
		cd, err := metaproto.ClassDefinitionFromProto(p)
		if err != nil {
			return nil, err
		}
		defs[i] = cd
	}
	for _, cd := range defs {
		if err := s.cfg.Serialization.ClassRegistry().Add(cd); err != nil {
			return nil, err
		}
	}
	return &pb.Empty{}, nil
}

func (s *Server) getClassDefinition(_ context.Context, r *pb.GetClassDefinitionRequest) (*pb.ClassDefinition, error) {
	cd, ok := s.cfg.Serialization.ClassRegistry().Get(r.FactoryId, r.ClassId, r.Version)
	if !ok {
		return nil, &serialization.ClassNotFoundError{Format: "portable", FactoryID: r.FactoryId, ClassID: r.ClassId, Version: r.Version, Reason: "no class definition is registered"}
	}
	return metaproto.ClassDefinitionToProto(cd), nil
}

func (s *Server) putLayouts(_ context.Context, r *pb.PutLayoutsRequest) (*pb.Empty, error) {
	if len(r.Layouts) > maxMetadataPerCall {
		return nil, invalid("%d layouts in one call; the limit is %d", len(r.Layouts), maxMetadataPerCall)
	}
	layouts := make([]*serialization.Layout, len(r.Layouts))
	for i, p := range r.Layouts {
		l, err := metaproto.LayoutFromProto(p)
		if err != nil {
			return nil, err
		}
		layouts[i] = l
	}
	for _, l := range layouts {
		if err := s.cfg.Serialization.LayoutRegistry().Add(l); err != nil {
			return nil, err
		}
	}
	return &pb.Empty{}, nil
}

func (s *Server) getLayout(_ context.Context, r *pb.GetLayoutRequest) (*pb.Layout, error) {
	l, ok := s.cfg.Serialization.LayoutRegistry().Get(r.FactoryId, r.ClassId)
	if !ok {
		return nil, &serialization.ClassNotFoundError{Format: "identified", FactoryID: r.FactoryId, ClassID: r.ClassId, Reason: "no layout is registered"}
	}
	return metaproto.LayoutToProto(l), nil
}

func (s *Server) listMetadata(_ context.Context, _ *pb.Empty) (*pb.MetadataList, error) {
	out := &pb.MetadataList{}
	for _, sc := range s.cfg.Serialization.Schemas().All() {
		out.Schemas = append(out.Schemas, metaproto.SchemaToProto(sc))
	}
	for _, cd := range s.cfg.Serialization.ClassRegistry().All() {
		out.ClassDefinitions = append(out.ClassDefinitions, metaproto.ClassDefinitionToProto(cd))
	}
	for _, l := range s.cfg.Serialization.LayoutRegistry().All() {
		out.Layouts = append(out.Layouts, metaproto.LayoutToProto(l))
	}
	return out, nil
}
