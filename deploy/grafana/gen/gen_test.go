package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"

	"github.com/grafana/grafana-foundation-sdk/go/cog"
	"github.com/grafana/grafana-foundation-sdk/go/cog/plugins"
	"github.com/grafana/grafana-foundation-sdk/go/dashboard"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDashboardsUpToDate fails when the committed dashboards differ from
// what the generator writes: run `go run ./deploy/grafana/gen`.
func TestDashboardsUpToDate(t *testing.T) {
	files, err := Render()
	require.NoError(t, err)
	require.Len(t, files, len(dashboards))
	for name, want := range files {
		got, err := os.ReadFile(filepath.Join(Dir(), name))
		require.NoError(t, err)
		assert.Equal(t, string(want), string(got), "%s is not what the generator writes: run go run ./deploy/grafana/gen", name)
	}
}

// TestDashboardsFollowTheSchema reads every committed dashboard back into
// the SDK's dashboard type and writes it again: the same bytes come out
// (nothing in the file is outside the schema), the SDK validates it, and
// the layout holds: unique panel ids, every panel within the 24 columns,
// no two overlapping.
func TestDashboardsFollowTheSchema(t *testing.T) {
	plugins.RegisterDefaultPlugins()
	for _, b := range dashboards {
		t.Run(b.file, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(Dir(), b.file))
			require.NoError(t, err)
			var d dashboard.Dashboard
			require.NoError(t, json.Unmarshal(raw, &d))
			again, err := json.MarshalIndent(d, "", "  ")
			require.NoError(t, err)
			assert.Equal(t, string(raw), string(again)+"\n", "the file round-trips through the SDK's type")
			require.NoError(t, sdkError(d.Validate()))
			require.NotNil(t, d.Uid)
			assert.Equal(t, b.uid, *d.Uid)
			require.Len(t, d.Panels, len(b.panels))
			ids := map[uint32]bool{}
			var boxes []dashboard.GridPos
			for _, p := range d.Panels {
				require.NotNil(t, p.Panel, "a panel, not a row")
				require.NotNil(t, p.Panel.Id)
				assert.False(t, ids[*p.Panel.Id], "panel id %d repeats", *p.Panel.Id)
				ids[*p.Panel.Id] = true
				g := *p.Panel.GridPos
				assert.LessOrEqual(t, g.X+g.W, uint32(24), "%q ends past column 24", *p.Panel.Title)
				for _, o := range boxes {
					overlap := g.X < o.X+o.W && o.X < g.X+g.W && g.Y < o.Y+o.H && o.Y < g.Y+g.H
					assert.False(t, overlap, "%q overlaps a panel at %+v", *p.Panel.Title, o)
				}
				boxes = append(boxes, g)
				assert.NotEmpty(t, p.Panel.Targets, "%q has queries", *p.Panel.Title)
			}
		})
	}
}

// sdkError is err, or nil when it is the SDK's empty list of errors
// (Validate returns a typed empty list when all is well).
func sdkError(err error) error {
	if be, ok := err.(cog.BuildErrors); ok && len(be) == 0 {
		return nil
	}
	return err
}
