package io.atoll.client.query;

import java.util.List;
import java.util.Objects;

/**
 * Selects attributes of each entry, on the members ({@code AtollMap.project}); build one
 * with {@link Projections}.
 *
 * @param <R> the type of one projected entry: the attribute's value, or {@code Object[]}
 */
public final class Projection<R> {
    private final List<String> attributes;
    private final boolean multi;

    Projection(List<String> attributes, boolean multi) {
        if (attributes.isEmpty()) {
            throw new IllegalArgumentException("a projection needs at least one attribute");
        }
        for (String a : attributes) {
            Objects.requireNonNull(a, "attribute");
        }
        this.attributes = List.copyOf(attributes);
        this.multi = multi;
    }

    /** The attribute paths, in order. */
    public List<String> getAttributes() {
        return attributes;
    }

    /** Whether each result is an {@code Object[]} of the attributes (else the single attribute's value). */
    public boolean isMultiAttribute() {
        return multi;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof Projection && ((Projection<?>) o).multi == multi && ((Projection<?>) o).attributes.equals(attributes);
    }

    @Override
    public int hashCode() {
        return attributes.hashCode() * 2 + (multi ? 1 : 0);
    }

    @Override
    public String toString() {
        return (multi ? "multiAttribute" : "singleAttribute") + attributes;
    }
}
