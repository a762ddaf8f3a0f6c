package io.atoll.client.sql;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Objects;

/**
 * A statement with its parameters and options, like Hazelcast's {@code SqlStatement}:
 *
 * <pre>{@code
 * SqlStatement s = new SqlStatement("SELECT name FROM people WHERE age > ?")
 *         .setParameters(List.of(40))
 *         .setCursorBufferSize(1000)
 *         .setTimeout(Duration.ofSeconds(10));
 * try (SqlResult r = client.sql().execute(s)) { ... }
 * }</pre>
 *
 * Not thread-safe; {@link SqlService#execute(SqlStatement)} copies what it needs.
 */
public final class SqlStatement {
    /** The cursor buffer size that means the member's default (8192 rows per page). */
    public static final int DEFAULT_CURSOR_BUFFER_SIZE = 0;

    private String sql;
    private final List<Object> parameters = new ArrayList<>();
    private int cursorBufferSize = DEFAULT_CURSOR_BUFFER_SIZE;
    private Duration timeout = Duration.ZERO;

    public SqlStatement(String sql) {
        setSql(sql);
    }

    public String getSql() {
        return sql;
    }

    public SqlStatement setSql(String sql) {
        this.sql = Objects.requireNonNull(sql, "sql");
        return this;
    }

    /** The values of the statement's {@code ?} parameters, in order (unmodifiable). */
    public List<Object> getParameters() {
        return Collections.unmodifiableList(parameters);
    }

    /** Replaces the parameters (nulls allowed: SQL NULL). */
    public SqlStatement setParameters(List<?> parameters) {
        this.parameters.clear();
        this.parameters.addAll(parameters);
        return this;
    }

    /** Appends one parameter. */
    public SqlStatement addParameter(Object parameter) {
        parameters.add(parameter);
        return this;
    }

    /** Removes every parameter. */
    public SqlStatement clearParameters() {
        parameters.clear();
        return this;
    }

    /** Rows per page fetched from the member, or {@link #DEFAULT_CURSOR_BUFFER_SIZE}. */
    public int getCursorBufferSize() {
        return cursorBufferSize;
    }

    /**
     * Sets how many rows each page carries: the member sends the first page with the reply
     * to the statement and the next ones when the iteration reaches them.
     */
    public SqlStatement setCursorBufferSize(int rows) {
        if (rows < 0) {
            throw new IllegalArgumentException("cursor buffer size must not be negative, got " + rows);
        }
        this.cursorBufferSize = rows;
        return this;
    }

    /** How long the query may run on the cluster; zero means the client's invocation timeout. */
    public Duration getTimeout() {
        return timeout;
    }

    /**
     * Bounds how long the query may run on the cluster, from its start to its last page
     * (zero: the client's invocation timeout). A query that runs longer fails with
     * {@code OperationTimeoutException}.
     */
    public SqlStatement setTimeout(Duration timeout) {
        Objects.requireNonNull(timeout, "timeout");
        if (timeout.isNegative()) {
            throw new IllegalArgumentException("timeout must not be negative, got " + timeout);
        }
        this.timeout = timeout;
        return this;
    }

    /** A copy with the same text, parameters and options. */
    public SqlStatement copy() {
        SqlStatement s = new SqlStatement(sql).setParameters(parameters).setCursorBufferSize(cursorBufferSize);
        s.timeout = timeout;
        return s;
    }

    @Override
    public String toString() {
        return "SqlStatement{" + sql + (parameters.isEmpty() ? "" : ", parameters=" + Arrays.toString(parameters.toArray())) + "}";
    }
}
