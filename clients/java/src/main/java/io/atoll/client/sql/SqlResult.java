package io.atoll.client.sql;

import java.util.Iterator;

/**
 * The result of a statement: rows read lazily page by page, or an update count.
 *
 * <pre>{@code
 * try (SqlResult result = client.sql().execute("SELECT __key, name FROM people WHERE age > ?", 30)) {
 *     for (SqlRow row : result) {
 *         int id = row.getInt(0);
 *         String name = row.getString("name");
 *     }
 * }
 * }</pre>
 *
 * <p>The first page comes with the reply to the statement; the iterator fetches the next ones
 * from the member when it reaches them (blocking the iterating thread). Reading to the end
 * releases the query on the cluster; {@link #close} cancels it earlier (a result abandoned
 * without close is released by the member after an idle timeout). Failures while fetching
 * are thrown by {@code hasNext()}/{@code next()} as {@code AtollException}s. Not thread-safe.
 */
public interface SqlResult extends Iterable<SqlRow>, AutoCloseable {
    /**
     * The columns of the rows.
     *
     * @throws IllegalStateException if the statement returns no rows (DML, DDL)
     */
    SqlRowMetadata getRowMetadata();

    /** Whether the statement returns rows (a query) rather than an update count. */
    boolean isRowSet();

    /** The rows a DML statement changed, 0 for DDL, -1 for statements that return rows. */
    long updateCount();

    /**
     * The rows; may be called once.
     *
     * @throws IllegalStateException if called twice, or if the statement returns no rows
     */
    @Override
    Iterator<SqlRow> iterator();

    /** Cancels the query on the cluster if rows remain unread. Safe to call twice. */
    @Override
    void close();
}
