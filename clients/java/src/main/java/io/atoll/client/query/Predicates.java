package io.atoll.client.query;

import java.util.Arrays;
import java.util.List;
import java.util.Objects;

/**
 * Builds predicates, with the names of Hazelcast's {@code Predicates}:
 *
 * <pre>{@code
 * Predicate p = Predicates.and(
 *         Predicates.equal("active", true),
 *         Predicates.greaterThan("age", 30),
 *         Predicates.like("name", "J%"));
 * Collection<Person> people = map.values(p);
 * }</pre>
 *
 * <p>Values are Java scalars: {@code Boolean}, {@code Byte} (TINYINT), {@code Short}
 * (SMALLINT), {@code Integer} (INTEGER), {@code Long} (BIGINT), {@code Float} (REAL),
 * {@code Double} (DOUBLE), {@code String} and {@code Character} (VARCHAR), {@code BigDecimal}
 * and {@code BigInteger} (DECIMAL), {@code LocalDate} (DATE), {@code LocalTime} (TIME),
 * {@code LocalDateTime} (TIMESTAMP), {@code OffsetDateTime}, {@code ZonedDateTime} and
 * {@code Instant} (TIMESTAMP WITH TIME ZONE). Anything else is serialized with the client's
 * serialization service and compared as an object (with {@code __key} or {@code this}).
 * Numbers compare by value across types: {@code equal("age", 36L)} matches an INT32 field.
 */
public final class Predicates {
    private Predicates() {
    }

    /** Matches entries whose attribute equals the value ({@code equal(attr, null)} matches a null or missing attribute). */
    public static Predicate equal(String attribute, Object value) {
        return new ComparisonPredicate(attribute, ComparisonPredicate.Op.EQUAL, value);
    }

    /** Matches entries whose attribute does not equal the value. */
    public static Predicate notEqual(String attribute, Object value) {
        return new ComparisonPredicate(attribute, ComparisonPredicate.Op.NOT_EQUAL, value);
    }

    /** Matches {@code attribute > value}. */
    public static Predicate greaterThan(String attribute, Object value) {
        return new ComparisonPredicate(attribute, ComparisonPredicate.Op.GREATER, value);
    }

    /** Matches {@code attribute >= value}. */
    public static Predicate greaterEqual(String attribute, Object value) {
        return new ComparisonPredicate(attribute, ComparisonPredicate.Op.GREATER_EQUAL, value);
    }

    /** Matches {@code attribute < value}. */
    public static Predicate lessThan(String attribute, Object value) {
        return new ComparisonPredicate(attribute, ComparisonPredicate.Op.LESS, value);
    }

    /** Matches {@code attribute <= value}. */
    public static Predicate lessEqual(String attribute, Object value) {
        return new ComparisonPredicate(attribute, ComparisonPredicate.Op.LESS_EQUAL, value);
    }

    /** Matches {@code from <= attribute <= to}. */
    public static Predicate between(String attribute, Object from, Object to) {
        return new BetweenPredicate(attribute, from, to);
    }

    /** Matches an attribute equal to one of the values. */
    public static Predicate in(String attribute, Object... values) {
        return new InPredicate(attribute, Arrays.asList(Objects.requireNonNull(values, "values")));
    }

    /** Matches a string attribute against a LIKE pattern ({@code %} any run, {@code _} one character, {@code \} escapes). */
    public static Predicate like(String attribute, String pattern) {
        return new MatchPredicate(attribute, MatchPredicate.Kind.LIKE, pattern);
    }

    /** {@link #like} ignoring case. */
    public static Predicate ilike(String attribute, String pattern) {
        return new MatchPredicate(attribute, MatchPredicate.Kind.ILIKE, pattern);
    }

    /** Matches a string attribute against a regular expression (RE2 syntax, matching the whole value as {@code String.matches} does). */
    public static Predicate regex(String attribute, String regex) {
        return new MatchPredicate(attribute, MatchPredicate.Kind.REGEX, regex);
    }

    /** Matches entries that every predicate matches. */
    public static Predicate and(Predicate... predicates) {
        return new AndPredicate(Arrays.asList(predicates));
    }

    /** Matches entries that any predicate matches. */
    public static Predicate or(Predicate... predicates) {
        return new OrPredicate(Arrays.asList(predicates));
    }

    /** Matches entries that the predicate does not match. */
    public static Predicate not(Predicate predicate) {
        return new NotPredicate(predicate);
    }

    /** Matches every entry. */
    public static Predicate alwaysTrue() {
        return new ConstantPredicate(true);
    }

    /** Matches no entry. */
    public static Predicate alwaysFalse() {
        return new ConstantPredicate(false);
    }

    /**
     * A predicate in Hazelcast's predicate SQL, for example
     * {@code "active AND age > 30 AND name LIKE 'J%'"}; the member parses it, and a malformed
     * one fails the query with a {@code QueryException}.
     */
    public static Predicate sql(String text) {
        return new SqlPredicate(text);
    }

    /** The first page of {@code pageSize} entries, ordered by key. */
    public static PagingPredicate pagingPredicate(int pageSize) {
        return new PagingPredicate(null, pageSize, List.of());
    }

    /**
     * The first page of {@code pageSize} entries that {@code inner} (null: every entry)
     * matches, ordered by the sort keys (by key when none are given).
     */
    public static PagingPredicate pagingPredicate(Predicate inner, int pageSize, SortKey... sortKeys) {
        return new PagingPredicate(inner, pageSize, Arrays.asList(sortKeys));
    }

    /** Restricts {@code target} to the partition that owns {@code partitionKey}: only that partition is scanned. */
    public static Predicate partitionPredicate(Object partitionKey, Predicate target) {
        return new PartitionPredicate(partitionKey, target);
    }

    static String literal(Object v) {
        if (v == null) {
            return "NULL";
        }
        if (v instanceof String || v instanceof Character) {
            return "'" + v.toString().replace("'", "''") + "'";
        }
        return String.valueOf(v);
    }

    static String join(List<Predicate> ps, String op) {
        StringBuilder b = new StringBuilder();
        for (int i = 0; i < ps.size(); i++) {
            b.append(i > 0 ? " " + op + " " : "").append('(').append(ps.get(i)).append(')');
        }
        return b.toString();
    }
}
