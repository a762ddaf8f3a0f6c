package io.atoll.client.query;

import java.util.Objects;

/**
 * One key of a {@link PagingPredicate}'s order.
 *
 * @param attribute  the attribute path
 * @param descending whether larger values come first
 */
public record SortKey(String attribute, boolean descending) {
    public SortKey {
        Objects.requireNonNull(attribute, "attribute");
    }

    /** Orders by the attribute, smallest first. */
    public static SortKey ascending(String attribute) {
        return new SortKey(attribute, false);
    }

    /** Orders by the attribute, largest first. */
    public static SortKey descending(String attribute) {
        return new SortKey(attribute, true);
    }

    @Override
    public String toString() {
        return attribute + (descending ? " DESC" : " ASC");
    }
}
