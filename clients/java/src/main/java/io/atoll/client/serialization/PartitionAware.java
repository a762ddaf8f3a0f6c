package io.atoll.client.serialization;

/**
 * A key that chooses its partition through another object: the serialized key
 * carries the partition hash of {@code toData(getPartitionKey())} in its header,
 * so keys with equal partition keys land on the same partition.
 *
 * @param <T> type of the partition key
 */
public interface PartitionAware<T> {
    /** The object whose serialized form decides the partition; must not be null. */
    T getPartitionKey();
}
