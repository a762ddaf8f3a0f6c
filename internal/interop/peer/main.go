// Command peer is the Go side of the Java client's interoperability tests.
// It writes values of one serialization format to a map with the Go client,
// reads them back, or prints the partitions the Go SDK computes for keys, and
// prints every value in a canonical text form that the Java tests compare
// with their own rendering of the same values.
//
//	peer -addr 127.0.0.1:5701 -cluster-name dev -mode write -format compact-small -map m -count 100
//	peer -addr 127.0.0.1:5701 -cluster-name dev -mode read  -format compact-small -map m -count 100
//	peer -mode partitions -count 1000
//
// write stores the value of each key 0..count-1 (int32 keys) and prints
// "KEY<TAB>CANONICAL" per key; read prints the same lines for what it finds
// ("KEY<TAB><missing>" for an absent key). partitions needs no member and
// prints "TYPE<TAB>KEY<TAB>PARTITION" for int, long and string keys.
//
// The values are deterministic functions of the key, the same ones the Java
// tests generate (the benchmark model's generators for the objects).
package main

import (
	"bufio"
	"context"
	"flag"
	"fmt"
	"math"
	"os"
	"strconv"
	"strings"
	"time"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/serialization"
)

// Formats lists the formats the peer knows, in the order the tests use.
var formats = []string{"string", "int", "long", "double", "boolean", "bytes", "json",
	"compact-small", "compact-large", "portable-small", "portable-large", "ids-small", "ids-large"}

func main() {
	addr := flag.String("addr", "127.0.0.1:5701", "member address (host:port)")
	cluster := flag.String("cluster-name", "dev", "cluster name")
	mode := flag.String("mode", "", "write, read or partitions")
	format := flag.String("format", "", "value format: "+strings.Join(formats, ", "))
	mapName := flag.String("map", "interop", "map name")
	count := flag.Int("count", 100, "number of keys (0..count-1)")
	partitions := flag.Int("partition-count", 271, "partition count for -mode partitions")
	timeout := flag.Duration("timeout", 60*time.Second, "time limit")
	flag.Parse()

	out := bufio.NewWriter(os.Stdout)
	defer out.Flush()
	var err error
	switch *mode {
	case "partitions":
		err = printPartitions(out, *count, int32(*partitions))
	case "write", "read":
		ctx, cancel := context.WithTimeout(context.Background(), *timeout)
		defer cancel()
		err = run(ctx, out, *addr, *cluster, *mode, *format, *mapName, *count)
	default:
		err = fmt.Errorf("-mode %q: want write, read or partitions", *mode)
	}
	if err != nil {
		out.Flush()
		fmt.Fprintln(os.Stderr, "peer:", err)
		os.Exit(1)
	}
}

func run(ctx context.Context, out *bufio.Writer, addr, cluster, mode, format, mapName string, count int) error {
	if _, err := valueFor(format, 0); err != nil {
		return err
	}
	c, err := client.New(ctx, client.Config{
		Addresses: []string{addr}, ClusterName: cluster, ClientName: "interop-peer",
		Serialization: benchmodel.Config(),
	})
	if err != nil {
		return err
	}
	defer c.Close()
	m := client.GetMap[any, any](c, mapName)
	for k := int32(0); k < int32(count); k++ {
		if mode == "write" {
			v, _ := valueFor(format, k)
			if err := m.Set(ctx, k, v); err != nil {
				return fmt.Errorf("set %d: %w", k, err)
			}
			fmt.Fprintf(out, "%d\t%s\n", k, canonical(v))
			continue
		}
		v, found, err := m.Get(ctx, k)
		if err != nil {
			return fmt.Errorf("get %d: %w", k, err)
		}
		if !found {
			fmt.Fprintf(out, "%d\t<missing>\n", k)
			continue
		}
		fmt.Fprintf(out, "%d\t%s\n", k, canonical(v))
	}
	return nil
}

// valueFor is the value of key k in format f.
func valueFor(f string, k int32) (any, error) {
	switch f {
	case "string":
		return fmt.Sprintf("välue-%d-✓", k), nil
	case "int":
		return k*31 + 7, nil
	case "long":
		return int64(k)*1_000_003 + 7, nil
	case "double":
		return float64(k)/7.0 + 0.125, nil
	case "boolean":
		return k%3 == 0, nil
	case "bytes":
		return benchmodel.BytesForKey(k, 16), nil
	case "json":
		return serialization.JSON(benchmodel.AJSON(k)), nil
	case "compact-small":
		v := benchmodel.SmallForKey(k)
		return &v, nil
	case "compact-large":
		v := benchmodel.LargeForKey(k)
		return &v, nil
	case "portable-small":
		v := benchmodel.PortableSmall(benchmodel.SmallForKey(k))
		return &v, nil
	case "portable-large":
		return benchmodel.NewPortableLarge(benchmodel.LargeForKey(k)), nil
	case "ids-small":
		v := benchmodel.IdentifiedSmall(benchmodel.SmallForKey(k))
		return &v, nil
	case "ids-large":
		return benchmodel.NewIdentifiedLarge(benchmodel.LargeForKey(k)), nil
	}
	return nil, fmt.Errorf("unknown format %q: want one of %s", f, strings.Join(formats, ", "))
}

// canonical renders a value the way the Java tests do: a type letter and
// the value, floating-point numbers as their IEEE bits in hex, objects as
// S{...} (SMALL) and L{...} (LARGE) whatever their format.
func canonical(v any) string {
	switch x := v.(type) {
	case string:
		return "s:" + x
	case int32:
		return "i:" + strconv.FormatInt(int64(x), 10)
	case int64:
		return "l:" + strconv.FormatInt(x, 10)
	case float64:
		return fmt.Sprintf("d:%016x", math.Float64bits(x))
	case bool:
		return "b:" + strconv.FormatBool(x)
	case []byte:
		return fmt.Sprintf("B:%x", x)
	case serialization.JSON:
		return "j:" + string(x)
	case *benchmodel.Small:
		return small(*x)
	case *benchmodel.PortableSmall:
		return small(benchmodel.Small(*x))
	case *benchmodel.IdentifiedSmall:
		return small(benchmodel.Small(*x))
	case *benchmodel.Large:
		return large(*x)
	case *benchmodel.PortableLarge:
		l := benchmodel.Large{
			BooleanField: x.BooleanField, BooleanArray: x.BooleanArray, ByteField: x.ByteField, ByteArray: bytesToInt8s(x.ByteArray),
			ShortField: x.ShortField, ShortArray: x.ShortArray, IntField: x.IntField, IntArray: x.IntArray,
			LongField: x.LongField, LongArray: x.LongArray, FloatField: x.FloatField, FloatArray: x.FloatArray,
			DoubleField: x.DoubleField, DoubleArray: x.DoubleArray, StringField: x.StringField, StringArray: x.StringArray,
		}
		if x.Small != nil {
			l.Small = benchmodel.Small(*x.Small)
		}
		for _, s := range x.SmallArray {
			l.SmallArray = append(l.SmallArray, benchmodel.Small(*s))
		}
		return large(l)
	case *benchmodel.IdentifiedLarge:
		l := benchmodel.Large{
			BooleanField: x.BooleanField, BooleanArray: x.BooleanArray, ByteField: x.ByteField, ByteArray: bytesToInt8s(x.ByteArray),
			ShortField: x.ShortField, ShortArray: x.ShortArray, IntField: x.IntField, IntArray: x.IntArray,
			LongField: x.LongField, LongArray: x.LongArray, FloatField: x.FloatField, FloatArray: x.FloatArray,
			DoubleField: x.DoubleField, DoubleArray: x.DoubleArray, StringField: x.StringField, StringArray: x.StringArray,
			Small: benchmodel.Small(x.Small),
		}
		for _, s := range x.SmallArray {
			l.SmallArray = append(l.SmallArray, benchmodel.Small(s))
		}
		return large(l)
	}
	return fmt.Sprintf("?%T:%v", v, v)
}

func bytesToInt8s(b []byte) []int8 {
	out := make([]int8, len(b))
	for i, x := range b {
		out[i] = int8(x)
	}
	return out
}

func small(s benchmodel.Small) string {
	return fmt.Sprintf("S{%d,%d,%016x,%s}", s.IntField, s.LongField, math.Float64bits(s.DoubleField), s.StringField)
}

func large(l benchmodel.Large) string {
	var b strings.Builder
	b.WriteString("L{")
	fmt.Fprintf(&b, "%t,%s,", l.BooleanField, list(l.BooleanArray, func(v bool) string { return strconv.FormatBool(v) }))
	fmt.Fprintf(&b, "%d,%s,", l.ByteField, list(l.ByteArray, func(v int8) string { return strconv.Itoa(int(v)) }))
	fmt.Fprintf(&b, "%d,%s,", l.ShortField, list(l.ShortArray, func(v int16) string { return strconv.Itoa(int(v)) }))
	fmt.Fprintf(&b, "%d,%s,", l.IntField, list(l.IntArray, func(v int32) string { return strconv.Itoa(int(v)) }))
	fmt.Fprintf(&b, "%d,%s,", l.LongField, list(l.LongArray, func(v int64) string { return strconv.FormatInt(v, 10) }))
	fmt.Fprintf(&b, "%08x,%s,", math.Float32bits(l.FloatField), list(l.FloatArray, func(v float32) string { return fmt.Sprintf("%08x", math.Float32bits(v)) }))
	fmt.Fprintf(&b, "%016x,%s,", math.Float64bits(l.DoubleField), list(l.DoubleArray, func(v float64) string { return fmt.Sprintf("%016x", math.Float64bits(v)) }))
	fmt.Fprintf(&b, "%s,%s,", l.StringField, list(l.StringArray, func(v string) string { return v }))
	fmt.Fprintf(&b, "%s,%s}", small(l.Small), list(l.SmallArray, small))
	return b.String()
}

func list[T any](items []T, f func(T) string) string {
	if items == nil {
		return "null"
	}
	parts := make([]string, len(items))
	for i, v := range items {
		parts[i] = f(v)
	}
	return "[" + strings.Join(parts, " ") + "]"
}

// printPartitions prints the partition the Go SDK computes for int, long and
// string keys 0..count-1.
func printPartitions(out *bufio.Writer, count int, partitionCount int32) error {
	ser, err := serialization.NewService(serialization.Config{})
	if err != nil {
		return err
	}
	for k := 0; k < count; k++ {
		keys := []struct {
			typ string
			key any
			txt string
		}{
			{"int", int32(k), strconv.Itoa(k)},
			{"long", int64(k) * 1_000_003, strconv.FormatInt(int64(k)*1_000_003, 10)},
			{"string", "key-" + strconv.Itoa(k), "key-" + strconv.Itoa(k)},
		}
		for _, e := range keys {
			d, err := ser.ToData(e.key)
			if err != nil {
				return err
			}
			fmt.Fprintf(out, "%s\t%s\t%d\n", e.typ, e.txt, d.PartitionID(partitionCount))
		}
	}
	return nil
}
