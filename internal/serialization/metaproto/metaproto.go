// Package metaproto converts serialization metadata (Compact schemas,
// Portable class definitions, IDS layouts) to and from the API's protobuf
// messages, for the member and the Go client alike.
package metaproto

import (
	"fmt"
	"strconv"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/pkg/serialization"
)

// SchemaFromProto rebuilds a Compact schema and checks its id.
func SchemaFromProto(p *pb.Schema) (*serialization.Schema, error) {
	defs := make([]serialization.FieldDef, len(p.Fields))
	for i, f := range p.Fields {
		defs[i] = serialization.FieldDef{Name: f.Name, Kind: serialization.FieldKind(f.Kind)}
	}
	s, err := serialization.NewSchema(p.TypeName, defs)
	if err != nil {
		return nil, err
	}
	if p.Id != 0 && p.Id != s.ID {
		return nil, &serialization.DefinitionError{What: "compact schema " + strconv.Quote(p.TypeName), Reason: fmt.Sprintf("id %d does not match the fingerprint %d of its fields", p.Id, s.ID)}
	}
	return s, nil
}

// SchemaToProto converts a Compact schema.
func SchemaToProto(s *serialization.Schema) *pb.Schema {
	p := &pb.Schema{Id: s.ID, TypeName: s.TypeName, Fields: make([]*pb.SchemaField, len(s.Fields))}
	for i, f := range s.Fields {
		p.Fields[i] = &pb.SchemaField{Name: f.Name, Kind: int32(f.Kind)}
	}
	return p
}

// ClassDefinitionFromProto converts a Portable class definition.
func ClassDefinitionFromProto(p *pb.ClassDefinition) (*serialization.ClassDefinition, error) {
	fields := make([]serialization.PortableField, len(p.Fields))
	for i, f := range p.Fields {
		fields[i] = serialization.PortableField{Name: f.Name, Kind: serialization.FieldKind(f.Kind), FactoryID: f.FactoryId, ClassID: f.ClassId, Version: f.Version}
	}
	return serialization.NewClassDefinition(p.FactoryId, p.ClassId, p.Version, fields)
}

// ClassDefinitionToProto converts a Portable class definition.
func ClassDefinitionToProto(cd *serialization.ClassDefinition) *pb.ClassDefinition {
	p := &pb.ClassDefinition{FactoryId: cd.FactoryID, ClassId: cd.ClassID, Version: cd.Version, Fields: make([]*pb.ClassField, len(cd.Fields))}
	for i, f := range cd.Fields {
		p.Fields[i] = &pb.ClassField{Name: f.Name, Kind: int32(f.Kind), FactoryId: f.FactoryID, ClassId: f.ClassID, Version: f.Version}
	}
	return p
}

// LayoutFromProto converts an IDS layout.
func LayoutFromProto(p *pb.Layout) (*serialization.Layout, error) {
	fields := make([]serialization.LayoutField, len(p.Fields))
	for i, f := range p.Fields {
		op, ok := serialization.ParseLayoutOp(f.Op)
		if !ok {
			return nil, &serialization.DefinitionError{What: fmt.Sprintf("identified layout %d/%d", p.FactoryId, p.ClassId), Reason: fmt.Sprintf("field %q has unknown op %q", f.Name, f.Op)}
		}
		fields[i] = serialization.LayoutField{Name: f.Name, Op: op, FactoryID: f.FactoryId, ClassID: f.ClassId}
	}
	return serialization.NewLayout(p.FactoryId, p.ClassId, fields)
}

// LayoutToProto converts an IDS layout.
func LayoutToProto(l *serialization.Layout) *pb.Layout {
	p := &pb.Layout{FactoryId: l.FactoryID, ClassId: l.ClassID, Fields: make([]*pb.LayoutField, len(l.Fields))}
	for i, f := range l.Fields {
		p.Fields[i] = &pb.LayoutField{Name: f.Name, Op: f.Op.String(), FactoryId: f.FactoryID, ClassId: f.ClassID}
	}
	return p
}

// List returns every schema, class definition and layout registered in svc.
func List(svc *serialization.Service) *pb.MetadataList {
	out := &pb.MetadataList{}
	for _, s := range svc.Schemas().All() {
		out.Schemas = append(out.Schemas, SchemaToProto(s))
	}
	for _, cd := range svc.ClassRegistry().All() {
		out.ClassDefinitions = append(out.ClassDefinitions, ClassDefinitionToProto(cd))
	}
	for _, l := range svc.LayoutRegistry().All() {
		out.Layouts = append(out.Layouts, LayoutToProto(l))
	}
	return out
}

// Register converts everything in list first and then registers it in
// svc, so that an invalid item registers nothing.
func Register(svc *serialization.Service, list *pb.MetadataList) error {
	schemas := make([]*serialization.Schema, len(list.Schemas))
	for i, p := range list.Schemas {
		s, err := SchemaFromProto(p)
		if err != nil {
			return err
		}
		schemas[i] = s
	}
	classes := make([]*serialization.ClassDefinition, len(list.ClassDefinitions))
	for i, p := range list.ClassDefinitions {
		cd, err := ClassDefinitionFromProto(p)
		if err != nil {
			return err
		}
		classes[i] = cd
	}
	layouts := make([]*serialization.Layout, len(list.Layouts))
	for i, p := range list.Layouts {
		l, err := LayoutFromProto(p)
		if err != nil {
			return err
		}
		layouts[i] = l
	}
	for _, s := range schemas {
		if _, err := svc.Schemas().Add(s); err != nil {
			return err
		}
	}
	for _, cd := range classes {
		if err := svc.ClassRegistry().Add(cd); err != nil {
			return err
		}
	}
	for _, l := range layouts {
		if err := svc.LayoutRegistry().Add(l); err != nil {
			return err
		}
	}
	return nil
}
