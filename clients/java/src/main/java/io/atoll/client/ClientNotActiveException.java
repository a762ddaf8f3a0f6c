package io.atoll.client;

/** The client was closed; calls in progress and new calls fail with this. */
public class ClientNotActiveException extends AtollException {
    private static final long serialVersionUID = 1L;

    public ClientNotActiveException() {
        super("the client is closed");
    }
}
