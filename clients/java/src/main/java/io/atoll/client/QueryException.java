package io.atoll.client;

/**
 * A query, statement or predicate is invalid.
 */
public class QueryException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final int line;
    private final int column;

    public QueryException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause, int line, int column) {
        super(message, memberAddress, grpcCode, retryable, cause);
        this.line = line;
        this.column = column;
    }

    /** 1-based line of the problem, 0 when unknown. */
    public int getLine() {
        return line;
    }

    /** 1-based column of the problem, 0 when unknown. */
    public int getColumn() {
        return column;
    }
}
