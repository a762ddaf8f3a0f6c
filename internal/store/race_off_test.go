//go:build !race

package store

// raceEnabled scales down the heaviest tests under the race detector, whose
// instrumented memmove makes slab copying very slow.
const raceEnabled = false
