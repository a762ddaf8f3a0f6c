package client_test

import (
	"context"
	"fmt"

	"github.com/atolldb/atoll/pkg/client"
	"github.com/atolldb/atoll/pkg/predicate"
)

// Member is stored as a Compact value of type "member" (zero-config; the
// method names the type so that SQL mappings can refer to it).
type Member struct {
	Name string
	Age  int32
}

func (Member) CompactTypeName() string { return "member" }

// Queries with the Predicate API and with SQL: both go through the same
// planner and give the same plan.
func ExampleClient_SQL() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, err := client.New(ctx, client.Config{Addresses: []string{m.Addr()}, ClusterName: "dev"})
	if err != nil {
		panic(err)
	}
	defer c.Close()

	people := client.GetMap[int32, Member](c, "people")
	for i, p := range []Member{{"Ada", 36}, {"Alan", 41}, {"Grace", 85}} {
		if err := people.Set(ctx, int32(i+1), p); err != nil {
			panic(err)
		}
	}
	// Predicate API.
	older, err := people.ValuesWithPredicate(ctx, predicate.GreaterThan("age", int32(40)))
	if err != nil {
		panic(err)
	}
	total, _ := people.Aggregate(ctx, predicate.IntegerSum("age"))
	fmt.Println(len(older), total)

	// SQL over a mapping of the same map.
	rows, err := c.SQL(ctx, `CREATE MAPPING people (__key INT, name VARCHAR, age INT)
		TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='person')`)
	if err != nil {
		panic(err)
	}
	rows.Close()
	rows, err = c.SQL(ctx, `SELECT name, age FROM people WHERE age > ? ORDER BY age`, 40)
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		var age int32
		if err := rows.Scan(&name, &age); err != nil {
			panic(err)
		}
		fmt.Println(name, age)
	}
	if err := rows.Err(); err != nil {
		panic(err)
	}
	// Output:
	// 2 162
	// Alan 41
	// Grace 85
}

// Order is stored as a Compact value of type "order".
type Order struct {
	Customer int32
	Total    int64
}

func (Order) CompactTypeName() string { return "order" }

// Joins are plain SQL: here the orders of each customer, and the
// customers with none.
func ExampleClient_SQL_join() {
	m := startMember()
	defer m.Shutdown(context.Background())
	ctx := context.Background()
	c, err := client.New(ctx, client.Config{Addresses: []string{m.Addr()}, ClusterName: "dev"})
	if err != nil {
		panic(err)
	}
	defer c.Close()
	people := client.GetMap[int32, Member](c, "customers")
	for i, p := range []Member{{"Ada", 36}, {"Alan", 41}, {"Grace", 85}} {
		if err := people.Set(ctx, int32(i+1), p); err != nil {
			panic(err)
		}
	}
	orders := client.GetMap[int32, Order](c, "orders")
	for i, o := range []Order{{1, 100}, {1, 250}, {3, 80}} {
		if err := orders.Set(ctx, int32(100+i), o); err != nil {
			panic(err)
		}
	}
	for _, ddl := range []string{
		`CREATE MAPPING customers (__key INT, name VARCHAR, age INT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='member')`,
		`CREATE MAPPING orders (__key INT, customer INT, total BIGINT) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='order')`,
	} {
		rows, err := c.SQL(ctx, ddl)
		if err != nil {
			panic(err)
		}
		rows.Close()
	}
	rows, err := c.SQL(ctx, `SELECT c.name, COUNT(o.__key), COALESCE(SUM(o.total), 0)
		FROM customers c LEFT JOIN orders o ON o.customer = c.__key
		GROUP BY c.name ORDER BY c.name`)
	if err != nil {
		panic(err)
	}
	for rows.Next() {
		var name string
		var n, total int64
		if err := rows.Scan(&name, &n, &total); err != nil {
			panic(err)
		}
		fmt.Println(name, n, total)
	}
	rows.Close()
	rows, err = c.SQL(ctx, `SELECT name FROM customers c WHERE NOT EXISTS (SELECT 1 FROM orders o WHERE o.customer = c.__key)`)
	if err != nil {
		panic(err)
	}
	defer rows.Close()
	for rows.Next() {
		var name string
		if err := rows.Scan(&name); err != nil {
			panic(err)
		}
		fmt.Println("no orders:", name)
	}
	// Output:
	// Ada 2 350
	// Alan 0 0
	// Grace 1 80
	// no orders: Alan
}
