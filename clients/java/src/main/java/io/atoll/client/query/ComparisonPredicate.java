package io.atoll.client.query;

import java.util.Objects;

/**
 * Compares an attribute with a value ({@link Predicates#equal}, {@link Predicates#greaterThan}, ...).
 *
 * @param attribute the attribute path
 * @param op        the operator
 * @param value     a scalar (Boolean, Byte, Short, Integer, Long, Float, Double, String,
 *                  BigDecimal, java.time values) or, compared with {@code __key} or
 *                  {@code this}, an object the client serializes; null only with EQUAL and
 *                  NOT_EQUAL
 */
public record ComparisonPredicate(String attribute, Op op, Object value) implements Predicate {
    /** Comparison operators. */
    public enum Op {
        EQUAL("="), NOT_EQUAL("!="), GREATER(">"), GREATER_EQUAL(">="), LESS("<"), LESS_EQUAL("<=");

        private final String symbol;

        Op(String symbol) {
            this.symbol = symbol;
        }

        /** The operator as predicate SQL writes it. */
        public String symbol() {
            return symbol;
        }
    }

    public ComparisonPredicate {
        Objects.requireNonNull(attribute, "attribute");
        Objects.requireNonNull(op, "op");
    }

    @Override
    public String toString() {
        return attribute + " " + op.symbol + " " + Predicates.literal(value);
    }
}
