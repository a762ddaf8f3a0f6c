package io.atoll.client;

import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Small;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestInfo;

import java.time.Duration;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Every map operation, synchronous and asynchronous, against a real member. */
class MapOperationsTest {
    static GoMember member;
    static AtollClient client;

    @BeforeAll
    static void start() {
        member = GoMember.start("ops");
        client = AtollClient.newClient(member.clientConfig().setSerializationConfig(TestModel.serialization()));
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

    static <K, V> AtollMap<K, V> map(TestInfo info) {
        return client.getMap(info.getTestMethod().orElseThrow().getName());
    }

    @Test
    void connects(TestInfo info) {
        assertEquals(List.of(member.address()), client.getMembers());
        assertEquals(271, client.getPartitionCount());
        assertEquals("ops", client.getClusterName());
        assertEquals(1, client.getStats().getConnections());
        assertFalse(client.isClosed());
        AtollMap<String, String> m = map(info);
        assertEquals(info.getTestMethod().orElseThrow().getName(), m.getName());
    }

    @Test
    void putGetSetRemove(TestInfo info) {
        AtollMap<String, String> m = map(info);
        assertNull(m.get("a"));
        assertNull(m.put("a", "1"));
        assertEquals("1", m.put("a", "2"));
        assertEquals("2", m.get("a"));
        m.set("b", "3");
        assertEquals("3", m.get("b"));
        assertEquals("3", m.remove("b"));
        assertNull(m.remove("b"));
        assertTrue(m.delete("a"));
        assertFalse(m.delete("a"));
        assertTrue(m.isEmpty());
    }

    @Test
    void asyncVariants(TestInfo info) throws Exception {
        AtollMap<Integer, String> m = map(info);
        assertNull(m.putAsync(1, "a").get());
        assertEquals("a", m.putAsync(1, "b").get());
        assertNull(m.setAsync(2, "c").get());
        assertEquals("c", m.getAsync(2).get());
        assertEquals("b", m.putIfAbsentAsync(1, "x").get());
        assertNull(m.putIfAbsentAsync(3, "d").get());
        assertEquals("d", m.replaceAsync(3, "e").get());
        assertTrue(m.replaceAsync(3, "e", "f").get());
        assertFalse(m.replaceAsync(3, "e", "g").get());
        assertTrue(m.containsKeyAsync(3).get());
        assertFalse(m.removeAsync(3, "e").get());
        assertTrue(m.removeAsync(3, "f").get());
        assertEquals("c", m.removeAsync(2).get());
        assertTrue(m.deleteAsync(1).get());
        assertEquals(0, m.sizeAsync().get());
        assertNull(m.putAsync(5, "t", 1, TimeUnit.HOURS).get());
        assertNull(m.setAsync(6, "t", 1, TimeUnit.HOURS).get());
        assertNull(m.putIfAbsentAsync(7, "t", 1, TimeUnit.HOURS).get());
        assertNull(m.putAsync(8, "t", 1, TimeUnit.HOURS, 1, TimeUnit.HOURS).get());
        assertNull(m.setAsync(9, "t", 1, TimeUnit.HOURS, 30, TimeUnit.MINUTES).get());
        assertNull(m.putIfAbsentAsync(10, "t", 0, TimeUnit.SECONDS, 1, TimeUnit.HOURS).get());
        assertTrue(m.setTtlAsync(5, 2, TimeUnit.HOURS).get());
        assertEquals(2 * 3600_000L, m.getEntryViewAsync(5).get().getTtl());
        assertEquals(30 * 60_000L, m.getEntryViewAsync(9).get().getMaxIdle());
        assertTrue(m.evictAsync(5).get());
        assertEquals(5, m.sizeAsync().get());
        assertEquals(Set.of(6, 7, 8, 9, 10), m.keySetAsync().get());
        assertEquals(5, m.valuesAsync().get().size());
        assertEquals(5, m.entrySetAsync().get().size());
        m.putAllAsync(Map.of(20, "u", 21, "v")).get();
        m.putAllAsync(Map.of(22, "w"), 1, TimeUnit.HOURS).get();
        assertEquals(Map.of(20, "u", 22, "w"), m.getAllAsync(Set.of(20, 22, 99)).get());
        assertEquals(8, m.getMapStatsAsync().get().getOwnedEntryCount());
        m.evictAllAsync().get();
        assertEquals(0, m.size());
        m.setAsync(1, "x").get();
        m.clearAsync().get();
        assertEquals(0, m.size());
        m.setAsync(1, "x").get();
        m.destroyAsync().get();
        assertEquals(0, m.size());
        AtollMap<Integer, String> configured = client.getMap(info.getTestMethod().orElseThrow().getName() + "-configured");
        configured.configureAsync(new MapConfig().setMaxEntries(100)).get();
        CompletableFuture<ListenerRegistration> reg = m.addEntryListenerAsync(e -> { }, null, false, Set.of());
        reg.get().close();
    }

    @Test
    void putIfAbsentReplaceAndConditionalRemove(TestInfo info) {
        AtollMap<String, Integer> m = map(info);
        assertNull(m.putIfAbsent("k", 1));
        assertEquals(1, m.putIfAbsent("k", 2));
        assertNull(m.replace("missing", 5));
        assertFalse(m.containsKey("missing"));
        assertEquals(1, m.replace("k", 3));
        assertFalse(m.replace("k", 1, 4));
        assertTrue(m.replace("k", 3, 4));
        assertEquals(4, m.get("k"));
        assertFalse(m.remove("k", 3));
        assertTrue(m.remove("k", 4));
        assertFalse(m.containsKey("k"));
        assertNull(m.putIfAbsent("t", 1, 1, TimeUnit.HOURS));
        assertNull(m.putIfAbsent("u", 1, 1, TimeUnit.HOURS, 10, TimeUnit.MINUTES));
        assertEquals(600_000, m.getEntryView("u").getMaxIdle());
    }

    @Test
    void entryViewAndTtl(TestInfo info) {
        AtollMap<String, Small> m = map(info);
        Small s = Gen.smallForKey(3);
        long before = System.currentTimeMillis();
        m.put("s", s, 10, TimeUnit.MINUTES);
        EntryView<String, Small> v = m.getEntryView("s");
        assertNotNull(v);
        assertEquals("s", v.getKey());
        assertEquals(s.stringField, v.getValue().stringField);
        assertEquals(600_000, v.getTtl());
        assertEquals(0, v.getMaxIdle());
        assertTrue(v.getCreationTime() >= before - 5000, v.toString());
        assertTrue(v.getExpirationTime() >= v.getCreationTime() + 599_000, v.toString());
        assertTrue(v.getCost() > 0);
        assertNull(m.getEntryView("none"));
        assertTrue(m.setTtl("s", 0, TimeUnit.SECONDS));
        assertEquals(0, m.getEntryView("s").getTtl());
        assertEquals(0, m.getEntryView("s").getExpirationTime());
        assertFalse(m.setTtl("none", 1, TimeUnit.SECONDS));
        m.set("idle", s, 0, TimeUnit.SECONDS, 5, TimeUnit.MINUTES);
        assertEquals(300_000, m.getEntryView("idle").getMaxIdle());
        // Sub-millisecond durations round up instead of becoming 0 (forever).
        m.set("tiny", s, 1, TimeUnit.HOURS);
        assertTrue(m.setTtl("tiny", 1, TimeUnit.MICROSECONDS));
        Await.until("a 1 µs TTL to expire", () -> m.get("tiny") == null);
    }

    @Test
    void ttlExpires(TestInfo info) {
        AtollMap<String, String> m = map(info);
        m.set("short", "v", 1, TimeUnit.SECONDS);
        m.put("long", "v", 1, TimeUnit.HOURS);
        m.set("idle", "v", 0, TimeUnit.SECONDS, 1, TimeUnit.SECONDS);
        assertEquals(1000, m.getEntryView("long").getTtl() / 3600);
        // Members keep expiry times in whole seconds, so a 1 s TTL ends within the second
        // boundary after the next one: anywhere from just after the write to 2 s later.
        Await.until("the 1 s TTL to expire", Duration.ofSeconds(30), () -> m.get("short") == null);
        Await.until("the 1 s max idle to expire", Duration.ofSeconds(30), () -> !m.containsKey("idle"));
        assertEquals("v", m.get("long"));
        Await.until("expirations in the stats", () -> m.getMapStats().getExpirations() >= 1);
    }

    @Test
    void mapDefaultTtlAndEvictionThroughConfigure(TestInfo info) {
        String name = info.getTestMethod().orElseThrow().getName();
        AtollMap<Integer, Integer> ttlMap = client.getMap(name + "-ttl");
        ttlMap.configure(new MapConfig().setTtl(Duration.ofSeconds(1)));
        ttlMap.set(1, 1);
        ttlMap.set(2, 2, 0, TimeUnit.SECONDS); // 0 = forever, overriding the map default
        assertEquals(1000, ttlMap.getEntryView(1).getTtl());
        Await.until("the map's default TTL to expire", Duration.ofSeconds(30), () -> ttlMap.get(1) == null);
        assertEquals(2, ttlMap.get(2));

        AtollMap<Integer, Integer> bounded = client.getMap(name + "-bounded");
        // Members evict within the partition written to and never its last entry, so the
        // limit holds once most of the 271 partitions have more than one entry.
        bounded.configure(new MapConfig().setEvictionPolicy(EvictionPolicy.LRU).setMaxEntries(500));
        for (int i = 0; i < 5000; i++) {
            bounded.set(i, i);
        }
        int size = bounded.size();
        assertTrue(size <= 500 && size > 0, "size " + size);
        assertTrue(bounded.getMapStats().getEvictions() >= 4500);
        assertEquals(4999, bounded.get(4999));

        // A map already in use cannot be configured any more.
        InvalidArgumentException e = assertThrows(InvalidArgumentException.class, () -> bounded.configure(new MapConfig().setMaxEntries(5)));
        assertEquals(member.address(), e.getMemberAddress());
    }

    @Test
    void evictAndEvictAll(TestInfo info) {
        AtollMap<String, String> m = map(info);
        m.set("a", "1");
        m.set("b", "2");
        assertTrue(m.evict("a"));
        assertFalse(m.evict("a"));
        assertNull(m.get("a"));
        m.evictAll();
        assertEquals(0, m.size());
        assertTrue(m.getMapStats().getEvictions() >= 2);
    }

    @Test
    void putAllGetAllAndIteration(TestInfo info) {
        AtollMap<Integer, Small> m = map(info);
        Map<Integer, Small> in = new HashMap<>();
        for (int i = 0; i < 3000; i++) {
            in.put(i, Gen.smallForKey(i));
        }
        m.putAll(in);
        assertEquals(3000, m.size());
        Set<Integer> keys = new HashSet<>();
        for (int i = 0; i < 3000; i += 7) {
            keys.add(i);
        }
        keys.add(-1);
        Map<Integer, Small> got = m.getAll(keys);
        assertEquals(keys.size() - 1, got.size());
        for (Map.Entry<Integer, Small> e : got.entrySet()) {
            assertEquals(in.get(e.getKey()).longField, e.getValue().longField);
        }
        assertEquals(in.keySet(), m.keySet());
        assertEquals(3000, m.values().size());
        Set<Map.Entry<Integer, Small>> entries = m.entrySet();
        assertEquals(3000, entries.size());
        for (Map.Entry<Integer, Small> e : entries) {
            assertEquals(in.get(e.getKey()).stringField, e.getValue().stringField);
        }
        assertTrue(m.getAll(Set.of()).isEmpty());
        m.putAll(Map.of());
        m.putAll(Map.of(5000, Gen.smallForKey(5000)), 1, TimeUnit.HOURS);
        assertEquals(3_600_000, m.getEntryView(5000).getTtl());
    }

    @Test
    void statsSizeClearDestroy(TestInfo info) {
        AtollMap<String, String> m = map(info);
        for (int i = 0; i < 10; i++) {
            m.set("k" + i, "v" + i);
        }
        m.put("k0", "again");
        m.get("k1");
        m.get("missing");
        m.remove("k2");
        MapStats st = m.getMapStats();
        assertEquals(9, st.getOwnedEntryCount());
        assertTrue(st.getOwnedEntryMemoryCost() > 0);
        assertEquals(10, st.getSetOperationCount());
        assertEquals(1, st.getPutOperationCount());
        assertEquals(2, st.getGetOperationCount());
        assertEquals(1, st.getRemoveOperationCount());
        assertTrue(st.getHits() >= 1);
        assertTrue(st.getLastUpdateTime() > 0);
        assertTrue(st.getCreationTime() > 0);
        assertEquals(1, st.getMemberCount());
        assertEquals(9, m.size());
        m.clear();
        assertEquals(0, m.size());
        assertTrue(m.isEmpty());
        m.set("x", "y");
        m.destroy();
        assertEquals(0, m.size());
        assertNull(m.get("x"));
    }

    @Test
    void layoutsAreRegisteredWithTheCluster() {
        io.atoll.client.serialization.IdentifiedLayout layout = io.atoll.client.serialization.IdentifiedLayout.builder(77, 1)
                .writeInt("a").writeString("b").build();
        client.registerLayouts(layout);
        assertTrue(client.getSerializationService().getIdentifiedLayouts().contains(layout));
        // A second client reads a value of that class without a factory, through the layout it fetches.
        AtollMap<String, Object> m = client.getMap("layouts");
        m.set("r", io.atoll.client.serialization.GenericRecordBuilder.identified(layout).setInt32("a", 5).setString("b", "x").build());
        try (AtollClient other = AtollClient.newClient(member.clientConfig())) {
            io.atoll.client.serialization.GenericRecord r = (io.atoll.client.serialization.GenericRecord) other.getMap("layouts").get("r");
            assertEquals(5, r.getInt32("a"));
            assertEquals("x", r.getString("b"));
        }
    }

    @Test
    void compactSchemasAreFetchedByOtherClients(TestInfo info) {
        AtollMap<Integer, Small> m = map(info);
        m.set(1, Gen.smallForKey(1));
        try (AtollClient plain = AtollClient.newClient(member.clientConfig())) {
            Object v = plain.getMap(info.getTestMethod().orElseThrow().getName()).get(1);
            io.atoll.client.serialization.GenericRecord r = (io.atoll.client.serialization.GenericRecord) v;
            assertEquals(Gen.smallForKey(1).stringField, r.getString("stringField"));
        }
    }

    @Test
    void partitionIdsComeFromTheKeyBytes() {
        assertEquals(client.getSerializationService().toData("key-1").getPartitionId(271), client.getPartitionId("key-1"));
        assertEquals(11, client.getPartitionId(0)); // as the Go SDK computes (internal/interop peer)
    }
}
