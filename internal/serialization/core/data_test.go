package core

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// The hash is FNV-1a 64 of the bytes: the Java SDK computes the same (its
// transactions send it), so the reference values pin the algorithm.
func TestContentHashIsFNV1a64(t *testing.T) {
	assert.Equal(t, uint64(0), Data(nil).ContentHash())
	assert.Equal(t, uint64(0xcbf29ce484222325), Data{}.ContentHash())
	assert.Equal(t, uint64(0xaf63dc4c8601ec8c), Data("a").ContentHash())
	assert.Equal(t, uint64(0x85944171f73967e8), Data("foobar").ContentHash())
}
