package io.atoll.client.query;

import java.util.Objects;

/**
 * Matches a string attribute against a pattern ({@link Predicates#like},
 * {@link Predicates#ilike}, {@link Predicates#regex}).
 *
 * @param attribute the attribute path
 * @param kind      LIKE, ILIKE or REGEX
 * @param pattern   the pattern
 */
public record MatchPredicate(String attribute, Kind kind, String pattern) implements Predicate {
    /** Pattern kinds. */
    public enum Kind {
        /** SQL LIKE: {@code %} any run, {@code _} one character, {@code \} escapes. */
        LIKE,
        /** LIKE ignoring case. */
        ILIKE,
        /** A regular expression (RE2 syntax) that must match the whole value. */
        REGEX
    }

    public MatchPredicate {
        Objects.requireNonNull(attribute, "attribute");
        Objects.requireNonNull(kind, "kind");
        Objects.requireNonNull(pattern, "pattern");
    }

    @Override
    public String toString() {
        return attribute + " " + kind + " " + Predicates.literal(pattern);
    }
}
