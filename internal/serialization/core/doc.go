// Package core holds what every serialization format shares: the Data
// envelope (type ids, header, partition hashing), field kinds, the typed
// errors, the value types (Char, Decimal, the temporal types, UUID, JSON),
// the encoders and decoders of values that several formats write alike
// (arrays, decimals, dates, strings, the built-in types), the value
// coercions of the generic record builders, and what a compiled field
// reader returns (FieldValue) and walks (PathStep, Sink).
//
// The formats (internal/serialization/compact, portable, identified and
// json) build on it; pkg/serialization re-exports the public parts. It
// imports only wire.
package core
