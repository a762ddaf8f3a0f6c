package io.atoll.client;

import com.google.protobuf.ByteString;
import io.atoll.client.proto.Member;
import io.atoll.client.proto.PartitionTable;
import org.junit.jupiter.api.Test;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Which partition table the client keeps: versions order one lineage; a new lineage comes from the followed stream. */
class RoutingTableTest {
    static RoutingTable table(long version, String lineage, String... members) {
        PartitionTable.Builder t = PartitionTable.newBuilder().setVersion(version).setLineage(ByteString.copyFromUtf8(lineage));
        for (String m : members) {
            t.addMembers(Member.newBuilder().setAddress(m));
        }
        for (int p = 0; p < 4; p++) {
            t.addOwners(p % members.length);
        }
        return RoutingTable.from(4, t.build());
    }

    @Test
    void newerVersionsOfOneLineageReplace() {
        RoutingTable cur = table(30, "a", "m1:1", "m2:1");
        assertTrue(table(31, "a", "m1:1", "m2:1").replaces(cur, null, false));
        assertFalse(table(30, "a", "m1:1", "m2:1").replaces(cur, null, true));
        assertFalse(table(12, "a", "m1:1", "m2:1").replaces(cur, null, true));
        assertTrue(table(1, "a", "m1:1").replaces(null, null, false));
        assertEquals("m2:1", table(31, "a", "m1:1", "m2:1").owner(1));
    }

    /**
     * After a network partition healed, the smaller side adopts the larger side's history,
     * whose versions may be lower: the followed member's table of that lineage replaces the
     * current one; a table of another lineage fetched elsewhere (an older view) does not.
     */
    @Test
    void anotherLineageReplacesWhenItComesFromTheFollowedStream() {
        RoutingTable cur = table(30, "a", "m1:1", "m2:1");
        RoutingTable merged = table(5, "b", "m1:1", "m2:1");
        assertTrue(merged.replaces(cur, null, true));
        assertFalse(merged.replaces(cur, null, false));
    }

    /** A member the current table does not list (a restarted single member) replaces it. */
    @Test
    void aTableFromAnUnlistedMemberReplaces() {
        RoutingTable cur = table(30, "a", "m1:1");
        assertTrue(table(1, "c", "m9:1").replaces(cur, "m9:1", false));
        assertFalse(table(1, "a", "m1:1").replaces(cur, "m1:1", false));
    }
}
