package io.atoll.client;

import io.atoll.client.proto.Member;
import io.atoll.client.proto.PartitionTable;

import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** An immutable partition table: the owner address of each partition, and the members. */
final class RoutingTable {
    final long version;
    /** The table's history; versions order the tables of one lineage only. */
    final com.google.protobuf.ByteString lineage;
    final int partitionCount;
    /** Owner address by partition; null when unassigned. */
    final String[] owners;
    final List<String> members;

    private RoutingTable(long version, com.google.protobuf.ByteString lineage, int partitionCount, String[] owners, List<String> members) {
        this.version = version;
        this.lineage = lineage;
        this.partitionCount = partitionCount;
        this.owners = owners;
        this.members = members;
    }

    static RoutingTable from(int partitionCount, PartitionTable t) {
        List<String> members = new ArrayList<>();
        for (Member m : t.getMembersList()) {
            members.add(m.getAddress());
        }
        String[] owners = new String[t.getOwnersCount()];
        for (int p = 0; p < owners.length; p++) {
            int o = t.getOwners(p);
            owners[p] = o >= 0 && o < members.size() ? members.get(o) : null;
        }
        int count = partitionCount > 0 ? partitionCount : owners.length;
        return new RoutingTable(t.getVersion(), t.getLineage(), count, owners, Collections.unmodifiableList(members));
    }

    /**
     * Whether this table should replace {@code cur} (see {@link AtollClient#setTable}): it is
     * the first, or newer, or comes from a member ({@code from}, null if unknown) that
     * {@code cur} does not list, or comes from the followed table stream ({@code follow}) with
     * another lineage.
     */
    boolean replaces(RoutingTable cur, String from, boolean follow) {
        if (cur == null || version > cur.version) {
            return true;
        }
        boolean stale = from != null && !cur.members.contains(from);
        boolean otherLineage = follow && !cur.lineage.equals(lineage);
        return stale || otherLineage;
    }

    /** The owner of a partition, or null. */
    String owner(int partitionId) {
        return partitionId >= 0 && partitionId < owners.length ? owners[partitionId] : null;
    }

    /** Partitions grouped by owner, members in table order; unassigned partitions under null. */
    Map<String, List<Integer>> partitionsByOwner() {
        Map<String, List<Integer>> out = new LinkedHashMap<>();
        for (int p = 0; p < owners.length; p++) {
            out.computeIfAbsent(owners[p], k -> new ArrayList<>()).add(p);
        }
        return out;
    }
}
