package io.atoll.client.query;

import java.util.Objects;

/**
 * Inverts its operand ({@link Predicates#not}).
 *
 * @param operand the predicate inverted
 */
public record NotPredicate(Predicate operand) implements Predicate {
    public NotPredicate {
        Objects.requireNonNull(operand, "operand");
    }

    @Override
    public String toString() {
        return "NOT (" + operand + ")";
    }
}
