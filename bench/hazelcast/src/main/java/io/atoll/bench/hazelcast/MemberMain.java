package io.atoll.bench.hazelcast;

import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;

/**
 * One Hazelcast member JVM: {@code MemberMain INDEX MEMBERS BASE-PORT CLUSTER}. Prints
 * {@link #READY} once it sees every member, and shuts down when its standard input closes
 * (the runner closes it, or the runner died).
 */
public final class MemberMain {
    static final String READY = "BENCH-MEMBER-READY";

    private MemberMain() {
    }

    public static void main(String[] args) throws Exception {
        int index = Integer.parseInt(args[0]);
        int members = Integer.parseInt(args[1]);
        HazelcastInstance hz = Hazelcast.newHazelcastInstance(
                ClusterConfig.member(index, members, Integer.parseInt(args[2]), args[3]));
        long deadline = System.nanoTime() + 120_000_000_000L;
        while (hz.getCluster().getMembers().size() < members && System.nanoTime() < deadline) {
            Thread.sleep(100);
        }
        System.out.println(READY + " members=" + hz.getCluster().getMembers().size());
        System.out.flush();
        while (System.in.read() >= 0) {
            // wait for the runner to close standard input
        }
        hz.shutdown();
        System.exit(0);
    }
}
