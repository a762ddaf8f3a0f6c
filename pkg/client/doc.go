// Package client is the Go SDK of Atoll: it connects to a cluster and gives
// typed access to its distributed maps, like Hazelcast's IMap.
//
// # Connecting
//
//	c, err := client.New(ctx, client.Config{
//		Addresses:   []string{"127.0.0.1:5701"}, // any member; the others are learned
//		ClusterName: "dev",
//	})
//	defer c.Close()
//
// The client keeps the cluster's partition table and sends every keyed call
// straight to the member that owns the key's partition (smart routing), over
// one multiplexed stream per member. Calls take a context: its deadline
// bounds the call with its retries (Config.InvocationTimeout applies when it
// has none). Retryable failures (a member shutting down, a partition that
// moved, a lost connection before the call was sent) are retried with
// exponential backoff and jitter.
//
// # Retries
//
// Every retry in the client waits on one policy type, Backoff: the wait
// before retry i is bounded by min(Max, Initial·Multiplier^i) and drawn
// at random below that bound (full jitter) or within ±Jitter of it, after
// any wait the member asked for. Config.Retry (a RetryConfig: 20ms
// doubling to 2s, ±20%) is mapped onto a Backoff field for field and
// drives calls, iteration, reconnecting entry listeners and near caches'
// subscriptions, and the partition table watch; those retry until their
// context ends. Config.QueryRetry is a Backoff itself and also bounds the
// attempts of a query the members' memory breaker refused.
//
// # Maps
//
//	people := client.GetMap[string, Person](c, "people")
//	_, _, err = people.Put(ctx, "ada", Person{Name: "Ada", Age: 36}, client.WithTTL(time.Hour))
//	p, found, err := people.Get(ctx, "ada")
//
// Keys and values are serialized in Hazelcast's formats by the client's
// serialization service (package serialization): built-in types directly,
// Go structs as Compact values with no ceremony (zero-config: exported
// fields, names lower-camel-cased, the struct's package path and name as
// type name; `compact:"name"` tags rename fields), and Compact, Portable or
// IdentifiedDataSerializable types with explicit serializers registered in
// Config.Serialization. A struct written by a Java service under the same
// type name and field names reads back into the Go struct.
//
// Besides Get and Put a Map offers Set, PutIfAbsent, Replace,
// ReplaceIfSame, Remove, RemoveIfSame, Delete, ContainsKey, Evict,
// EvictAll, SetTTL, GetEntryView, PutAll and GetAll (batched per owner),
// Size, Clear, Destroy, Stats, iteration (All, AllKeys, AllValues, EntrySet,
// KeySet, Values) and entry listeners (AddEntryListener).
//
// # Transactions and locks
//
// RunInTransaction runs a function in an optimistic transaction over any
// keys of any maps (TxMap gives a map's view in it) and commits it: reads
// see the transaction's own writes, writes are buffered until the commit,
// which locks the written keys at their owners, checks that what was read
// did not change, and commits at one primary key. A conflict runs the
// function again after Config.TxRetry's backoff; once the attempts are
// spent it returns a *ConflictError (ErrConflict). Begin, Commit and
// Rollback do it by hand; GetForUpdate locks a key at once. Map.Lock,
// TryLock, Unlock, IsLocked and ForceUnlock are IMap's per-key locks, in
// the same lock table: other clients' writes wait for them.
//
// # Near cache
//
// Config.NearCaches keeps values of chosen maps in the client (ristretto,
// TinyLFU admission). Members' change events invalidate entries; a value
// fetched before an invalidation is never served after it.
//
// # Errors
//
// Errors from members are *Error values that match a sentinel with
// errors.Is: ErrInvalidData, ErrTooLarge, ErrUnknownSchema, ErrWrongOwner,
// ErrShuttingDown, ErrTimeout, and so on. Values that do not convert to a
// map's Go type give a *TypeError.
package client
