package workload

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/atolldb/atoll/bench/jrand"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// memberCounts are the cluster sizes the workload tests run against:
// ATOLL_TEST_MEMBERS when set, else a single member and three.
func memberCounts(t testing.TB) []int {
	if s := os.Getenv("ATOLL_TEST_MEMBERS"); s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 1 {
			t.Fatalf("ATOLL_TEST_MEMBERS=%q", s)
		}
		return []int{n}
	}
	return []int{1, 3}
}

func start(t testing.TB, mode testcluster.Mode, members int) (*client.Client, context.Context) {
	t.Helper()
	cl := testcluster.Start(t, mode, members, testcluster.Options{})
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	t.Cleanup(cancel)
	c, err := client.New(ctx, ClientConfig(cl.Addrs(), "test"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { c.Close() })
	return c, ctx
}

func runCases(t *testing.T, ctx context.Context, c *client.Client, cases []Case) {
	for _, cs := range cases {
		t.Run(fmt.Sprintf("%s/%s", cs.ID, cs.API), func(t *testing.T) {
			got, err := cs.Run(ctx, c, jrand.New(cs.Seed+1000+8))
			if err != nil {
				t.Fatal(err)
			}
			if got != cs.Want {
				t.Fatalf("check %d, want %d", got, cs.Want)
			}
		})
	}
}

// TestWorkloadA runs workload A's cases (smoke size) against members in
// this process and against real member processes.
func TestWorkloadA(t *testing.T) {
	for _, mode := range testcluster.Modes {
		for _, members := range memberCounts(t) {
			t.Run(fmt.Sprintf("%s/%d-members", mode, members), func(t *testing.T) {
				c, ctx := start(t, mode, members)
				const n = 2000
				if err := LoadA(ctx, c, n); err != nil {
					t.Fatal(err)
				}
				runCases(t, ctx, c, ACases(n))
			})
		}
	}
}

func TestWorkloadB(t *testing.T) {
	for _, members := range memberCounts(t) {
		t.Run(fmt.Sprintf("%d-members", members), func(t *testing.T) {
			c, ctx := start(t, testcluster.InProcess, members)
			const n = 2000
			for _, kind := range BKinds {
				for _, size := range BSizes {
					if err := LoadB(ctx, c, kind, size, n); err != nil {
						t.Fatal(err)
					}
					runCases(t, ctx, c, BCases(kind, size, n))
				}
			}
		})
	}
}
