package io.atoll.client;

import java.util.List;
import java.util.Objects;

/**
 * An index of a map, like Hazelcast's {@code IndexConfig}: its type, the attribute it indexes
 * and an optional name (default {@code map_attribute}). Members index one attribute per index.
 */
public final class IndexConfig {
    private String name;
    private IndexType type = IndexType.SORTED;
    private List<String> attributes = List.of();

    /** A sorted index with no attribute yet. */
    public IndexConfig() {
    }

    /** An index of the given type on the attribute(s). */
    public IndexConfig(IndexType type, String... attributes) {
        setType(type);
        setAttributes(List.of(attributes));
    }

    /** The index's name, or null for the member's default ({@code map_attribute}). */
    public String getName() {
        return name;
    }

    public IndexConfig setName(String name) {
        this.name = name;
        return this;
    }

    public IndexType getType() {
        return type;
    }

    public IndexConfig setType(IndexType type) {
        this.type = Objects.requireNonNull(type, "type");
        return this;
    }

    /** The indexed attribute paths. */
    public List<String> getAttributes() {
        return attributes;
    }

    public IndexConfig setAttributes(List<String> attributes) {
        this.attributes = List.copyOf(attributes);
        return this;
    }

    /** Adds an attribute path. */
    public IndexConfig addAttribute(String attribute) {
        List<String> a = new java.util.ArrayList<>(attributes);
        a.add(Objects.requireNonNull(attribute, "attribute"));
        this.attributes = List.copyOf(a);
        return this;
    }

    @Override
    public String toString() {
        return "IndexConfig{" + (name == null ? "" : name + ", ") + type + " " + attributes + "}";
    }
}
