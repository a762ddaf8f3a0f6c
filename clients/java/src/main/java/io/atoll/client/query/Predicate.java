package io.atoll.client.query;

/**
 * A condition on map entries, like Hazelcast's {@code Predicate}: build one with
 * {@link Predicates} and pass it to {@code AtollMap.entrySet(predicate)}, {@code keySet},
 * {@code values}, {@code aggregate} or {@code project}. Predicates are evaluated on the
 * members; the client only sends their tree.
 *
 * <p>Attributes are paths into the key or the value: {@code __key}, {@code __key.id},
 * {@code this}, {@code name}, {@code address.city}, {@code tags[0]},
 * {@code orders[any].amount}. Predicates follow Hazelcast's two-valued logic: a comparison
 * with a missing or null attribute is false ({@code equal(attr, null)} matches null), and
 * {@code not} inverts that.
 *
 * <p>The interface is sealed: the implementations are the records of this package.
 * {@link #toString()} gives a readable form of the condition.
 */
public sealed interface Predicate
        permits ComparisonPredicate, BetweenPredicate, InPredicate, MatchPredicate, AndPredicate, OrPredicate,
        NotPredicate, ConstantPredicate, SqlPredicate, PagingPredicate, PartitionPredicate {
}
