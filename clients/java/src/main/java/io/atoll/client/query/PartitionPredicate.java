package io.atoll.client.query;

import java.util.Objects;

/**
 * Restricts a predicate to the partition that owns a key ({@link Predicates#partitionPredicate}):
 * only that partition is scanned.
 *
 * @param partitionKey a key of the map's key type (serialized by the client to find its partition)
 * @param target       the predicate applied within the partition
 */
public record PartitionPredicate(Object partitionKey, Predicate target) implements Predicate {
    public PartitionPredicate {
        Objects.requireNonNull(partitionKey, "partitionKey");
        Objects.requireNonNull(target, "target");
    }

    @Override
    public String toString() {
        return "PARTITION OF " + Predicates.literal(partitionKey) + ": " + target;
    }
}
