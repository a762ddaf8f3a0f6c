package client

import (
	"fmt"
	"unicode/utf8"

	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"

	"github.com/atolldb/atoll/internal/grpcbuf"
)

// Requests the client cannot send
//
// Calls share a connection's streams (its map pipeline, its query
// stream), and a stream ends at the first message gRPC fails to encode,
// failing every call on it. So the client encodes each message for a
// shared stream itself, before it hands it over (the map pipeline's
// requests straight into its write buffer, framed.go): a message that cannot be encoded (a string that is not valid
// UTF-8) or is over the message limit (the member's, learned when the
// client connected, or Config.MaxMessageSize if lower) fails its own call
// with a *RequestError, nothing is sent, and the connection and the other
// calls on it carry on. Only what fails after that is the connection's
// failure. Map names and statements are also checked where the SDK takes
// them, and keys and values against the member's key and value limits
// (limits.go), so that the error names the field.

// RequestError reports a request the client refused to send: nothing was
// sent and the connection is unaffected; retrying the same request fails
// the same way. It matches ErrInvalidArgument (a field the protocol cannot
// carry or a member would refuse) or ErrTooLarge (a key, value or message
// over a member's limit or Config.MaxMessageSize).
type RequestError struct {
	// Field names the request field at fault ("map", "sql", "key",
	// "value", ...), or is empty when the whole message is.
	Field  string
	Reason string
	// Limit is the limit in bytes a request over a size limit passed (0
	// otherwise); Reason names its setting.
	Limit int
	kind  error
}

func (e *RequestError) Error() string {
	if e.Field != "" {
		return fmt.Sprintf("atoll: request not sent: %s: %s", e.Field, e.Reason)
	}
	return "atoll: request not sent: " + e.Reason
}

// Unwrap returns ErrInvalidArgument or ErrTooLarge.
func (e *RequestError) Unwrap() error { return e.kind }

// maxMapName is the longest map name a member accepts, in bytes.
const maxMapName = 1024

// checkMapName checks a map name as a member would: 1 to 1024 bytes of
// valid UTF-8.
func checkMapName(name string) error {
	switch {
	case name == "":
		return &RequestError{Field: "map", Reason: "the map name is empty", kind: ErrInvalidArgument}
	case len(name) > maxMapName:
		return &RequestError{Field: "map", Reason: fmt.Sprintf("the map name has %d bytes, at most %d", len(name), maxMapName), kind: ErrInvalidArgument}
	case !utf8.ValidString(name):
		return &RequestError{Field: "map", Reason: fmt.Sprintf("the map name %.64q is not valid UTF-8", name), kind: ErrInvalidArgument}
	}
	return nil
}

// checkText checks a request string that must be valid UTF-8.
func checkText(field, s string) error {
	if !utf8.ValidString(s) {
		return &RequestError{Field: field, Reason: fmt.Sprintf("%.64q is not valid UTF-8", s), kind: ErrInvalidArgument}
	}
	return nil
}

// protoCodec is gRPC's protobuf codec with Atoll's buffers.
var protoCodec grpcbuf.Codec

// encodedMessage is a message the client encoded before sending it.
type encodedMessage struct{ data mem.BufferSlice }

// encodeRequest encodes msg for a shared stream; a message that cannot be
// encoded or is over the message limit is a *RequestError. The
// connection's codec (passthroughCodec) takes the result as it is.
func encodeRequest(msg proto.Message, l *limits) (encodedMessage, error) {
	data, err := protoCodec.Marshal(msg)
	if err != nil {
		return encodedMessage{}, &RequestError{Reason: err.Error(), kind: ErrInvalidArgument}
	}
	if err := l.checkMessage(data.Len()); err != nil {
		data.Free()
		return encodedMessage{}, err
	}
	return encodedMessage{data: data}, nil
}

// passthroughCodec, every call's codec, sends encodedMessages as they are
// and encodes and decodes everything else as protobuf.
type passthroughCodec struct{}

func (passthroughCodec) Marshal(v any) (mem.BufferSlice, error) {
	if m, ok := v.(encodedMessage); ok {
		return m.data, nil
	}
	return protoCodec.Marshal(v)
}

func (passthroughCodec) Unmarshal(data mem.BufferSlice, v any) error {
	return protoCodec.Unmarshal(data, v)
}

func (passthroughCodec) Name() string { return grpcproto.Name }
