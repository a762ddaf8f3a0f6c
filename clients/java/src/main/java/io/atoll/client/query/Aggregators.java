package io.atoll.client.query;

import java.util.Map;
import java.util.Objects;
import java.util.Set;

/**
 * Builds aggregators, with the names of Hazelcast's {@code Aggregators}:
 *
 * <pre>{@code
 * long adults = people.aggregate(Aggregators.count(), Predicates.greaterEqual("age", 18));
 * Double avgAge = people.aggregate(Aggregators.integerAvg("age"));
 * Map.Entry<String, Person> oldest = people.aggregate(Aggregators.maxBy("age"));
 * }</pre>
 *
 * <p>Over no entries, counts and sums are 0, averages, minimums and maximums null,
 * {@code distinct} an empty set and {@code minBy}/{@code maxBy} null.
 */
public final class Aggregators {
    private Aggregators() {
    }

    private static String attr(String attribute) {
        return Objects.requireNonNull(attribute, "attribute");
    }

    /** Counts the entries. */
    public static Aggregator<Long> count() {
        return new Aggregator<>(Aggregator.Kind.COUNT, null);
    }

    /** Counts the entries whose attribute is not null. */
    public static Aggregator<Long> count(String attribute) {
        return new Aggregator<>(Aggregator.Kind.COUNT, attr(attribute));
    }

    /** The distinct values of the attribute. */
    public static <R> Aggregator<Set<R>> distinct(String attribute) {
        return new Aggregator<>(Aggregator.Kind.DISTINCT, attr(attribute));
    }

    /** Sums an int attribute. */
    public static Aggregator<Long> integerSum(String attribute) {
        return new Aggregator<>(Aggregator.Kind.INTEGER_SUM, attr(attribute));
    }

    /** Sums a long attribute. */
    public static Aggregator<Long> longSum(String attribute) {
        return new Aggregator<>(Aggregator.Kind.LONG_SUM, attr(attribute));
    }

    /** Sums a double attribute. */
    public static Aggregator<Double> doubleSum(String attribute) {
        return new Aggregator<>(Aggregator.Kind.DOUBLE_SUM, attr(attribute));
    }

    /** Sums any integer attribute. */
    public static Aggregator<Long> fixedPointSum(String attribute) {
        return new Aggregator<>(Aggregator.Kind.FIXED_POINT_SUM, attr(attribute));
    }

    /** Sums any numeric attribute as doubles. */
    public static Aggregator<Double> floatingPointSum(String attribute) {
        return new Aggregator<>(Aggregator.Kind.FLOATING_POINT_SUM, attr(attribute));
    }

    /** Averages an int attribute. */
    public static Aggregator<Double> integerAvg(String attribute) {
        return new Aggregator<>(Aggregator.Kind.INTEGER_AVG, attr(attribute));
    }

    /** Averages a long attribute. */
    public static Aggregator<Double> longAvg(String attribute) {
        return new Aggregator<>(Aggregator.Kind.LONG_AVG, attr(attribute));
    }

    /** Averages a double attribute. */
    public static Aggregator<Double> doubleAvg(String attribute) {
        return new Aggregator<>(Aggregator.Kind.DOUBLE_AVG, attr(attribute));
    }

    /** Averages any numeric attribute. */
    public static Aggregator<Double> numberAvg(String attribute) {
        return new Aggregator<>(Aggregator.Kind.NUMBER_AVG, attr(attribute));
    }

    /** The smallest value of the attribute. */
    public static <R> Aggregator<R> comparableMin(String attribute) {
        return new Aggregator<>(Aggregator.Kind.MIN, attr(attribute));
    }

    /** The largest value of the attribute. */
    public static <R> Aggregator<R> comparableMax(String attribute) {
        return new Aggregator<>(Aggregator.Kind.MAX, attr(attribute));
    }

    /** The entry whose attribute is smallest. */
    public static <K, V> Aggregator<Map.Entry<K, V>> minBy(String attribute) {
        return new Aggregator<>(Aggregator.Kind.MIN_BY, attr(attribute));
    }

    /** The entry whose attribute is largest. */
    public static <K, V> Aggregator<Map.Entry<K, V>> maxBy(String attribute) {
        return new Aggregator<>(Aggregator.Kind.MAX_BY, attr(attribute));
    }
}
