package io.atoll.client;

import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** Entry listeners against a real member: event sequences, filters, values, and lost events. */
class ListenerTest {
    static GoMember member;
    static AtollClient client;

    @BeforeAll
    static void start() {
        member = GoMember.start("listeners");
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

    static String describe(EntryEvent<String, String> e) {
        return e.getType() + " " + e.getKey() + " " + e.getValue() + " " + e.getOldValue();
    }

    static List<String> snapshot(List<EntryEvent<String, String>> events) {
        List<String> out = new ArrayList<>();
        for (EntryEvent<String, String> e : events) {
            out.add(describe(e));
        }
        return out;
    }

    @Test
    void eventSequenceWithValues() {
        AtollMap<String, String> m = client.getMap("events");
        List<EntryEvent<String, String>> events = new CopyOnWriteArrayList<>();
        try (ListenerRegistration reg = m.addEntryListener(events::add, true)) {
            m.put("k", "v1");
            m.put("k", "v2");
            m.remove("k");
            m.set("e", "x");
            m.evict("e");
            m.set("t", "y", 1, TimeUnit.SECONDS);
            Await.until("6 events", Duration.ofSeconds(60), () -> events.size() >= 6);
            List<String> expected = List.of(
                    "ADDED k v1 null",
                    "UPDATED k v2 v1",
                    "REMOVED k null v2",
                    "ADDED e x null",
                    "EVICTED e null x",
                    "ADDED t y null");
            assertEquals(expected, snapshot(events).subList(0, 6));
            // Expiry is noticed on access or by the member's sweeper.
            Await.until("the EXPIRED event", Duration.ofSeconds(60), () -> {
                m.get("t");
                return snapshot(events).contains("EXPIRED t null y");
            });
            EntryEvent<String, String> first = events.get(0);
            assertEquals(client.getPartitionId("k"), first.getPartitionId());
            assertEquals(member.address(), first.getMemberAddress());
        }
        int n = events.size();
        m.set("after", "close");
        assertEquals("after", m.keySet().stream().filter("after"::equals).findFirst().orElse(null));
        assertEquals(n, events.size(), "no events after the registration was closed");
    }

    @Test
    void keyListenerWithoutValuesAndTypeFilter() {
        AtollMap<String, String> m = client.getMap("key-events");
        List<EntryEvent<String, String>> forKey = new CopyOnWriteArrayList<>();
        List<EntryEvent<String, String>> removals = new CopyOnWriteArrayList<>();
        List<EntryEvent<String, String>> cleared = new CopyOnWriteArrayList<>();
        try (ListenerRegistration a = m.addEntryListener(forKey::add, "mine", false);
             ListenerRegistration b = m.addEntryListener(removals::add, null, true, Set.of(EntryEventType.REMOVED));
             ListenerRegistration c = m.addEntryListener(cleared::add, null, false, Set.of(EntryEventType.CLEARED))) {
            m.set("other", "1");
            m.set("mine", "1");
            m.set("mine", "2");
            m.delete("other");
            m.delete("mine");
            Await.until("3 events for the key", () -> forKey.size() >= 3);
            assertEquals(List.of("ADDED mine null null", "UPDATED mine null null", "REMOVED mine null null"), snapshot(forKey));
            Await.until("2 removals", () -> removals.size() >= 2);
            assertEquals(List.of("REMOVED other null 1", "REMOVED mine null 2"), snapshot(removals));
            m.set("z", "1");
            m.clear();
            Await.until("a CLEARED event", () -> !cleared.isEmpty());
            assertEquals(EntryEventType.CLEARED, cleared.get(0).getType());
            assertNull(cleared.get(0).getKey());
        }
    }

    @Test
    void asyncListenersAndManyEventsInOrder() throws Exception {
        AtollMap<Integer, Integer> m = client.getMap("many-events");
        List<EntryEvent<Integer, Integer>> events = new CopyOnWriteArrayList<>();
        ListenerRegistration reg = m.addEntryListenerAsync(events::add, 7, true, Set.of()).get();
        for (int i = 0; i < 500; i++) {
            m.set(7, i);
        }
        Await.until("500 events", () -> events.size() >= 500);
        for (int i = 0; i < 500; i++) {
            assertEquals(i, events.get(i).getValue());
        }
        reg.close();
        reg.close();
    }

    @Test
    void lostEventsAreReportedWhenTheMemberRestarts() {
        try (GoMember restarting = GoMember.start("listeners-restart");
             AtollClient c = AtollClient.newClient(restarting.clientConfig()
                     .setRetryConfig(new RetryConfig().setMaxBackoff(Duration.ofMillis(200))))) {
            AtollMap<String, String> m = c.getMap("restarting");
            List<EntryEvent<String, String>> events = new CopyOnWriteArrayList<>();
            try (ListenerRegistration reg = m.addEntryListener(events::add, true)) {
                m.set("a", "1");
                Await.until("the first event", () -> events.size() >= 1);
                restarting.restart();
                Await.until("a LOST event", () -> events.stream().anyMatch(e -> e.getType() == EntryEventType.LOST));
                // The listener is re-registered: events of new writes arrive again.
                Await.until("events after the restart", Duration.ofSeconds(60), () -> {
                    m.set("b", "2");
                    return events.stream().anyMatch(e -> "b".equals(e.getKey()));
                });
                assertTrue(events.stream().filter(e -> e.getType() == EntryEventType.LOST).allMatch(e -> e.getKey() == null));
            }
        }
    }
}
