package io.atoll.client.query;

import java.util.Arrays;
import java.util.List;

/**
 * Builds projections, with the names of Hazelcast's {@code Projections}:
 *
 * <pre>{@code
 * Collection<String> names = people.project(Projections.singleAttribute("name"), Predicates.greaterThan("age", 40));
 * Collection<Object[]> pairs = people.project(Projections.multiAttribute("__key", "address.city"));
 * }</pre>
 */
public final class Projections {
    private Projections() {
    }

    /** Projects one attribute: each result is its value (null when missing). */
    public static <R> Projection<R> singleAttribute(String attribute) {
        return new Projection<>(List.of(attribute), false);
    }

    /** Projects several attributes: each result is an {@code Object[]} of their values, in order. */
    public static Projection<Object[]> multiAttribute(String... attributes) {
        return new Projection<>(Arrays.asList(attributes), true);
    }
}
