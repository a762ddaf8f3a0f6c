package io.atoll.client.sql;

import java.util.concurrent.CompletableFuture;

/**
 * Runs SQL statements (Hazelcast's dialect) on the cluster: {@code AtollClient.sql()}.
 *
 * <pre>{@code
 * SqlService sql = client.sql();
 * sql.execute("CREATE MAPPING people (__key INT, name VARCHAR, age INT) TYPE IMap "
 *         + "OPTIONS ('keyFormat'='int', 'valueFormat'='compact', 'valueCompactTypeName'='person')").close();
 * try (SqlResult r = sql.execute("SELECT name FROM people WHERE age > ? ORDER BY age", 40)) {
 *     for (SqlRow row : r) {
 *         System.out.println(row.getString(0));
 *     }
 * }
 * }</pre>
 *
 * <p>A statement goes to one member, which plans it, runs it on every member that owns
 * partitions of the map and pages the merged result back. Parameters ({@code ?}) take the
 * same Java values as predicates (see {@code Predicates}); other objects are serialized.
 * Errors in the statement are {@code QueryException}s carrying the line and column of the
 * problem; the call is retried (within the invocation timeout) only when it never reached a
 * member or the member asked for it.
 */
public interface SqlService {
    /** Runs a statement with the given {@code ?} parameters. */
    SqlResult execute(String sql, Object... parameters);

    /** Runs a statement. */
    SqlResult execute(SqlStatement statement);

    /** Runs a statement; the future completes with the first page read. */
    CompletableFuture<SqlResult> executeAsync(SqlStatement statement);

    /** The plan of a statement, one line per operator, without running it. */
    String explain(String sql, Object... parameters);
}
