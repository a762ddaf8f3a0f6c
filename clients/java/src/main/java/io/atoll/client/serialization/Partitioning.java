package io.atoll.client.serialization;

/** Maps a key's {@link Data} to its partition, exactly as the cluster does. */
public final class Partitioning {
    /** Number of partitions of a cluster with default settings. */
    public static final int DEFAULT_PARTITION_COUNT = 271;

    private Partitioning() {
    }

    /**
     * Partition id of a partition hash: Java {@code Math.abs} semantics with
     * {@code Integer.MIN_VALUE} mapped to 0, then modulo the partition count.
     */
    public static int partitionId(int partitionHash, int partitionCount) {
        if (partitionCount <= 0) {
            throw new IllegalArgumentException("partitionCount must be positive: " + partitionCount);
        }
        if (partitionHash == Integer.MIN_VALUE) {
            return 0;
        }
        return Math.abs(partitionHash) % partitionCount;
    }

    /** Partition id of a key for the given partition count. */
    public static int partitionId(Data key, int partitionCount) {
        return partitionId(key.getPartitionHash(), partitionCount);
    }

    /** Partition id of a key for {@link #DEFAULT_PARTITION_COUNT} partitions. */
    public static int partitionId(Data key) {
        return partitionId(key.getPartitionHash(), DEFAULT_PARTITION_COUNT);
    }
}
