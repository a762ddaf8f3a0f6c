package io.atoll.bench.hazelcast;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.HazelcastInstanceAware;
import com.hazelcast.map.LocalMapStats;

import java.io.Serializable;
import java.util.concurrent.Callable;

/** Runs on a member: {owned entries, their memory cost, backup entries, their memory cost} of a map. */
final class MemoryCost implements Callable<long[]>, Serializable, HazelcastInstanceAware {
    private static final long serialVersionUID = 1L;
    private final String map;
    private transient HazelcastInstance member;

    MemoryCost(String map) {
        this.map = map;
    }

    @Override
    public void setHazelcastInstance(HazelcastInstance member) {
        this.member = member;
    }

    @Override
    public long[] call() {
        LocalMapStats s = member.getMap(map).getLocalMapStats();
        return new long[] {s.getOwnedEntryCount(), s.getOwnedEntryMemoryCost(), s.getBackupEntryCount(), s.getBackupEntryMemoryCost()};
    }
}
