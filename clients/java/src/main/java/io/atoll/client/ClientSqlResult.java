package io.atoll.client;

import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import io.atoll.client.sql.SqlRowMetadata;

import java.util.Iterator;
import java.util.NoSuchElementException;

/** The client's {@link SqlResult} over a {@link QueryCursor}. */
final class ClientSqlResult implements SqlResult {
    private final QueryCursor cursor;
    private boolean iterated;
    private boolean closed;

    ClientSqlResult(QueryCursor cursor) {
        this.cursor = cursor;
    }

    /** The cursor, for tests that look at the member's side. */
    QueryCursor cursor() {
        return cursor;
    }

    @Override
    public SqlRowMetadata getRowMetadata() {
        if (!isRowSet()) {
            throw new IllegalStateException("the statement returned an update count (" + cursor.updateCount + "), not rows");
        }
        return cursor.metadata;
    }

    @Override
    public boolean isRowSet() {
        return cursor.updateCount < 0;
    }

    @Override
    public long updateCount() {
        return cursor.updateCount;
    }

    @Override
    public Iterator<SqlRow> iterator() {
        if (!isRowSet()) {
            throw new IllegalStateException("the statement returned an update count (" + cursor.updateCount + "), not rows");
        }
        if (iterated) {
            throw new IllegalStateException("the rows of a result can be iterated only once");
        }
        iterated = true;
        return new Iterator<>() {
            private Object[] next;

            @Override
            public boolean hasNext() {
                if (next != null) {
                    return true;
                }
                if (closed) {
                    return false;
                }
                try {
                    next = cursor.next();
                } catch (RuntimeException e) {
                    close();
                    throw e;
                }
                if (next == null) {
                    closed = true;
                }
                return next != null;
            }

            @Override
            public SqlRow next() {
                if (!hasNext()) {
                    throw new NoSuchElementException();
                }
                Object[] row = next;
                next = null;
                return new ClientSqlRow(cursor.client, cursor.metadata, row);
            }
        };
    }

    @Override
    public void close() {
        if (closed) {
            return;
        }
        closed = true;
        cursor.close();
    }

    @Override
    public String toString() {
        return isRowSet() ? "SqlResult" + cursor.metadata : "SqlResult{updateCount=" + cursor.updateCount + "}";
    }
}
