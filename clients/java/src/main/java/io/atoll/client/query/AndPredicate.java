package io.atoll.client.query;

import java.util.List;

/**
 * Matches when every operand matches ({@link Predicates#and}).
 *
 * @param operands the operands (an unmodifiable copy is kept)
 */
public record AndPredicate(List<Predicate> operands) implements Predicate {
    public AndPredicate {
        operands = List.copyOf(operands);
    }

    @Override
    public String toString() {
        return Predicates.join(operands, "AND");
    }
}
