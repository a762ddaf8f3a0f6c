package io.atoll.client;

import io.atoll.client.proto.ExecuteRequest;
import io.atoll.client.sql.SqlResult;
import io.atoll.client.sql.SqlService;
import io.atoll.client.sql.SqlStatement;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;
import java.util.concurrent.CompletableFuture;

/** The client's {@link SqlService}: statements through {@link Queries} to a coordinating member. */
final class ClientSqlService implements SqlService {
    private final AtollClient client;

    ClientSqlService(AtollClient client) {
        this.client = client;
    }

    @Override
    public SqlResult execute(String sql, Object... parameters) {
        return AtollClient.await(executeAsync(new SqlStatement(sql).setParameters(params(parameters))));
    }

    @Override
    public SqlResult execute(SqlStatement statement) {
        return AtollClient.await(executeAsync(statement));
    }

    @Override
    public CompletableFuture<SqlResult> executeAsync(SqlStatement statement) {
        return run(statement, false).thenApply(c -> new ClientSqlResult(c));
    }

    @Override
    public String explain(String sql, Object... parameters) {
        QueryCursor c = AtollClient.await(run(new SqlStatement(sql).setParameters(params(parameters)), true));
        return planText(c);
    }

    private static List<Object> params(Object[] parameters) {
        // execute("... ?", (Object[]) null) means one NULL parameter, as varargs would pass it.
        return parameters == null ? Arrays.asList((Object) null) : Arrays.asList(parameters);
    }

    private CompletableFuture<QueryCursor> run(SqlStatement statement, boolean explain) {
        Objects.requireNonNull(statement, "statement");
        try {
            RequestChecks.text("the SQL text", statement.getSql());
        } catch (InvalidArgumentException e) {
            return CompletableFuture.failedFuture(e);
        }
        client.checkOpen();
        ExecuteRequest.Builder req = ExecuteRequest.newBuilder().setSql(statement.getSql())
                .setPageSize(statement.getCursorBufferSize()).setExplain(explain);
        if (!statement.getTimeout().isZero()) {
            req.setTimeoutMs(Math.max(1, ClientMap.toMs(statement.getTimeout())));
        }
        try {
            for (Object p : statement.getParameters()) {
                req.addParams(QueryCodec.value(p, client.serialization));
            }
        } catch (RuntimeException e) {
            return CompletableFuture.failedFuture(e);
        }
        return Queries.execute(client, req);
    }

    /** The plan rows of an EXPLAIN, one line each. */
    static String planText(QueryCursor c) {
        StringBuilder b = new StringBuilder();
        try {
            Object[] row;
            while ((row = c.next()) != null) {
                if (b.length() > 0) {
                    b.append('\n');
                }
                b.append(row.length > 0 ? row[0] : "");
            }
        } finally {
            c.close();
        }
        return b.toString();
    }
}
