package io.atoll.client.query;

import java.util.Objects;

/**
 * Matches {@code from <= attribute <= to} ({@link Predicates#between}).
 *
 * @param attribute the attribute path
 * @param from      the lower bound, inclusive
 * @param to        the upper bound, inclusive
 */
public record BetweenPredicate(String attribute, Object from, Object to) implements Predicate {
    public BetweenPredicate {
        Objects.requireNonNull(attribute, "attribute");
    }

    @Override
    public String toString() {
        return attribute + " BETWEEN " + Predicates.literal(from) + " AND " + Predicates.literal(to);
    }
}
