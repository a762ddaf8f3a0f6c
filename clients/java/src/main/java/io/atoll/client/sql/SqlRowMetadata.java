package io.atoll.client.sql;

import java.util.HashMap;
import java.util.List;
import java.util.Map;

/** The columns of a result. */
public final class SqlRowMetadata {
    /** What {@link #findColumn} returns for a name no column has. */
    public static final int COLUMN_NOT_FOUND = -1;

    private final List<SqlColumnMetadata> columns;
    private final Map<String, Integer> byName = new HashMap<>();

    public SqlRowMetadata(List<SqlColumnMetadata> columns) {
        this.columns = List.copyOf(columns);
        for (int i = this.columns.size() - 1; i >= 0; i--) {
            byName.put(this.columns.get(i).getName(), i); // the first column of a name wins
        }
    }

    public int getColumnCount() {
        return columns.size();
    }

    /**
     * The column at a 0-based index.
     *
     * @throws IndexOutOfBoundsException if there is no such column
     */
    public SqlColumnMetadata getColumn(int index) {
        return columns.get(index);
    }

    public List<SqlColumnMetadata> getColumns() {
        return columns;
    }

    /** The index of the (first) column called {@code name} (case-sensitive), or {@link #COLUMN_NOT_FOUND}. */
    public int findColumn(String name) {
        Integer i = byName.get(name);
        return i == null ? COLUMN_NOT_FOUND : i;
    }

    @Override
    public boolean equals(Object o) {
        return o instanceof SqlRowMetadata && ((SqlRowMetadata) o).columns.equals(columns);
    }

    @Override
    public int hashCode() {
        return columns.hashCode();
    }

    @Override
    public String toString() {
        return columns.toString();
    }
}
