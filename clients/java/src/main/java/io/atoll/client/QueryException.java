package io.atoll.client;

/**
 * A query, statement or predicate is invalid.
 */
public class QueryException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final int line;
    private final int column;

    /** {@code line} and {@code column} are 1-based; 0 (the protocol's "unknown") or less when the error has no position. */
    public QueryException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause, int line, int column) {
        super(message, memberAddress, grpcCode, retryable, cause);
        boolean known = line > 0 && column > 0;
        this.line = known ? line : -1;
        this.column = known ? column : -1;
    }

    /** Whether the error points at a place in the statement ({@link #getLine}, {@link #getColumn}). */
    public boolean hasPosition() {
        return line > 0;
    }

    /** 1-based line of the problem, or -1 when the error has no position (a predicate, a missing map, ...). */
    public int getLine() {
        return line;
    }

    /** 1-based column of the problem, or -1 when the error has no position. */
    public int getColumn() {
        return column;
    }
}
