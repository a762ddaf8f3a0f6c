package io.atoll.client.sql;

import java.util.Objects;

/** A result column: name, type and whether it may hold NULL. */
public final class SqlColumnMetadata {
    private final String name;
    private final SqlColumnType type;
    private final boolean nullable;

    public SqlColumnMetadata(String name, SqlColumnType type, boolean nullable) {
        this.name = Objects.requireNonNull(name, "name");
        this.type = Objects.requireNonNull(type, "type");
        this.nullable = nullable;
    }

    public String getName() {
        return name;
    }

    public SqlColumnType getType() {
        return type;
    }

    public boolean isNullable() {
        return nullable;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof SqlColumnMetadata)) {
            return false;
        }
        SqlColumnMetadata c = (SqlColumnMetadata) o;
        return c.name.equals(name) && c.type == type && c.nullable == nullable;
    }

    @Override
    public int hashCode() {
        return Objects.hash(name, type, nullable);
    }

    @Override
    public String toString() {
        return name + " " + type;
    }
}
