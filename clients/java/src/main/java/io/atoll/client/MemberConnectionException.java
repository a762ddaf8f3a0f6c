package io.atoll.client;

/**
 * The connection to a member failed: it could not be opened, or it broke while calls were in
 * flight. {@link #isSent()} tells whether the call may have reached the member: a write
 * that was sent has an unknown outcome (it may have been applied). The client retries calls
 * that were not sent, reads, and (with {@link RetryConfig#setRedoOperation}) writes, so a
 * caller sees this for a write whose outcome is unknown, or when retries ran out.
 */
public class MemberConnectionException extends UnavailableException {
    private static final long serialVersionUID = 1L;
    private final boolean sent;

    public MemberConnectionException(String message, String memberAddress, boolean sent, Throwable cause) {
        super(message, memberAddress, -1, !sent, cause);
        this.sent = sent;
    }

    /** Whether the call may have reached the member (its outcome is then unknown). */
    public boolean isSent() {
        return sent;
    }
}
