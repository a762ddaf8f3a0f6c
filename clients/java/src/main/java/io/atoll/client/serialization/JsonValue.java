package io.atoll.client.serialization;

import java.util.Objects;

/**
 * A JSON document stored as text (type id -130). The text is kept verbatim, without
 * parsing or normalization; the cluster can query it by path.
 */
public final class JsonValue {
    private final String value;

    /** Wraps JSON text; the text is not validated. */
    public JsonValue(String value) {
        this.value = Objects.requireNonNull(value, "value");
    }

    /** The JSON text. */
    public String getValue() {
        return value;
    }

    /** The JSON text. */
    @Override
    public String toString() {
        return value;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof JsonValue && ((JsonValue) o).value.equals(value);
    }

    @Override
    public int hashCode() {
        return value.hashCode();
    }
}
