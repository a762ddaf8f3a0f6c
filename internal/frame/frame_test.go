package frame

import (
	"bytes"
	"context"
	"encoding/binary"
	"errors"
	"io"
	"net"
	"sync"
	"testing"
	"time"

	"google.golang.org/protobuf/encoding/protowire"
)

func TestReaderFrames(t *testing.T) {
	big := bytes.Repeat([]byte("b"), 300)
	var in []byte
	in = Append(in, KindHello, []byte("hello"))
	in = Append(in, KindCall, nil)
	in = Append(in, KindCall, big)                             // larger than the read buffer, within the limit
	in = Append(in, KindPing, bytes.Repeat([]byte("x"), 1000)) // over the limit: skipped
	in = Append(in, KindGoAway, []byte("bye"))
	rd := NewReader(bytes.NewReader(in), 64, 512, 4096)
	want := []struct {
		kind    byte
		payload []byte
		size    int
		skipped bool
	}{
		{KindHello, []byte("hello"), 5, false},
		{KindCall, []byte{}, 0, false},
		{KindCall, big, 300, false},
		{KindPing, bytes.Repeat([]byte("x"), SkippedPrefix), 1000, true},
		{KindGoAway, []byte("bye"), 3, false},
	}
	for i, w := range want {
		f, err := rd.Next()
		if err != nil {
			t.Fatalf("frame %d: %v", i, err)
		}
		if f.Kind != w.kind || !bytes.Equal(f.Payload, w.payload) || f.Size != w.size || f.Skipped != w.skipped {
			t.Fatalf("frame %d: kind %d, %d bytes (%q), skipped %v; want kind %d, %d bytes, skipped %v",
				i, f.Kind, f.Size, f.Payload, f.Skipped, w.kind, w.size, w.skipped)
		}
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Fatalf("after the last frame: %v, want io.EOF", err)
	}
}

func TestReaderErrors(t *testing.T) {
	for name, tc := range map[string]struct {
		in   []byte
		want error
	}{
		"no kind":             {in: []byte{0, 0, 0, 0, 1}, want: ErrMalformed},
		"over the hard limit": {in: []byte{0, 0, 0x13, 0x88, KindCall}, want: ErrTooLarge},
		"cut header":          {in: []byte{0, 0, 0}, want: io.ErrUnexpectedEOF},
		"cut payload":         {in: []byte{0, 0, 0, 9, KindCall, 1, 2}, want: io.ErrUnexpectedEOF},
		"cut big payload":     {in: append([]byte{0, 0, 1, 0, KindCall}, make([]byte, 100)...), want: io.ErrUnexpectedEOF},
		"cut skipped":         {in: append([]byte{0, 0, 3, 0, KindCall}, make([]byte, 600)...), want: io.ErrUnexpectedEOF},
	} {
		t.Run(name, func(t *testing.T) {
			_, err := NewReader(bytes.NewReader(tc.in), 64, 512, 4096).Next()
			if !errors.Is(err, tc.want) {
				t.Fatalf("got %v, want %v", err, tc.want)
			}
		})
	}
}

// FuzzReader: any input yields frames within the limits, or an error,
// never a panic; a frame's payload is what its length said.
func FuzzReader(f *testing.F) {
	f.Add(Append(Append(nil, KindCall, []byte("abc")), KindPing, nil))
	f.Add([]byte{0, 0, 0, 0})
	f.Add([]byte{0, 0, 1, 0, KindCall, 1})
	f.Add(Append(nil, KindCall, bytes.Repeat([]byte("z"), 700)))
	f.Fuzz(func(t *testing.T, in []byte) {
		rd := NewReader(bytes.NewReader(in), 64, 256, 1024)
		read := 0
		for {
			f, err := rd.Next()
			if err != nil {
				return
			}
			read += HeaderSize + f.Size
			if read > len(in) {
				t.Fatalf("frames of %d bytes out of %d", read, len(in))
			}
			if f.Size > 1024 || (!f.Skipped && len(f.Payload) != f.Size) || (f.Skipped && (f.Size <= 256 || len(f.Payload) > SkippedPrefix)) {
				t.Fatalf("frame of %d bytes, payload %d, skipped %v", f.Size, len(f.Payload), f.Skipped)
			}
		}
	})
}

// Frames appended by many goroutines arrive whole, each goroutine's in
// its order.
func TestWriterKeepsOrder(t *testing.T) {
	a, b := net.Pipe()
	defer a.Close()
	defer b.Close()
	w := NewWriter(a, 1<<20)
	const goroutines, each = 8, 200
	var wg sync.WaitGroup
	for g := range goroutines {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := range each {
				flush, err := w.Append(context.Background(), KindCall, func(p []byte) ([]byte, error) {
					return binary.BigEndian.AppendUint32(append(p, byte(g)), uint32(i)), nil
				})
				if err != nil {
					t.Error(err)
					return
				}
				if flush {
					if err := w.Flush(); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	next := make([]uint32, goroutines)
	rd := NewReader(b, 4096, 64, 64)
	for range goroutines * each {
		f, err := rd.Next()
		if err != nil {
			t.Fatal(err)
		}
		g, i := f.Payload[0], binary.BigEndian.Uint32(f.Payload[1:])
		if i != next[g] {
			t.Fatalf("goroutine %d: frame %d after %d", g, i, next[g])
		}
		next[g]++
	}
	wg.Wait()
}

// Frames appended while a write is under way go out together in the next
// write, by the goroutine already flushing; none of their appenders is
// told to flush.
func TestWriterCoalesces(t *testing.T) {
	var mu sync.Mutex
	var writes [][]byte
	writing, release := make(chan struct{}), make(chan struct{})
	w := NewWriter(writerFunc(func(p []byte) (int, error) {
		mu.Lock()
		writes = append(writes, bytes.Clone(p))
		first := len(writes) == 1
		mu.Unlock()
		if first {
			close(writing)
			<-release
		}
		return len(p), nil
	}), 1<<20)
	appendFrame := func(i byte) bool {
		flush, err := w.Append(context.Background(), KindCall, func(p []byte) ([]byte, error) { return append(p, i), nil })
		if err != nil {
			t.Fatal(err)
		}
		return flush
	}
	if !appendFrame(0) {
		t.Fatal("the first frame's appender was not told to flush")
	}
	flushed := make(chan error)
	go func() { flushed <- w.Flush() }()
	<-writing // the first write is under way
	const more = 50
	for i := range byte(more) {
		if appendFrame(i + 1) {
			t.Fatalf("frame %d: told to flush while a write was under way", i+1)
		}
	}
	close(release)
	if err := <-flushed; err != nil {
		t.Fatal(err)
	}
	if len(writes) != 2 {
		t.Fatalf("%d writes for %d frames, want 2", len(writes), more+1)
	}
	rd := NewReader(bytes.NewReader(append(writes[0], writes[1]...)), 4096, 64, 64)
	for i := range byte(more + 1) {
		f, err := rd.Next()
		if err != nil || f.Kind != KindCall || len(f.Payload) != 1 || f.Payload[0] != i {
			t.Fatalf("frame %d: %+v %v", i, f, err)
		}
	}
}

// TestWriterWaitsForRoom: past the limit, Append waits for a write to end
// or for its context; a failed writer fails every Append, waiting or not.
func TestWriterWaitsForRoom(t *testing.T) {
	writing, block := make(chan struct{}, 1), make(chan struct{})
	w := NewWriter(writerFunc(func(p []byte) (int, error) {
		writing <- struct{}{}
		<-block
		return 0, errors.New("connection gone")
	}), 10)
	fill := func(p []byte) ([]byte, error) { return append(p, make([]byte, 20)...), nil }
	flush, err := w.Append(context.Background(), KindCall, fill)
	if err != nil || !flush {
		t.Fatalf("first Append: flush %v, %v", flush, err)
	}
	flushed := make(chan error, 1)
	go func() { flushed <- w.Flush() }() // blocks in the write
	<-writing
	// The frame appended while the write hangs fills the buffer again.
	if flush, err := w.Append(context.Background(), KindCall, fill); err != nil || flush {
		t.Fatalf("Append during the write: flush %v, %v", flush, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	if _, err := w.Append(ctx, KindCall, fill); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("Append past the limit: %v, want the context's deadline", err)
	}
	waiting := make(chan error, 1)
	go func() {
		_, err := w.Append(context.Background(), KindCall, fill)
		waiting <- err
	}()
	close(block)
	if err := <-flushed; err == nil {
		t.Fatal("Flush: no error from the failed write")
	}
	if err := <-waiting; err == nil {
		t.Fatal("the waiting Append did not fail with the writer")
	}
	if _, err := w.Append(context.Background(), KindCall, fill); err == nil {
		t.Fatal("Append after the writer failed: no error")
	}
}

// TestWriterFillError: a frame whose payload cannot be built is not
// appended, and the frames around it are.
func TestWriterFillError(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, 1<<20)
	bad := errors.New("cannot encode")
	for i, fill := range []func([]byte) ([]byte, error){
		func(p []byte) ([]byte, error) { return append(p, 'a'), nil },
		func(p []byte) ([]byte, error) { return append(p, "half"...), bad },
		func(p []byte) ([]byte, error) { return append(p, 'c'), nil },
	} {
		if _, err := w.Append(context.Background(), KindCall, fill); (err != nil) != (i == 1) {
			t.Fatalf("frame %d: %v", i, err)
		}
	}
	if err := w.Flush(); err != nil {
		t.Fatal(err)
	}
	want := Append(Append(nil, KindCall, []byte("a")), KindCall, []byte("c"))
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("wrote %v, want %v", out.Bytes(), want)
	}
}

type writerFunc func([]byte) (int, error)

func (f writerFunc) Write(p []byte) (int, error) { return f(p) }

// TestWriterSend writes each frame it appends when no write is under way,
// and returns the payload's size.
func TestWriterSend(t *testing.T) {
	var out bytes.Buffer
	w := NewWriter(&out, 1<<20)
	for i, payload := range []string{"one", "", "three"} {
		size, err := w.Send(context.Background(), KindCall, func(p []byte) ([]byte, error) { return append(p, payload...), nil })
		if err != nil || size != len(payload) {
			t.Fatalf("frame %d: size %d, %v", i, size, err)
		}
	}
	want := Append(Append(Append(nil, KindCall, []byte("one")), KindCall, nil), KindCall, []byte("three"))
	if !bytes.Equal(out.Bytes(), want) {
		t.Fatalf("wrote %v, want %v", out.Bytes(), want)
	}
	bad := errors.New("cannot encode")
	if _, err := w.Send(context.Background(), KindCall, func(p []byte) ([]byte, error) { return p, bad }); !errors.Is(err, bad) {
		t.Fatalf("a failed fill: %v", err)
	}
}

// TestCallID: the call id is field 1 wherever it stands among the fields
// before it, and 0 when a message has none or is cut short.
func TestCallID(t *testing.T) {
	id := protowire.AppendVarint(protowire.AppendTag(nil, 1, protowire.VarintType), 300)
	other := protowire.AppendString(protowire.AppendTag(nil, 2, protowire.BytesType), "sql")
	for _, c := range []struct {
		name string
		in   []byte
		want uint64
	}{
		{"first", append(append([]byte(nil), id...), other...), 300},
		{"after another field", append(append([]byte(nil), other...), id...), 300},
		{"none", other, 0},
		{"empty", nil, 0},
		{"cut short", id[:len(id)-1], 0},
		{"not a varint", protowire.AppendString(protowire.AppendTag(nil, 1, protowire.BytesType), "x"), 0},
	} {
		if got := CallID(c.in); got != c.want {
			t.Errorf("%s: CallID = %d, want %d", c.name, got, c.want)
		}
	}
}
