package main

import (
	"context"
	"time"

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
	var clear bool
	var interval time.Duration
	stats := &cobra.Command{
		Use:   "stats",
		Short: "Show each member's join exchange counters and their total",
		Long: `stats prints one line per member and a total line with the counters of the
join exchange, the rows of joins that move between members: messages and
kilobytes sent and received, rows shipped, microseconds blocked writing to a
peer (write-block) and microseconds waiting for the locks and queues that
hand rows to the join (scheduling wait), counted since the member started or
since they were last cleared. --clear clears them once read (as SQL's
TABLE(exchange_stats(TRUE))); --interval reads them twice that far apart and
prints the messages and kilobytes per second in between.`,
		Args: cobra.NoArgs,
		RunE: func(cmd *cobra.Command, _ []string) error {
			c, ctx, done, err := cf.connect(cmd)
			if err != nil {
				return err
			}
			defer done()
			var before []exchangeStats
			if interval > 0 {
				if before, err = readExchangeStats(ctx, c, false); err != nil {
					return err
				}
				select {
				case <-time.After(interval):
				case <-ctx.Done():
					return ctx.Err()
				}
			}
			after, err := readExchangeStats(ctx, c, clear)
			if err != nil {
				return err
			}
			printExchangeStats(cmd.OutOrStdout(), before, after, interval)
			return nil
		},
	}
	stats.Flags().BoolVar(&clear, "clear", false, "clear the counters once read")
	stats.Flags().DurationVar(&interval, "interval", 0, "read twice this far apart and print the rates in between")
	cmd.AddCommand(members, partitions, stats)
	return cmd
}

// exchangeStats is one member's row of TABLE(exchange_stats()).
type exchangeStats struct {
	member                                       string
	msgSent, msgRecv, bytesSent, bytesRecv, rows int64
	writeBlockUs, schedWaitUs                    int64
}

func readExchangeStats(ctx context.Context, c *client.Client, clear bool) ([]exchangeStats, error) {
	arg := "FALSE"
	if clear {
		arg = "TRUE"
	}
	rows, err := c.SQL(ctx, "SELECT * FROM TABLE(exchange_stats("+arg+")) ORDER BY member")
	if err != nil {
		return nil, err
	}
	defer rows.Close()
	var out []exchangeStats
	for rows.Next() {
		var s exchangeStats
		if err := rows.Scan(&s.member, &s.msgSent, &s.msgRecv, &s.bytesSent, &s.bytesRecv, &s.rows, &s.writeBlockUs, &s.schedWaitUs); err != nil {
			return nil, err
		}
		out = append(out, s)
	}
	return out, rows.Err()
}

// printExchangeStats prints a line per member ("cl 1", "cl 2", ...) and a
// total, with the rates over interval when before is set.
func printExchangeStats(out io.Writer, before, after []exchangeStats, interval time.Duration) {
	w := tabwriter.NewWriter(out, 0, 4, 2, ' ', tabwriter.AlignRight)
	head := "\tMEMBER\tMSG SENT\tMSG RECEIVED\tKB SENT\tKB RECEIVED\tROWS SHIPPED\tWRITE-BLOCK µs\tSCHED WAIT µs\t"
	if before != nil {
		head += "M/S\tKB/S\t"
	}
	fmt.Fprintln(w, head)
	prev := map[string]exchangeStats{}
	for _, s := range before {
		prev[s.member] = s
	}
	var total, totalPrev exchangeStats
	line := func(name string, s, p exchangeStats) {
		fmt.Fprintf(w, "%s\t%s\t%d\t%d\t%.0f\t%.0f\t%d\t%d\t%d\t", name, s.member, s.msgSent, s.msgRecv,
			float64(s.bytesSent)/1024, float64(s.bytesRecv)/1024, s.rows, s.writeBlockUs, s.schedWaitUs)
		if before != nil {
			sec := interval.Seconds()
			fmt.Fprintf(w, "%.0f\t%.0f\t", float64(s.msgSent+s.msgRecv-p.msgSent-p.msgRecv)/sec,
				float64(s.bytesSent+s.bytesRecv-p.bytesSent-p.bytesRecv)/1024/sec)
		}
		fmt.Fprintln(w)
	}
	add := func(a *exchangeStats, s exchangeStats) {
		a.msgSent += s.msgSent
		a.msgRecv += s.msgRecv
		a.bytesSent += s.bytesSent
		a.bytesRecv += s.bytesRecv
		a.rows += s.rows
		a.writeBlockUs += s.writeBlockUs
		a.schedWaitUs += s.schedWaitUs
	}
	for i, s := range after {
		line(fmt.Sprintf("cl %d", i+1), s, prev[s.member])
		add(&total, s)
		add(&totalPrev, prev[s.member])
	}
	total.member = fmt.Sprintf("%d members", len(after))
	line("cluster", total, totalPrev)
	_ = w.Flush()
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
