package io.atoll.client.query;

import java.util.Objects;

/**
 * One of Hazelcast's aggregators, run on the members over the entries a predicate selects
 * ({@code AtollMap.aggregate}). Build one with {@link Aggregators}; {@code R} is the type
 * of its result.
 *
 * @param <R> the result type
 */
public final class Aggregator<R> {
    /** The aggregation functions. */
    public enum Kind {
        COUNT, DISTINCT, INTEGER_SUM, LONG_SUM, DOUBLE_SUM, FIXED_POINT_SUM, FLOATING_POINT_SUM,
        INTEGER_AVG, LONG_AVG, DOUBLE_AVG, NUMBER_AVG, MIN, MAX, MIN_BY, MAX_BY
    }

    private final Kind kind;
    private final String attribute;

    Aggregator(Kind kind, String attribute) {
        this.kind = Objects.requireNonNull(kind, "kind");
        this.attribute = attribute;
    }

    /** The function. */
    public Kind getKind() {
        return kind;
    }

    /** The attribute path, or null for {@link Aggregators#count()} of entries. */
    public String getAttribute() {
        return attribute;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Aggregator && ((Aggregator<?>) o).kind == kind && Objects.equals(((Aggregator<?>) o).attribute, attribute);
    }

    @Override
    public int hashCode() {
        return kind.hashCode() * 31 + Objects.hashCode(attribute);
    }

    @Override
    public String toString() {
        return kind + "(" + (attribute == null ? "*" : attribute) + ")";
    }
}
