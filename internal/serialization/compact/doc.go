// Package compact is Hazelcast's Compact format: schemas (field layout and
// 64-bit Rabin fingerprint) and their registry, the Writer and Reader that
// serializers of Go types write and read with, Record (fields read in place
// by offset) and RecordBuilder (generic records), the reflective
// serializers of zero-config Compact and the registry of Go types (Types),
// the Encoder and Decoder one serialization uses for its Compact objects,
// and Node, the compiled reader of attribute paths through Compact objects
// (plans per schema, published copy-on-write).
//
// pkg/serialization is its public face: it re-exports the types users see
// and composes the formats. Compact objects nest Compact objects only, so
// the package needs nothing of the other formats.
package compact
