package io.atoll.client;

/**
 * The member does not belong to the cluster the client is configured for. A member never tells a
 * client that named another cluster what its own cluster is called.
 */
public class ClusterNameMismatchException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final String clientClusterName;

    public ClusterNameMismatchException(String memberAddress, int grpcCode, String clientClusterName, Throwable cause) {
        super("the member does not belong to cluster \"" + clientClusterName + "\" (check the client's cluster name)",
                memberAddress, grpcCode, false, cause);
        this.clientClusterName = clientClusterName;
    }

    /** The cluster name the client is configured with. */
    public String getClientClusterName() {
        return clientClusterName;
    }
}
