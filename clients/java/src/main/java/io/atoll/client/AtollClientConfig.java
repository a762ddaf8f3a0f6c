package io.atoll.client;

import io.atoll.client.serialization.SerializationConfig;

import java.time.Duration;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Objects;

/**
 * Configuration of an {@link AtollClient}. The defaults connect to a member on
 * 127.0.0.1:5701 in the cluster "dev", a member's embedded defaults.
 *
 * <pre>{@code
 * AtollClientConfig config = new AtollClientConfig()
 *         .addAddress("10.0.0.5:5701")
 *         .setClusterName("prod")
 *         .setSerializationConfig(new SerializationConfig().addCompactSerializer(new PersonSerializer()))
 *         .addNearCacheConfig("products", new NearCacheConfig().setMaxEntries(50_000));
 * }</pre>
 *
 * The client copies the configuration when it is created; later changes do not affect it.
 */
public final class AtollClientConfig {
    private final List<String> addresses = new ArrayList<>();
    private String clusterName = "dev";
    private String clientName = "";
    private SerializationConfig serializationConfig = new SerializationConfig();
    private Duration connectTimeout = Duration.ofSeconds(10);
    private Duration invocationTimeout = Duration.ofSeconds(120);
    private Duration heartbeatInterval = Duration.ofSeconds(10);
    private Duration heartbeatTimeout = Duration.ofSeconds(60);
    private RetryConfig retryConfig = new RetryConfig();
    private QueryRetryConfig queryRetryConfig = new QueryRetryConfig();
    private final Map<String, NearCacheConfig> nearCacheConfigs = new LinkedHashMap<>();
    private int maxMessageSize = 64 << 20;
    private Duration lockSessionLease = Duration.ofSeconds(30);
    private TlsConfig tlsConfig;
    private String authorization;
    private boolean allowPlaintextCredentials;

    /** Adds a seed member (host:port). Any one reachable member is enough; the others are learned from it. */
    public AtollClientConfig addAddress(String address) {
        addresses.add(checkAddress(address));
        return this;
    }

    /** Replaces the seed members. */
    public AtollClientConfig setAddresses(List<String> addresses) {
        this.addresses.clear();
        for (String a : addresses) {
            addAddress(a);
        }
        return this;
    }

    /** Must match the members' cluster name; default "dev". */
    public AtollClientConfig setClusterName(String clusterName) {
        this.clusterName = Objects.requireNonNull(clusterName, "clusterName");
        return this;
    }

    /** Identifies the client in member logs and statistics. */
    public AtollClientConfig setClientName(String clientName) {
        this.clientName = Objects.requireNonNull(clientName, "clientName");
        return this;
    }

    /** Compact serializers, Portable factories and class definitions, identified factories and layouts. */
    public AtollClientConfig setSerializationConfig(SerializationConfig serializationConfig) {
        this.serializationConfig = Objects.requireNonNull(serializationConfig, "serializationConfig");
        return this;
    }

    /** Bounds connecting to one member (the handshake included); default 10 s. */
    public AtollClientConfig setConnectTimeout(Duration connectTimeout) {
        this.connectTimeout = RetryConfig.positive(connectTimeout, "connectTimeout");
        return this;
    }

    /** Bounds every call, its retries included; default 120 s. */
    public AtollClientConfig setInvocationTimeout(Duration invocationTimeout) {
        this.invocationTimeout = RetryConfig.positive(invocationTimeout, "invocationTimeout");
        return this;
    }

    /**
     * How long a connection may be idle before the client checks that its member still answers
     * (an HTTP/2 ping); default 10 s, which is also the least (gRPC raises shorter intervals).
     */
    public AtollClientConfig setHeartbeatInterval(Duration heartbeatInterval) {
        this.heartbeatInterval = RetryConfig.positive(heartbeatInterval, "heartbeatInterval");
        return this;
    }

    /**
     * How long a member may leave a check unanswered before the client closes the connection:
     * its calls fail and are retried on the partitions' new owners, and the client follows the
     * partition table through another member. A member that hangs is noticed within the
     * interval plus this timeout; default 60 s, as Hazelcast's.
     */
    public AtollClientConfig setHeartbeatTimeout(Duration heartbeatTimeout) {
        this.heartbeatTimeout = RetryConfig.positive(heartbeatTimeout, "heartbeatTimeout");
        return this;
    }

    /** How queries that the members' memory circuit breaker refused are retried. */
    public AtollClientConfig setQueryRetryConfig(QueryRetryConfig queryRetryConfig) {
        this.queryRetryConfig = Objects.requireNonNull(queryRetryConfig, "queryRetryConfig");
        return this;
    }

    public QueryRetryConfig getQueryRetryConfig() {
        return queryRetryConfig;
    }

    public AtollClientConfig setRetryConfig(RetryConfig retryConfig) {
        this.retryConfig = Objects.requireNonNull(retryConfig, "retryConfig");
        return this;
    }

    /**
     * Configures the near cache of a map. The name may be a pattern with {@code *} wildcards;
     * an exact name wins over patterns, and the longest matching pattern over shorter ones.
     */
    public AtollClientConfig addNearCacheConfig(String mapNameOrPattern, NearCacheConfig config) {
        nearCacheConfigs.put(Objects.requireNonNull(mapNameOrPattern, "mapNameOrPattern"), Objects.requireNonNull(config, "config"));
        return this;
    }

    /** Largest message in either direction; default 64 MiB. */
    public AtollClientConfig setMaxMessageSize(int maxMessageSize) {
        if (maxMessageSize < 1024) {
            throw new IllegalArgumentException("maxMessageSize must be at least 1024, got " + maxMessageSize);
        }
        this.maxMessageSize = maxMessageSize;
        return this;
    }

    /** Connects over TLS (see {@link TlsConfig}); null, the default, connects in plaintext. */
    public AtollClientConfig setTlsConfig(TlsConfig tlsConfig) {
        this.tlsConfig = tlsConfig;
        return this;
    }

    public TlsConfig getTlsConfig() {
        return tlsConfig;
    }

    /**
     * Authenticates as a user of the members' security configuration. The credentials travel with
     * every call, and so only over TLS unless {@link #setAllowPlaintextCredentials} is set. Read the
     * password from a file or the environment, not from code or the command line.
     */
    public AtollClientConfig setCredentials(String username, String password) {
        Objects.requireNonNull(username, "username");
        Objects.requireNonNull(password, "password");
        if (username.isEmpty() || username.indexOf(':') >= 0) {
            throw new IllegalArgumentException("a user name must be set and hold no ':'");
        }
        this.authorization = "Basic " + java.util.Base64.getEncoder()
                .encodeToString((username + ":" + password).getBytes(java.nio.charset.StandardCharsets.UTF_8));
        return this;
    }

    /** Authenticates with a bearer token of the members' security configuration (see {@link #setCredentials}). */
    public AtollClientConfig setToken(String token) {
        if (Objects.requireNonNull(token, "token").isEmpty()) {
            throw new IllegalArgumentException("the token is empty");
        }
        this.authorization = "Bearer " + token;
        return this;
    }

    /** Sends credentials over connections without TLS (a member on loopback, a test). Off by default. */
    public AtollClientConfig setAllowPlaintextCredentials(boolean allow) {
        this.allowPlaintextCredentials = allow;
        return this;
    }

    /** The authorization header of the credentials, or null. */
    String authorization() {
        return authorization;
    }

    /** Fails when credentials would travel without TLS. */
    void checkCredentialsTransport() {
        if (authorization != null && tlsConfig == null && !allowPlaintextCredentials) {
            throw new IllegalArgumentException("credentials are sent only over TLS: set a TlsConfig (or allow plaintext credentials for a member on loopback)");
        }
    }

    public List<String> getAddresses() {
        return addresses.isEmpty() ? List.of("127.0.0.1:5701") : Collections.unmodifiableList(addresses);
    }

    public String getClusterName() {
        return clusterName;
    }

    public String getClientName() {
        return clientName;
    }

    public SerializationConfig getSerializationConfig() {
        return serializationConfig;
    }

    public Duration getConnectTimeout() {
        return connectTimeout;
    }

    public Duration getInvocationTimeout() {
        return invocationTimeout;
    }

    /**
     * The lease of a lock taken without one of its own (default 30 s): the client renews it every
     * third of it while it holds the lock, so a client that dies holds nothing for longer (its
     * members release its locks as soon as they see its connections close).
     */
    public AtollClientConfig setLockSessionLease(Duration lease) {
        this.lockSessionLease = RetryConfig.positive(lease, "lockSessionLease");
        return this;
    }

    public Duration getLockSessionLease() {
        return lockSessionLease;
    }

    public Duration getHeartbeatInterval() {
        return heartbeatInterval;
    }

    public Duration getHeartbeatTimeout() {
        return heartbeatTimeout;
    }

    public RetryConfig getRetryConfig() {
        return retryConfig;
    }

    public Map<String, NearCacheConfig> getNearCacheConfigs() {
        return Collections.unmodifiableMap(nearCacheConfigs);
    }

    public int getMaxMessageSize() {
        return maxMessageSize;
    }

    /** The near cache configuration that applies to a map, or null. */
    NearCacheConfig nearCacheConfigFor(String mapName) {
        NearCacheConfig exact = nearCacheConfigs.get(mapName);
        if (exact != null) {
            return exact;
        }
        NearCacheConfig best = null;
        int bestLen = -1;
        for (Map.Entry<String, NearCacheConfig> e : nearCacheConfigs.entrySet()) {
            String p = e.getKey();
            if (p.indexOf('*') >= 0 && p.length() > bestLen && globMatches(p, mapName)) {
                best = e.getValue();
                bestLen = p.length();
            }
        }
        return best;
    }

    static boolean globMatches(String pattern, String name) {
        StringBuilder re = new StringBuilder();
        String[] parts = pattern.split("\\*", -1);
        for (int i = 0; i < parts.length; i++) {
            if (i > 0) {
                re.append(".*");
            }
            re.append(java.util.regex.Pattern.quote(parts[i]));
        }
        return name.matches(re.toString());
    }

    static String checkAddress(String address) {
        Objects.requireNonNull(address, "address");
        int colon = address.lastIndexOf(':');
        if (colon <= 0 || colon == address.length() - 1) {
            throw new IllegalArgumentException("address \"" + address + "\" is not host:port");
        }
        try {
            int port = Integer.parseInt(address.substring(colon + 1));
            if (port <= 0 || port > 65535) {
                throw new IllegalArgumentException("address \"" + address + "\" has an invalid port");
            }
        } catch (NumberFormatException e) {
            throw new IllegalArgumentException("address \"" + address + "\" has an invalid port", e);
        }
        return address;
    }
}
