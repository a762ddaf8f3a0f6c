package io.atoll.client.query;

/**
 * Matches every entry or none ({@link Predicates#alwaysTrue}, {@link Predicates#alwaysFalse}).
 *
 * @param value whether every entry matches
 */
public record ConstantPredicate(boolean value) implements Predicate {
    @Override
    public String toString() {
        return value ? "TRUE" : "FALSE";
    }
}
