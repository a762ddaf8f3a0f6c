package io.atoll.client;

/**
 * The member requires credentials the client did not send, or that name no principal of its
 * security configuration (an unknown user, a wrong password, an unknown token or client
 * certificate); or it serves TLS and the client connected without (the message says which). Not
 * retryable: {@link AtollClient#newClient} fails with it at once.
 */
public class AuthenticationException extends AtollException {
    private static final long serialVersionUID = 1L;

    public AuthenticationException(String message, String memberAddress, int grpcCode, boolean retryable, Throwable cause) {
        super(message, memberAddress, grpcCode, retryable, cause);
    }
}
