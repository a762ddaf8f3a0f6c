package io.atoll.client;

import io.atoll.client.proto.CloseRequest;
import io.atoll.client.proto.Column;
import io.atoll.client.proto.ExecuteResponse;
import io.atoll.client.proto.FetchRequest;
import io.atoll.client.proto.QueryCall;
import io.atoll.client.proto.SqlType;
import io.atoll.client.sql.SqlColumnMetadata;
import io.atoll.client.sql.SqlColumnType;
import io.atoll.client.sql.SqlRowMetadata;

import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

/**
 * The result of one Execute call: the columns, the page in hand and the cursor on the
 * coordinating member from which the next pages are fetched (over the same query stream; a
 * cursor lives on one member). Rows are decoded one at a time as they are read; objects stay
 * serialized. Not thread-safe: one reader at a time.
 */
final class QueryCursor {
    private static final System.Logger LOG = System.getLogger(QueryCursor.class.getName());
    private static final long CLOSE_TIMEOUT_NANOS = TimeUnit.SECONDS.toNanos(10);

    final AtollClient client;
    final String member;
    final SqlRowMetadata metadata;
    final long updateCount;
    private final QueryStream stream;
    private final int width;
    private RowDecoder page;
    private int left;     // rows left in page
    private long cursorId; // 0: no more pages on the member
    private final java.util.ArrayDeque<ExecuteResponse> queued = new java.util.ArrayDeque<>();
    private CompletableFuture<ExecuteResponse> prefetch; // the next page, requested by next()
    private final ExecuteResponse first;

    QueryCursor(AtollClient client, String member, QueryStream stream, ExecuteResponse first) {
        this.client = client;
        this.member = member;
        this.stream = stream;
        this.updateCount = first.getUpdateCount();
        List<SqlColumnMetadata> cols = new ArrayList<>();
        for (Column c : first.getColumnsList()) {
            cols.add(new SqlColumnMetadata(c.getName(), columnType(c.getType()), c.getNullable()));
        }
        this.metadata = new SqlRowMetadata(cols);
        this.width = cols.size();
        this.first = first;
        setPage(first);
    }

    static SqlColumnType columnType(SqlType t) {
        switch (t) {
            case SQL_TYPE_NULL:
                return SqlColumnType.NULL;
            case SQL_TYPE_BOOLEAN:
                return SqlColumnType.BOOLEAN;
            case SQL_TYPE_TINYINT:
                return SqlColumnType.TINYINT;
            case SQL_TYPE_SMALLINT:
                return SqlColumnType.SMALLINT;
            case SQL_TYPE_INTEGER:
                return SqlColumnType.INTEGER;
            case SQL_TYPE_BIGINT:
                return SqlColumnType.BIGINT;
            case SQL_TYPE_DECIMAL:
                return SqlColumnType.DECIMAL;
            case SQL_TYPE_REAL:
                return SqlColumnType.REAL;
            case SQL_TYPE_DOUBLE:
                return SqlColumnType.DOUBLE;
            case SQL_TYPE_VARCHAR:
                return SqlColumnType.VARCHAR;
            case SQL_TYPE_DATE:
                return SqlColumnType.DATE;
            case SQL_TYPE_TIME:
                return SqlColumnType.TIME;
            case SQL_TYPE_TIMESTAMP:
                return SqlColumnType.TIMESTAMP;
            case SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE:
                return SqlColumnType.TIMESTAMP_WITH_TIME_ZONE;
            case SQL_TYPE_OBJECT:
                return SqlColumnType.OBJECT;
            case SQL_TYPE_JSON:
                return SqlColumnType.JSON;
            default:
                return SqlColumnType.UNKNOWN;
        }
    }

    private void setPage(ExecuteResponse resp) {
        page = new RowDecoder(resp.getPage().getRows().asReadOnlyByteBuffer(), member);
        left = resp.getPage().getCount();
        if (left < 0 || (width == 0 && left > 0)) {
            throw new InternalException("corrupt result page: " + left + " rows of " + width + " columns", member, -1, false, null);
        }
        cursorId = resp.getCursorId();
    }

    int width() {
        return width;
    }

    /** The member's cursor id, 0 once the member has sent the last page. */
    long cursorId() {
        return cursorId;
    }

    /** Whether a row can be read without fetching. */
    boolean hasBufferedRow() {
        return left > 0;
    }

    /** Whether pages remain on the member. */
    boolean hasMorePages() {
        return cursorId != 0;
    }

    /** Decodes the next buffered row; call only when {@link #hasBufferedRow()}. */
    Object[] nextBufferedRow() {
        Object[] row = page.row(width);
        if (--left == 0 && page.hasRemaining()) {
            throw new InternalException("corrupt result page: bytes after the last row", member, -1, false, null);
        }
        return row;
    }

    /** Asks the member for the cursor's next page. */
    private CompletableFuture<ExecuteResponse> fetchPage() {
        long deadline = System.nanoTime() + client.config.getInvocationTimeout().toNanos();
        return stream.call(QueryCall.newBuilder().setFetch(FetchRequest.newBuilder().setCursorId(cursorId)), deadline);
    }

    /**
     * The next row, or null at the end. While the rows of a page are read, the next page is
     * already on its way (one page ahead, never more); when the page is used up, this waits for
     * it. A failed fetch ends the cursor (the member closes a cursor whose page failed).
     */
    Object[] next() {
        while (left == 0) {
            if (prefetch == null) {
                if (cursorId == 0) {
                    return null;
                }
                prefetch = fetchPage();
            }
            CompletableFuture<ExecuteResponse> f = prefetch;
            prefetch = null;
            ExecuteResponse resp;
            try {
                resp = AtollClient.await(f);
            } catch (RuntimeException e) {
                cursorId = 0;
                throw e;
            }
            setPage(resp);
        }
        if (prefetch == null && cursorId != 0) {
            prefetch = fetchPage();
        }
        return nextBufferedRow();
    }

    /**
     * Fetches every remaining page without blocking a thread and without decoding them (that is
     * left to {@link #rows()}, on the thread that wants the rows). Completes with this cursor.
     * Only for a cursor nobody has read from with {@link #next()}.
     */
    CompletableFuture<QueryCursor> fetchAll() {
        if (cursorId == 0) {
            return CompletableFuture.completedFuture(this);
        }
        long id = cursorId;
        long deadline = System.nanoTime() + client.config.getInvocationTimeout().toNanos();
        return stream.call(QueryCall.newBuilder().setFetch(FetchRequest.newBuilder().setCursorId(id)), deadline).handle((resp, err) -> {
            if (err != null) {
                cursorId = 0; // the member closes a cursor whose page failed
                throw new java.util.concurrent.CompletionException(Errors.unwrap(err));
            }
            queued.add(resp);
            cursorId = resp.getCursorId();
            return this;
        }).thenCompose(QueryCursor::fetchAll);
    }

    /**
     * Every page of the result, undecoded: the first and those {@link #fetchAll} queued. Only
     * for a cursor nobody has read from, after {@code fetchAll}.
     */
    LazyRows pages() {
        List<ExecuteResponse> all = new ArrayList<>(queued.size() + 1);
        all.add(first);
        all.addAll(queued);
        queued.clear();
        left = 0;
        return new LazyRows(all, width, member);
    }

    /** Decodes every row fetched so far: the page in hand and those {@link #fetchAll} queued. */
    List<Object[]> rows() {
        List<Object[]> rows = new ArrayList<>();
        while (true) {
            while (left > 0) {
                rows.add(nextBufferedRow());
            }
            ExecuteResponse next = queued.poll();
            if (next == null) {
                return rows;
            }
            long id = cursorId;
            setPage(next);
            cursorId = id;
        }
    }

    /** Closes the cursor on the member if pages remain; failures are logged, not thrown. */
    CompletableFuture<Void> closeAsync() {
        long id = cursorId;
        left = 0;
        prefetch = null; // its page, or its failure, no longer matters
        if (id == 0) {
            return CompletableFuture.completedFuture(null);
        }
        cursorId = 0;
        return stream.call(QueryCall.newBuilder().setClose(CloseRequest.newBuilder().setCursorId(id)), System.nanoTime() + CLOSE_TIMEOUT_NANOS)
                .handle((r, err) -> {
                    if (err != null) {
                        LOG.log(System.Logger.Level.DEBUG, "closing query cursor " + id + " on " + member + " failed; the member releases it when it idles", err);
                    }
                    return null;
                });
    }

    /** Closes the cursor and waits (at most about 10 s) for the member's answer. */
    void close() {
        try {
            closeAsync().get(CLOSE_TIMEOUT_NANOS + TimeUnit.SECONDS.toNanos(1), TimeUnit.NANOSECONDS);
        } catch (InterruptedException e) {
            Thread.currentThread().interrupt();
        } catch (Exception e) {
            LOG.log(System.Logger.Level.DEBUG, "closing a query cursor on " + member, e);
        }
    }
}
