package io.atoll.client.query;

import java.util.List;

/**
 * Returns one page of the entries its inner predicate matches, in the order of its sort keys
 * (by key when there are none), like Hazelcast's {@code PagingPredicate}. Pages are numbered
 * from 0; {@link #nextPage}, {@link #previousPage} and {@link #setPage} move between them and
 * the next query returns the page then current. A paging predicate must be the outermost
 * predicate of a query and cannot be used with an aggregation.
 *
 * <p>Instances are mutable (the page number) and not thread-safe; use one per iteration.
 */
public final class PagingPredicate implements Predicate {
    private final Predicate inner;
    private final int pageSize;
    private final List<SortKey> sortKeys;
    private int page;

    PagingPredicate(Predicate inner, int pageSize, List<SortKey> sortKeys) {
        if (pageSize <= 0) {
            throw new IllegalArgumentException("page size must be positive, got " + pageSize);
        }
        this.inner = inner;
        this.pageSize = pageSize;
        this.sortKeys = List.copyOf(sortKeys);
    }

    /** The predicate the entries must match, or null for every entry. */
    public Predicate getInner() {
        return inner;
    }

    /** The number of entries per page. */
    public int getPageSize() {
        return pageSize;
    }

    /** The sort keys, in order of precedence (empty: by key). */
    public List<SortKey> getSortKeys() {
        return sortKeys;
    }

    /** The current page, 0-based. */
    public int getPage() {
        return page;
    }

    /** Moves to the next page. */
    public PagingPredicate nextPage() {
        page++;
        return this;
    }

    /** Moves to the previous page (not before the first). */
    public PagingPredicate previousPage() {
        if (page > 0) {
            page--;
        }
        return this;
    }

    /** Moves to page {@code page} (0-based). */
    public PagingPredicate setPage(int page) {
        if (page < 0) {
            throw new IllegalArgumentException("page must not be negative, got " + page);
        }
        this.page = page;
        return this;
    }

    @Override
    public String toString() {
        String s = "PAGE " + page + " SIZE " + pageSize;
        if (!sortKeys.isEmpty()) {
            s += " ORDER BY " + String.join(", ", sortKeys.stream().map(SortKey::toString).toList());
        }
        return inner == null ? s : inner + " " + s;
    }
}
