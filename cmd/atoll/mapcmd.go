package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"sort"
	"strconv"
	"strings"
	"time"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
	"github.com/atolldb/atoll/pkg/serialization"
)

// clientFlags are the connection flags of every client command.
type clientFlags struct {
	addr        string
	clusterName string
	timeout     time.Duration
	// queryRetry is how queries the members' memory breaker refused are
	// retried (the SDK's defaults when zero).
	queryRetry client.Backoff
}

func (f *clientFlags) register(cmd *cobra.Command) {
	cmd.PersistentFlags().StringVar(&f.addr, "addr", "127.0.0.1:5701", "member addresses, host:port[,host:port]")
	cmd.PersistentFlags().StringVar(&f.clusterName, "cluster-name", "dev", "cluster name")
	cmd.PersistentFlags().DurationVar(&f.timeout, "timeout", 60*time.Second, "time limit of the command")
}

// connect returns a client and a context bounded by --timeout.
func (f *clientFlags) connect(cmd *cobra.Command) (*client.Client, context.Context, context.CancelFunc, error) {
	ctx, cancel := context.WithTimeout(cmd.Context(), f.timeout)
	c, err := client.New(ctx, client.Config{
		Addresses:   strings.Split(f.addr, ","),
		ClusterName: f.clusterName,
		ClientName:  "atoll-cli",
		QueryRetry:  f.queryRetry,
		// The workload objects (Compact "small" and "large") decode to Go
		// values; anything else decodes to generic records.
		Serialization: benchmodel.Config(),
	})
	if err != nil {
		cancel()
		return nil, nil, nil, err
	}
	return c, ctx, func() { _ = c.Close(); cancel() }, nil
}

// parseTyped converts a command-line argument to the Go value of typ.
func parseTyped(s, typ string) (any, error) {
	switch typ {
	case "string":
		return s, nil
	case "int":
		v, err := strconv.ParseInt(s, 10, 32)
		if err != nil {
			return nil, fmt.Errorf("%q is not an int: %w", s, err)
		}
		return int32(v), nil
	case "long":
		v, err := strconv.ParseInt(s, 10, 64)
		if err != nil {
			return nil, fmt.Errorf("%q is not a long: %w", s, err)
		}
		return v, nil
	case "json":
		if !json.Valid([]byte(s)) {
			return nil, fmt.Errorf("%q is not valid JSON", s)
		}
		return serialization.JSON(s), nil
	}
	return nil, fmt.Errorf("unknown type %q: want string, int, long or json", typ)
}

// format renders a decoded value for output.
func format(v any) string {
	switch x := v.(type) {
	case nil:
		return "null"
	case string:
		return x
	case serialization.JSON:
		return string(x)
	case *serialization.CompactRecord:
		return formatRecord(x.TypeName(), fieldNames(x.Schema()), x.Get)
	case *serialization.PortableRecord:
		cd, err := x.ClassDefinition()
		if err != nil {
			return fmt.Sprintf("portable %d/%d (%v)", x.FactoryID(), x.ClassID(), err)
		}
		var names []string
		for _, f := range cd.Fields {
			names = append(names, f.Name)
		}
		return formatRecord(fmt.Sprintf("portable %d/%d", x.FactoryID(), x.ClassID()), names, x.Get)
	case *serialization.IdentifiedRecord:
		var names []string
		for _, f := range x.Layout().Fields {
			names = append(names, f.Name)
		}
		return formatRecord(fmt.Sprintf("identified %d/%d", x.Layout().FactoryID, x.Layout().ClassID), names, x.Get)
	case []byte:
		return fmt.Sprintf("%x", x)
	}
	return fmt.Sprintf("%+v", v)
}

func fieldNames(s *serialization.Schema) []string {
	names := make([]string, len(s.Fields))
	for i, f := range s.Fields {
		names[i] = f.Name
	}
	return names
}

func formatRecord(name string, fields []string, get func(string) (any, error)) string {
	var b strings.Builder
	b.WriteString(name)
	b.WriteByte('{')
	for i, f := range fields {
		if i > 0 {
			b.WriteString(", ")
		}
		v, err := get(f)
		if err != nil {
			fmt.Fprintf(&b, "%s=<%v>", f, err)
			continue
		}
		fmt.Fprintf(&b, "%s=%s", f, format(v))
	}
	b.WriteByte('}')
	return b.String()
}

// fillValue is the deterministic value `map fill` stores under key k.
func fillValue(k int32, typ string) (any, error) {
	switch typ {
	case "string":
		return "value-" + strconv.Itoa(int(k)), nil
	case "int":
		return k*31 + 7, nil
	case "long":
		return int64(k)*1_000_003 + 7, nil
	case "json":
		return serialization.JSON(fmt.Sprintf(`{"key":%d,"value":"value-%d"}`, k, k)), nil
	case "small":
		v := benchmodel.SmallForKey(k)
		return &v, nil
	case "large":
		v := benchmodel.LargeForKey(k)
		return &v, nil
	}
	return nil, fmt.Errorf("unknown value type %q: want string, int, long, json, small or large", typ)
}

// mapCmd holds what every `atoll map` subcommand shares: the connection
// flags and the types of keys and values.
type mapCmd struct {
	cf                 clientFlags
	keyType, valueType string
}

func newMapCmd() *cobra.Command {
	mc := &mapCmd{}
	cmd := &cobra.Command{Use: "map", Short: "Read and write maps"}
	mc.cf.register(cmd)
	cmd.PersistentFlags().StringVar(&mc.keyType, "key-type", "string", "type of keys: string, int, long or json")
	cmd.PersistentFlags().StringVar(&mc.valueType, "value-type", "string", "type of values: string, int, long or json (fill and verify also: small, large, the workloads' Compact objects)")
	fill := &fillFlags{}
	cmd.AddCommand(mc.putCmd(), mc.getCmd(), mc.removeCmd(), mc.sizeCmd(), mc.entriesCmd(), mc.clearCmd(), mc.statsCmd(),
		mc.fillCmd(fill), mc.verifyCmd(fill), mc.queryCmd())
	return cmd
}

// mapRun is the body of a subcommand: the map named by the first
// argument, the other arguments, and where to print.
type mapRun func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error

// withMap connects (bounded by --timeout) and runs run on the map named
// by the first argument.
func (mc *mapCmd) withMap(run mapRun) func(*cobra.Command, []string) error {
	return func(cmd *cobra.Command, args []string) error {
		c, ctx, done, err := mc.cf.connect(cmd)
		if err != nil {
			return err
		}
		defer done()
		return run(ctx, client.GetMap[any, any](c, args[0]), args[1:], cmd.OutOrStdout())
	}
}

// key parses a key argument as --key-type says.
func (mc *mapCmd) key(s string) (any, error) { return parseTyped(s, mc.keyType) }

func (mc *mapCmd) putCmd() *cobra.Command {
	var ttl time.Duration
	put := &cobra.Command{
		Use: "put MAP KEY VALUE", Short: "Store a value (prints the previous one, if any)", Args: cobra.ExactArgs(3),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error {
			k, err := mc.key(args[0])
			if err != nil {
				return err
			}
			v, err := parseTyped(args[1], mc.valueType)
			if err != nil {
				return err
			}
			var opts []client.WriteOption
			if ttl > 0 {
				opts = append(opts, client.WithTTL(ttl))
			}
			old, existed, err := m.Put(ctx, k, v, opts...)
			if err == nil && existed {
				fmt.Fprintln(out, format(old))
			}
			return err
		}),
	}
	put.Flags().DurationVar(&ttl, "ttl", 0, "time to live of the entry (default: the map's)")
	return put
}

func (mc *mapCmd) getCmd() *cobra.Command {
	return &cobra.Command{
		Use: "get MAP KEY", Short: "Print a value; a missing key prints \"not found\" on stderr and exits 1", Args: cobra.ExactArgs(2),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error {
			k, err := mc.key(args[0])
			if err != nil {
				return err
			}
			v, found, err := m.Get(ctx, k)
			if err != nil {
				return err
			}
			if !found {
				return notFound()
			}
			fmt.Fprintln(out, format(v))
			return nil
		}),
	}
}

func (mc *mapCmd) removeCmd() *cobra.Command {
	return &cobra.Command{
		Use: "remove MAP KEY", Short: "Remove a key (prints the removed value; a missing key exits 1)", Args: cobra.ExactArgs(2),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error {
			k, err := mc.key(args[0])
			if err != nil {
				return err
			}
			v, found, err := m.Remove(ctx, k)
			if err != nil {
				return err
			}
			if !found {
				return notFound()
			}
			fmt.Fprintln(out, format(v))
			return nil
		}),
	}
}

func (mc *mapCmd) sizeCmd() *cobra.Command {
	return &cobra.Command{
		Use: "size MAP", Short: "Print the number of entries", Args: cobra.ExactArgs(1),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], _ []string, out io.Writer) error {
			n, err := m.Size(ctx)
			if err == nil {
				fmt.Fprintln(out, n)
			}
			return err
		}),
	}
}

func (mc *mapCmd) entriesCmd() *cobra.Command {
	return &cobra.Command{
		Use: "entries MAP", Short: "Print every entry as KEY<TAB>VALUE", Args: cobra.ExactArgs(1),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], _ []string, out io.Writer) error {
			for e, err := range m.All(ctx) {
				if err != nil {
					return err
				}
				fmt.Fprintf(out, "%s\t%s\n", format(e.Key), format(e.Value))
			}
			return nil
		}),
	}
}

func (mc *mapCmd) clearCmd() *cobra.Command {
	return &cobra.Command{
		Use: "clear MAP", Short: "Remove every entry", Args: cobra.ExactArgs(1),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], _ []string, _ io.Writer) error {
			return m.Clear(ctx)
		}),
	}
}

func (mc *mapCmd) statsCmd() *cobra.Command {
	return &cobra.Command{
		Use: "stats MAP", Short: "Print the map's statistics summed over the members", Args: cobra.ExactArgs(1),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], _ []string, out io.Writer) error {
			st, err := m.Stats(ctx)
			if err != nil {
				return err
			}
			rows := [][2]string{
				{"members", strconv.Itoa(st.Members)},
				{"owned-entry-count", strconv.FormatInt(st.OwnedEntryCount, 10)},
				{"owned-entry-memory-cost", strconv.FormatInt(st.OwnedEntryMemoryCost, 10)},
				{"backup-entry-count", strconv.FormatInt(st.BackupEntryCount, 10)},
				{"backup-entry-memory-cost", strconv.FormatInt(st.BackupEntryMemoryCost, 10)},
				{"hits", strconv.FormatInt(st.Hits, 10)},
				{"gets", strconv.FormatInt(st.Gets, 10)},
				{"puts", strconv.FormatInt(st.Puts, 10)},
				{"sets", strconv.FormatInt(st.Sets, 10)},
				{"removes", strconv.FormatInt(st.Removes, 10)},
				{"evictions", strconv.FormatInt(st.Evictions, 10)},
				{"expirations", strconv.FormatInt(st.Expirations, 10)},
			}
			if st.OwnedEntryCount > 0 {
				rows = append(rows, [2]string{"owned-memory-cost-per-entry", strconv.FormatFloat(float64(st.OwnedEntryMemoryCost)/float64(st.OwnedEntryCount), 'f', 1, 64)})
			}
			for _, r := range rows {
				fmt.Fprintf(out, "%-28s %s\n", r[0], r[1])
			}
			return nil
		}),
	}
}

// fillFlags are the flags fill and verify share: which keys, in what
// batches.
type fillFlags struct {
	count, start int32
	batch        int
}

func (f *fillFlags) register(c *cobra.Command) {
	c.Flags().Int32Var(&f.count, "count", 0, "number of keys")
	c.Flags().Int32Var(&f.start, "start", 0, "first key")
	c.Flags().IntVar(&f.batch, "batch", 500, "keys per call")
	_ = c.MarkFlagRequired("count")
}

func (mc *mapCmd) fillCmd(f *fillFlags) *cobra.Command {
	fill := &cobra.Command{
		Use: "fill MAP --count N [--start S]", Short: "Write keys S..S+N-1 (int32) with deterministic values", Args: cobra.ExactArgs(1),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], _ []string, out io.Writer) error {
			entries := make([]client.Entry[any, any], 0, f.batch)
			ser := m.Client().Serialization()
			var dataBytes int64
			for k := f.start; k < f.start+f.count; k++ {
				v, err := fillValue(k, mc.valueType)
				if err != nil {
					return err
				}
				kd, kerr := ser.ToData(k)
				vd, verr := ser.ToData(v)
				if err := errors.Join(kerr, verr); err != nil {
					return err
				}
				dataBytes += int64(len(kd) + len(vd))
				entries = append(entries, client.Entry[any, any]{Key: k, Value: v})
				if len(entries) == f.batch || k == f.start+f.count-1 {
					if err := m.PutAll(ctx, entries); err != nil {
						return fmt.Errorf("writing keys up to %d: %w", k, err)
					}
					entries = entries[:0]
				}
			}
			fmt.Fprintf(out, "%d written\n", f.count)
			if f.count > 0 {
				fmt.Fprintf(out, "serialized key+value: %.1f bytes per entry\n", float64(dataBytes)/float64(f.count))
			}
			return nil
		}),
	}
	f.register(fill)
	return fill
}

func (mc *mapCmd) verifyCmd(f *fillFlags) *cobra.Command {
	verify := &cobra.Command{
		Use: "verify MAP --count N [--start S]", Short: `Read back what fill wrote; ends with "N ok, M missing, K wrong"`, Args: cobra.ExactArgs(1),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], _ []string, out io.Writer) error {
			var ok, missing, wrong int
			keys := make([]any, 0, f.batch)
			check := func() error {
				got, err := m.GetAll(ctx, keys)
				if err != nil {
					return err
				}
				found := make(map[int32]any, len(got))
				for _, e := range got {
					if k, isInt := e.Key.(int32); isInt {
						found[k] = e.Value
					}
				}
				var missingKeys []int
				for _, k := range keys {
					v, present := found[k.(int32)]
					want, _ := fillValue(k.(int32), mc.valueType)
					switch {
					case !present:
						missing++
						missingKeys = append(missingKeys, int(k.(int32)))
					case format(v) != format(want):
						wrong++
						fmt.Fprintf(out, "wrong: key %d holds %s, want %s\n", k, format(v), format(want))
					default:
						ok++
					}
				}
				sort.Ints(missingKeys)
				for _, k := range missingKeys {
					fmt.Fprintf(out, "missing: key %d\n", k)
				}
				keys = keys[:0]
				return nil
			}
			for k := f.start; k < f.start+f.count; k++ {
				keys = append(keys, k)
				if len(keys) == f.batch || k == f.start+f.count-1 {
					if err := check(); err != nil {
						return err
					}
				}
			}
			fmt.Fprintf(out, "%d ok, %d missing, %d wrong\n", ok, missing, wrong)
			if missing+wrong > 0 {
				return &exitError{code: 1}
			}
			return nil
		}),
	}
	f.register(verify)
	return verify
}

func (mc *mapCmd) queryCmd() *cobra.Command {
	var explain, keysOnly bool
	query := &cobra.Command{
		Use:   "query MAP [PREDICATE]",
		Short: "Print the entries a predicate (Hazelcast's predicate SQL) selects, or its plan",
		Long: `Prints KEY<TAB>VALUE for each entry the predicate selects (all entries
without one), e.g. atoll map query people "age > 40 AND name LIKE 'A%'".
--keys prints keys only; --explain prints the plan, the same as EXPLAIN of
the equivalent SQL.`,
		Args: cobra.RangeArgs(1, 2),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error {
			var p predicate.Predicate
			if len(args) == 1 {
				if _, err := predicate.ParseSQL(args[0]); err != nil {
					return &exitError{code: 1, message: "atoll: " + err.Error()}
				}
				p = predicate.SQL(args[0])
			}
			if explain {
				var opts []client.ExplainOption
				if keysOnly {
					opts = append(opts, client.ExplainKeys())
				}
				text, err := m.Explain(ctx, p, opts...)
				if err != nil {
					return &exitError{code: 1, message: "atoll: " + errMessage(err)}
				}
				_, err = fmt.Fprintln(out, text)
				return err
			}
			if keysOnly {
				keys, err := m.KeySetWithPredicate(ctx, p)
				if err != nil {
					return &exitError{code: 1, message: "atoll: " + errMessage(err)}
				}
				for _, k := range keys {
					fmt.Fprintln(out, format(k))
				}
				return nil
			}
			es, err := m.EntrySetWithPredicate(ctx, p)
			if err != nil {
				return &exitError{code: 1, message: "atoll: " + errMessage(err)}
			}
			for _, e := range es {
				fmt.Fprintf(out, "%s\t%s\n", format(e.Key), format(e.Value))
			}
			return nil
		}),
	}
	query.Flags().BoolVar(&explain, "explain", false, "print the plan instead of the entries")
	query.Flags().BoolVar(&keysOnly, "keys", false, "print keys only")
	return query
}

// notFound reports a missing key: "not found" on stderr, exit status 1.
func notFound() error { return &exitError{code: 1, message: "not found"} }
