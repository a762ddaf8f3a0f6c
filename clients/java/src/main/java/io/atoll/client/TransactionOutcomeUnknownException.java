package io.atoll.client;

/**
 * The outcome of a commit could not be learned (the member that holds the transaction's primary
 * key could not be reached in time): the transaction may or may not have taken effect. It is
 * not retried.
 */
public class TransactionOutcomeUnknownException extends AtollException {
    private static final long serialVersionUID = 1L;

    public TransactionOutcomeUnknownException(String message, Throwable cause) {
        super(message, cause);
    }
}
