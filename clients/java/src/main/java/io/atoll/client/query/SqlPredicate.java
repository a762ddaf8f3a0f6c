package io.atoll.client.query;

import java.util.Objects;

/**
 * Hazelcast's predicate SQL, parsed by the member ({@link Predicates#sql}).
 *
 * @param text the condition, for example {@code active AND age > 30 AND name LIKE 'J%'}
 */
public record SqlPredicate(String text) implements Predicate {
    public SqlPredicate {
        Objects.requireNonNull(text, "text");
    }

    @Override
    public String toString() {
        return text;
    }
}
