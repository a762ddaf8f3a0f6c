package io.atoll.client;

/** The kind of an index ({@link AtollMap#addIndex}). */
public enum IndexType {
    /** Answers equality, IN and ranges ({@code <}, {@code BETWEEN}, ...). */
    SORTED,
    /** Answers equality and IN. */
    HASH
}
