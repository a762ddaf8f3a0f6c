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
