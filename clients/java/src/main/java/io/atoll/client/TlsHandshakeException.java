package io.atoll.client;

/**
 * A TLS handshake with a member failed: the member serves plaintext (it answers a TLS client with a
 * handshake_failure alert), one side did not accept the other's certificate, or the member's
 * certificate does not name the address dialed. Not retryable: {@link AtollClient#newClient} fails
 * with it at once.
 */
public class TlsHandshakeException extends AtollException {
    private static final long serialVersionUID = 1L;

    public TlsHandshakeException(String message, String memberAddress, Throwable cause) {
        super(message, memberAddress, -1, false, cause);
    }
}
