package client

import (
	"context"
	"errors"
	"sync"
	"sync/atomic"

	pb "github.com/atolldb/atoll/api/proto/atoll/v1"
	"github.com/atolldb/atoll/internal/serialization/metaproto"
	"github.com/atolldb/atoll/pkg/serialization"
)

// metadataSync publishes the Compact schemas and Portable class definitions
// that the client's serialization learns, before data that needs them is
// written, and fetches the ones it meets in data it reads.
type metadataSync struct {
	c *Client

	flushMu sync.Mutex // one publication at a time

	mu             sync.Mutex
	published      map[int64]bool // schema ids the cluster has
	pendingSchemas []*serialization.Schema
	pendingClasses []*serialization.ClassDefinition
	pending        atomic.Int32
}

func (m *metadataSync) init(c *Client) {
	m.c = c
	m.published = map[int64]bool{}
	c.ser.Schemas().OnAdd(func(s *serialization.Schema) {
		m.mu.Lock()
		defer m.mu.Unlock()
		if !m.published[s.ID] {
			m.pendingSchemas = append(m.pendingSchemas, s)
			m.pending.Add(1)
		}
	})
	c.ser.ClassRegistry().OnAdd(func(cd *serialization.ClassDefinition) {
		m.mu.Lock()
		defer m.mu.Unlock()
		m.pendingClasses = append(m.pendingClasses, cd)
		m.pending.Add(1)
	})
}

// flush publishes pending metadata. Writers call it before sending data;
// it costs one atomic load when nothing is pending.
func (m *metadataSync) flush(ctx context.Context) error {
	if m.pending.Load() == 0 {
		return nil
	}
	m.flushMu.Lock()
	defer m.flushMu.Unlock()
	m.mu.Lock()
	schemas, classes := m.pendingSchemas, m.pendingClasses
	m.pendingSchemas, m.pendingClasses = nil, nil
	m.mu.Unlock()
	if len(schemas)+len(classes) == 0 {
		return nil
	}
	err := m.send(ctx, schemas, classes)
	m.mu.Lock()
	defer m.mu.Unlock()
	if err != nil {
		m.pendingSchemas = append(schemas, m.pendingSchemas...)
		m.pendingClasses = append(classes, m.pendingClasses...)
		return err
	}
	for _, s := range schemas {
		m.published[s.ID] = true
	}
	m.pending.Add(-int32(len(schemas) + len(classes)))
	return nil
}

func (m *metadataSync) send(ctx context.Context, schemas []*serialization.Schema, classes []*serialization.ClassDefinition) error {
	if len(schemas) > 0 {
		req := &pb.PutSchemasRequest{}
		for _, s := range schemas {
			req.Schemas = append(req.Schemas, metaproto.SchemaToProto(s))
		}
		if _, err := m.c.invoke(ctx, -1, true, &pb.PipelineRequest{Op: &pb.PipelineRequest_PutSchemas{PutSchemas: req}}); err != nil {
			return err
		}
	}
	if len(classes) > 0 {
		req := &pb.PutClassDefinitionsRequest{}
		for _, cd := range classes {
			req.Definitions = append(req.Definitions, metaproto.ClassDefinitionToProto(cd))
		}
		if _, err := m.c.invoke(ctx, -1, true, &pb.PipelineRequest{Op: &pb.PipelineRequest_PutClassDefinitions{PutClassDefinitions: req}}); err != nil {
			return err
		}
	}
	return nil
}

// publishSchema sends one schema again, after a member reported it unknown
// (a member restarted, for example).
func (m *metadataSync) publishSchema(ctx context.Context, id int64) error {
	s, ok := m.c.ser.Schemas().Get(id)
	if !ok {
		return &serialization.SchemaNotFoundError{SchemaID: id}
	}
	if err := m.send(ctx, []*serialization.Schema{s}, nil); err != nil {
		return err
	}
	m.mu.Lock()
	m.published[id] = true
	m.mu.Unlock()
	return nil
}

// maxFetches bounds the metadata fetched to decode one value.
const maxFetches = 32

// toObject deserializes d with dec (nil: a decoder of its own), fetching
// schemas and layouts it lacks.
func (c *Client) toObject(ctx context.Context, dec *serialization.Decoder, d []byte) (any, error) {
	for i := 0; ; i++ {
		var v any
		var err error
		if dec != nil {
			v, err = dec.ToObject(d)
		} else {
			v, err = c.ser.ToObject(d)
		}
		if err == nil || i == maxFetches {
			return v, err
		}
		var noSchema *serialization.SchemaNotFoundError
		var noClass *serialization.ClassNotFoundError
		switch {
		case errors.As(err, &noSchema):
			if ferr := c.meta.fetchSchema(ctx, noSchema.SchemaID); ferr != nil {
				return nil, ferr
			}
		case errors.As(err, &noClass) && noClass.Format == "identified":
			if ferr := c.meta.fetchLayout(ctx, noClass.FactoryID, noClass.ClassID); ferr != nil {
				return nil, errors.Join(err, ferr)
			}
		default:
			return nil, err
		}
	}
}

func (m *metadataSync) fetchSchema(ctx context.Context, id int64) error {
	resp, err := m.c.invoke(ctx, -1, true, &pb.PipelineRequest{Op: &pb.PipelineRequest_GetSchema{GetSchema: &pb.GetSchemaRequest{Id: id}}})
	if err != nil {
		return err
	}
	s, err := metaproto.SchemaFromProto(resp.GetSchema())
	if err != nil {
		return err
	}
	m.mu.Lock()
	m.published[s.ID] = true
	m.mu.Unlock()
	_, err = m.c.ser.Schemas().Add(s)
	return err
}

func (m *metadataSync) fetchLayout(ctx context.Context, factoryID, classID int32) error {
	resp, err := m.c.invoke(ctx, -1, true, &pb.PipelineRequest{Op: &pb.PipelineRequest_GetLayout{GetLayout: &pb.GetLayoutRequest{FactoryId: factoryID, ClassId: classID}}})
	if err != nil {
		return err
	}
	l, err := metaproto.LayoutFromProto(resp.GetLayout())
	if err != nil {
		return err
	}
	return m.c.ser.LayoutRegistry().Add(l)
}

// RegisterLayouts registers IdentifiedDataSerializable layouts with the
// cluster, so that members can query values of those classes.
func (c *Client) RegisterLayouts(ctx context.Context, layouts ...*serialization.Layout) error {
	req := &pb.PutLayoutsRequest{}
	for _, l := range layouts {
		if err := c.ser.LayoutRegistry().Add(l); err != nil {
			return err
		}
		req.Layouts = append(req.Layouts, metaproto.LayoutToProto(l))
	}
	_, err := c.invoke(ctx, -1, true, &pb.PipelineRequest{Op: &pb.PipelineRequest_PutLayouts{PutLayouts: req}})
	return err
}
