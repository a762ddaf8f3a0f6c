package io.atoll.client;

import io.atoll.client.proto.FetchRequest;
import io.atoll.client.proto.QueryCall;
import io.atoll.client.serialization.JsonValue;
import io.atoll.client.serialization.bench.Small;
import io.atoll.client.sql.SqlColumnMetadata;
import io.atoll.client.sql.SqlColumnType;
import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlRow;
import io.atoll.client.sql.SqlRowMetadata;
import io.atoll.client.sql.SqlService;
import io.atoll.client.sql.SqlStatement;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;

import java.math.BigDecimal;
import java.time.Duration;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.Iterator;
import java.util.List;
import java.util.Map;
import java.util.NoSuchElementException;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;

import static org.junit.jupiter.api.Assertions.assertArrayEquals;
import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

/** The SQL service against a real member: statements, parameters, types, lazy paging, cancellation, errors. */
class SqlTest {
    static final int N = 500;
    static GoMember member;
    static AtollClient client;
    static SqlService sql;

    static Small person(int k) {
        Small s = new Small();
        s.intField = k;
        s.longField = k * 1000L;
        s.doubleField = k / 4.0;
        s.stringField = k % 100 == 0 ? "metin" : "p" + k;
        return s;
    }

    @BeforeAll
    static void start() {
        member = GoMember.start("sql");
        client = AtollClient.newClient(member.clientConfig().setSerializationConfig(TestModel.serialization()));
        sql = client.sql();
        AtollMap<Integer, Small> people = client.getMap("people");
        Map<Integer, Small> batch = new HashMap<>();
        for (int k = 0; k < N; k++) {
            batch.put(k, person(k));
        }
        people.putAll(batch);
        try (SqlResult r = sql.execute("CREATE MAPPING people (__key INT, intField INT, longField BIGINT, doubleField DOUBLE, "
                + "stringField VARCHAR) TYPE IMap OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='small')")) {
            assertFalse(r.isRowSet());
            assertEquals(0, r.updateCount());
        }
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
    void selectWithParameters() {
        try (SqlResult r = sql.execute("SELECT __key, stringField, longField FROM people WHERE intField >= ? AND intField < ? ORDER BY __key", 10, 13)) {
            assertTrue(r.isRowSet());
            assertEquals(-1, r.updateCount());
            SqlRowMetadata md = r.getRowMetadata();
            assertEquals(3, md.getColumnCount());
            assertEquals(List.of("__key", "stringField", "longField"), md.getColumns().stream().map(SqlColumnMetadata::getName).toList());
            assertEquals(SqlColumnType.INTEGER, md.getColumn(0).getType());
            assertEquals(SqlColumnType.VARCHAR, md.getColumn(1).getType());
            assertEquals(SqlColumnType.BIGINT, md.getColumn(2).getType());
            assertEquals(1, md.findColumn("stringField"));
            assertEquals(SqlRowMetadata.COLUMN_NOT_FOUND, md.findColumn("nope"));
            List<String> got = new ArrayList<>();
            for (SqlRow row : r) {
                assertEquals(md, row.getMetadata());
                got.add(row.getInt(0) + "|" + row.getString("stringField") + "|" + row.getLong("longField") + "|" + row.<Integer>getObject("__key"));
            }
            assertEquals(List.of("10|p10|10000|10", "11|p11|11000|11", "12|p12|12000|12"), got);
        }
    }

    @Test
    void aggregatesAndExpressions() {
        try (SqlResult r = sql.execute("SELECT COUNT(*) AS n, SUM(longField) AS s, AVG(doubleField) AS a, MAX(stringField) FROM people")) {
            SqlRow row = r.iterator().next();
            assertEquals(N, row.getLong("n"));
            assertEquals(1000L * N * (N - 1) / 2, row.getLong(1));
            assertEquals((N - 1) / 8.0, row.getDouble("a"), 1e-9);
            assertEquals("p99", row.getString(3));
        }
        try (SqlResult r = sql.execute("SELECT stringField, COUNT(*) FROM people WHERE stringField = ? GROUP BY stringField", "metin")) {
            SqlRow row = r.iterator().next();
            assertEquals("metin", row.getString(0));
            assertEquals(N / 100, row.getLong(1));
        }
    }

    /** Every parameter type travels to the member and back, and each typed getter reads its column. */
    @Test
    void typesRoundTrip() {
        LocalDate date = LocalDate.of(2024, 2, 29);
        LocalTime time = LocalTime.of(13, 45, 7, 123_456_000);
        LocalDateTime ts = LocalDateTime.of(1969, 7, 20, 20, 17, 40, 999_999_000);
        OffsetDateTime tstz = OffsetDateTime.of(2030, 1, 2, 3, 4, 5, 6_000, ZoneOffset.UTC);
        SqlStatement s = new SqlStatement("SELECT CAST(? AS BOOLEAN) AS b, CAST(? AS TINYINT) AS t, CAST(? AS SMALLINT) AS sm, "
                + "CAST(? AS INTEGER) AS i, CAST(? AS BIGINT) AS l, CAST(? AS REAL) AS r, CAST(? AS DOUBLE) AS d, "
                + "CAST(? AS DECIMAL) AS dec, CAST(? AS VARCHAR) AS v, CAST(? AS DATE) AS dt, CAST(? AS TIME) AS tm, "
                + "CAST(? AS TIMESTAMP) AS ts, CAST(? AS TIMESTAMP WITH TIME ZONE) AS tz, ? AS n")
                .setParameters(java.util.Arrays.asList(true, (byte) -7, (short) 300, 70_000, 5_000_000_000L, 1.5f, -2.25, new BigDecimal("12.5"),
                        "välue ✓", date, time, ts, tstz, null));
        try (SqlResult r = sql.execute(s)) {
            SqlRowMetadata md = r.getRowMetadata();
            assertEquals(SqlColumnType.BOOLEAN, md.getColumn(0).getType());
            assertEquals(SqlColumnType.TINYINT, md.getColumn(1).getType());
            assertEquals(SqlColumnType.SMALLINT, md.getColumn(2).getType());
            assertEquals(SqlColumnType.INTEGER, md.getColumn(3).getType());
            assertEquals(SqlColumnType.BIGINT, md.getColumn(4).getType());
            assertEquals(SqlColumnType.REAL, md.getColumn(5).getType());
            assertEquals(SqlColumnType.DOUBLE, md.getColumn(6).getType());
            assertEquals(SqlColumnType.DECIMAL, md.getColumn(7).getType());
            assertEquals(SqlColumnType.VARCHAR, md.getColumn(8).getType());
            assertEquals(SqlColumnType.DATE, md.getColumn(9).getType());
            assertEquals(SqlColumnType.TIME, md.getColumn(10).getType());
            assertEquals(SqlColumnType.TIMESTAMP, md.getColumn(11).getType());
            assertEquals(SqlColumnType.TIMESTAMP_WITH_TIME_ZONE, md.getColumn(12).getType());
            SqlRow row = r.iterator().next();
            assertEquals(true, row.getBoolean("b"));
            assertEquals((byte) -7, row.getByte("t"));
            assertEquals((short) 300, row.getShort("sm"));
            assertEquals(70_000, row.getInt("i"));
            assertEquals(5_000_000_000L, row.getLong("l"));
            assertEquals(1.5f, row.getFloat("r"));
            assertEquals(-2.25, row.getDouble("d"));
            assertEquals(0, new BigDecimal("12.5").compareTo(row.getDecimal("dec")));
            assertEquals("välue ✓", row.getString("v"));
            assertEquals(date, row.getDate("dt"));
            assertEquals(time, row.getTime("tm"));
            assertEquals(ts, row.getTimestamp("ts"));
            assertEquals(tstz, row.getTimestampWithTimeZone("tz"));
            assertNull(row.getObject("n"));
            // Each value's class is its column type's value class.
            for (int i = 0; i < 13; i++) {
                assertEquals(md.getColumn(i).getType().getValueClass(), row.getObject(i).getClass(), md.getColumn(i).getName());
            }
            // Getters by index, widening conversions, and nulls.
            assertEquals(true, row.getBoolean(0));
            assertEquals((byte) -7, row.getByte(1));
            assertEquals((short) -7, row.getShort(1));
            assertEquals(300, row.getInt(2));
            assertEquals(70_000L, row.getLong(3));
            assertEquals(1.5f, row.getFloat(5));
            assertEquals(5e9, row.getDouble(4));
            assertEquals(1.5, row.getDouble(5));
            assertEquals(new BigDecimal(5_000_000_000L), row.getDecimal(4));
            assertEquals(new BigDecimal("1.5"), row.getDecimal(5));
            assertEquals(new BigDecimal("-2.25"), row.getDecimal(6));
            assertEquals(date, row.getDate(9));
            assertEquals(time, row.getTime(10));
            assertEquals(ts, row.getTimestamp(11));
            assertEquals(tstz, row.getTimestampWithTimeZone(12));
            assertNull(row.getBoolean(13));
            assertNull(row.getByte(13));
            assertNull(row.getShort(13));
            assertNull(row.getInt(13));
            assertNull(row.getLong(13));
            assertNull(row.getFloat(13));
            assertNull(row.getDouble(13));
            assertNull(row.getDecimal(13));
            assertNull(row.getString(13));
            assertNull(row.getDate(13));
            assertNull(row.getTime(13));
            assertNull(row.getTimestamp(13));
            assertNull(row.getTimestampWithTimeZone(13));
            // Mismatches name the column; unknown names and indexes are refused.
            ClassCastException e = assertThrows(ClassCastException.class, () -> row.getInt("v"));
            assertTrue(e.getMessage().contains("column v"), e.getMessage());
            assertThrows(ClassCastException.class, () -> row.getInt("l"));
            assertThrows(ClassCastException.class, () -> row.getString("i"));
            assertThrows(ClassCastException.class, () -> row.getBoolean("i"));
            assertThrows(ClassCastException.class, () -> row.getDate("ts"));
            assertThrows(ClassCastException.class, () -> row.getFloat("d"));
            IllegalArgumentException unknown = assertThrows(IllegalArgumentException.class, () -> row.getObject("nope"));
            assertTrue(unknown.getMessage().contains("nope"));
            assertThrows(IndexOutOfBoundsException.class, () -> row.getObject(14));
        }
    }

    @Test
    void objectsAndJson() {
        try (SqlResult r = sql.execute("SELECT __key, this FROM people WHERE __key = ?", 7)) {
            SqlRowMetadata md = r.getRowMetadata();
            assertEquals(SqlColumnType.OBJECT, md.getColumn(1).getType());
            SqlRow row = r.iterator().next();
            Small s = row.getObject("this");
            assertEquals("p7", s.stringField);
            assertEquals(7000L, s.longField);
            assertTrue(row.toString().contains("7"));
        }
        AtollMap<String, JsonValue> docs = client.getMap("docs");
        docs.set("a", new JsonValue("{\"title\":\"Notes\",\"pages\":12}"));
        sql.execute("CREATE MAPPING docs TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='json')").close();
        try (SqlResult r = sql.execute("SELECT JSON_QUERY(this, '$.title') AS t, JSON_VALUE(this, '$.pages' RETURNING BIGINT) AS p, this FROM docs")) {
            assertEquals(SqlColumnType.JSON, r.getRowMetadata().getColumn(0).getType());
            SqlRow row = r.iterator().next();
            assertEquals(new JsonValue("\"Notes\""), row.getObject("t"));
            assertEquals("\"Notes\"", row.getString("t"));
            assertEquals(12L, row.getLong("p"));
            assertEquals(new JsonValue("{\"title\":\"Notes\",\"pages\":12}"), row.getObject("this"));
        }
    }

    @Test
    void dmlAndDdlReturnUpdateCounts() {
        sql.execute("CREATE MAPPING counters (__key VARCHAR, n BIGINT) TYPE IMap OPTIONS ('keyFormat'='varchar', 'valueFormat'='json-flat')").close();
        try (SqlResult r = sql.execute("INSERT INTO counters VALUES ('a', 1), ('b', 2), ('c', 3)")) {
            assertFalse(r.isRowSet());
            assertEquals(3, r.updateCount());
            assertThrows(IllegalStateException.class, r::getRowMetadata);
            assertThrows(IllegalStateException.class, r::iterator);
        }
        assertEquals(2, sql.execute("UPDATE counters SET n = n * 10 WHERE n > ?", 1L).updateCount());
        assertEquals(1, sql.execute("DELETE FROM counters WHERE __key = ?", "a").updateCount());
        List<String> rows = new ArrayList<>();
        try (SqlResult r = sql.execute("SELECT __key, n FROM counters ORDER BY __key")) {
            r.forEach(row -> rows.add(row.getString(0) + "=" + row.getLong(1)));
        }
        assertEquals(List.of("b=20", "c=30"), rows);
        try (SqlResult r = sql.execute("SHOW MAPPINGS")) {
            Set<String> names = new HashSet<>();
            r.forEach(row -> names.add(row.getString(0)));
            assertTrue(names.containsAll(Set.of("people", "counters")), names.toString());
        }
        sql.execute("DROP MAPPING counters").close();
        assertThrows(QueryException.class, () -> sql.execute("SELECT * FROM counters"));
    }

    /** Rows come in pages of the cursor buffer size, fetched only when the iteration reaches them. */
    @Test
    void pagesAreFetchedLazily() {
        SqlStatement s = new SqlStatement("SELECT __key FROM people").setCursorBufferSize(7);
        assertEquals(7, s.getCursorBufferSize());
        try (SqlResult r = sql.execute(s)) {
            QueryCursor c = ((ClientSqlResult) r).cursor();
            assertTrue(c.hasMorePages());
            Iterator<SqlRow> it = r.iterator();
            Set<Integer> keys = new HashSet<>();
            for (int i = 0; i < 7; i++) {
                keys.add(it.next().getInt(0));
            }
            long first = c.cursorId();
            assertTrue(first != 0);
            assertFalse(c.hasBufferedRow(), "the first page holds 7 rows");
            keys.add(it.next().getInt(0)); // fetches the second page
            assertTrue(c.hasBufferedRow());
            while (it.hasNext()) {
                keys.add(it.next().getInt(0));
            }
            assertEquals(N, keys.size());
            assertEquals(0, c.cursorId(), "the member released the cursor after the last page");
            assertFalse(it.hasNext());
            assertThrows(NoSuchElementException.class, it::next);
            assertThrows(IllegalStateException.class, r::iterator);
        }
    }

    /** Closing a result mid-way releases the cursor on the member: fetching it then fails with NOT_FOUND. */
    @Test
    void closeCancelsTheQueryOnTheMember() throws Exception {
        SqlResult r = sql.execute(new SqlStatement("SELECT __key, this FROM people").setCursorBufferSize(10));
        QueryCursor c = ((ClientSqlResult) r).cursor();
        Iterator<SqlRow> it = r.iterator();
        for (int i = 0; i < 15; i++) {
            it.next();
        }
        long id = c.cursorId();
        assertTrue(id != 0);
        QueryStream qs = AtollClient.await(client.anyConnection()).queryStream();
        // The cursor is live before close ...
        assertEquals(10, qs.call(QueryCall.newBuilder().setFetch(FetchRequest.newBuilder().setCursorId(id)),
                System.nanoTime() + TimeUnit.SECONDS.toNanos(30)).get().getPage().getCount());
        r.close();
        assertFalse(it.hasNext());
        r.close(); // twice is fine
        // ... and gone after.
        CompletableFuture<?> after = qs.call(QueryCall.newBuilder().setFetch(FetchRequest.newBuilder().setCursorId(id)),
                System.nanoTime() + TimeUnit.SECONDS.toNanos(30));
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class, after::get);
        assertTrue(e.getCause() instanceof NotFoundException, e.getCause().toString());
    }

    @Test
    void syntaxErrorsAreQueryExceptionsWithPositions() {
        QueryException e = assertThrows(QueryException.class, () -> sql.execute("SELEC * FROM people"));
        assertEquals(1, e.getLine());
        assertEquals(1, e.getColumn());
        assertTrue(e.getMessage().contains("syntax error near 'SELEC'"), e.getMessage());
        assertEquals(member.address(), e.getMemberAddress());
        assertFalse(e.isRetryable());

        e = assertThrows(QueryException.class, () -> sql.execute("SELECT intField,\n  nope FROM people"));
        assertEquals(2, e.getLine());
        assertEquals(3, e.getColumn());
        assertTrue(e.getMessage().contains("column nope does not exist"), e.getMessage());

        e = assertThrows(QueryException.class, () -> sql.execute("SELECT * FROM nothing"));
        assertTrue(e.getMessage().contains("mapping nothing does not exist"), e.getMessage());

        e = assertThrows(QueryException.class, () -> sql.execute("SELECT * FROM people WHERE intField = 'x'"));
        assertTrue(e.getMessage().contains("cannot apply '=' to INTEGER and VARCHAR"), e.getMessage());
        e = assertThrows(QueryException.class, () -> sql.execute("SELECT * FROM people WHERE intField = ?", "x"));
        assertTrue(e.getMessage().contains("parameter 1: cannot convert 'x' to INTEGER"), e.getMessage());

        // A run-time error while producing rows is a query error too.
        e = assertThrows(QueryException.class, () -> {
            try (SqlResult r = sql.execute("SELECT 10 / (intField - 3) FROM people")) {
                r.forEach(row -> row.getObject(0));
            }
        });
        assertTrue(e.getMessage().contains("division by zero"), e.getMessage());
        // The member keeps serving.
        try (SqlResult r = sql.execute("SELECT COUNT(*) FROM people")) {
            assertEquals(N, r.iterator().next().getLong(0));
        }
    }

    @Test
    void asyncExecuteAndExplain() throws Exception {
        CompletableFuture<SqlResult> f = sql.executeAsync(new SqlStatement("SELECT COUNT(*) FROM people WHERE intField < ?").addParameter(100));
        try (SqlResult r = f.get(60, TimeUnit.SECONDS)) {
            assertEquals(100, r.iterator().next().getLong(0));
        }
        CompletableFuture<SqlResult> bad = sql.executeAsync(new SqlStatement("SELECT FROM"));
        java.util.concurrent.ExecutionException e = assertThrows(java.util.concurrent.ExecutionException.class, () -> bad.get(60, TimeUnit.SECONDS));
        assertTrue(e.getCause() instanceof QueryException, e.getCause().toString());

        String plan = sql.explain("SELECT stringField FROM people WHERE intField = ?", 5);
        assertTrue(plan.contains("people"), plan);
        assertTrue(plan.lines().count() >= 2, plan);
    }

    @Test
    void statementOptions() {
        SqlStatement s = new SqlStatement("SELECT 1").addParameter(1).clearParameters().setTimeout(Duration.ofSeconds(30));
        assertEquals(Duration.ofSeconds(30), s.getTimeout());
        assertEquals(List.of(), s.getParameters());
        SqlStatement copy = s.copy().setSql("SELECT ?").addParameter(2);
        assertEquals("SELECT 1", s.getSql());
        assertEquals(List.of(2), copy.getParameters());
        assertEquals(Duration.ofSeconds(30), copy.getTimeout());
        try (SqlResult r = sql.execute(copy)) {
            assertEquals(2, r.iterator().next().getInt(0));
        }
        assertThrows(IllegalArgumentException.class, () -> s.setCursorBufferSize(-1));
        assertThrows(IllegalArgumentException.class, () -> s.setTimeout(Duration.ofSeconds(-1)));
        assertThrows(NullPointerException.class, () -> new SqlStatement(null));
        assertTrue(s.toString().contains("SELECT 1"));
        // An object parameter is serialized and compared as an object.
        try (SqlResult r = sql.execute("SELECT COUNT(*) FROM people WHERE this = ?", person(3))) {
            assertEquals(1, r.iterator().next().getLong(0));
        }
    }

    /** The statement's timeout bounds the query from its start to its last page: later fetches fail. */
    @Test
    void queryTimeoutStopsTheQuery() {
        SqlStatement s = new SqlStatement("SELECT __key FROM people").setCursorBufferSize(10).setTimeout(Duration.ofMillis(300));
        try (SqlResult r = sql.execute(s)) {
            Iterator<SqlRow> it = r.iterator();
            for (int i = 0; i < 10; i++) {
                it.next();
            }
            long started = System.nanoTime();
            Await.until("the query's timeout to pass", () -> System.nanoTime() - started > TimeUnit.SECONDS.toNanos(1));
            // Pages made before the deadline may still come — the one the client fetches ahead
            // while a page is read, and the one the member produces ahead — and then the query stops.
            int[] read = {10};
            AtollException e = assertThrows(AtollException.class, () -> {
                while (it.hasNext()) {
                    it.next();
                    read[0]++;
                }
            });
            assertTrue(e instanceof OperationTimeoutException, e.toString());
            assertTrue(read[0] <= 30, read[0] + " rows read, though the query timed out after the first page");
            assertFalse(it.hasNext());
        }
    }

    @Test
    void closedClientRefusesStatements() {
        AtollClient other = AtollClient.newClient(member.clientConfig());
        SqlService s = other.sql();
        other.close();
        assertThrows(ClientNotActiveException.class, () -> s.execute("SELECT 1"));
        assertThrows(ClientNotActiveException.class, other::sql);
    }

    @Test
    void metadataValueObjects() {
        SqlColumnMetadata a = new SqlColumnMetadata("a", SqlColumnType.INTEGER, true);
        assertEquals(a, new SqlColumnMetadata("a", SqlColumnType.INTEGER, true));
        assertEquals(a.hashCode(), new SqlColumnMetadata("a", SqlColumnType.INTEGER, true).hashCode());
        assertFalse(a.equals(new SqlColumnMetadata("a", SqlColumnType.BIGINT, true)));
        assertTrue(a.isNullable());
        assertEquals("a INTEGER", a.toString());
        SqlRowMetadata md = new SqlRowMetadata(List.of(a, new SqlColumnMetadata("a", SqlColumnType.VARCHAR, false)));
        assertEquals(0, md.findColumn("a"), "the first column of a name wins");
        assertEquals(md, new SqlRowMetadata(md.getColumns()));
        assertEquals(md.hashCode(), new SqlRowMetadata(md.getColumns()).hashCode());
        assertTrue(md.toString().contains("VARCHAR"));
        assertArrayEquals(new Object[]{String.class, Object.class}, new Object[]{SqlColumnType.VARCHAR.getValueClass(), SqlColumnType.UNKNOWN.getValueClass()});
    }
}
