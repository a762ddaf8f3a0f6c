package workload

import (
	"context"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"github.com/atolldb/atoll/internal/benchmodel"
	"github.com/atolldb/atoll/internal/jrand"
	"github.com/atolldb/atoll/internal/testcluster"
	"github.com/atolldb/atoll/pkg/client"
)

// memberCounts are the cluster sizes the workload tests run against:
// ATOLL_TEST_MEMBERS when set, else a single member and three.
func memberCounts(t testing.TB) []int {
	if s := os.Getenv("ATOLL_TEST_MEMBERS"); s != "" {
		n, err := strconv.Atoi(s)
		require.NoError(t, err, "ATOLL_TEST_MEMBERS=%q", s)
		require.Positive(t, n, "ATOLL_TEST_MEMBERS=%q", s)
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
	require.NoError(t, err)
	t.Cleanup(func() { c.Close() })
	return c, ctx
}

func runCases(t *testing.T, ctx context.Context, c *client.Client, cases []Case) {
	for _, cs := range cases {
		t.Run(cs.ID(), func(t *testing.T) {
			got, err := cs.Run(ctx, c, jrand.New(cs.Seed+1000+8))
			require.NoError(t, err)
			require.Equal(t, cs.Want, got, "check")
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
				require.NoError(t, LoadA(ctx, c, n, 8))
				runCases(t, ctx, c, ACases(n))
			})
		}
	}
}

// TestWorkloadB loads every workload B map, checks its description
// (owned entries, value sizes) and runs its read, query and write cases.
func TestWorkloadB(t *testing.T) {
	for _, members := range memberCounts(t) {
		t.Run(fmt.Sprintf("%d-members", members), func(t *testing.T) {
			c, ctx := start(t, testcluster.InProcess, members)
			const n = 2000
			for _, size := range BSizes {
				for _, kind := range BKinds {
					testBMap(t, ctx, c, kind, size, n)
				}
			}
		})
	}
}

func testBMap(t *testing.T, ctx context.Context, c *client.Client, kind, size string, n int) {
	require.NoError(t, LoadB(ctx, c, kind, size, n, 8))
	info, err := DescribeB(ctx, c, kind, size, n)
	require.NoError(t, err)
	assert.Equal(t, int64(n), info.OwnedEntryCount, "%s: owned entries", info.Map)
	assert.Greater(t, info.MemoryCostPerEntry(), float64(info.ValueDataSize), "%s: memory per entry above the value's size", info.Map)
	wantLen := benchmodel.SmallBytesLen
	if size == "large" {
		wantLen = benchmodel.LargeBytesLen
	}
	assert.Equal(t, wantLen, info.ByteArrayLength, "%s: byte array length (the IDENTIFIED form's payload)", info.Map)
	read, err := BReadCase(kind, size, n)
	require.NoError(t, err)
	cases := []Case{read}
	if Queryable(kind) {
		require.NoError(t, Exec(ctx, c, BMapping(kind, size)))
		cases = append(cases, BQueryCases(kind, size, n)...)
	}
	write, err := BWriteCase(kind, size, n)
	require.NoError(t, err)
	runCases(t, ctx, c, append(cases, write))
	if Queryable(kind) {
		require.NoError(t, Exec(ctx, c, BDropMapping(kind, size)))
	}
	require.NoError(t, DestroyB(ctx, c, kind, size))
}

// TestUnknownBMap checks that a kind or size outside the workload is a
// typed error naming it.
func TestUnknownBMap(t *testing.T) {
	for _, tc := range []struct{ kind, size string }{{"json", "small"}, {"compact", "medium"}, {"", ""}} {
		_, err := BReadCase(tc.kind, tc.size, 10)
		var ue *UnknownBMapError
		require.ErrorAs(t, err, &ue)
		assert.Equal(t, UnknownBMapError{Kind: tc.kind, Size: tc.size}, *ue)
	}
}
