package io.atoll.client.query;

import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * Matches an attribute equal to one of the values ({@link Predicates#in}).
 *
 * @param attribute the attribute path
 * @param values    the values (an unmodifiable copy is kept)
 */
public record InPredicate(String attribute, List<Object> values) implements Predicate {
    public InPredicate {
        Objects.requireNonNull(attribute, "attribute");
        values = Collections.unmodifiableList(new ArrayList<>(Objects.requireNonNull(values, "values")));
    }

    @Override
    public String toString() {
        StringBuilder b = new StringBuilder(attribute).append(" IN (");
        for (int i = 0; i < values.size(); i++) {
            b.append(i > 0 ? ", " : "").append(Predicates.literal(values.get(i)));
        }
        return b.append(')').toString();
    }
}
