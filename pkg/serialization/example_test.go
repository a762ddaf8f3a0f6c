package serialization_test

import (
	"fmt"
	"reflect"

	"github.com/atolldb/atoll/pkg/serialization"
)

// Person is a user type stored in the Compact format.
type Person struct {
	Name string
	Age  int32
}

// personSerializer writes Person with the same fields and order as a Java
// CompactSerializer for type name "person" would, so both share data.
type personSerializer struct{}

func (personSerializer) Type() reflect.Type { return reflect.TypeFor[*Person]() }
func (personSerializer) TypeName() string   { return "person" }
func (personSerializer) Write(w *serialization.CompactWriter, v any) {
	p := v.(*Person)
	w.WriteString("name", p.Name)
	w.WriteInt32("age", p.Age)
}
func (personSerializer) Read(r *serialization.CompactReader) any {
	return &Person{Name: r.ReadString("name"), Age: r.ReadInt32("age")}
}

func ExampleService_compact() {
	svc, err := serialization.NewService(serialization.Config{
		CompactSerializers: []serialization.CompactSerializer{personSerializer{}},
	})
	if err != nil {
		panic(err)
	}
	data, err := svc.ToData(&Person{Name: "Ada", Age: 36})
	if err != nil {
		panic(err)
	}
	fmt.Println("type id:", data.Type(), "partition:", data.PartitionID(serialization.DefaultPartitionCount))

	// A reader without the Go type reads fields in place.
	rec, err := serialization.ReadCompactRecord(data, svc.Schemas())
	if err != nil {
		panic(err)
	}
	age, _ := rec.GetInt32("age")
	fmt.Println(rec.TypeName(), "age:", age)

	back, _ := svc.ToObject(data)
	fmt.Printf("%+v\n", *back.(*Person))
	// Output:
	// type id: -55 partition: 22
	// person age: 36
	// {Name:Ada Age:36}
}

func ExampleLayout() {
	// A member that has no Go type for an IdentifiedDataSerializable class
	// reads it through a layout: the fields in writeData order.
	layout, err := serialization.NewLayout(1, 3, []serialization.LayoutField{
		{Name: "value", Op: serialization.OpLong},
		{Name: "payload", Op: serialization.OpIntArray},
	})
	if err != nil {
		panic(err)
	}
	rec, err := serialization.NewIdentifiedRecordBuilder(layout, nil).
		Set("value", int64(7)).
		Set("payload", []int32{1, 2, 3}).
		Build()
	if err != nil {
		panic(err)
	}
	v, _ := rec.GetInt64("value")
	fmt.Println("value:", v)
	// Output: value: 7
}

func ExampleJSONPath() {
	path, err := serialization.ParseJSONPath("$.payload[1]")
	if err != nil {
		panic(err)
	}
	v, err := path.Lookup([]byte(`{"value":1,"payload":[31,32,33]}`))
	if err != nil {
		panic(err)
	}
	n, _ := v.Int64()
	fmt.Println(n)
	// Output: 32
}
