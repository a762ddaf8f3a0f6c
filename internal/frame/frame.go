// Package frame is the framed pipeline: the binary protocol on which the
// Go client sends its map calls to a member, on a connection of their own
// to the member's address, instead of a gRPC stream.
//
// A connection opens with Preamble (its first byte, 0x01, starts neither
// HTTP/2's preface, a TLS record nor a member's handshake, so the member's
// address tells it apart; with TLS it travels inside the TLS session).
// Then both sides exchange frames: a 4-byte big-endian length, a kind byte
// and a payload; the length counts the kind byte and the payload. The
// client's first frame is a hello (KindHello: api PipelineHello), which
// the member answers with a welcome (KindHello: PipelineWelcome) before
// anything else; then calls (KindCall: PipelineRequest, answered by a
// PipelineResponse with the same call id, in any order), query calls when
// the welcome offers them (KindQuery: QueryCall, answered by a QueryReply
// with the same call id; their ids are apart from KindCall's), pings either way
// (KindPing, answered by a KindPong with the same payload), and, from the
// member, a KindGoAway (an Error) after which it runs no call it has not
// answered.
//
// Frames are written through a Writer, which many goroutines share: each
// appends its frame to a buffer, and one write carries every frame
// appended while the previous write was under way, so a loaded connection
// makes few system calls and an idle one delays nothing. They are read
// through a Reader, whose frames alias its buffer.
package frame

import (
	"bufio"
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"sync"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

// Preamble opens every framed pipeline connection.
var Preamble = []byte("\x01atoll-pipeline/1\n")

// Frame kinds.
const (
	// KindHello: the client's PipelineHello, then the member's
	// PipelineWelcome.
	KindHello byte = 1
	// KindCall: a PipelineRequest, or the PipelineResponse to one.
	KindCall byte = 2
	// KindPing asks for a KindPong carrying the same payload.
	KindPing byte = 3
	// KindPong answers a KindPing.
	KindPong byte = 4
	// KindGoAway: the member ends the connection (an Error says why); it
	// has answered every call it ran.
	KindGoAway byte = 5
	// KindQuery: a QueryCall, or the QueryReply to one, on a connection
	// whose welcome said it carries queries.
	KindQuery byte = 6
)

// HeaderSize is the size of a frame's header: its length and kind.
const HeaderSize = 5

// MaxPing is the largest payload of a ping or pong.
const MaxPing = 64

// Begin appends the header of a frame of kind to dst, its length left to
// End, and returns dst and the frame's start.
func Begin(dst []byte, kind byte) ([]byte, int) {
	start := len(dst)
	return append(dst, 0, 0, 0, 0, kind), start
}

// End sets the length of the frame that starts at start and ends at the
// end of b.
func End(b []byte, start int) {
	binary.BigEndian.PutUint32(b[start:], uint32(len(b)-start-4))
}

// Append appends a whole frame of kind carrying payload.
func Append(dst []byte, kind byte, payload []byte) []byte {
	dst, start := Begin(dst, kind)
	dst = append(dst, payload...)
	End(dst, start)
	return dst
}

// ErrTooLarge: a frame longer than a Reader's hard limit. The connection
// cannot go on (the rest of the frame is not read).
var ErrTooLarge = errors.New("frame: frame over the connection's limit")

// ErrMalformed: a frame without a kind byte.
var ErrMalformed = errors.New("frame: malformed frame")

// Frame is one frame read.
type Frame struct {
	Kind byte
	// Payload is the frame's payload, or its first bytes when Skipped.
	// It is valid until the Reader's next call.
	Payload []byte
	// Size is the payload's size.
	Size int
	// Skipped says the payload was over the Reader's limit: Payload holds
	// its first SkippedPrefix bytes at most, and the rest was discarded.
	Skipped bool
}

// SkippedPrefix is how much of a skipped payload a Reader keeps: enough
// for the fields a call starts with (its id).
const SkippedPrefix = 32

// Reader reads frames.
type Reader struct {
	r *bufio.Reader
	// limit is the largest payload read; hard the largest frame skipped
	// (beyond it, ErrTooLarge).
	limit, hard int
	big         []byte // a payload larger than the bufio buffer
	prefix      [SkippedPrefix]byte
	discard     int // bytes of the last frame still to drop from r
}

// NewReader returns a Reader of r with a read buffer of size bytes, which
// reads payloads up to limit bytes and skips those up to hard bytes.
func NewReader(r io.Reader, size, limit, hard int) *Reader {
	return &Reader{r: bufio.NewReaderSize(r, size), limit: limit, hard: max(hard, limit)}
}

// Buffered returns the bytes read from the connection and not consumed
// yet: when 0, the next Next waits for the peer.
func (r *Reader) Buffered() int { return r.r.Buffered() - r.discard }

// Next reads the next frame. Its payload aliases the Reader's buffers
// until the next call.
func (r *Reader) Next() (Frame, error) {
	if r.discard > 0 {
		if _, err := r.r.Discard(r.discard); err != nil {
			return Frame{}, err
		}
		r.discard = 0
	}
	head, err := r.r.Peek(HeaderSize)
	if err != nil {
		if len(head) > 0 && errors.Is(err, io.EOF) {
			err = io.ErrUnexpectedEOF
		}
		return Frame{}, err
	}
	n := int(binary.BigEndian.Uint32(head))
	kind := head[4]
	if n < 1 {
		return Frame{}, ErrMalformed
	}
	size := n - 1
	if size > r.hard {
		return Frame{}, fmt.Errorf("%w: a payload of %d bytes, at most %d", ErrTooLarge, size, r.hard)
	}
	if _, err := r.r.Discard(HeaderSize); err != nil {
		return Frame{}, err
	}
	f := Frame{Kind: kind, Size: size}
	switch {
	case size > r.limit:
		keep := min(size, SkippedPrefix)
		if _, err := io.ReadFull(r.r, r.prefix[:keep]); err != nil {
			return Frame{}, unexpected(err)
		}
		if _, err := r.r.Discard(size - keep); err != nil {
			return Frame{}, unexpected(err)
		}
		f.Payload, f.Skipped = r.prefix[:keep], true
	case size <= r.r.Size():
		p, err := r.r.Peek(size)
		if err != nil {
			return Frame{}, unexpected(err)
		}
		f.Payload, r.discard = p, size
	default:
		if cap(r.big) < size {
			r.big = make([]byte, size)
		}
		if _, err := io.ReadFull(r.r, r.big[:size]); err != nil {
			return Frame{}, unexpected(err)
		}
		f.Payload = r.big[:size]
	}
	return f, nil
}

// Release drops a buffer kept for a large payload, once no frame aliases
// it.
func (r *Reader) Release() {
	if cap(r.big) > 1<<20 {
		r.big = nil
	}
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}

// Writer coalesces the frames of many goroutines into few writes. A
// goroutine appends its frame (Append); when no write is under way, it is
// told to flush, and Flush writes the buffer again and again until nothing
// is left, while others keep appending. Safe for concurrent use.
type Writer struct {
	out io.Writer
	// limit is how many bytes may wait for a write before Append waits.
	limit int

	mu       sync.Mutex
	buf      []byte
	spare    []byte
	flushing bool
	err      error
	waiting  int           // Appends waiting for room
	room     chan struct{} // closed when a write ends, for those waiting
}

// keepCap is the largest buffer a Writer keeps for its next frames.
const keepCap = 1 << 20

// NewWriter returns a Writer to out that lets limit bytes wait for a
// write before Append waits.
func NewWriter(out io.Writer, limit int) *Writer {
	return &Writer{out: out, limit: limit, room: make(chan struct{})}
}

// Append appends a frame of kind whose payload fill appends to its
// argument; fill runs under the Writer's lock and must not block. When
// fill fails, nothing is appended and its error is returned. Append waits
// while more than the limit waits for a write, until ctx ends. It
// returns flush=true when no write is under way: the caller must then
// call Flush (or have it called), which writes this frame and what
// follows it.
func (w *Writer) Append(ctx context.Context, kind byte, fill func([]byte) ([]byte, error)) (flush bool, err error) {
	w.mu.Lock()
	for w.err == nil && len(w.buf) > w.limit {
		room := w.room
		w.waiting++
		w.mu.Unlock()
		select {
		case <-room:
		case <-ctx.Done():
			w.mu.Lock()
			w.waiting--
			w.mu.Unlock()
			return false, ctx.Err()
		}
		w.mu.Lock()
		w.waiting--
	}
	if w.err != nil {
		err := w.err
		w.mu.Unlock()
		return false, err
	}
	b, start := Begin(w.buf, kind)
	b, err = fill(b)
	if err != nil {
		w.buf = b[:start]
		w.mu.Unlock()
		return false, err
	}
	End(b, start)
	w.buf = b
	flush = !w.flushing
	w.flushing = true
	w.mu.Unlock()
	return flush, nil
}

// Flush writes what was appended until nothing is left; it is called by
// the one caller Append told to. It returns the write's error, which
// every later Append returns too.
func (w *Writer) Flush() error {
	w.mu.Lock()
	for len(w.buf) > 0 && w.err == nil {
		out := w.buf
		w.buf = w.spare[:0]
		w.mu.Unlock()
		_, err := w.out.Write(out)
		w.mu.Lock()
		if cap(out) <= keepCap {
			w.spare = out[:0]
		} else {
			w.spare = nil
		}
		if err != nil {
			w.err = err
		}
		w.wake()
	}
	w.flushing = false
	err := w.err
	w.mu.Unlock()
	return err
}

// wake lets waiting Appends look again (under w.mu).
func (w *Writer) wake() {
	if w.waiting > 0 {
		close(w.room)
		w.room = make(chan struct{})
	}
}

// Send appends a frame as Append does and, when Append says so, flushes
// it; it returns the size of the payload fill appended.
func (w *Writer) Send(ctx context.Context, kind byte, fill func([]byte) ([]byte, error)) (int, error) {
	size := 0
	flush, err := w.Append(ctx, kind, func(b []byte) ([]byte, error) {
		n := len(b)
		b, err := fill(b)
		size = len(b) - n
		return b, err
	})
	if err == nil && flush {
		err = w.Flush()
	}
	return size, err
}

// Traffic counts the frames of a stream with one peer.
type Traffic interface {
	// Sent counts a frame whose payload has size bytes, which took took
	// to send.
	Sent(size int, took time.Duration)
	// Received counts a frame whose payload has size bytes.
	Received(size int)
}

// NoTraffic counts nothing.
type NoTraffic struct{}

func (NoTraffic) Sent(int, time.Duration) {}
func (NoTraffic) Received(int)            {}

// Err returns the error that ended the Writer (a write's, or Fail's), or
// nil.
func (w *Writer) Err() error {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.err
}

// Fail makes every later Append fail with err (the connection ended), and
// those waiting for room return it.
func (w *Writer) Fail(err error) {
	w.mu.Lock()
	if w.err == nil {
		w.err = err
	}
	w.buf = w.buf[:0]
	w.wake()
	w.mu.Unlock()
}

// CallID reads field 1 (a varint), the call id that every call and every
// answer of a pipeline carries, of an encoded message without decoding the
// rest; 0 when it has none. Encoders write fields in order, so it is found
// in a message's first bytes (a gRPC message's first buffer, the first
// bytes of a skipped frame).
func CallID(b []byte) uint64 {
	for len(b) > 0 {
		num, typ, n := protowire.ConsumeTag(b)
		if n < 0 {
			return 0
		}
		b = b[n:]
		if num == 1 && typ == protowire.VarintType {
			v, n := protowire.ConsumeVarint(b)
			if n < 0 {
				return 0
			}
			return v
		}
		if n = protowire.ConsumeFieldValue(num, typ, b); n < 0 {
			return 0
		}
		b = b[n:]
	}
	return 0
}
