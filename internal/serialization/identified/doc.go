// Package identified is Hazelcast's IdentifiedDataSerializable format:
// the DataSerializable interface and factories, DataOutput and DataInput
// with the encodings of Java's ObjectDataOutput and ObjectDataInput, and,
// for readers without the Go type (a member running queries), Layouts (the
// fields a class's writeData writes, in order, with inline nesting), their
// compiled programs (where each field starts: constant offsets, then one
// skip per variable-size field), Record and RecordBuilder, the Encoder and
// Decoder one serialization uses, and Node, the compiled reader of
// attribute paths through these objects.
//
// writeObject fields hold values of any format, so this is the one
// format that reaches the others: through Objects (reading and skipping
// such values) and ObjectWriter (writing them), which the Service
// implements.
package identified
