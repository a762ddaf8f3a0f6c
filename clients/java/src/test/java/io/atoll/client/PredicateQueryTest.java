package io.atoll.client;

import io.atoll.client.query.Aggregator;
import io.atoll.client.query.Aggregators;
import io.atoll.client.query.AndPredicate;
import io.atoll.client.query.ComparisonPredicate;
import io.atoll.client.query.PagingPredicate;
import io.atoll.client.query.Predicate;
import io.atoll.client.query.Predicates;
import io.atoll.client.query.Projection;
import io.atoll.client.query.Projections;
import io.atoll.client.query.SortKey;
import io.atoll.client.serialization.bench.Gen;
import io.atoll.client.serialization.bench.Ids;
import io.atoll.client.serialization.bench.Large;
import io.atoll.client.serialization.bench.Ports;
import io.atoll.client.serialization.bench.Small;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.util.ArrayList;
import java.util.Collection;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.function.Function;
import java.util.function.ToDoubleFunction;
import java.util.function.ToLongFunction;
import java.util.stream.Collectors;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/**
 * The Predicate API against a real member: every predicate, aggregator and projection,
 * synchronous and asynchronous, paging, partition predicates, indexes and plans, on Compact
 * values with nested objects and arrays (and Portable and IDS values for the formats), each
 * result checked against the same computation on the values the test wrote.
 */
class PredicateQueryTest {
    static final int N = 200;
    static GoMember member;
    static AtollClient client;
    static AtollMap<Integer, Large> large;
    static final Map<Integer, Large> VALUES = new HashMap<>();

    static Large value(int k) {
        Large l = Gen.largeForKey(k);
        l.intField = k;
        l.longField = k * 1_000_003L;
        l.doubleField = k / 8.0;
        l.small.intField = k % 5;
        l.smallArray[1].stringField = k % 2 == 0 ? "x" : "y";
        l.intArray[0] = k * 10;
        l.stringField = (k % 3 == 0 ? "Alpha" : "beta") + k;
        return l;
    }

    @BeforeAll
    static void start() {
        member = GoMember.start("predicates");
        client = AtollClient.newClient(member.clientConfig().setSerializationConfig(TestModel.serialization()));
        large = client.getMap("large");
        for (int k = 0; k < N; k++) {
            VALUES.put(k, value(k));
        }
        large.putAll(VALUES);
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

    static Set<Integer> keysWhere(java.util.function.Predicate<Large> p) {
        return VALUES.entrySet().stream().filter(e -> p.test(e.getValue())).map(Map.Entry::getKey).collect(Collectors.toCollection(TreeSet::new));
    }

    static Set<Integer> sorted(Collection<Integer> keys) {
        return new TreeSet<>(keys);
    }

    @Test
    void everyPredicateSelectsWhatItSays() {
        Map<Predicate, Set<Integer>> cases = new java.util.LinkedHashMap<>();
        cases.put(Predicates.equal("intField", 42), keysWhere(l -> l.intField == 42));
        cases.put(Predicates.notEqual("small.intField", 0), keysWhere(l -> l.small.intField != 0));
        cases.put(Predicates.greaterThan("intField", 150), keysWhere(l -> l.intField > 150));
        cases.put(Predicates.greaterEqual("__key", 150), keysWhere(l -> l.intField >= 150));
        cases.put(Predicates.lessThan("doubleField", 2.5), keysWhere(l -> l.doubleField < 2.5));
        cases.put(Predicates.lessEqual("longField", 10 * 1_000_003L), keysWhere(l -> l.longField <= 10 * 1_000_003L));
        cases.put(Predicates.between("intField", 20, 29), keysWhere(l -> l.intField >= 20 && l.intField <= 29));
        cases.put(Predicates.in("intField", 3, 5, 7, 1000), keysWhere(l -> Set.of(3, 5, 7).contains(l.intField)));
        cases.put(Predicates.like("stringField", "Alpha1%"), keysWhere(l -> l.stringField.startsWith("Alpha1")));
        cases.put(Predicates.ilike("stringField", "ALPHA1_"), keysWhere(l -> l.stringField.matches("Alpha1.")));
        cases.put(Predicates.regex("stringField", "beta[0-9]*7"), keysWhere(l -> l.stringField.matches("beta[0-9]*7")));
        cases.put(Predicates.and(Predicates.lessThan("intField", 50), Predicates.equal("small.intField", 0)),
                keysWhere(l -> l.intField < 50 && l.small.intField == 0));
        cases.put(Predicates.or(Predicates.equal("intField", 1), Predicates.equal("intField", 199)), Set.of(1, 199));
        cases.put(Predicates.not(Predicates.lessThan("intField", 190)), keysWhere(l -> l.intField >= 190));
        cases.put(Predicates.alwaysTrue(), VALUES.keySet());
        cases.put(Predicates.alwaysFalse(), Set.of());
        cases.put(Predicates.sql("intField < 10 AND small.intField = 0"), keysWhere(l -> l.intField < 10 && l.small.intField == 0));
        // Paths into nested objects and arrays.
        cases.put(Predicates.equal("smallArray[any].stringField", "y"), keysWhere(l -> l.intField % 2 == 1));
        cases.put(Predicates.equal("smallArray[1].stringField", "x"), keysWhere(l -> l.intField % 2 == 0));
        cases.put(Predicates.equal("intArray[0]", 50), Set.of(5));
        // Values convert to the attribute's type (an unknown attribute fails: see badInput).
        cases.put(Predicates.equal("intField", 42L), Set.of(42));
        cases.put(Predicates.lessThan("intField", 2.5), Set.of(0, 1, 2));
        cases.put(Predicates.equal("intField", "42"), Set.of(42));
        // Objects compare serialized.
        cases.put(Predicates.equal("this", VALUES.get(7)), Set.of(7));
        cases.put(Predicates.equal("__key", 8), Set.of(8));
        for (Map.Entry<Predicate, Set<Integer>> c : cases.entrySet()) {
            assertEquals(sorted(c.getValue()), sorted(large.keySet(c.getKey())), c.getKey().toString());
        }
    }

    @Test
    void keysValuesAndEntriesAgree() throws Exception {
        Predicate p = Predicates.between("intField", 100, 119);
        Set<Integer> keys = large.keySet(p);
        assertEquals(keysWhere(l -> l.intField >= 100 && l.intField < 120), sorted(keys));
        Collection<Large> values = large.values(p);
        assertEquals(sorted(keys), values.stream().map(l -> l.intField).collect(Collectors.toCollection(TreeSet::new)));
        Set<Map.Entry<Integer, Large>> entries = large.entrySet(p);
        assertEquals(20, entries.size());
        for (Map.Entry<Integer, Large> e : entries) {
            Large want = VALUES.get(e.getKey());
            assertEquals(want.stringField, e.getValue().stringField);
            assertArrayEquals(want.intArray, e.getValue().intArray);
            assertEquals(want.smallArray[2].longField, e.getValue().smallArray[2].longField);
        }
        assertEquals(keys, large.keySetAsync(p).get(60, TimeUnit.SECONDS));
        assertEquals(20, large.valuesAsync(p).get(60, TimeUnit.SECONDS).size());
        assertEquals(sorted(keys), sorted(large.entrySetAsync(p).get(60, TimeUnit.SECONDS).stream().map(Map.Entry::getKey).toList()));
        // Results are read-only snapshots that can be iterated again and searched.
        assertTrue(keys.contains(105));
        assertFalse(keys.contains(5));
        assertThrows(UnsupportedOperationException.class, () -> keys.add(1));
        assertThrows(UnsupportedOperationException.class, () -> values.clear());
        assertThrows(UnsupportedOperationException.class, () -> entries.iterator().remove());
        assertEquals(new ArrayList<>(keys), new ArrayList<>(keys));
        assertEquals(20, values.stream().filter(l -> l.intField >= 100).count());
        // Each iteration deserializes anew: values of a class without equals are new objects each time.
        assertTrue(values.iterator().next() != values.iterator().next());
        // The predicate-less forms read every entry.
        assertEquals(VALUES.keySet(), large.keySet(Predicates.alwaysTrue()));
        // Without a predicate the results are lazy too: read-only, deserialized while iterated.
        Set<Integer> allKeys = large.keySet();
        Collection<Large> allValues = large.values();
        Set<Map.Entry<Integer, Large>> allEntries = large.entrySet();
        assertEquals(VALUES.keySet(), allKeys);
        assertEquals(VALUES.size(), allValues.size());
        assertEquals(VALUES.size(), allEntries.size());
        assertThrows(UnsupportedOperationException.class, () -> allKeys.add(1));
        assertThrows(UnsupportedOperationException.class, () -> allValues.clear());
        assertThrows(UnsupportedOperationException.class, () -> allEntries.iterator().remove());
        assertTrue(allValues.iterator().next() != allValues.iterator().next());
        assertTrue(allEntries.iterator().next().getValue() != allEntries.iterator().next().getValue());
    }

    @Test
    void aggregators() throws Exception {
        ToLongFunction<Large> intF = l -> l.intField;
        Collection<Large> all = VALUES.values();
        long intSum = all.stream().mapToLong(intF).sum();
        long longSum = all.stream().mapToLong(l -> l.longField).sum();
        double doubleSum = all.stream().mapToDouble(l -> l.doubleField).sum();
        assertEquals((long) N, large.aggregate(Aggregators.count()));
        assertEquals((long) N, large.aggregate(Aggregators.count("intField")));
        assertEquals(intSum, large.aggregate(Aggregators.integerSum("intField")));
        assertEquals(longSum, large.aggregate(Aggregators.longSum("longField")));
        assertEquals(doubleSum, large.aggregate(Aggregators.doubleSum("doubleField")), 1e-9);
        assertEquals(all.stream().mapToLong(l -> l.small.intField).sum(), large.aggregate(Aggregators.fixedPointSum("small.intField")));
        assertEquals(all.stream().mapToDouble(l -> l.byteField).sum(), large.aggregate(Aggregators.floatingPointSum("byteField")), 1e-9);
        assertEquals(intSum / (double) N, large.aggregate(Aggregators.integerAvg("intField")), 1e-9);
        assertEquals(longSum / (double) N, large.aggregate(Aggregators.longAvg("longField")), 1e-3);
        assertEquals(doubleSum / N, large.aggregate(Aggregators.doubleAvg("doubleField")), 1e-9);
        ToDoubleFunction<Large> floatF = l -> l.floatField;
        assertEquals(all.stream().mapToDouble(floatF).average().orElseThrow(), large.aggregate(Aggregators.numberAvg("floatField")), 1e-6);
        assertEquals(0, (Integer) large.aggregate(Aggregators.comparableMin("intField")));
        assertEquals(N - 1, (Integer) large.aggregate(Aggregators.comparableMax("intField")));
        assertEquals(all.stream().map(l -> l.stringField).max(String::compareTo).orElseThrow(),
                large.aggregate(Aggregators.<String>comparableMax("stringField")));
        Set<Integer> distinct = large.aggregate(Aggregators.distinct("small.intField"));
        assertEquals(Set.of(0, 1, 2, 3, 4), distinct);
        Map.Entry<Integer, Large> maxBy = large.aggregate(Aggregators.maxBy("intField"), Predicates.lessThan("intField", 100));
        assertEquals(99, maxBy.getKey());
        assertEquals(VALUES.get(99).stringField, maxBy.getValue().stringField);
        Map.Entry<Integer, Large> minBy = large.aggregate(Aggregators.minBy("doubleField"), Predicates.greaterThan("intField", 10));
        assertEquals(11, minBy.getKey());
        // With a predicate, and asynchronously.
        assertEquals(10L, large.aggregate(Aggregators.count(), Predicates.lessThan("intField", 10)));
        assertEquals(45L, large.aggregateAsync(Aggregators.integerSum("intField"), Predicates.lessThan("intField", 10)).get(60, TimeUnit.SECONDS));
        assertEquals(intSum, large.aggregateAsync(Aggregators.integerSum("intField")).get(60, TimeUnit.SECONDS));
        // Over no entries: zero counts and sums, null averages, extremes and entries, an empty set.
        Predicate none = Predicates.alwaysFalse();
        assertEquals(0L, large.aggregate(Aggregators.count(), none));
        assertEquals(0L, large.aggregate(Aggregators.longSum("longField"), none));
        assertEquals(0.0, large.aggregate(Aggregators.doubleSum("doubleField"), none));
        assertNull(large.aggregate(Aggregators.integerAvg("intField"), none));
        assertNull(large.aggregate(Aggregators.comparableMin("intField"), none));
        assertNull(large.aggregate(Aggregators.maxBy("intField"), none));
        assertEquals(Set.of(), large.aggregate(Aggregators.distinct("intField"), none));
        // An empty map aggregates the same way.
        AtollMap<Integer, Large> empty = client.getMap("empty");
        assertEquals(0L, empty.aggregate(Aggregators.count()));
    }

    @Test
    void projections() throws Exception {
        Predicate p = Predicates.lessThan("intField", 5);
        Collection<Integer> ints = large.project(Projections.singleAttribute("intField"), p);
        assertEquals(Set.of(0, 1, 2, 3, 4), new HashSet<>(ints));
        Collection<Object[]> pairs = large.project(Projections.multiAttribute("__key", "small.intField", "stringField"), Predicates.equal("intField", 12));
        assertEquals(1, pairs.size());
        assertArrayEquals(new Object[]{12, 2, "Alpha12"}, pairs.iterator().next());
        // A nested object comes back decoded through its registered serializer.
        Collection<Small> nested = large.project(Projections.singleAttribute("small"), Predicates.equal("intField", 12));
        assertEquals(1, nested.size());
        assertEquals(VALUES.get(12).small.stringField, nested.iterator().next().stringField);
        assertEquals(VALUES.get(12).small.intField, nested.iterator().next().intField);
        Collection<Object[]> one = large.project(Projections.multiAttribute("intField"), Predicates.equal("intField", 3));
        assertArrayEquals(new Object[]{3}, one.iterator().next());
        Collection<String> strings = large.project(Projections.singleAttribute("stringField"));
        assertEquals(VALUES.values().stream().map(l -> l.stringField).collect(Collectors.toSet()), new HashSet<>(strings));
        assertEquals(N, strings.size());
        assertEquals(Set.of(10L * 1_000_003L), new HashSet<>(large.projectAsync(Projections.<Long>singleAttribute("longField"),
                Predicates.equal("intField", 10)).get(60, TimeUnit.SECONDS)));
        assertEquals(N, large.projectAsync(Projections.singleAttribute("__key")).get(60, TimeUnit.SECONDS).size());
        Projection<Object[]> m = Projections.multiAttribute("a", "b");
        assertEquals(List.of("a", "b"), m.getAttributes());
        assertTrue(m.isMultiAttribute());
        assertFalse(Projections.singleAttribute("a").isMultiAttribute());
        assertEquals(m, Projections.multiAttribute("a", "b"));
        assertEquals(m.hashCode(), Projections.multiAttribute("a", "b").hashCode());
        assertNotEquals(Projections.singleAttribute("a"), Projections.multiAttribute("a"));
        assertEquals("multiAttribute[a, b]", m.toString());
        assertThrows(IllegalArgumentException.class, Projections::multiAttribute);
    }

    /** Results of more rows than a page (4096 by default) are read page by page, sync and async. */
    @Test
    void resultsLongerThanAPage() throws Exception {
        AtollMap<Integer, String> m = client.getMap("many");
        Map<Integer, String> batch = new HashMap<>();
        int n = 10_000;
        for (int k = 0; k < n; k++) {
            batch.put(k, "v" + k);
        }
        m.putAll(batch);
        Set<Integer> keys = m.keySet(Predicates.alwaysTrue());
        assertEquals(batch.keySet(), keys);
        assertEquals(batch.keySet(), m.keySet());
        assertEquals(new HashSet<>(batch.values()), new HashSet<>(m.valuesAsync().get(60, TimeUnit.SECONDS)));
        assertEquals(n, m.entrySet().size());
        assertEquals(new HashSet<>(batch.values()), new HashSet<>(m.valuesAsync(Predicates.like("this", "v%")).get(60, TimeUnit.SECONDS)));
        assertEquals(n - 10, m.entrySetAsync(Predicates.greaterEqual("__key", 10)).get(60, TimeUnit.SECONDS).size());
        Set<String> distinct = m.aggregate(Aggregators.distinct("this"));
        assertEquals(n, distinct.size());
        assertEquals(n, m.project(Projections.singleAttribute("__key")).size());
    }

    /** Pages of a paging predicate come in its order, and moving between pages works both ways. */
    @Test
    void pagingPredicates() throws Exception {
        PagingPredicate pp = Predicates.pagingPredicate(Predicates.greaterThan("intField", 9), 30, SortKey.descending("intField"));
        List<Integer> all = new ArrayList<>();
        for (int page = 0; page < 8; page++) {
            assertEquals(page, pp.getPage());
            all.addAll(large.keySet(pp));
            pp.nextPage();
        }
        assertEquals(N - 10, all.size());
        List<Integer> want = new ArrayList<>();
        for (int k = N - 1; k >= 10; k--) {
            want.add(k);
        }
        assertEquals(want, all);
        pp.setPage(2).previousPage();
        assertEquals(1, pp.getPage());
        List<Integer> page1 = large.values(pp).stream().map(l -> l.intField).toList();
        assertEquals(want.subList(30, 60), page1);
        assertEquals(want.subList(30, 60), large.entrySet(pp).stream().map(Map.Entry::getKey).toList());
        assertEquals(want.subList(30, 60), new ArrayList<>(large.project(Projections.<Integer>singleAttribute("intField"), pp)));
        pp.setPage(0).previousPage();
        assertEquals(0, pp.getPage());
        // Ordered by key when no sort key is given, over every entry without an inner predicate.
        PagingPredicate byKey = Predicates.pagingPredicate(7);
        assertEquals(List.of(0, 1, 2, 3, 4, 5, 6), new ArrayList<>(large.keySet(byKey)));
        assertEquals(List.of(7, 8, 9, 10, 11, 12, 13), new ArrayList<>(large.keySetAsync(byKey.nextPage()).get(60, TimeUnit.SECONDS)));
        PagingPredicate twoKeys = Predicates.pagingPredicate(null, 4, SortKey.ascending("small.intField"), SortKey.descending("intField"));
        assertEquals(List.of(195, 190, 185, 180), new ArrayList<>(large.keySet(twoKeys)));
        assertEquals(List.of(SortKey.ascending("small.intField"), SortKey.descending("intField")), twoKeys.getSortKeys());
        assertEquals(4, twoKeys.getPageSize());
        assertNull(twoKeys.getInner());
        assertEquals("PAGE 0 SIZE 4 ORDER BY small.intField ASC, intField DESC", twoKeys.toString());
        assertEquals("intField > 9 PAGE 1 SIZE 30 ORDER BY intField DESC", pp.setPage(1).toString());
        assertThrows(IllegalArgumentException.class, () -> Predicates.pagingPredicate(0));
        assertThrows(IllegalArgumentException.class, () -> byKey.setPage(-1));
    }

    /** A partition predicate scans one partition: the entries of the key's partition only. */
    @Test
    void partitionPredicate() {
        int pid = client.getPartitionId(42);
        Set<Integer> samePartition = new TreeSet<>();
        for (int k : VALUES.keySet()) {
            if (client.getPartitionId(k) == pid) {
                samePartition.add(k);
            }
        }
        assertTrue(samePartition.contains(42));
        assertEquals(samePartition, sorted(large.keySet(Predicates.partitionPredicate(42, Predicates.alwaysTrue()))));
        assertEquals(Set.of(42), large.keySet(Predicates.partitionPredicate(42, Predicates.equal("intField", 42))));
        // An entry of another partition is not found through 42's partition, though it matches.
        int other = VALUES.keySet().stream().filter(k -> client.getPartitionId(k) != pid).findFirst().orElseThrow();
        assertEquals(Set.of(), large.keySet(Predicates.partitionPredicate(42, Predicates.equal("intField", other))));
        assertEquals(Set.of(other), large.keySet(Predicates.partitionPredicate(other, Predicates.equal("intField", other))));
    }

    @Test
    void indexesAndPlans() {
        AtollMap<Integer, Small> m = client.getMap("indexed");
        Map<Integer, Small> batch = new HashMap<>();
        for (int k = 0; k < 100; k++) {
            batch.put(k, Gen.smallForKey(k));
        }
        m.putAll(batch);
        Predicate p = Predicates.equal("longField", batch.get(17).longField);
        String before = m.explain(p);
        assertTrue(before.contains("Scan[indexed"), before);
        assertFalse(before.contains("IndexScan"), before);
        m.addIndex(IndexType.SORTED, "longField");
        m.addIndex(IndexType.SORTED, "longField"); // again: not an error
        String after = m.explain(p);
        assertTrue(after.contains("IndexScan[indexed, index=indexed_longField SORTED"), after);
        assertEquals(Set.of(17), m.keySet(p));
        m.addIndex(new IndexConfig(IndexType.HASH, "intField").setName("by_int"));
        String hash = m.explain(Predicates.in("intField", batch.get(3).intField, batch.get(4).intField));
        assertTrue(hash.contains("index=by_int HASH"), hash);
        assertEquals(Set.of(3, 4), sorted(m.keySet(Predicates.in("intField", batch.get(3).intField, batch.get(4).intField))));
        // Plans of aggregations and projections.
        String agg = m.explain(Aggregators.longSum("longField"), null);
        assertTrue(agg.contains("SUM(longField)"), agg);
        String proj = m.explain(Projections.singleAttribute("stringField"), Predicates.alwaysTrue());
        assertTrue(proj.contains("stringField"), proj);
        assertTrue(m.explain(null).contains("Scan[indexed"));
        IndexConfig cfg = new IndexConfig().addAttribute("doubleField").setType(IndexType.HASH);
        assertEquals(List.of("doubleField"), cfg.getAttributes());
        assertEquals(IndexType.HASH, cfg.getType());
        assertNull(cfg.getName());
        assertTrue(cfg.toString().contains("doubleField"));
        m.addIndexAsync(cfg).join();
        assertTrue(m.explain(Predicates.equal("doubleField", 0.5)).contains("indexed_doubleField HASH"));
        assertThrows(IllegalArgumentException.class, () -> m.addIndex(IndexType.SORTED, "a", "b"));
        assertThrows(IllegalArgumentException.class, () -> m.addIndex(new IndexConfig()));
    }

    /** The plan of a predicate is the plan of its SQL twin. */
    @Test
    void predicatePlansMatchSql() {
        client.sql().execute("CREATE MAPPING large (__key INT, intField INT, stringField VARCHAR) TYPE IMap "
                + "OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='large')").close();
        assertEquals(client.sql().explain("SELECT SUM(intField) FROM large WHERE intField > ?", 100),
                large.explain(Aggregators.integerSum("intField"), Predicates.greaterThan("intField", 100)));
        try (io.atoll.client.sql.SqlResult r = client.sql().execute("SELECT __key FROM large WHERE intField BETWEEN ? AND ?", 30, 39)) {
            Set<Integer> sqlKeys = new TreeSet<>();
            r.forEach(row -> sqlKeys.add(row.getInt(0)));
            assertEquals(sqlKeys, sorted(large.keySet(Predicates.between("intField", 30, 39))));
        }
    }

    /** Portable and IDS values are queried in place by field name too. */
    @Test
    void portableAndIdentifiedValues() {
        client.registerLayouts(io.atoll.client.serialization.IdentifiedLayout.builder(Ids.FACTORY_ID, Ids.SMALL_ID)
                .writeInt("intField").writeLong("longField").writeDouble("doubleField").writeString("stringField").build());
        AtollMap<Integer, Object> portable = client.getMap("portable");
        AtollMap<Integer, Object> ids = client.getMap("ids");
        for (int k = 0; k < 50; k++) {
            portable.set(k, new Ports.PSmall(Gen.smallForKey(k)));
            ids.set(k, new Ids.IdsSmall(Gen.smallForKey(k)));
        }
        for (AtollMap<Integer, Object> m : List.of(portable, ids)) {
            assertEquals(Set.of(0), m.keySet(Predicates.equal("stringField", "metin")), m.getName());
            long sum = 0;
            for (int k = 0; k < 50; k++) {
                sum += Gen.smallForKey(k).intField;
            }
            assertEquals(sum, m.aggregate(Aggregators.integerSum("intField")), m.getName());
            Object v = m.values(Predicates.equal("__key", 5)).iterator().next();
            String s = v instanceof Ports.PSmall ? ((Ports.PSmall) v).stringField : ((Ids.IdsSmall) v).stringField;
            assertEquals(Gen.smallForKey(5).stringField, s);
        }
    }

    /** Invalid predicates fail on the member with a QueryException naming the problem; misuse fails on the client. */
    @Test
    void badInput() {
        QueryException e = assertThrows(QueryException.class, () -> large.keySet(Predicates.equal("intArray[x]", 1)));
        assertTrue(e.getMessage().contains("bad index in attribute path \"intArray[x]\""), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.values(Predicates.greaterThan("smallArray[", 1)));
        assertTrue(e.getMessage().contains("bad attribute path \"smallArray[\""), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.keySet(Predicates.equal("", 1)));
        assertTrue(e.getMessage().contains("empty attribute"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.project(Projections.singleAttribute(".x")));
        assertTrue(e.getMessage().contains("bad attribute path \".x\""), e.getMessage());
        // Attributes the values' type does not have, values that cannot be converted to the
        // attribute's type, sums of strings and orders of objects fail as their SQL twins do.
        e = assertThrows(QueryException.class, () -> large.keySet(Predicates.equal("noSuchField", 1)));
        assertTrue(e.getMessage().contains("attribute noSuchField does not exist"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.aggregate(Aggregators.count("noSuchField")));
        assertTrue(e.getMessage().contains("attribute noSuchField does not exist"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.keySet(Predicates.equal("intField", "abc")));
        assertTrue(e.getMessage().contains("attribute intField: cannot convert 'abc' (VARCHAR) to INTEGER"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.keySet(Predicates.greaterThan("stringField", 5)));
        assertTrue(e.getMessage().contains("attribute stringField: cannot convert 5 (INTEGER) to VARCHAR"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.aggregate(Aggregators.longSum("stringField")));
        assertTrue(e.getMessage().contains("SUM of stringField: found a value of type VARCHAR"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.aggregate(Aggregators.comparableMin("small")));
        assertTrue(e.getMessage().contains("MIN of small: found a value of type OBJECT; objects cannot be compared"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.keySet(Predicates.sql("intField >")));
        assertEquals(member.address(), e.getMemberAddress());
        e = assertThrows(QueryException.class, () -> large.keySet(Predicates.regex("stringField", "(")));
        assertTrue(e.getMessage().contains("invalid pattern"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.aggregate(Aggregators.count(), Predicates.pagingPredicate(5)));
        assertTrue(e.getMessage().contains("a paging predicate cannot be used with an aggregation"), e.getMessage());
        e = assertThrows(QueryException.class, () -> large.keySet(Predicates.and(Predicates.pagingPredicate(5), Predicates.alwaysTrue())));
        assertTrue(e.getMessage().contains("outermost"), e.getMessage());
        // Asynchronous forms fail their futures with the same exception.
        java.util.concurrent.CompletionException ce = assertThrows(java.util.concurrent.CompletionException.class,
                () -> large.keySetAsync(Predicates.equal("intArray[x]", 1)).join());
        assertTrue(ce.getCause() instanceof QueryException, ce.getCause().toString());
        // Client-side misuse.
        assertThrows(NullPointerException.class, () -> large.keySet(null));
        assertThrows(NullPointerException.class, () -> large.values(null));
        assertThrows(NullPointerException.class, () -> large.entrySet(null));
        assertThrows(NullPointerException.class, () -> large.aggregate(null));
        assertThrows(NullPointerException.class, () -> large.project(null));
        assertThrows(NullPointerException.class, () -> Predicates.equal(null, 1));
        assertThrows(NullPointerException.class, () -> Aggregators.longSum(null));
        Predicate deep = Predicates.alwaysTrue();
        for (int i = 0; i < 150; i++) {
            deep = Predicates.not(deep);
        }
        Predicate tooDeep = deep;
        assertThrows(IllegalArgumentException.class, () -> large.keySet(tooDeep));
        // The member keeps serving.
        assertEquals((long) N, large.aggregate(Aggregators.count()));
    }

    @Test
    void predicatesPrintAndCompare() {
        assertEquals("age >= 30", Predicates.greaterEqual("age", 30).toString());
        assertEquals("name = 'O''Hara'", Predicates.equal("name", "O'Hara").toString());
        assertEquals("x = NULL", Predicates.equal("x", null).toString());
        assertEquals("(a < 1) AND (NOT (b LIKE 'x%'))", Predicates.and(Predicates.lessThan("a", 1), Predicates.not(Predicates.like("b", "x%"))).toString());
        assertEquals("(a > 1) OR (b ILIKE 'X')", Predicates.or(Predicates.greaterThan("a", 1), Predicates.ilike("b", "X")).toString());
        assertEquals("a BETWEEN 1 AND 5", Predicates.between("a", 1, 5).toString());
        assertEquals("a IN (1, 'b', NULL)", Predicates.in("a", 1, "b", null).toString());
        assertEquals("a REGEX 'x.*'", Predicates.regex("a", "x.*").toString());
        assertEquals("a != 2", Predicates.notEqual("a", 2).toString());
        assertEquals("a <= 2", Predicates.lessEqual("a", 2).toString());
        assertEquals("TRUE", Predicates.alwaysTrue().toString());
        assertEquals("FALSE", Predicates.alwaysFalse().toString());
        assertEquals("active AND age > 3", Predicates.sql("active AND age > 3").toString());
        assertEquals("PARTITION OF 'k': TRUE", Predicates.partitionPredicate("k", Predicates.alwaysTrue()).toString());
        assertEquals("PAGE 0 SIZE 3", Predicates.pagingPredicate(3).toString());
        assertEquals(Predicates.equal("a", 1), Predicates.equal("a", 1));
        assertNotEquals(Predicates.equal("a", 1), Predicates.equal("a", 2));
        AndPredicate and = (AndPredicate) Predicates.and(Predicates.equal("a", 1));
        assertEquals(1, and.operands().size());
        ComparisonPredicate c = (ComparisonPredicate) Predicates.greaterThan("a", 1);
        assertEquals(ComparisonPredicate.Op.GREATER, c.op());
        assertEquals(">", c.op().symbol());
        Aggregator<Long> sum = Aggregators.longSum("v");
        assertEquals(Aggregator.Kind.LONG_SUM, sum.getKind());
        assertEquals("v", sum.getAttribute());
        assertEquals("LONG_SUM(v)", sum.toString());
        assertEquals("COUNT(*)", Aggregators.count().toString());
        assertEquals(sum, Aggregators.longSum("v"));
        assertEquals(sum.hashCode(), Aggregators.longSum("v").hashCode());
        assertNotEquals(sum, Aggregators.integerSum("v"));
        assertEquals(SortKey.ascending("a"), new SortKey("a", false));
        Function<Object, String> f = Object::toString;
        assertEquals("a DESC", f.apply(SortKey.descending("a")));
        assertEquals(List.of(1, 2), new ArrayList<>(new LinkedHashSet<>(List.of(1, 2))));
    }
}
