//go:build unix

package member_test

import "syscall"

// processCPU returns the CPU time (user and system) this process has
// used, in nanoseconds: on a loaded machine a truer measure of what an
// operation costs than the wall time it takes.
func processCPU() int64 {
	var ru syscall.Rusage
	if syscall.Getrusage(syscall.RUSAGE_SELF, &ru) != nil {
		return 0
	}
	return ru.Utime.Nano() + ru.Stime.Nano()
}
