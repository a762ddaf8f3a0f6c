package client_test

import (
	"context"
	"errors"
	"fmt"
	"sort"
	"time"

	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/member"
)

// startMember starts an embedded member on free ports for the examples.
func startMember() *member.Member {
	cfg := member.DefaultConfig()
	cfg.Bind, cfg.Admin = "127.0.0.1:0", ""
	cfg.Log.Level = "error"
	m, err := member.Start(context.Background(), cfg)
	if err != nil {
		panic(err)
	}
	return m
}

// Employee is stored as a Compact value without any serializer code.
type Employee struct {
	Name  string
	Email string
	Age   int32
}

func Example() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()

	c, err := client.New(ctx, client.Config{Addresses: []string{m.Addr()}, ClusterName: "dev"})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	staff := client.GetMap[string, Employee](c, "staff")
	if err := staff.Set(ctx, "ada", Employee{Name: "Ada", Email: "ada@example.com", Age: 36}); err != nil {
		panic(err)
	}
	e, found, err := staff.Get(ctx, "ada")
	if err != nil {
		panic(err)
	}
	fmt.Println(found, e.Name, e.Age)
	// Output: true Ada 36
}

func ExampleMap_Put() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, _ := client.New(ctx, client.Config{Addresses: []string{m.Addr()}})
	defer c.Close()

	counts := client.GetMap[string, int64](c, "counts")
	_, existed, _ := counts.Put(ctx, "visits", 1)
	old, existed2, _ := counts.Put(ctx, "visits", 2, client.WithTTL(time.Hour))
	fmt.Println(existed, existed2, old)
	// Output: false true 1
}

func ExampleMap_AddEntryListener() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, _ := client.New(ctx, client.Config{Addresses: []string{m.Addr()}})
	defer c.Close()

	orders := client.GetMap[string, string](c, "orders")
	events := make(chan client.EntryEvent[string, string], 10)
	sub, err := orders.AddEntryListener(ctx, client.ListenerConfig[string]{IncludeValues: true},
		func(e client.EntryEvent[string, string]) { events <- e })
	if err != nil {
		panic(err)
	}
	defer sub.Close()

	_ = orders.Set(ctx, "o-1", "new")
	_ = orders.Set(ctx, "o-1", "paid")
	for i := 0; i < 2; i++ {
		e := <-events
		fmt.Println(e.Type, e.Key, e.Value)
	}
	// Output:
	// ADDED o-1 new
	// UPDATED o-1 paid
}

func ExampleMap_All() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, _ := client.New(ctx, client.Config{Addresses: []string{m.Addr()}})
	defer c.Close()

	cities := client.GetMap[string, int32](c, "cities")
	_ = cities.PutAll(ctx, []client.Entry[string, int32]{{Key: "Oslo", Value: 709}, {Key: "Lima", Value: 9751}})
	var names []string
	for e, err := range cities.All(ctx) {
		if err != nil {
			panic(err)
		}
		names = append(names, fmt.Sprintf("%s=%d", e.Key, e.Value))
	}
	sort.Strings(names)
	fmt.Println(names)
	// Output: [Lima=9751 Oslo=709]
}

func ExampleConfig_nearCache() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, _ := client.New(ctx, client.Config{
		Addresses:  []string{m.Addr()},
		NearCaches: map[string]client.NearCacheConfig{"catalog": {MaxEntries: 100_000}},
	})
	defer c.Close()

	catalog := client.GetMap[string, string](c, "catalog")
	_ = catalog.Set(ctx, "sku-1", "lamp")
	for i := 0; i < 3; i++ {
		_, _, _ = catalog.Get(ctx, "sku-1") // later reads come from the near cache once it is active
	}
	fmt.Println(c.Stats().NearCacheHits+c.Stats().NearCacheMisses > 0)
	// Output: true
}

func ExampleError() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	_, err := client.New(ctx, client.Config{Addresses: []string{m.Addr()}, ClusterName: "prod"})
	fmt.Println(errors.Is(err, client.ErrClusterName))
	// Output: true
}

func ExampleClient_RunInTransaction() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, _ := client.New(ctx, client.Config{Addresses: []string{m.Addr()}})
	defer c.Close()

	accounts := client.GetMap[string, int64](c, "accounts")
	_ = accounts.Set(ctx, "alice", 100)
	_ = accounts.Set(ctx, "bob", 50)
	err := c.RunInTransaction(ctx, func(tx *client.Tx) error {
		a := client.TxMap[string, int64](tx, "accounts")
		from, _, err := a.Get(ctx, "alice")
		if err != nil {
			return err
		}
		to, _, err := a.GetForUpdate(ctx, "bob")
		if err != nil {
			return err
		}
		if err := a.Set(ctx, "alice", from-30); err != nil {
			return err
		}
		return a.Set(ctx, "bob", to+30)
	})
	alice, _, _ := accounts.Get(ctx, "alice")
	bob, _, _ := accounts.Get(ctx, "bob")
	fmt.Println(err, alice, bob)
	// Output: <nil> 70 80
}

func ExampleMap_Lock() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, _ := client.New(ctx, client.Config{Addresses: []string{m.Addr()}})
	defer c.Close()

	stock := client.GetMap[string, int32](c, "stock")
	_ = stock.Lock(ctx, "lamp", client.WithLease(time.Minute)) // other clients' writes wait until Unlock
	_ = stock.Set(ctx, "lamp", 3)                              // the holder writes
	locked, _ := stock.IsLocked(ctx, "lamp")
	_ = stock.Unlock(ctx, "lamp")
	unlocked, _ := stock.IsLocked(ctx, "lamp")
	fmt.Println(locked, unlocked)
	// Output: true false
}
