//go:build !amd64 && !arm64

package store

// prefetchLines does nothing where the store has no prefetch instruction
// to issue (see prefetch_asm.go).
func prefetchLines([]byte) {}
