package grpcbuf

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/require"
	"google.golang.org/grpc/encoding"
	grpcproto "google.golang.org/grpc/encoding/proto"
	"google.golang.org/grpc/mem"
	"google.golang.org/protobuf/proto"
	"google.golang.org/protobuf/types/known/wrapperspb"
)

func TestTier(t *testing.T) {
	for _, c := range []struct{ n, tier int }{
		{0, 0}, {1, 0}, {2048, 0}, {2049, 1}, {4096, 1}, {40 << 10, 16 - minShift}, {64 << 10, 16 - minShift},
		{1 << maxShift, maxShift - minShift}, {1<<maxShift + 1, -1},
	} {
		require.Equal(t, c.tier, tier(c.n), "tier(%d)", c.n)
	}
}

// split returns b as a BufferSlice of chunks of n bytes, as gRPC's
// transport hands a message read in several frames to the codec.
func split(b []byte, n int) mem.BufferSlice {
	var s mem.BufferSlice
	for len(b) > 0 {
		k := min(n, len(b))
		s = append(s, mem.SliceBuffer(bytes.Clone(b[:k])))
		b = b[k:]
	}
	return s
}

// Messages of every size round-trip, whether they arrive in one buffer or
// in frames, and a buffer reused from a larger message leaves nothing of
// it in a smaller one.
func TestCodecRoundTrips(t *testing.T) {
	var c Codec
	require.Equal(t, "proto", c.Name())
	for _, size := range []int{0, 10, 1 << 10, 40 << 10, 64 << 10, 700 << 10, 1 << 20, 1<<maxShift + 5} {
		for _, fill := range []byte{'a', 'b'} { // the second reuses the first's buffers
			in := wrapperspb.Bytes(bytes.Repeat([]byte{fill}, size))
			enc, err := c.Marshal(in)
			require.NoError(t, err, "size %d", size)
			wire := enc.Materialize()
			want, err := proto.Marshal(in)
			require.NoError(t, err)
			require.True(t, bytes.Equal(want, wire), "size %d: the encoding is protobuf's", size)
			enc.Free()
			for _, frame := range []int{len(wire) + 1, 16 << 10} {
				var out wrapperspb.BytesValue
				require.NoError(t, c.Unmarshal(split(wire, frame), &out), "size %d", size)
				require.True(t, bytes.Equal(in.Value, out.Value), "size %d in frames of %d", size, frame)
			}
		}
	}
	// Shorter messages after a long one, in the long one's buffer.
	long := wrapperspb.Bytes(bytes.Repeat([]byte{'x'}, 60<<10))
	enc, err := c.Marshal(long)
	require.NoError(t, err)
	enc.Free()
	short := wrapperspb.Bytes(bytes.Repeat([]byte{'y'}, 33<<10))
	enc, err = c.Marshal(short)
	require.NoError(t, err)
	var out wrapperspb.BytesValue
	require.NoError(t, c.Unmarshal(split(enc.Materialize(), 16<<10), &out))
	enc.Free()
	require.True(t, proto.Equal(short, &out))
}

func TestCodecRefusesWhatIsNotProtobuf(t *testing.T) {
	var c Codec
	_, err := c.Marshal("text")
	require.ErrorContains(t, err, "not a protobuf message")
	require.ErrorContains(t, c.Unmarshal(mem.BufferSlice{mem.SliceBuffer([]byte{8, 1})}, new(int)), "not a protobuf message")
	var out wrapperspb.BytesValue
	require.Error(t, c.Unmarshal(split([]byte{0x0a, 0x05, 'a'}, 1), &out), "a truncated message")
}

// FuzzUnmarshal: any bytes, in any framing, decode or fail without
// panicking, and decode as protobuf's own decoder does.
func FuzzUnmarshal(f *testing.F) {
	f.Add([]byte{0x0a, 0x03, 'a', 'b', 'c'}, uint16(2))
	f.Add(bytes.Repeat([]byte{0xff}, 300), uint16(7))
	f.Fuzz(func(t *testing.T, data []byte, frame uint16) {
		var got, want wrapperspb.BytesValue
		err := Codec{}.Unmarshal(split(data, int(frame)+1), &got)
		wantErr := proto.Unmarshal(data, &want)
		require.Equal(t, wantErr == nil, err == nil)
		if err == nil {
			require.True(t, proto.Equal(&want, &got))
		}
	})
}

// BenchmarkUnmarshal decodes a 64 KiB message arriving in 16 KiB frames,
// a join exchange message's size, with this codec and gRPC's.
func BenchmarkUnmarshal(b *testing.B) {
	wire, err := proto.Marshal(wrapperspb.Bytes(make([]byte, 64<<10)))
	require.NoError(b, err)
	frames := split(wire, 16<<10)
	for _, c := range []struct {
		name  string
		codec interface {
			Unmarshal(mem.BufferSlice, any) error
		}
	}{{"grpcbuf", Codec{}}, {"grpc", grpcCodec}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(wire)))
			b.ReportAllocs()
			var out wrapperspb.BytesValue
			for b.Loop() {
				if err := c.codec.Unmarshal(frames, &out); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}

var grpcCodec = encoding.GetCodecV2(grpcproto.Name)

// Encoding a get's or a set's message reuses its buffer: the one
// allocation left is the slice gRPC's codec interface returns.
func TestMarshalReusesSmallBuffers(t *testing.T) {
	msg := wrapperspb.Bytes(bytes.Repeat([]byte{'v'}, 100))
	allocs := testing.AllocsPerRun(1000, func() {
		enc, err := Codec{}.Marshal(msg)
		if err != nil {
			t.Fatal(err)
		}
		enc.Free()
	})
	require.LessOrEqual(t, allocs, 1.0)
}
