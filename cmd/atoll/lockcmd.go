package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"syscall"
	"time"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/pkg/client"
)

// lockFlags are the flags of `map lock` and `map try-lock`.
type lockFlags struct {
	lease, hold, wait time.Duration
}

// The lock subcommands: `map lock`, `map try-lock`, `map is-locked` and
// `map force-unlock`. A lock belongs to the client that took it: lock and
// try-lock hold it while the command runs (until --hold passes, the lease
// ends, or it is interrupted) and then release it.

func (mc *mapCmd) lockCmd() *cobra.Command {
	var lf lockFlags
	lock := &cobra.Command{
		Use:   "lock MAP KEY",
		Short: "Lock a key (waiting up to --timeout while another holds it) and hold it",
		Long: `Locks the key as Hazelcast's IMap.lock: other clients' writes to it wait, reads
do not, transactions cannot take it. The command prints "locked", holds the
lock until --hold has passed, the --lease ends or it is interrupted (Ctrl-C,
SIGTERM), then unlocks it and prints "unlocked". A lock belongs to the client
that took it: when the command ends, so does the lock.`,
		Args: cobra.ExactArgs(2),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error {
			k, err := mc.key(args[0])
			if err != nil {
				return err
			}
			if err := m.Lock(ctx, k, lf.options()...); err != nil {
				return err
			}
			return hold(m, k, lf, out)
		}),
	}
	lf.register(lock)
	return lock
}

func (mc *mapCmd) tryLockCmd() *cobra.Command {
	var tf lockFlags
	tryLock := &cobra.Command{
		Use:   "try-lock MAP KEY",
		Short: "Lock a key if it is free within --wait (exit 1 otherwise) and hold it, as lock",
		Args:  cobra.ExactArgs(2),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error {
			k, err := mc.key(args[0])
			if err != nil {
				return err
			}
			ok, err := m.TryLock(ctx, k, tf.wait, tf.options()...)
			if err != nil {
				return err
			}
			if !ok {
				return &exitError{code: 1, message: "locked by another"}
			}
			return hold(m, k, tf, out)
		}),
	}
	tf.register(tryLock)
	tryLock.Flags().DurationVar(&tf.wait, "wait", 0, "how long to wait for a key another holds (default: fail at once)")
	return tryLock
}

func (mc *mapCmd) isLockedCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "is-locked MAP KEY",
		Short: `Print "locked" (by whom, and the lease left) or "unlocked"`,
		Args:  cobra.ExactArgs(2),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, out io.Writer) error {
			k, err := mc.key(args[0])
			if err != nil {
				return err
			}
			st, err := m.LockState(ctx, k)
			if err != nil {
				return err
			}
			switch {
			case !st.Locked:
				fmt.Fprintln(out, "unlocked")
			case st.Transaction:
				fmt.Fprintf(out, "locked by a transaction, lease %v left\n", st.RemainingLease)
			default:
				fmt.Fprintf(out, "locked by a client (%d times), lease %v left\n", st.Count, st.RemainingLease)
			}
			return nil
		}),
	}
}

func (mc *mapCmd) forceUnlockCmd() *cobra.Command {
	return &cobra.Command{
		Use:   "force-unlock MAP KEY",
		Short: "Release a key's lock whoever holds it (a transaction's is rolled forward or back)",
		Args:  cobra.ExactArgs(2),
		RunE: mc.withMap(func(ctx context.Context, m *client.Map[any, any], args []string, _ io.Writer) error {
			k, err := mc.key(args[0])
			if err != nil {
				return err
			}
			return m.ForceUnlock(ctx, k)
		}),
	}
}

// register adds the flags lock and try-lock share.
func (f *lockFlags) register(cmd *cobra.Command) {
	cmd.Flags().DurationVar(&f.lease, "lease", 0, "the lock's lease: released after it whatever happens (default: held for the command's session)")
	cmd.Flags().DurationVar(&f.hold, "hold", 0, "how long to hold the lock (default: until the lease ends, or until interrupted)")
}

func (f lockFlags) options() []client.LockOption {
	if f.lease > 0 {
		return []client.LockOption{client.WithLease(f.lease)}
	}
	return nil
}

// hold keeps a lock the command took until --hold passes, its lease ends
// or the command is interrupted, then releases it.
func hold(m *client.Map[any, any], k any, f lockFlags, out io.Writer) error {
	fmt.Fprintln(out, "locked")
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	d := f.hold
	if d == 0 || f.lease > 0 && f.lease < d {
		d = f.lease
	}
	if d > 0 {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, d)
		defer cancel()
	}
	<-ctx.Done()
	if f.lease > 0 && d == f.lease && errors.Is(ctx.Err(), context.DeadlineExceeded) {
		fmt.Fprintln(out, "lease ended")
		return nil
	}
	unlockCtx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	if err := m.Unlock(unlockCtx, k); err != nil {
		return err
	}
	fmt.Fprintln(out, "unlocked")
	return nil
}
