package io.atoll.client;

/** An unlock of a key the client holds no lock on; {@link AtollMap#unlock} reports it as an {@link IllegalMonitorStateException}. */
final class NotLockOwnerException extends AtollException {
    private static final long serialVersionUID = 1L;

    NotLockOwnerException(String message, String memberAddress, int grpcCode, Throwable cause) {
        super(message, memberAddress, grpcCode, false, cause);
    }
}
