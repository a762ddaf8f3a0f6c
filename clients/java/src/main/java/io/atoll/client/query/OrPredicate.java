package io.atoll.client.query;

import java.util.List;

/**
 * Matches when any operand matches ({@link Predicates#or}).
 *
 * @param operands the operands (an unmodifiable copy is kept)
 */
public record OrPredicate(List<Predicate> operands) implements Predicate {
    public OrPredicate {
        operands = List.copyOf(operands);
    }

    @Override
    public String toString() {
        return Predicates.join(operands, "OR");
    }
}
