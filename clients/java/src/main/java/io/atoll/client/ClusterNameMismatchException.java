package io.atoll.client;

/** The member belongs to another cluster than the one the client is configured for. */
public class ClusterNameMismatchException extends AtollException {
    private static final long serialVersionUID = 1L;
    private final String clientClusterName;
    private final String memberClusterName;

    public ClusterNameMismatchException(String memberAddress, int grpcCode, String clientClusterName, String memberClusterName,
                                        Throwable cause) {
        super("the client's cluster name \"" + clientClusterName + "\" does not match the member's cluster name \""
                + (memberClusterName == null ? "?" : memberClusterName) + "\"", memberAddress, grpcCode, false, cause);
        this.clientClusterName = clientClusterName;
        this.memberClusterName = memberClusterName;
    }

    /** The cluster name the client is configured with. */
    public String getClientClusterName() {
        return clientClusterName;
    }

    /** The member's cluster name, or null when the member did not say. */
    public String getMemberClusterName() {
        return memberClusterName;
    }
}
