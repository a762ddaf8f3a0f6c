package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"github.com/spf13/cobra"

	"github.com/atolldb/atoll/pkg/client"
)

func newClusterCmd() *cobra.Command {
	var cf clientFlags
	cmd := &cobra.Command{Use: "cluster", Short: "Show the cluster's members and partitions"}
	cf.register(cmd)
	withState := func(print func(out io.Writer, st *client.ClusterState)) func(*cobra.Command, []string) error {
		return func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := cf.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			st, err := c.ClusterState(ctx)
			if err != nil {
				return err
			}
			print(cmd.OutOrStdout(), st)
			return nil
		}
	}
	members := &cobra.Command{
		Use: "members", Short: "List the members: address, uuid, role, partitions owned, backups held", Args: cobra.NoArgs,
		RunE: withState(printMembers),
	}
	partitions := &cobra.Command{
		Use: "partitions", Short: "List each partition's owner and backups, whether its backups are synced, and the migrations in flight", Args: cobra.NoArgs,
		RunE: withState(printPartitions),
	}
	cmd.AddCommand(members, partitions)
	return cmd
}

func printMembers(out io.Writer, st *client.ClusterState) {
	owned, backups := map[string]int{}, map[string]int{}
	for _, p := range st.Partitions {
		owned[p.Owner]++
		for _, b := range p.Backups {
			backups[b]++
		}
	}
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "ADDRESS\tUUID\tROLE\tOWNED\tBACKUPS\tADMIN")
	for _, m := range st.Members {
		role := "member"
		if m.UUID == st.Coordinator.UUID {
			role = "coordinator"
		}
		fmt.Fprintf(w, "%s\t%s\t%s\t%d\t%d\t%s\n", m.Address, m.UUID, role, owned[m.Address], backups[m.Address], m.AdminAddress)
	}
	_ = w.Flush()
	fmt.Fprintf(out, "%d members, partition table version %d\n", len(st.Members), st.TableVersion)
}

func printPartitions(out io.Writer, st *client.ClusterState) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PARTITION\tOWNER\tBACKUPS\tSYNCED")
	for _, p := range st.Partitions {
		owner := p.Owner
		if owner == "" {
			owner = "-"
		}
		synced := "yes"
		if !p.Synced {
			synced = "no"
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", p.ID, owner, strings.Join(p.Backups, ","), synced)
	}
	_ = w.Flush()
	fmt.Fprintf(out, "partition table version %d; migrations in flight: %d (completed %d, failed %d); partitions lacking a synced backup: %d\n",
		st.TableVersion, len(st.Migrations), st.MigrationsCompleted, st.MigrationsFailed, st.Unsynced)
	if len(st.Unreachable) > 0 {
		fmt.Fprintf(out, "owners that did not answer (their partitions count as lacking a synced backup): %s\n", strings.Join(st.Unreachable, ", "))
	}
	if len(st.Migrations) == 0 {
		return
	}
	w = tabwriter.NewWriter(out, 0, 4, 2, ' ', 0)
	fmt.Fprintln(w, "PARTITION\tSTATE\tFROM\tTO")
	for _, m := range st.Migrations {
		to := m.To
		if m.State == "syncing" {
			to = "backups " + strings.Join(m.Backups, ",")
		}
		fmt.Fprintf(w, "%d\t%s\t%s\t%s\n", m.Partition, m.State, m.From, to)
	}
	_ = w.Flush()
}
