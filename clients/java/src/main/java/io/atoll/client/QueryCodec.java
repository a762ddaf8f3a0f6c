package io.atoll.client;

import io.atoll.client.proto.AggregatorKind;
import io.atoll.client.proto.CompareOp;
import io.atoll.client.proto.Comparison;
import io.atoll.client.proto.InList;
import io.atoll.client.proto.Match;
import io.atoll.client.proto.MatchKind;
import io.atoll.client.proto.Operands;
import io.atoll.client.proto.QueryValue;
import io.atoll.client.proto.SqlType;
import io.atoll.client.query.Aggregator;
import io.atoll.client.query.AndPredicate;
import io.atoll.client.query.BetweenPredicate;
import io.atoll.client.query.ComparisonPredicate;
import io.atoll.client.query.ConstantPredicate;
import io.atoll.client.query.InPredicate;
import io.atoll.client.query.MatchPredicate;
import io.atoll.client.query.NotPredicate;
import io.atoll.client.query.OrPredicate;
import io.atoll.client.query.PagingPredicate;
import io.atoll.client.query.PartitionPredicate;
import io.atoll.client.query.Predicate;
import io.atoll.client.query.SortKey;
import io.atoll.client.query.SqlPredicate;
import io.atoll.client.serialization.Data;
import io.atoll.client.serialization.SerializationService;

import java.math.BigDecimal;
import java.math.BigInteger;
import java.time.Instant;
import java.time.LocalDate;
import java.time.LocalDateTime;
import java.time.LocalTime;
import java.time.OffsetDateTime;
import java.time.ZoneOffset;
import java.time.ZonedDateTime;

/**
 * Java values and predicates to the protocol's messages (the Go SDK's pkg/predicate codec):
 * scalars become typed {@link QueryValue}s, other objects serialized Data.
 */
final class QueryCodec {
    /** The nesting limit of predicates (and, or, not, paging), as the members check it. */
    static final int MAX_DEPTH = 100;

    private QueryCodec() {
    }

    /** The protocol value of a Java value; objects that are not SQL scalars are serialized. */
    static QueryValue value(Object v, SerializationService ss) {
        QueryValue.Builder q = QueryValue.newBuilder();
        if (v == null) {
            return q.setType(SqlType.SQL_TYPE_NULL).setNull(true).build();
        } else if (v instanceof Boolean) {
            return q.setType(SqlType.SQL_TYPE_BOOLEAN).setI((Boolean) v ? 1 : 0).build();
        } else if (v instanceof Byte) {
            return q.setType(SqlType.SQL_TYPE_TINYINT).setI((Byte) v).build();
        } else if (v instanceof Short) {
            return q.setType(SqlType.SQL_TYPE_SMALLINT).setI((Short) v).build();
        } else if (v instanceof Integer) {
            return q.setType(SqlType.SQL_TYPE_INTEGER).setI((Integer) v).build();
        } else if (v instanceof Long) {
            return q.setType(SqlType.SQL_TYPE_BIGINT).setI((Long) v).build();
        } else if (v instanceof Float) {
            return q.setType(SqlType.SQL_TYPE_REAL).setF((Float) v).build();
        } else if (v instanceof Double) {
            return q.setType(SqlType.SQL_TYPE_DOUBLE).setF((Double) v).build();
        } else if (v instanceof String) {
            return q.setType(SqlType.SQL_TYPE_VARCHAR).setS((String) v).build();
        } else if (v instanceof Character) {
            return q.setType(SqlType.SQL_TYPE_VARCHAR).setS(v.toString()).build();
        } else if (v instanceof BigDecimal) {
            return q.setType(SqlType.SQL_TYPE_DECIMAL).setS(((BigDecimal) v).toString()).build();
        } else if (v instanceof BigInteger) {
            return q.setType(SqlType.SQL_TYPE_DECIMAL).setS(v.toString()).build();
        } else if (v instanceof LocalDate) {
            return q.setType(SqlType.SQL_TYPE_DATE).setI(((LocalDate) v).toEpochDay()).build();
        } else if (v instanceof LocalTime) {
            return q.setType(SqlType.SQL_TYPE_TIME).setI(((LocalTime) v).toNanoOfDay()).build();
        } else if (v instanceof LocalDateTime) {
            return q.setType(SqlType.SQL_TYPE_TIMESTAMP).setI(micros(((LocalDateTime) v).toInstant(ZoneOffset.UTC))).build();
        } else if (v instanceof OffsetDateTime) {
            return q.setType(SqlType.SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE).setI(micros(((OffsetDateTime) v).toInstant())).build();
        } else if (v instanceof ZonedDateTime) {
            return q.setType(SqlType.SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE).setI(micros(((ZonedDateTime) v).toInstant())).build();
        } else if (v instanceof Instant) {
            return q.setType(SqlType.SQL_TYPE_TIMESTAMP_WITH_TIME_ZONE).setI(micros((Instant) v)).build();
        }
        Data d = v instanceof Data ? (Data) v : ss.toData(v);
        return q.setType(SqlType.SQL_TYPE_OBJECT).setData(ClientMap.bytes(d)).build();
    }

    /** Microseconds since the epoch, truncated toward the past as Go's UnixMicro does. */
    static long micros(Instant t) {
        return Math.addExact(Math.multiplyExact(t.getEpochSecond(), 1_000_000L), t.getNano() / 1000);
    }

    /** The protocol tree of a predicate, validating what the members would refuse anyway. */
    static io.atoll.client.proto.Predicate predicate(Predicate p, SerializationService ss) {
        return predicate(p, ss, 0);
    }

    private static io.atoll.client.proto.Predicate predicate(Predicate p, SerializationService ss, int depth) {
        if (p == null) {
            throw new NullPointerException("predicate must not be null");
        }
        if (depth > MAX_DEPTH) {
            throw new IllegalArgumentException("predicate nests deeper than " + MAX_DEPTH);
        }
        io.atoll.client.proto.Predicate.Builder b = io.atoll.client.proto.Predicate.newBuilder();
        if (p instanceof ComparisonPredicate) {
            ComparisonPredicate c = (ComparisonPredicate) p;
            return b.setCompare(Comparison.newBuilder().setAttribute(c.attribute()).setOp(op(c.op())).setValue(value(c.value(), ss))).build();
        } else if (p instanceof BetweenPredicate) {
            BetweenPredicate x = (BetweenPredicate) p;
            return b.setBetween(io.atoll.client.proto.Between.newBuilder().setAttribute(x.attribute())
                    .setFrom(value(x.from(), ss)).setTo(value(x.to(), ss))).build();
        } else if (p instanceof InPredicate) {
            InPredicate x = (InPredicate) p;
            InList.Builder in = InList.newBuilder().setAttribute(x.attribute());
            for (Object v : x.values()) {
                in.addValues(value(v, ss));
            }
            return b.setIn(in).build();
        } else if (p instanceof MatchPredicate) {
            MatchPredicate x = (MatchPredicate) p;
            MatchKind k = x.kind() == MatchPredicate.Kind.LIKE ? MatchKind.MATCH_KIND_LIKE
                    : x.kind() == MatchPredicate.Kind.ILIKE ? MatchKind.MATCH_KIND_ILIKE : MatchKind.MATCH_KIND_REGEX;
            return b.setMatch(Match.newBuilder().setAttribute(x.attribute()).setKind(k).setPattern(x.pattern())).build();
        } else if (p instanceof AndPredicate) {
            return b.setAnd(operands(((AndPredicate) p).operands(), ss, depth)).build();
        } else if (p instanceof OrPredicate) {
            return b.setOr(operands(((OrPredicate) p).operands(), ss, depth)).build();
        } else if (p instanceof NotPredicate) {
            return b.setNot(predicate(((NotPredicate) p).operand(), ss, depth + 1)).build();
        } else if (p instanceof ConstantPredicate) {
            return b.setConstant(((ConstantPredicate) p).value()).build();
        } else if (p instanceof SqlPredicate) {
            return b.setSql(((SqlPredicate) p).text()).build();
        } else if (p instanceof PagingPredicate) {
            PagingPredicate x = (PagingPredicate) p;
            io.atoll.client.proto.PagingPredicate.Builder pp = io.atoll.client.proto.PagingPredicate.newBuilder()
                    .setPageSize(x.getPageSize()).setPage(x.getPage());
            if (x.getInner() != null) {
                pp.setInner(predicate(x.getInner(), ss, depth + 1));
            }
            for (SortKey s : x.getSortKeys()) {
                pp.addSort(io.atoll.client.proto.SortKey.newBuilder().setAttribute(s.attribute()).setDescending(s.descending()));
            }
            return b.setPaging(pp).build();
        } else if (p instanceof PartitionPredicate) {
            PartitionPredicate x = (PartitionPredicate) p;
            Object key = x.partitionKey();
            Data d = key instanceof Data ? (Data) key : ss.toData(key);
            return b.setPartition(io.atoll.client.proto.PartitionPredicate.newBuilder().setPartitionKey(ClientMap.bytes(d))
                    .setInner(predicate(x.target(), ss, depth + 1))).build();
        }
        throw new IllegalArgumentException("unknown predicate " + p.getClass().getName());
    }

    private static Operands.Builder operands(java.util.List<Predicate> ps, SerializationService ss, int depth) {
        Operands.Builder o = Operands.newBuilder();
        for (Predicate x : ps) {
            o.addOperands(predicate(x, ss, depth + 1));
        }
        return o;
    }

    private static CompareOp op(ComparisonPredicate.Op op) {
        switch (op) {
            case EQUAL:
                return CompareOp.COMPARE_OP_EQUAL;
            case NOT_EQUAL:
                return CompareOp.COMPARE_OP_NOT_EQUAL;
            case GREATER:
                return CompareOp.COMPARE_OP_GREATER;
            case GREATER_EQUAL:
                return CompareOp.COMPARE_OP_GREATER_EQUAL;
            case LESS:
                return CompareOp.COMPARE_OP_LESS;
            default:
                return CompareOp.COMPARE_OP_LESS_EQUAL;
        }
    }

    /** The protocol message of an aggregator. */
    static io.atoll.client.proto.Aggregator aggregator(Aggregator<?> a) {
        io.atoll.client.proto.Aggregator.Builder b = io.atoll.client.proto.Aggregator.newBuilder().setKind(kind(a.getKind()));
        if (a.getAttribute() != null) {
            b.setAttribute(a.getAttribute());
        }
        return b.build();
    }

    static AggregatorKind kind(Aggregator.Kind k) {
        switch (k) {
            case COUNT:
                return AggregatorKind.AGGREGATOR_KIND_COUNT;
            case DISTINCT:
                return AggregatorKind.AGGREGATOR_KIND_DISTINCT;
            case INTEGER_SUM:
                return AggregatorKind.AGGREGATOR_KIND_INTEGER_SUM;
            case LONG_SUM:
                return AggregatorKind.AGGREGATOR_KIND_LONG_SUM;
            case DOUBLE_SUM:
                return AggregatorKind.AGGREGATOR_KIND_DOUBLE_SUM;
            case FIXED_POINT_SUM:
                return AggregatorKind.AGGREGATOR_KIND_FIXED_POINT_SUM;
            case FLOATING_POINT_SUM:
                return AggregatorKind.AGGREGATOR_KIND_FLOATING_POINT_SUM;
            case INTEGER_AVG:
                return AggregatorKind.AGGREGATOR_KIND_INTEGER_AVG;
            case LONG_AVG:
                return AggregatorKind.AGGREGATOR_KIND_LONG_AVG;
            case DOUBLE_AVG:
                return AggregatorKind.AGGREGATOR_KIND_DOUBLE_AVG;
            case NUMBER_AVG:
                return AggregatorKind.AGGREGATOR_KIND_NUMBER_AVG;
            case MIN:
                return AggregatorKind.AGGREGATOR_KIND_MIN;
            case MAX:
                return AggregatorKind.AGGREGATOR_KIND_MAX;
            case MIN_BY:
                return AggregatorKind.AGGREGATOR_KIND_MIN_BY;
            default:
                return AggregatorKind.AGGREGATOR_KIND_MAX_BY;
        }
    }
}
