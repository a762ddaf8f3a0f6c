// Package portable is Hazelcast's Portable format: class definitions and
// their registry, the Portable interface and factories, the Writer and
// Reader that Portable types write and read with, Record (fields read in
// place through the object's field table; the binary is self-describing)
// and RecordBuilder (generic records), the Encoder and Decoder one
// serialization uses for its Portable objects, and Node, the compiled
// reader of attribute paths through Portable objects.
//
// Positions in Portable data are absolute in the enclosing Data, so the
// encoder counts them from core.Encoding.Base, which the Service sets to
// where the Data starts. Portable objects nest Portable objects only.
package portable
