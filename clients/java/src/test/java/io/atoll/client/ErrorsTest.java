package io.atoll.client;

import io.atoll.client.proto.ErrorCode;
import io.atoll.client.proto.ErrorDetail;
import io.atoll.client.serialization.AtollSerializationException;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Bad input and the mapping of the protocol's error codes to typed exceptions. */
class ErrorsTest {
    static GoMember member;
    static AtollClient client;

    @BeforeAll
    static void start() {
        member = GoMember.start("errors", "limits: {max-value-size: 1024}\n");
        client = AtollClient.newClient(member.clientConfig());
    }

    @AfterAll
    static void stop() {
        if (client != null) {
            client.close();
        }
        if (member != null) {
            member.stop();
        }
    }

    @Test
    void everyErrorCodeHasItsException() {
        Map<ErrorCode, Class<? extends AtollException>> want = Map.ofEntries(
                Map.entry(ErrorCode.ERROR_CODE_INVALID_ARGUMENT, InvalidArgumentException.class),
                Map.entry(ErrorCode.ERROR_CODE_INVALID_DATA, InvalidDataException.class),
                Map.entry(ErrorCode.ERROR_CODE_TOO_LARGE, TooLargeException.class),
                Map.entry(ErrorCode.ERROR_CODE_UNKNOWN_SCHEMA, UnknownCompactSchemaException.class),
                Map.entry(ErrorCode.ERROR_CODE_UNKNOWN_CLASS, UnknownClassException.class),
                Map.entry(ErrorCode.ERROR_CODE_WRONG_OWNER, WrongOwnerException.class),
                Map.entry(ErrorCode.ERROR_CODE_CLUSTER_NAME_MISMATCH, ClusterNameMismatchException.class),
                Map.entry(ErrorCode.ERROR_CODE_SHUTTING_DOWN, ShuttingDownException.class),
                Map.entry(ErrorCode.ERROR_CODE_OVERLOADED, OverloadedException.class),
                Map.entry(ErrorCode.ERROR_CODE_TIMEOUT, OperationTimeoutException.class),
                Map.entry(ErrorCode.ERROR_CODE_QUERY, QueryException.class),
                Map.entry(ErrorCode.ERROR_CODE_CONFLICT, ConflictException.class),
                Map.entry(ErrorCode.ERROR_CODE_MEMORY_LIMIT, MemoryLimitException.class),
                Map.entry(ErrorCode.ERROR_CODE_UNAVAILABLE, UnavailableException.class),
                Map.entry(ErrorCode.ERROR_CODE_CANCELLED, OperationCancelledException.class),
                Map.entry(ErrorCode.ERROR_CODE_NOT_FOUND, NotFoundException.class),
                Map.entry(ErrorCode.ERROR_CODE_PERMISSION_DENIED, PermissionDeniedException.class),
                Map.entry(ErrorCode.ERROR_CODE_LIMIT_EXCEEDED, LimitExceededException.class),
                Map.entry(ErrorCode.ERROR_CODE_NOT_LOCK_OWNER, NotLockOwnerException.class),
                Map.entry(ErrorCode.ERROR_CODE_UNAUTHENTICATED, AuthenticationException.class),
                // This client never runs a query by partitions: a member that says it cannot is wrong.
                Map.entry(ErrorCode.ERROR_CODE_NOT_PARTITIONABLE, InternalException.class),
                Map.entry(ErrorCode.ERROR_CODE_INTERNAL, InternalException.class),
                Map.entry(ErrorCode.ERROR_CODE_UNSPECIFIED, InternalException.class));
        for (ErrorCode code : ErrorCode.values()) {
            if (code == ErrorCode.UNRECOGNIZED) {
                continue;
            }
            ErrorDetail d = ErrorDetail.newBuilder().setCode(code).setRetryable(code == ErrorCode.ERROR_CODE_SHUTTING_DOWN)
                    .setSchemaId(42).setLimit(7).setLine(3).setColumn(9).setFactoryId(1).setClassId(2).setClassVersion(3)
                    .setPartitionTableVersion(5).build();
            AtollException e = Errors.fromDetail(14, "msg", d, "10.0.0.1:5701", "dev", null);
            assertEquals(want.get(code), e.getClass(), code.toString());
            assertEquals("10.0.0.1:5701", e.getMemberAddress());
            assertEquals(14, e.getGrpcCode());
            assertEquals(code == ErrorCode.ERROR_CODE_SHUTTING_DOWN, e.isRetryable());
            assertTrue(e.getMessage().contains("member 10.0.0.1:5701"), e.getMessage());
        }
        ErrorDetail d = ErrorDetail.newBuilder().setSchemaId(42).setLimit(7).setLine(3).setColumn(9).setFactoryId(1).setClassId(2)
                .setClassVersion(3).setPartitionTableVersion(5).build();
        assertEquals(42, ((UnknownCompactSchemaException) Errors.fromDetail(9, "m", d.toBuilder().setCode(ErrorCode.ERROR_CODE_UNKNOWN_SCHEMA).build(), "a", "c", null)).getSchemaId());
        assertEquals(7, ((TooLargeException) Errors.fromDetail(3, "m", d.toBuilder().setCode(ErrorCode.ERROR_CODE_TOO_LARGE).build(), "a", "c", null)).getLimit());
        QueryException q = (QueryException) Errors.fromDetail(3, "m", d.toBuilder().setCode(ErrorCode.ERROR_CODE_QUERY).build(), "a", "c", null);
        assertEquals(3, q.getLine());
        assertEquals(9, q.getColumn());
        UnknownClassException uc = (UnknownClassException) Errors.fromDetail(9, "m", d.toBuilder().setCode(ErrorCode.ERROR_CODE_UNKNOWN_CLASS).build(), "a", "c", null);
        assertEquals(1, uc.getFactoryId());
        assertEquals(2, uc.getClassId());
        assertEquals(3, uc.getClassVersion());
        assertEquals(5, ((WrongOwnerException) Errors.fromDetail(9, "m", d.toBuilder().setCode(ErrorCode.ERROR_CODE_WRONG_OWNER).build(), "a", "c", null)).getPartitionTableVersion());
        ConflictException c = (ConflictException) Errors.fromDetail(10, "m", d.toBuilder().setCode(ErrorCode.ERROR_CODE_CONFLICT)
                .setConflictCause(io.atoll.client.proto.ConflictCause.CONFLICT_CAUSE_CHANGED).setConflictMap("accounts").build(), "a", "c", null);
        assertEquals(ConflictException.Cause.CHANGED, c.getConflictCause());
        assertEquals("accounts", c.getMapName());
    }

    @Test
    void clusterNameMismatchNamesOnlyTheClientsCluster() {
        ClusterNameMismatchException e = assertThrows(ClusterNameMismatchException.class,
                () -> AtollClient.newClient(new AtollClientConfig().addAddress(member.address()).setClusterName("elsewhere")));
        assertEquals("elsewhere", e.getClientClusterName());
        assertEquals(member.address(), e.getMemberAddress());
        assertTrue(e.getMessage().contains("\"elsewhere\""), e.getMessage());
        assertFalse(e.getMessage().contains("errors"), "a stranger learned the member's cluster name: " + e.getMessage());
    }

    @Test
    void noReachableMember() {
        UnavailableException e = assertThrows(UnavailableException.class, () -> AtollClient.newClient(new AtollClientConfig()
                .addAddress("127.0.0.1:1").setConnectTimeout(Duration.ofSeconds(1))));
        assertTrue(e.getMessage().contains("127.0.0.1:1"), e.getMessage());
    }

    @Test
    void valueOverTheMembersLimit() throws Exception {
        AtollMap<String, byte[]> m = client.getMap("limits");
        // The client learned the member's limit when it connected: nothing is sent.
        TooLargeException e = assertThrows(TooLargeException.class, () -> m.set("big", new byte[4096]));
        assertNull(e.getMemberAddress(), "it was sent");
        assertEquals(1024, e.getLimit());
        assertTrue(e.getMessage().contains("limits.max-value-size"), e.getMessage());
        assertTrue(!e.isRetryable());
        ExecutionException async = assertThrows(ExecutionException.class, () -> m.putAsync("big", new byte[4096]).get());
        assertInstanceOf(TooLargeException.class, async.getCause());
        m.set("small", new byte[16]);
        assertEquals(16, m.get("small").length);
    }

    @Test
    void invalidMapNameAndArguments() {
        StringBuilder longName = new StringBuilder();
        for (int i = 0; i < 1100; i++) {
            longName.append('x');
        }
        // The client refuses names a member would refuse, before sending anything.
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> client.getMap(longName.toString()));
        assertNull(e.getMemberAddress());
        assertThrows(InvalidArgumentException.class, () -> client.getMap(""));
        AtollMap<String, String> m = client.getMap("args");
        assertThrows(NullPointerException.class, () -> m.set(null, "b"));
        assertThrows(NullPointerException.class, () -> m.set("a", null));
        assertThrows(NullPointerException.class, () -> m.get(null));
        assertThrows(IllegalArgumentException.class, () -> m.set("a", "b", -1, TimeUnit.SECONDS));
        assertThrows(IllegalArgumentException.class, () -> m.setTtl("a", -5, TimeUnit.SECONDS));
        AtollMap<String, Object> raw = client.getMap("args");
        assertThrows(AtollSerializationException.class, () -> raw.set("a", new Object()));
        assertThrows(IllegalArgumentException.class, () -> new AtollClientConfig().addAddress("nohost"));
        assertThrows(IllegalArgumentException.class, () -> new MapConfig().setTtl(Duration.ofSeconds(-1)));
        assertNull(m.get("a"));
    }

    @Test
    void invalidConfigurationFromTheMember() {
        AtollMap<String, String> m = client.getMap("bad-config");
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> m.configure(new MapConfig().setMaxEntries(-1)));
        assertTrue(e.getMessage().contains("negative"), e.getMessage());
        assertThrows(InvalidArgumentException.class, () -> m.configure(new MapConfig().setBackupCount(9)));
    }

    @Test
    void nearCachePatternsAndAddresses() {
        AtollClientConfig c = new AtollClientConfig()
                .addNearCacheConfig("a*", new NearCacheConfig().setMaxEntries(1))
                .addNearCacheConfig("ab*", new NearCacheConfig().setMaxEntries(2))
                .addNearCacheConfig("abc", new NearCacheConfig().setMaxEntries(3))
                .addNearCacheConfig("*-x-*", new NearCacheConfig().setMaxEntries(4));
        assertEquals(3, c.nearCacheConfigFor("abc").getMaxEntries());
        assertEquals(2, c.nearCacheConfigFor("abd").getMaxEntries());
        assertEquals(1, c.nearCacheConfigFor("a").getMaxEntries());
        assertEquals(4, c.nearCacheConfigFor("1-x-2").getMaxEntries());
        assertNull(c.nearCacheConfigFor("b"));
        assertNull(c.nearCacheConfigFor("x.y"));
        assertEquals(java.util.List.of("127.0.0.1:5701"), new AtollClientConfig().getAddresses());
        assertEquals(1001, ClientMap.toMs(1_000_000_001L, TimeUnit.NANOSECONDS, "ttl"));
        assertEquals(1, ClientMap.toMs(1, TimeUnit.NANOSECONDS, "ttl"));
        assertEquals(0, ClientMap.toMs(0, TimeUnit.DAYS, "ttl"));
    }
}
