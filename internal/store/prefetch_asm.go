//go:build amd64 || arm64

package store

// prefetchLines asks the CPU to bring every cache line of b into its
// caches, without waiting for them: a scan calls it for the bytes some way
// ahead of the record it hands out, so that the loads a reader makes at
// scattered places of each value (a header, an offset table, the field
// itself) find their lines in cache instead of waiting on memory one after
// the other.
//
//go:noescape
func prefetchLines(b []byte)
